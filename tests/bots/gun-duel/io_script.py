"""gun-duel interface-2 test bot: plays scripts and records every line.

    io_script.py SCRIPTS RECORD [stubborn]

SCRIPTS holds one script per duel, comma-separated; the n-th duel this
process sees (counted by `I` lines) plays script n, the last one once they
are used up. On the t-th `F` of a duel it acts on SCRIPT[t] (the last
character once the script is used up):

    0 1 2 - =   writes that move and a newline
    x           writes "x" (bad output)
    w           writes 5000 spaces, then "0" (too much whitespace)
    s           stops answering (sleeps)
    q           exits (dies)
    B           writes every remaining character of the script at once,
                then nothing for the rest of the duel

Every line received is appended to RECORD, and "EOF" at end of input; the
pid goes to RECORD.pid. A RECORD of "-" records nothing. With `stubborn` it starts a child (pid in
RECORD.child), and ignores end of input instead of exiting.
"""

import os
import subprocess
import sys
import time

scripts = sys.argv[1].split(",")
record_path = sys.argv[2]
stubborn = len(sys.argv) > 3 and sys.argv[3] == "stubborn"

record = None
if record_path != "-":
    with open(record_path + ".pid", "w") as f:
        f.write(str(os.getpid()))
    record = open(record_path, "a")
if stubborn:
    child = subprocess.Popen(["sleep", "1000"])
    if record is not None:
        with open(record_path + ".child", "w") as f:
            f.write(str(child.pid))


def note(text):
    if record is not None:
        record.write(text + "\n")
        record.flush()


def write(data):
    os.write(1, data.encode())


duel = -1
turn = 0
burst_done = False
stdin = sys.stdin.buffer
while True:
    line = stdin.readline()
    if not line:
        break
    text = line.decode().rstrip("\n")
    note(text)
    if text.startswith("I"):
        duel += 1
        turn = 0
        burst_done = False
    elif text == "F":
        script = scripts[min(max(duel, 0), len(scripts) - 1)]
        c = script[min(turn, len(script) - 1)]
        turn += 1
        if burst_done:
            continue
        if c == "B":
            write(script[turn:])
            burst_done = True
        elif c == "x":
            write("x\n")
        elif c == "w":
            write(" " * 5000 + "0\n")
        elif c == "s":
            time.sleep(3600)
        elif c == "q":
            sys.exit(0)
        else:
            write(c + "\n")
note("EOF")
if stubborn:
    while True:
        time.sleep(1)
