class Gauss(Bot):
    """Throws while the expected gain of one more die is positive: a die adds
    3 on average (1..5 each with chance 1/6) and loses the turn with chance
    1/6. Uses numpy for the arithmetic when it is installed."""

    if "np" in globals():
        FACES = np.arange(1, 6)
    else:
        FACES = list(range(1, 6))

    def gain(self, turn):
        if isinstance(self.FACES, list):
            return sum(self.FACES) / 6 - turn / 6
        return float(self.FACES.sum()) / 6 - turn / 6

    def make_throw(self, scores, last_round):
        while True:
            turn = sum(self.current_throws)
            behind = last_round and scores[self.index] + turn <= max(scores)
            if not behind and self.gain(turn) <= 0:
                break
            yield True
        yield False
