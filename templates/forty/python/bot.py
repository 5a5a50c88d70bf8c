"""{{name}}: a forty bot, written as a class for the referee's Python host.

The host creates one instance per game and seat: self.index is my seat and
self.end_score is 40. Before each decision it sets self.current_throws (my
dice this turn, never a 6) and asks make_throw(scores, last_round): yield
True to throw again, False to stop and bank the turn's sum. A 6 ends the
turn with nothing. In the last round, the seats that still play must beat
the highest score. Bot, random, math and sys are already there: no import
is needed for them.
"""


class {{class}}(Bot):
    def make_throw(self, scores, last_round):
        best_other = max((s for i, s in enumerate(scores) if i != self.index), default=0)
        while True:
            turn = sum(self.current_throws)
            if last_round:
                # Throw until I lead: stopping behind loses anyway.
                yield scores[self.index] + turn <= best_other
            else:
                yield turn < 15 and scores[self.index] + turn < self.end_score
