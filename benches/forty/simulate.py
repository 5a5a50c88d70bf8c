#!/usr/bin/env python3
"""The forty benchmark's baseline: the same bot classes played in-process.

This is the design of the original controller: the rules of the game in
Python, every bot class imported into the worker processes, no isolation,
games split evenly over worker processes. Each bot file is loaded the way
the referee's host loads it (the `Bot` base class and the original file's
globals provided), so the very same files run on both sides.

Usage: simulate.py --games N --workers W --seed S [--seats K] BOTFILE...
Prints one JSON line: games, seconds, games_per_second, average_rounds,
wins, played, bot_seconds (each bot's time in its turns, as the original's
time table).
"""

import argparse
import inspect
import json
import math
import multiprocessing
import os
import random
import sys
import time
import types

END_SCORE = 40
ROUND_LIMIT = 200

PRELUDE = '''
def get_all_bots():
    return Bot.__subclasses__()


class Bot:
    def __init__(self, index, end_score):
        self.index = index
        self.end_score = end_score

    def update_state(self, current_throws):
        self.current_throws = current_throws

    def make_throw(self, scores, last_round):
        yield False
'''


def load(path, numpy):
    """The one Bot subclass that `path` defines."""
    name = "bench_bot_%d" % abs(hash(path))
    module = types.ModuleType(name)
    module.__file__ = os.path.abspath(path)
    sys.modules[name] = module
    namespace = module.__dict__
    namespace.update(sys=sys, inspect=inspect, random=random, math=math)
    if numpy is not None:
        namespace["np"] = numpy
    exec(compile(PRELUDE, "<prelude>", "exec"), namespace)
    with open(path) as source:
        exec(compile(source.read(), path, "exec"), namespace)
    base = namespace["Bot"]
    found = [c for c in base.__subclasses__() if c.__module__ == name]
    queue = list(found)
    while queue:
        for sub in queue.pop().__subclasses__():
            if sub.__module__ == name and sub not in found:
                found.append(sub)
                queue.append(sub)
    if len(found) != 1:
        raise SystemExit("%s: expected one Bot subclass, found %d" % (path, len(found)))
    return found[0]


CLASSES = []


def init_worker(paths, seed):
    try:
        import numpy
    except ImportError:
        numpy = None
    random.seed(seed)
    if numpy is not None:
        numpy.random.seed(seed % (1 << 32))
    CLASSES[:] = [load(p, numpy) for p in paths]


class Stats:
    """What the referee records (section 2's statistics), kept the same way."""

    def __init__(self, n):
        self.played = [0] * n
        self.wins = [0] * n
        self.score_sum = [0] * n
        self.win_score_sum = [0] * n
        self.max_score = [0] * n
        self.turns = [0] * n
        self.throws = [0] * n
        self.successes = [0] * n
        self.rounds = 0
        self.tied = 0
        self.round_limit = 0
        self.highest_round = 0
        self.winning_scores = {}
        self.seconds = [0.0] * n


def play_game(classes, seating, rng, stats):
    """One game under the rules of section 2, recorded in `stats`."""
    k = len(seating)
    bots = [classes[b](i, END_SCORE) for i, b in enumerate(seating)]
    scores = [0] * k
    die = rng.randint
    turns, throws_n, successes = stats.turns, stats.throws, stats.successes
    seconds, clock = stats.seconds, time.perf_counter

    def turn(i, last_round):
        b = seating[i]
        turns[b] += 1
        first = die(1, 6)
        throws_n[b] += 1
        if first == 6:
            if scores[i] >= END_SCORE:
                scores[i] = 0
            return
        snapshot = scores[:]
        throws = [first]
        bot = bots[i]
        try:
            bot.update_state(throws[:])
            decisions = iter(bot.make_throw(snapshot[:], last_round))
            while True:
                try:
                    again = next(decisions)
                except StopIteration:
                    again = False
                if not again:
                    scores[i] += sum(throws)
                    successes[b] += 1
                    return
                d = die(1, 6)
                throws.append(d)
                throws_n[b] += 1
                if d == 6:
                    if scores[i] + sum(throws) - 6 >= END_SCORE:
                        scores[i] = 0
                    return
                bot.update_state(throws[:])
        except Exception:
            return  # the turn is lost

    # The original timed every turn and printed each bot's total (its time
    # table); the referee charges every decision's time likewise. Timed
    # here with the cheapest clock there is.
    last_round = False
    initiator = k
    rounds = 0
    limit = False
    while True:
        for i in range(k):
            start = clock()
            turn(i, last_round)
            seconds[seating[i]] += clock() - start
            if not last_round and scores[i] >= END_SCORE:
                last_round = True
                initiator = i
        rounds += 1
        if rounds == ROUND_LIMIT:
            last_round = True
            initiator = k
            limit = True
        if last_round:
            break
    for i in range(initiator):
        start = clock()
        turn(i, True)
        seconds[seating[i]] += clock() - start

    best = max(scores)
    winners = 0
    for seat, b in enumerate(seating):
        score = scores[seat]
        stats.played[b] += 1
        stats.score_sum[b] += score
        if score > stats.max_score[b]:
            stats.max_score[b] = score
        if score == best:
            winners += 1
            stats.wins[b] += 1
            stats.win_score_sum[b] += score
    stats.rounds += rounds
    stats.tied += winners > 1
    stats.round_limit += limit
    stats.highest_round = max(stats.highest_round, rounds)
    stats.winning_scores[best] = stats.winning_scores.get(best, 0) + 1


def run_chunk(job):
    start, count, seed, seats = job
    classes = CLASSES
    n = len(classes)
    rng = random.Random(seed * 1_000_003 + start)
    stats = Stats(n)
    for _ in range(count):
        play_game(classes, rng.sample(range(n), seats), rng, stats)
    return stats.wins, stats.played, stats.rounds, stats.seconds


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, required=True)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seats", type=int, default=8)
    parser.add_argument("bots", nargs="+")
    args = parser.parse_args()
    started = time.perf_counter()
    seats = args.seats if len(args.bots) >= args.seats else min(4, len(args.bots))
    # The original split the games into one chunk per worker.
    per = -(-args.games // args.workers)
    jobs = []
    for w in range(args.workers):
        count = min(per, args.games - w * per)
        if count > 0:
            jobs.append((w * per, count, args.seed, seats))
    with multiprocessing.Pool(args.workers, init_worker, (args.bots, args.seed)) as pool:
        results = pool.map(run_chunk, jobs)
    wins = [sum(r[0][b] for r in results) for b in range(len(args.bots))]
    played = [sum(r[1][b] for r in results) for b in range(len(args.bots))]
    rounds = sum(r[2] for r in results)
    bot_seconds = [sum(r[3][b] for r in results) for b in range(len(args.bots))]
    seconds = time.perf_counter() - started
    print(
        json.dumps(
            {
                "games": args.games,
                "seconds": seconds,
                "games_per_second": args.games / seconds,
                "average_rounds": rounds / args.games,
                "wins": wins,
                "played": played,
                "bot_seconds": bot_seconds,
            }
        )
    )


if __name__ == "__main__":
    main()
