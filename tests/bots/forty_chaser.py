# A forty bot class for the host (tests/load/forty.rs): throws while its
# turn does not bring it level with the leader, and at least to 10; a
# little arithmetic on every decision, no sleeping.


class Chaser(Bot):
    def make_throw(self, scores, last_round):
        mine = scores[self.index]
        target = max(10, max(scores) - mine + 1)
        while sum(self.current_throws) < target:
            yield True
        yield False
