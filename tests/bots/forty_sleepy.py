# A forty bot class for the host (tests/it/forty.rs, tests/load/forty.rs):
# every decision sleeps 2 ms, far within a turn's 100 ms, and it throws
# while its turn is worth less than 12.
import time


class Sleepy(Bot):
    def make_throw(self, scores, last_round):
        while True:
            time.sleep(0.002)
            yield sum(self.current_throws) < 12
