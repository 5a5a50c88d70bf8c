adds to the cell in front of the enemy flag and then decrements the
flag itself: which way the flag goes depends on the polarity
(>)*8(+)*64>(-)*200
