class CatchUpBot(Bot):
    """Banks at once until the last round; then throws until it would be
    strictly ahead of the best score at the start of its turn."""

    def make_throw(self, scores, last_round):
        if not last_round:
            yield False
            return
        leader = max(scores)
        while scores[self.index] + sum(self.current_throws) <= leader:
            yield True
        yield False
