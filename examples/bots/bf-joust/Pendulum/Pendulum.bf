# Pendulum: patient, then fast
#
# It opens with one decoy and then lets its opponent move first, so that
# a rusher runs into the decoy while it waits; a rusher that clears with
# a loop is slowed down further by the decoy's size
# After the wait it rushes, and on each cell it tries both signs: a few
# decrements, and if that did not reach zero, a counting loop upward
# that wraps round to zero

>(-)*64
(.)*200
(>)*7
(
  [
    (-)*6
    [+]
  ]
  >
)*22
