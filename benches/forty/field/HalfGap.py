class HalfGap(Bot):
    """Each turn covers half of what is missing to the end score (at
    least 8)."""

    def make_throw(self, scores, last_round):
        goal = max(8, (self.end_score - scores[self.index]) // 2)
        while sum(self.current_throws) < goal:
            yield True
        yield False
