class Tally(Bot):
    """Keeps class-level counts across all its games: how often a die it
    asked for was a 6. It throws on while the turn's sum times that risk
    (at least 1/6) stays below 2.5."""

    throws_seen = 0
    sixes_seen = 0

    def update_state(self, current_throws):
        # A continuation means the previous throw was not a 6.
        if len(current_throws) > 1:
            Tally.throws_seen += 1
        self.current_throws = current_throws

    def make_throw(self, scores, last_round):
        while True:
            turn = sum(self.current_throws)
            seen = max(Tally.throws_seen + Tally.sixes_seen, 1)
            risk = max(Tally.sixes_seen / seen, 1 / 6)
            if turn * risk >= 2.5 or (last_round and scores[self.index] + turn > max(scores)):
                yield False
                return
            # If this throw turns out to be a 6 we are never asked again
            # this turn; count it as one until shown otherwise.
            Tally.sixes_seen += 1
            yield True
            Tally.sixes_seen -= 1
