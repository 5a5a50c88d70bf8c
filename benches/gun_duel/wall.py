"""A minimal interface-2 bot: answers every F with a metal shield."""
import sys

out = sys.stdout
for line in sys.stdin:
    if line.startswith("F"):
        out.write("-\n")
        out.flush()
