class Sixteen(Bot):
    """A 16-point turn, cut to what reaches the end score."""

    def make_throw(self, scores, last_round):
        goal = min(16, self.end_score - scores[self.index])
        while sum(self.current_throws) < max(goal, 1):
            yield True
        yield False
