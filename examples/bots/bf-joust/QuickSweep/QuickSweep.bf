# QuickSweep: a fast clear
#
# Every tape has at least ten cells, so the eight cells beyond our own
# flag can never hold the enemy flag: run over them without looking
# Then sweep forward: on a cell that is not zero, take a quick run of
# decrements first, which is cheaper than the clear loop, then finish
# with a loop that counts the cell down to zero
# Leaving the loop means the cell is zero, so step on
# If that cell was the enemy flag, the next check ends the match

(>)*8
(
  [
    (-)*16
    [-]
  ]
  >
)*22
