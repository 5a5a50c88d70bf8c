# Picket: a layer of decoys, then an attack
#
# Four decoys of alternating sign in front of our flag; an attacker
# that clears cells one by one must spend a long time on them, and a
# clear tuned for one sign pays dearly on the other
# Then it runs to the far side and clears each non zero cell, first
# with a short burst of increments, in case the cell is a negative
# decoy close to zero, then with a counting loop

>(+)*24
>(-)*24
>(+)*12
>(-)*12
(>)*5
(
  [
    (+)*4
    [-]
  ]
  >
)*21
