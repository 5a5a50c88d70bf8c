# A meta-ttt bot that counts its calls in a data.txt file, then plays the
# smallest legal move.
# Usage: python3 data_counter.py WHERE [the 12 game arguments]
#   relative  the file is "data.txt", relative to the working directory: in
#             a tournament that is the tournament folder, where no bot may
#             write (the mistake of naming a file from the bot's folder)
#   home      the file is $HOME/data.txt: the bot's own folder
import os
import sys

where, args = sys.argv[1], sys.argv[2:]
path = "data.txt" if where == "relative" else os.path.join(os.environ["HOME"], "data.txt")
try:
    with open(path) as f:
        calls = int(f.read().strip() or "0")
except FileNotFoundError:
    calls = 0
with open(path, "w") as f:
    f.write(f"{calls + 1}\n")

boards, master, last = args[1:10], args[10], args[11]


def playable(b):
    return master[b] == "-" and "-" in boards[b]


choices = [int(last[1])] if last != "xx" and playable(int(last[1])) else range(9)
for b in choices:
    if playable(b):
        print(f"{b}{boards[b].index('-')}")
        break
