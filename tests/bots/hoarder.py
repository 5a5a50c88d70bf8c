# Fills its own folder ($HOME) past the sandbox policy's limits, then plays
# an honest game: the referee must notice the folder between calls.
#
# Usage: python3 hoarder.py PROTOCOL WHAT [per-call arguments...]
#   WHAT      files   1100 empty files in $HOME/hoard/ (policies allow 1000)
#             bytes   two files of 40 MiB of data (policies allow 64 MiB)
#             sparse  one file of 1 TiB that is all hole (uses nothing)
#             flood   empty files in $HOME/flood/ without pause (up to
#                     200,000), then sleeps: never answers by itself
#             none    nothing
#   PROTOCOL  meta-ttt  one call: the smallest legal move
#             gun-io    gun-duel interface 2: loads on every F
#             forty     forty's line protocol: stops at once on every ask
# Existing files are kept, so every call or process finds the folder as
# the last one left it.
import os
import sys
import time

protocol, what, args = sys.argv[1], sys.argv[2], sys.argv[3:]
home = os.environ["HOME"]


def hoard():
    if what == "files":
        d = os.path.join(home, "hoard")
        os.makedirs(d, exist_ok=True)
        for i in range(1100):
            p = os.path.join(d, str(i))
            if not os.path.exists(p):
                open(p, "w").close()
    elif what == "bytes":
        chunk = b"x" * (1 << 20)
        for name in ("big1", "big2"):
            p = os.path.join(home, name)
            if not os.path.exists(p):
                with open(p, "wb") as f:
                    for _ in range(40):
                        f.write(chunk)
    elif what == "flood":
        d = os.path.join(home, "flood")
        os.makedirs(d, exist_ok=True)
        for i in range(200000):
            open(os.path.join(d, "%d-%d" % (os.getpid(), i)), "w").close()
        time.sleep(3600)
    elif what == "sparse":
        with open(os.path.join(home, "sparse"), "wb") as f:
            f.truncate(1 << 40)


hoard()
if protocol == "meta-ttt":
    boards, master, last = args[1:10], args[10], args[11]
    open_ = lambda b: master[b] == "-" and "-" in boards[b]
    targets = list(range(9))
    if last != "xx" and open_(int(last[1])):
        targets = [int(last[1])]
    for b in targets:
        if open_(b):
            print(f"{b}{boards[b].index('-')}")
            break
elif protocol == "gun-io":
    for line in sys.stdin:
        if line.startswith("F"):
            sys.stdout.write("0\n")
            sys.stdout.flush()
elif protocol == "forty":
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    inp.readline()
    out.write(b"ok Hoarder\n")
    out.flush()
    pending = b""
    while True:
        chunk = os.read(0, 65536)
        if not chunk:
            break
        pending += chunk
        *complete, pending = pending.split(b"\n")
        replies = [l.split(b" ")[1] + b" 0" for l in complete if l.startswith(b"ask ")]
        if replies:
            out.write(b"\n".join(replies) + b"\n")
            out.flush()
