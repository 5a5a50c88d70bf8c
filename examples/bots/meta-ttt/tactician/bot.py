"""tactician: a meta tic-tac-toe bot that looks one move ahead.

It scores every legal move: winning the game, winning a small board and
blocking the opponent's small-board wins are worth a lot; sending the
opponent to a board it can win at once, or giving it a free move, costs.
It remembers how many games it played in data.txt (its own folder).
"""
import os
import sys

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def winner(cells):
    for a, b, c in LINES:
        if cells[a] != "-" and cells[a] == cells[b] == cells[c]:
            return cells[a]
    return None


def is_open(boards, master, b):
    return master[b] == "-" and "-" in boards[b]


def legal_moves(boards, master, last):
    forced = None
    if last != "xx":
        t = int(last[1])
        if is_open(boards, master, t):
            forced = t
    targets = [forced] if forced is not None else [b for b in range(9) if is_open(boards, master, b)]
    return [(b, t) for b in targets for t in range(9) if boards[b][t] == "-"]


def wins_board(cells, t, mark):
    after = cells[:t] + mark + cells[t + 1:]
    return winner(after) == mark


def can_win_somewhere(boards, master, b, mark):
    """Can `mark` win board b (or, if b is closed, any open board) in one move?"""
    targets = [b] if is_open(boards, master, b) else [x for x in range(9) if is_open(boards, master, x)]
    return any(wins_board(boards[x], t, mark) for x in targets for t in range(9) if boards[x][t] == "-")


def score(boards, master, me, them, move):
    b, t = move
    s = 0.0
    if wins_board(boards[b], t, me):
        new_master = master[:b] + me + master[b + 1:]
        if winner(new_master) == me:
            return 1e6
        s += 50
        # Boards that help a master line count more.
        s += 5 * sum(1 for line in LINES if b in line and all(new_master[i] in (me, "-") for i in line))
    if wins_board(boards[b], t, them):
        s += 30  # block
    new_boards = list(boards)
    new_boards[b] = boards[b][:t] + me + boards[b][t + 1:]
    new_master = master
    if wins_board(boards[b], t, me):
        new_master = master[:b] + me + master[b + 1:]
    if not is_open(new_boards, new_master, t):
        s -= 15  # a free move for the opponent
    if can_win_somewhere(new_boards, new_master, t, them):
        s -= 40
    s += {4: 3, 0: 1, 2: 1, 6: 1, 8: 1}.get(t, 0)
    return s


def remember_game(me, boards):
    # Count first moves seen, as a small use of the bot's own data file.
    if all(x == "-" * 9 for x in boards):
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data.txt")
        try:
            with open(path) as f:
                n = int(f.read().strip() or "0")
        except (OSError, ValueError):
            n = 0
        try:
            with open(path, "w") as f:
                f.write(str(n + 1))
        except OSError:
            pass


def main():
    args = sys.argv[1:]
    if len(args) != 12:
        sys.exit("tactician: expected 12 arguments")
    me = args[0]
    them = "O" if me == "X" else "X"
    boards, master, last = args[1:10], args[10], args[11]
    moves = legal_moves(boards, master, last)
    if not moves:
        sys.exit("tactician: no legal move")
    remember_game(me, boards)
    best = max(moves, key=lambda m: score(boards, master, me, them, m))
    print(f"{best[0]}{best[1]}")


main()
