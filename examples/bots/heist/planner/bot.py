"""planner: reads the table and steals where nobody is watching.

A double cross succeeds when at most one real heister in ten (at least one)
tries it, and takes the winnings of everyone who went along, rabble
included. Double-crossers and finger-pointers flock to crowded heists, where
the winnings are large; the planner works the quiet ones instead:

Round 1: projects how many heisters the game will have (the players still to
move bet at about the rabble's rate at the current bank). In a quiet game it
stakes a single credit, which is all it needs to take part in round 2. It
stakes a tenth of its credits whenever a credit staked is expected to come
back as more than a credit (its odds, improved by intel, can get there).

Round 2: in a quiet heist it double-crosses unless many heisters already
backed out (little left to take); with a real stake it acquires intel while
its odds are below break-even, otherwise it goes along.
"""
import sys

# The rabble's chance to bet at each bank (the banks' base probabilities).
BASE_PROB = [0.540, 0.488, 0.425, 0.387, 0.324]
# Fewer heisters than this: a quiet game.
QUIET = 20
# About one heister in ten backs out.
STAY = 0.9


def bank(heisters, invested):
    return min(4, (heisters + invested // 100000) // 20)


def stake(n, moved, heisters, invested, credits, prob, odds):
    still_to_move = n - moved - 1
    rate = BASE_PROB[bank(heisters, invested)]
    expected = heisters + 1 + int(still_to_move * rate)
    b = bank(expected, invested)
    if prob[b] * STAY * (1.0 + odds[b]) > 1.0:
        return max(1, credits // 10)
    if expected < QUIET and credits > 0:
        return 1
    return 0


def decide(heisters, asked, confirmed, b, bet, prob, odds):
    backed_out = asked - confirmed
    if heisters < QUIET and backed_out * 3 <= asked:
        return "double cross"
    if bet > 1 and prob[b] * STAY * (1.0 + odds[b]) <= 1.0:
        return "acquire intel"
    return "guncheck"


def main(args):
    if len(args) != 31:
        print(0)
        return
    game, rnd, n, moved, heisters, invested, confirmed, b, credits, bet = map(int, args[:10])
    prob = [float(x) for x in args[21:26]]
    odds = [float(x) for x in args[26:31]]
    if rnd == 1:
        print(stake(n, moved, heisters, invested, credits, prob, odds))
    else:
        print(decide(heisters, moved, confirmed, b, bet, prob, odds))


main(sys.argv[1:])
