#!/bin/sh
# Ignores EOF and SIGTERM, leaves a child, and records the child's pid.
trap '' TERM
sleep 1000 &
echo $! > "$HOME/child.pid"
echo ready
while :; do sleep 1; done
