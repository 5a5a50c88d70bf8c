#!/bin/sh
# Prints the next line of a script file, one line per call. The call count
# is kept beside the script (SCRIPT_FILE.count). A line `<silent>` prints
# nothing; past the end of the script it prints nothing.
# Usage: scripted.sh SCRIPT_FILE [game arguments...]
script="$1"
n=$(cat "$script.count" 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" > "$script.count"
line=$(sed -n "${n}p" "$script")
[ "$line" = "<silent>" ] && exit 0
[ -n "$line" ] && printf '%s\n' "$line"
exit 0
