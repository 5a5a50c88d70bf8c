#!/bin/sh
# Floods stdout (and stderr) without end.
yes 38 >&2 &
exec yes 38
