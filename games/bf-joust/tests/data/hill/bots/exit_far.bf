runs off the far end without touching anything
(>)*-1
