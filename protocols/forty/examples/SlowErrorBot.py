import time


class SlowErrorBot(Bot):
    """ErrorBot with a 300 ms sleep in place of the exception: that decision
    misses its deadline."""

    def make_throw(self, scores, last_round):
        yield True
        if scores[self.index] + sum(self.current_throws) >= self.end_score:
            time.sleep(0.3)
        yield False
