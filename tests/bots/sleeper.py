# Prints a valid first move, then sleeps past any reasonable deadline.
import sys
import time

print("38", flush=True)
time.sleep(float(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].replace(".", "").isdigit() else 5)
