#!/bin/sh
# A meta-ttt bot that leaves a helper behind in a session of its own (so
# neither its process group nor its parent-death signal reaches it),
# records the helper's pid in its own folder, then thinks for a long time.
setsid sh -c 'echo $$ > "$HOME/helper.pid"; exec sleep 300' </dev/null >/dev/null 2>&1 &
exec sleep 300
