#!/bin/sh
# {{name}}: a gun-duel bot in POSIX shell.
#
# Interface exit-code: this program runs once per turn, from the tournament
# folder, with: opponent-id turn status ammo ammo-opponent [history
# history-opponent]. status is 3 during a duel. Exit with the move's ASCII
# code: 48 load (+1 ammo), 49 bullet (-1), 50 plasma (-2), 45 metal shield,
# 61 thermal deflector. Firing without the ammo makes the gun explode.
# After each duel it runs once more with status 0 (draw), 1 (won) or
# 2 (lost); that exit status is ignored.
status=$3 mine=$4 theirs=$5
[ "$status" = 3 ] || exit 0

# A bullet kills a loader or a thermal deflector; metal stops it.
# Plasma kills a loader, a bullet or metal; thermal stops it.
if [ "$theirs" -ge 2 ]; then
    exit 61     # =
elif [ "$theirs" -eq 1 ]; then
    exit 45     # -
elif [ "$mine" -ge 1 ]; then
    exit 49     # 1: an unarmed opponent can only load or shield
else
    exit 48     # 0
fi
