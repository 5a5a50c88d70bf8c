import os


class CrashErrorBot(Bot):
    """ErrorBot with the process exiting (status 3) in place of the
    exception: a crash."""

    def make_throw(self, scores, last_round):
        yield True
        if scores[self.index] + sum(self.current_throws) >= self.end_score:
            os._exit(3)
        yield False
