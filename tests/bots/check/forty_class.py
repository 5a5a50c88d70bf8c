# A forty bot in the original class style, for `referee check` tests: it
# throws until its turn is worth 12, and in the last round until it leads.
class CheckedBot(Bot):
    def make_throw(self, scores, last_round):
        while True:
            turn = sum(self.current_throws)
            if last_round:
                if scores[self.index] + turn > max(scores):
                    break
            elif turn >= 12:
                break
            yield True
        yield False
