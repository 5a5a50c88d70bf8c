# A hostile meta-ttt bot: before playing the smallest legal move it tries to
# read and write a neighbour's data, write outside its folder and reach the
# network, and records what happened in its own folder (attacks.txt).
# Usage: snoop.py PORT [12 game arguments]
import os
import socket
import sys

port = int(sys.argv[1])
results = []


def attempt(name, action):
    try:
        action()
        results.append(f"{name}: succeeded")
    except Exception as e:  # noqa: BLE001 - any failure is the point
        results.append(f"{name}: denied ({type(e).__name__})")


def read_neighbour():
    with open("victim/data.txt") as f:
        f.read()


def write_neighbour():
    with open("victim/data.txt", "w") as f:
        f.write("owned")


def write_root():
    with open("escape.txt", "w") as f:
        f.write("x")


def write_tmp():
    with open(f"/tmp/referee-escape-{os.getpid()}", "w") as f:
        f.write("x")


def see_referee():
    # The referee's command line, found by listing /proc: with a PID
    # namespace per bot, the bot sees its own processes only.
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"--instructions" in f.read():
                    return
        except OSError:
            pass
    raise PermissionError("not in /proc")


def stat_neighbour():
    os.stat("victim")


def tcp():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(1)
    s.connect(("127.0.0.1", port))


def udp():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.sendto(b"hello", ("127.0.0.1", port))


for name, action in [("read neighbour", read_neighbour), ("write neighbour", write_neighbour),
                     ("write tournament root", write_root), ("write /tmp", write_tmp),
                     ("tcp connect", tcp), ("udp send", udp), ("see referee", see_referee),
                     ("stat neighbour", stat_neighbour)]:
    attempt(name, action)
with open(os.path.join(os.environ["HOME"], "attacks.txt"), "a") as f:
    f.write("\n".join(results) + "\n")

a = sys.argv[2:]
boards, master, last = a[1:10], a[10], a[11]
open_ = lambda b: master[b] == "-" and "-" in boards[b]
targets = [int(last[1])] if last != "xx" and open_(int(last[1])) else range(9)
print(next(f"{b}{boards[b].index('-')}" for b in targets if open_(b)))
