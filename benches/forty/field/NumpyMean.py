class NumpyMean(Bot):
    """Plays longer turns the further the leader is above the table's mean,
    with numpy when it is installed."""

    def spread(self, scores):
        if "np" in globals():
            return float(np.max(scores) - np.mean(scores))
        return max(scores) - sum(scores) / len(scores)

    def make_throw(self, scores, last_round):
        goal = 12 + self.spread(scores) / 4
        while sum(self.current_throws) < goal:
            yield True
        yield False
