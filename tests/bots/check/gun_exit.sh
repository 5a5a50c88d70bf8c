#!/bin/sh
# gun-duel interface-1 bot for `referee check` tests.
# Usage: gun_exit.sh MODE <opponent> <turn> <status> <ammo> <ammo-opponent> [histories]
#   good  loads with no ammo, fires a bullet otherwise (always legal)
#   fire  fires a bullet every turn, with or without ammo
mode=$1
status=$4
ammo=$5
[ "$status" = 3 ] || exit 0
case $mode in
  fire) exit 49 ;;
esac
if [ "$ammo" -ge 1 ]; then exit 49; fi
exit 48
