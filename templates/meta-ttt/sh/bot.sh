#!/bin/sh
# {{name}}: a meta tic-tac-toe bot in POSIX shell.
#
# Each move runs this program once, from the tournament folder, with 12
# arguments: my letter (X or O), boards 0-8 (9 characters each: -, X or O),
# the master board, and the last move (two digits, or xx when the move is
# free). Print one move, board then tile (e.g. 38), and exit within the
# time limit. This one plays the first legal move it finds.
b0=$2 b1=$3 b2=$4 b3=$5 b4=$6 b5=$7 b6=$8 b7=$9 b8=${10}
master=${11} last=${12}

# at TEXT INDEX: sets c to the INDEX-th character of TEXT (from 0).
at() {
    s=$1 i=$2
    while [ "$i" -gt 0 ]; do s=${s#?}; i=$((i - 1)); done
    c=${s%"${s#?}"}
}

# open BOARD: neither won (the master board shows it) nor full.
open() {
    at "$master" "$1"
    eval "cells=\$b$1"
    [ "$c" = - ] && case $cells in *-*) true ;; *) false ;; esac
}

boards="0 1 2 3 4 5 6 7 8"
if [ "$last" != xx ]; then
    at "$last" 1
    forced=$c
    if open "$forced"; then boards=$forced; fi
fi
for b in $boards; do
    open "$b" || continue
    eval "cells=\$b$b"
    for t in 0 1 2 3 4 5 6 7 8; do
        at "$cells" "$t"
        if [ "$c" = - ]; then
            echo "$b$t"
            exit 0
        fi
    done
done
echo "no legal move" >&2
exit 1
