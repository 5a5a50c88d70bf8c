# A forty bot speaking the line protocol directly, misbehaving on purpose.
#
# Usage: python3 forty_raw.py MODE [N]
# It stops at once on every decision (like StopBot) except where MODE says:
#   good        behaves
#   stall N     answers N asks, then reads on but never answers again
#   reverse     answers the asks of each batch in reverse order
#   garbage     answers every ask "G maybe"
#   crash N     exits (status 3) when its (N+1)-th ask arrives
#   crash-once N  like crash, but only once (a marker file in HOME,
#               written as it crashes, remembers), so the restarted one
#               behaves
#   extra       writes one extra line after the reply to its first ask
#   noshake     reads, never answers the handshake
#   badshake    answers the handshake "hello"
import os
import sys

mode = sys.argv[1]
limit = int(sys.argv[2]) if len(sys.argv) > 2 else 0
marker = None
if mode == "crash-once":
    marker = os.path.join(os.environ.get("HOME", "."), "crashed-once")
    mode = "good" if os.path.exists(marker) else "crash"

inp = sys.stdin.buffer
out = sys.stdout.buffer


def write(data):
    out.write(data)
    out.flush()


first = inp.readline()
if mode == "noshake":
    while inp.read(65536):
        pass
    sys.exit(0)
write(b"hello\n" if mode == "badshake" else b"ok Raw" + mode.replace("-", "").encode() + b"\n")

asked = 0
extra_done = False
pending = b""
while True:
    chunk = os.read(0, 65536)
    if not chunk:
        break
    pending += chunk
    *complete, pending = pending.split(b"\n")
    replies = []
    for line in complete:
        fields = line.split(b" ")
        if fields[0] != b"ask":
            continue
        gid = fields[1]
        if mode == "crash" and asked >= limit:
            write(b"\n".join(replies + [b""]) if replies else b"")
            if marker:
                open(marker, "w").close()
            os._exit(3)
        asked += 1
        if mode == "stall" and asked > limit:
            continue
        if mode == "garbage":
            replies.append(gid + b" maybe")
        else:
            replies.append(gid + b" 0")
    if mode == "reverse":
        replies.reverse()
    if mode == "extra" and replies and not extra_done:
        replies.append(b"oops, an extra line")
        extra_done = True
    if replies:
        write(b"\n".join(replies) + b"\n")
    print("batch of %d lines, %d replies" % (len(complete), len(replies)), file=sys.stderr)
sys.exit(0)
