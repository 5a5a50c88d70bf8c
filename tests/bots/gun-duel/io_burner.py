"""gun-duel interface-2 test bot: computes for a fixed amount of work on
every `F`, then reloads (`0`). For tests of the CPU time stored per duel."""

import sys

for line in sys.stdin:
    if line.strip() == "F":
        x = 0
        for i in range(200_000):
            x = (x * 31 + i) & 0xFFFF
        sys.stdout.write("0\n")
        sys.stdout.flush()
