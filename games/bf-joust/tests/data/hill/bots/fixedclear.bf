fixed clear: decrements a fixed number of times per cell, so the
polarity of a decoy matters
(>)*9
((-)*128>)*21
