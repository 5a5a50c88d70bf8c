#!/bin/sh
# {{name}}: a forty bot in POSIX shell.
#
# This program runs once for the whole tournament, from the tournament
# folder, and plays many games at once over stdin and stdout, a line each:
#   forty 1 SEED             -> answer: ok {{name}}
#   new G SEAT END           a game G in which I sit at SEAT; no answer
#   ask G L THROWS SCORES    -> answer: G 1 to throw again, G 0 to stop
#   end G                    game G is over; no answer
# THROWS are this turn's dice (comma-separated, never a 6), SCORES every
# seat's score (SCORES[SEAT] is mine), L is 1 in the last round. Answer
# each ask in order, and flush once no more input is waiting. At the end
# of input, exit with status 0.
while read -r word game rest; do
    case $word in
    forty)
        echo "ok {{name}}" ;;
    ask)
        set -- $rest           # L THROWS SCORES
        sum=0 old=$IFS IFS=,
        for die in $2; do sum=$((sum + die)); done
        IFS=$old
        # Throw while the turn is worth less than 15.
        if [ "$sum" -lt 15 ]; then echo "$game 1"; else echo "$game 0"; fi ;;
    esac                        # new and end need no answer
done
