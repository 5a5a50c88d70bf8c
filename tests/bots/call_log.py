"""A strict bot that records every call it gets in $HOME/calls.log (its own
folder) and refuses, with exit status 3 and a STRICT line on stderr, any
call that its tournament could not make. It plays the simplest legal move.

Usage: call_log.py CHALLENGE [checks...] [the call's arguments...]
  meta-ttt                12 arguments; logs them; plays the first legal cell
  heist BOTS RABBLE GAMES 31 arguments; bets 0 (so it is never asked in
                          round 2); its folder is read-only in play, so it
                          records "CALL game round players credits" on
                          stderr, which its log keeps
  gun-duel N              interface 1; logs the arguments; loads (exit '0')
  forty SEATS             a line bot: logs every line it reads; answers
                          `ok`, then stops at once on every ask
"""
import os
import sys

LOG = os.path.join(os.environ["HOME"], "calls.log")


def log(line):
    with open(LOG, "a") as f:
        f.write(line + "\n")


def strict(ok, why):
    if not ok:
        sys.stderr.write("STRICT: %s: %s\n" % (why, " ".join(sys.argv[1:])))
        sys.exit(3)


def meta_ttt(args):
    strict(len(args) == 12, "12 arguments")
    boards, master, last = args[1:10], args[10], args[11]
    strict(all(len(b) == 9 and set(b) <= set("XO-") for b in boards), "boards")
    log(" ".join(args))

    def playable(b):
        return master[b] == "-" and "-" in boards[b]

    choices = [int(last[1])] if last != "xx" and playable(int(last[1])) else range(9)
    for b in choices:
        if playable(b):
            print("%d%d" % (b, boards[b].index("-")))
            return


def heist(bots, rabble, games, args):
    strict(len(args) == 31, "31 arguments")
    game, rnd, players, credits = int(args[0]), int(args[1]), int(args[2]), int(args[8])
    strict(0 <= game < games, "game number within the tournament's %d" % games)
    strict(rnd in (1, 2), "round")
    strict(bots <= players <= bots + rabble, "players: %d bots and %d rabble" % (bots, rabble))
    strict(game > 0 or credits == 240, "the starting credits in game 0")
    sys.stderr.write("CALL %d %d %d %d\n" % (game, rnd, players, credits))
    print(0)


def gun_duel(n, args):
    strict(len(args) in (5, 7), "5 or 7 arguments")
    strict(0 <= int(args[0]) < n, "an opponent id of the %d-bot field" % n)
    log(" ".join(args))
    sys.exit(ord("0"))


def forty(seats):
    first = True
    for line in sys.stdin:
        line = line.rstrip("\n")
        log(line)
        words = line.split(" ")
        if first:
            strict(words[:2] == ["forty", "1"] and len(words) == 3, "the handshake")
            print("ok", flush=True)
            first = False
        elif words[0] == "new":
            strict(int(words[2]) < seats and words[3] == "40", "a seat of %d" % seats)
        elif words[0] == "ask":
            strict(len(words[4].split(",")) == seats, "scores of %d seats" % seats)
            print("%s 0" % words[1], flush=True)


def main():
    challenge, rest = sys.argv[1], sys.argv[2:]
    if challenge == "meta-ttt":
        meta_ttt(rest)
    elif challenge == "heist":
        heist(int(rest[0]), int(rest[1]), int(rest[2]), rest[3:])
    elif challenge == "gun-duel":
        gun_duel(int(rest[0]), rest[1:])
    elif challenge == "forty":
        forty(int(rest[0]))


main()
