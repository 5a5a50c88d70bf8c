"""{{name}}: a bank-heist bot.

Each decision runs this program once, from the tournament folder, with 31
arguments (docs/heist.md lists them): argument 2 is the round, 9 my
credits. Round 1: print a bet, an integer (more than my credits is cut to
my credits). Round 2, asked only if I bet: print one of back out, all in,
change jobs, acquire intel, buy guard, deposit, withdraw, double cross,
finger; anything else goes along. My folder is read-only: nothing
survives a call.
"""
import sys


def main():
    args = sys.argv[1:]
    round_, credits = int(args[1]), int(args[8])
    if round_ == 1:
        print(credits // 10)  # a tenth of what I have
    else:
        print("go along")


if __name__ == "__main__":
    main()
