# Plays the smallest legal move, like the C example firstLegal (for
# tests that need a second language).
import sys

a = sys.argv[1:]
boards, master, last = a[1:10], a[10], a[11]
open_ = lambda b: master[b] == "-" and "-" in boards[b]
targets = list(range(9))
if last != "xx" and open_(int(last[1])):
    targets = [int(last[1])]
for b in targets:
    if open_(b):
        t = boards[b].index("-")
        print(f"{b}{t}")
        break
