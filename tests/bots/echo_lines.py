# A persistent line bot: answers each line with "got LINE" and exits at EOF.
import sys

for line in sys.stdin:
    sys.stdout.write("got " + line.rstrip("\n") + "\n")
    sys.stdout.flush()
    print("echoed", line.strip(), file=sys.stderr, flush=True)
