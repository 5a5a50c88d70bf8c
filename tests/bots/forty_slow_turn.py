# A forty bot class for the host (tests/it/forty.rs): on a turn whose
# first die is a 1, its first decision sleeps 150 ms, over the turn's
# 100 ms, so that turn is lost; every other decision is quick. It throws
# while its turn is worth less than 10.
import time


class SlowTurn(Bot):
    def make_throw(self, scores, last_round):
        if self.current_throws[0] == 1:
            time.sleep(0.15)
        while sum(self.current_throws) < 10:
            yield True
        yield False
