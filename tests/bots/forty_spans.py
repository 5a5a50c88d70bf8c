# A forty bot that records when it is busy: for every batch it reads, the
# monotonic time (ns) right after the read and right before its replies are
# written, the CPUs it may run on then and the number of asks, one
# "START END CPU,CPU... ASKS" line per batch in $HOME/spans.txt (written at
# end of input). It stops at once on every decision (or, with `throw`,
# always throws), after spinning for MS milliseconds per batch so that
# batches take a while.
#
# Usage: python3 forty_spans.py MS [throw]
# A batch's span lies inside the time the referee counts the process as
# having asks outstanding, so spans of different processes that overlap
# show processes that were served at once.
import os
import sys
import time

spin = int(sys.argv[1]) * 1_000_000 if len(sys.argv) > 1 else 0
answer = b" 1" if sys.argv[2:] == ["throw"] else b" 0"
clock = time.monotonic_ns
spans = []

first = sys.stdin.buffer.readline()
os.write(1, b"ok Spans\n")
pending = b""
while True:
    chunk = os.read(0, 65536)
    if not chunk:
        break
    start = clock()
    pending += chunk
    *complete, pending = pending.split(b"\n")
    replies = [line.split(b" ")[1] + answer for line in complete if line.startswith(b"ask ")]
    if replies:
        while clock() - start < spin:
            pass
        end = clock()
        cpus = ",".join(str(c) for c in sorted(os.sched_getaffinity(0))).encode()
        spans.append(b"%d %d %s %d\n" % (start, end, cpus, len(replies)))
        os.write(1, b"\n".join(replies) + b"\n")
with open(os.path.join(os.environ["HOME"], "spans.txt"), "wb") as f:
    f.write(b"".join(spans))
