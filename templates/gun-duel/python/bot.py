"""{{name}}: a gun-duel bot.

Interface io: this program runs once for the whole tournament, from the
tournament folder. It reads lines: I<id> when a duel starts (the
opponent's id), F when a move is wanted, P<c> after every turn with the
opponent's move (? for none). Answer each F with one move and flush:
0 load (+1 ammo), 1 bullet (-1), 2 plasma (-2), - metal shield,
= thermal deflector. Firing without the ammo makes the gun explode.
"""
import sys

AMMO = {"0": 1, "1": -1, "2": -2, "-": 0, "=": 0}


def choose(mine, theirs):
    """A bullet kills a loader or a thermal deflector; metal stops it.
    Plasma kills a loader, a bullet or metal; thermal stops it."""
    if theirs >= 2:
        return "="
    if theirs == 1:
        return "-"
    if mine >= 1:
        return "1"  # an unarmed opponent can only load or shield
    return "0"


def main():
    mine = theirs = 0
    for line in sys.stdin:
        line = line.strip()
        if line.startswith("I"):
            mine = theirs = 0
        elif line == "F":
            move = choose(mine, theirs)
            mine += AMMO[move]
            print(move, flush=True)
        elif line.startswith("P"):
            theirs += AMMO.get(line[1:], 0)


if __name__ == "__main__":
    main()
