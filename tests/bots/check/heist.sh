#!/bin/sh
# heist bot for `referee check` tests.
# Usage: heist.sh MODE <the 31 arguments>
#   good    bets a tenth of its credits, then deposits
#   write   tries to keep a note in its folder ($HOME), which is read-only
#   linger  leaves a background process running after it answers
mode=$1
round=$3
credits=${10}
case $mode in
  write) echo "$credits" > "$HOME/note.txt" || exit 3 ;;
  linger) sleep 30 & ;;
esac
if [ "$round" = 1 ]; then
  echo $((credits / 10))
else
  echo deposit
fi
