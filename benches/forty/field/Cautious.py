class Cautious(Bot):
    """Eight-point turns; in the last round, anything to lead."""

    def make_throw(self, scores, last_round):
        mine = scores[self.index]
        while True:
            turn = sum(self.current_throws)
            if last_round:
                if mine + turn > max(scores):
                    break
            elif turn >= 8:
                break
            yield True
        yield False
