class ThrowTwiceBot(Bot):
    """Asks for exactly one die after the first, then banks."""

    def make_throw(self, scores, last_round):
        for another in (True, False):
            yield another
