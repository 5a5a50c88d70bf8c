"""{{name}}: a meta tic-tac-toe bot.

Each move runs this program once, from the tournament folder, with 12
arguments: my letter (X or O), boards 0-8 (9 characters each: -, X or O),
the master board, and the last move (two digits, or xx when the move is
free). Print one move, board then tile (e.g. 38), and exit within the time
limit. The folder {{name}}/ is yours: {{name}}/data.txt persists between
games.
"""
import random
import sys

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def is_open(boards, master, b):
    """Neither won (master shows it) nor full."""
    return master[b] == "-" and "-" in boards[b]


def legal_moves(boards, master, last):
    if last != "xx" and is_open(boards, master, int(last[1])):
        allowed = [int(last[1])]
    else:
        allowed = [b for b in range(9) if is_open(boards, master, b)]
    return [(b, t) for b in allowed for t in range(9) if boards[b][t] == "-"]


def wins_board(board, tile, me):
    cells = board[:tile] + me + board[tile + 1:]
    return any(all(cells[i] == me for i in line) for line in LINES)


def main():
    me, boards, master, last = sys.argv[1], sys.argv[2:11], sys.argv[11], sys.argv[12]
    moves = legal_moves(boards, master, last)
    winning = [m for m in moves if wins_board(boards[m[0]], m[1], me)]
    board, tile = random.choice(winning or moves)
    print(f"{board}{tile}")


if __name__ == "__main__":
    main()
