#!/bin/sh
# The gearlance side of the bf-joust benchmark in BENCHMARKS.md: gearlance
# (github.com/fis/chainlance, built apart, never part of this repository)
# on every pairing of a field, one process per pairing, as the hills run
# it. Pairings in the referee's order: each program with every later one,
# the earlier on the left.
#
#   sh benches/gearlance_pairings.sh GEARLANCE FILE.bf...
set -eu
gearlance=$1
shift
while [ $# -gt 1 ]; do
    left=$1
    shift
    for right in "$@"; do
        printf '%s %s ' "$left" "$right"
        "$gearlance" "$left" "$right"
    done
done
