class Counter(Bot):
    """Counts the turns it started over every game of its process (class
    state) and alternates between 13- and 17-point turns."""

    turns_started = 0

    def make_throw(self, scores, last_round):
        Counter.turns_started += 1
        goal = 13 if Counter.turns_started % 2 else 17
        while sum(self.current_throws) < goal:
            yield True
        yield False
