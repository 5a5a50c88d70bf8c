#!/bin/sh
# heist: behaves (bets 10, then goes along) except in round WHEN, where it
# misbehaves as MODE: sleep, crash, exit1, garbage, flood, nonutf8, control.
# Usage: heist_misbehave.sh MODE WHEN [the 31 game arguments...]
mode=$1
when=$2
round=$4
if [ "$round" != "$when" ]; then
  if [ "$round" = 1 ]; then echo 10; else echo guncheck; fi
  exit 0
fi
case $mode in
  sleep) echo "back out"; sleep 30 ;;
  crash) echo "back out"; kill -SEGV $$ ;;
  exit1) echo "back out"; exit 3 ;;
  garbage) echo "12.5" ;;
  flood) exec yes "back out" ;;
  nonutf8) printf 'back out\377\n' ;;
  control) printf 'back\tout\n' ;;
esac
