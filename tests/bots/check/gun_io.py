# gun-duel interface-2 bot for `referee check` tests.
# Usage: python3 gun_io.py MODE
#   good     loads with no ammo, fires a bullet otherwise; at the end of its
#            input it writes duels.txt (the number of duels) in its folder
#            ($HOME: it runs in the tournament folder)
#   garbage  answers "x" to the third F
#   stall    never answers the third F
#   double   answers the first F with two moves
import os
import sys
import time

mode = sys.argv[1]
ammo = 0
asked = 0
duels = 0
for line in sys.stdin:
    line = line.strip()
    if line.startswith("I"):
        ammo = 0
        duels += 1
    elif line == "F":
        asked += 1
        if asked == 3 and mode == "garbage":
            move = "x"
        elif asked == 3 and mode == "stall":
            time.sleep(60)
            move = "0"
        elif ammo >= 1:
            move = "1"
        else:
            move = "0"
        if asked == 1 and mode == "double":
            move = "00"
        ammo += {"0": 1, "1": -1}.get(move[0], 0)
        sys.stdout.write(move + "\n")
        sys.stdout.flush()
if mode == "good":
    with open(os.path.join(os.environ["HOME"], "duels.txt"), "w") as f:
        f.write(f"{duels}\n")
