#!/bin/sh
# heist: bets BET in round 1 and answers ANSWER in round 2, every game.
# Usage: heist_fixed.sh BET ANSWER [the 31 game arguments...]
# ($3 is the game number, $4 the round.)
if [ "$4" = 1 ]; then
  printf '%s\n' "$1"
else
  printf '%s\n' "$2"
fi
