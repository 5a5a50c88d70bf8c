#!/bin/sh
# Plays a move but leaves a child running, which records its pid.
sleep 60 &
echo $! > "$HOME/orphan.pid"
echo 38
