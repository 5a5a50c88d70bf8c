#!/bin/sh
# Turtle: a gun-duel bot on interface 1, in POSIX shell. Each turn it runs
# once with <opponent-id> <turn> <status> <ammo> <ammo-opponent> [histories]
# and answers with its exit status: 48 load, 49 bullet, 50 plasma,
# 45 metal shield, 61 thermal deflector.
status=$3
ammo=$4
theirs=$5
[ "$status" = 3 ] || exit 0     # the call after a duel
if [ "$theirs" -ge 2 ]; then
    exit 61                     # deflect plasma
elif [ "$theirs" -ge 1 ]; then
    exit 45                     # stop a bullet
elif [ "$ammo" -ge 2 ]; then
    exit 50                     # plasma beats a load or a metal shield
else
    exit 48                     # load
fi
