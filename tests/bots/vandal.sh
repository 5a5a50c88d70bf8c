#!/bin/sh
# A hostile bot: tries to destroy the results and the instructions, floods
# stderr, plays a move, then kills its own process group.
if (printf '' > results.db) 2>/dev/null; then r=truncated; else r=denied; fi
echo "results.db: $r" >> "$HOME/attacks.txt"
if (echo "# vandal" >> instructions.txt) 2>/dev/null; then r=appended; else r=denied; fi
echo "instructions: $r" >> "$HOME/attacks.txt"
head -c 200000 /dev/zero >&2
echo 44
kill -9 0
