class Mirror(Bot):
    """The later its seat, the longer its turn: 10 plus the seat index."""

    def make_throw(self, scores, last_round):
        while sum(self.current_throws) < 10 + self.index:
            yield True
        yield False
