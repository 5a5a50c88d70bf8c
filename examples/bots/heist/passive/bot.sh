#!/bin/sh
# passive: never stakes a credit. It is never asked in round 2 and lives on
# its paycheck, which every employed player receives whether it heisted or not.
echo 0
