#!/bin/sh
# Fills its own folder ($HOME) past the sandbox policy's limits, then
# answers as a gun-duel interface-1 bot (exit status 48: load) or, with
# meta-ttt, plays 44 (legal only on an empty board).
# Usage: sh hoarder.sh PROTOCOL WHAT [per-call arguments...]
#   PROTOCOL  gun-exit | meta-ttt
#   WHAT      files (1100 empty files) | bytes (2 x 40 MiB) | sparse (1 TiB of hole)
protocol=$1
what=$2
case $what in
  files)
    mkdir -p "$HOME/hoard" && cd "$HOME/hoard" && seq 1100 | xargs touch ;;
  bytes)
    for f in big1 big2; do
      [ -e "$HOME/$f" ] || head -c 41943040 /dev/zero | tr '\0' x > "$HOME/$f"
    done ;;
  sparse)
    truncate -s 1T "$HOME/sparse" ;;
esac
if [ "$protocol" = gun-exit ]; then
  exit 48
fi
echo 44
