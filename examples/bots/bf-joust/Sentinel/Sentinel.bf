# Sentinel: a defender that counterattacks
#
# It builds two big decoys right in front of its flag and leaves a
# tripwire, a cell holding one, just beyond them; then it waits on the
# wire for as long as the wire holds
# An attacker that clears cells on its way cuts the wire and then gets
# stuck on the big decoys: that is the moment to run to the far side,
# where nobody is left to defend the enemy flag
# Its weakness: a rusher that crosses the wire without touching it is
# never noticed

>(+)*48
>(-)*48
>+
[.]
(>)*6
(
  [
    (-)*8
    [-]
  ]
  >
)*21
