class ErrorBot(Bot):
    """Throws once; on its second decision it raises when its score plus the
    turn would reach the end score, and stops otherwise."""

    def make_throw(self, scores, last_round):
        yield True
        if scores[self.index] + sum(self.current_throws) >= self.end_score:
            raise RuntimeError("ErrorBot fails on purpose")
        yield False
