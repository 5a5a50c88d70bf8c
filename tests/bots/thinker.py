# A meta-ttt bot that thinks for a fixed amount of work (about 0.1-0.2 s of
# CPU on a desktop, the same work every call), then plays the largest legal
# move. Deterministic: for tests of verdicts on a busy machine.
import sys

a = sys.argv[1:]
boards, master, last = a[1:10], a[10], a[11]
work = 0
for i in range(600_000):
    work = (work * 31 + i) & 0xFFFF
open_ = lambda b: master[b] == "-" and "-" in boards[b]
targets = list(range(9))
if last != "xx" and open_(int(last[1])):
    targets = [int(last[1])]
for b in reversed(targets):
    if open_(b):
        t = boards[b].rindex("-")
        print(f"{b}{t}")
        break
