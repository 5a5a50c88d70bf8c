# Plays the smallest legal move after a short think, and appends
# "start end" (nanoseconds) of each call to calls.txt in its own folder,
# so a test can check that no bot is in two games at once.
import os
import sys
import time

start = time.time_ns()
a = sys.argv[1:]
boards, master, last = a[1:10], a[10], a[11]
open_ = lambda b: master[b] == "-" and "-" in boards[b]
targets = list(range(9))
if last != "xx" and open_(int(last[1])):
    targets = [int(last[1])]
move = next(f"{b}{boards[b].index('-')}" for b in targets if open_(b))
time.sleep(0.02)
with open(os.path.join(os.environ["HOME"], "calls.txt"), "a") as f:
    f.write(f"{start} {time.time_ns()}\n")
print(move)
