A careful rusher for referee check tests: it skips the cells that are
empty on every tape, then clears each cell in turn and steps on; it never
leaves the tape because the match ends when the enemy flag is zeroed
(>)*8
([-]>)*22
