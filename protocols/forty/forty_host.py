#!/usr/bin/env python3
"""Runs one bot class of the forty challenge as a bot process.

Usage: python3 forty_host.py BOTFILE [CLASS]

BOTFILE holds a bot written for the original challenge, verbatim: one or
more classes derived from ``Bot`` plus whatever module-level lines the
answer had. This host provides what the original bot file offered at its
top (``sys``, ``inspect``, ``random``, ``math``, ``np`` when numpy is
installed, the ``Bot`` base class and ``get_all_bots()``), keeps one
instance per game, and speaks the referee's line protocol on its own
copies of stdin and stdout. Anything the bot prints goes to stderr, which
the referee keeps in the bot's log.

Each reply carries the time the bot's own code took for that ask, in
whole microseconds (`G D MICROS`): the referee shares a batch's measured
time among its asks by these figures, so that answering a whole batch in
one write never charges one ask for the others.

Standard library only; Python 3.8 or later.
"""

import importlib.util
import math
import os
import re
import sys
import traceback
import types
from time import perf_counter_ns

PROTOCOL_VERSION = b"1"
MODULE_NAME = "forty_game_bots"
READ_CHUNK = 1 << 16
TRACEBACKS_SHOWN = 10
COUNT_EVERY = 1000

# The base class and helper of the original bot file, executed inside the
# bot's own module so that they belong to it as they did there.
PRELUDE = '''
def get_all_bots():
    """Every class derived directly from Bot."""
    return Bot.__subclasses__()


class Bot:
    """The base class of every bot, with the original API."""

    def __init__(self, index, end_score):
        self.index = index
        self.end_score = end_score

    def update_state(self, current_throws):
        self.current_throws = current_throws

    def make_throw(self, scores, last_round):
        yield False
'''


class StartupError(Exception):
    """Start-up failed in a way that deserves one line, not a traceback."""


class Channel:
    """The protocol's private stdin and stdout, and the bot-facing log."""

    def __init__(self):
        # Keep the protocol to ourselves: the bot's prints, and anything it
        # writes to descriptor 1, must land in the log, never on the wire.
        self.inp = os.dup(0)
        self.out = os.dup(1)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(2, 1)
        sys.stdout = sys.stderr
        self.log = sys.stderr
        self.pending = b""

    def read_chunk(self):
        """More bytes from the referee; b"" at end of input."""
        return os.read(self.inp, READ_CHUNK)

    def read_line(self):
        """One line (without LF), or None at end of input."""
        while b"\n" not in self.pending:
            chunk = self.read_chunk()
            if not chunk:
                return None
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return line

    def write(self, data):
        """Writes everything; False once the referee stopped reading."""
        view = memoryview(data)
        try:
            while view:
                written = os.write(self.out, view)
                view = view[written:]
        except OSError:
            return False
        return True


class FailureLog:
    """Reports bot failures to the log without flooding it."""

    def __init__(self, log):
        self.log = log
        self.count = 0

    def failed(self, context):
        self.count += 1
        if self.count <= TRACEBACKS_SHOWN:
            self.write("forty_host: %s raised:\n%s" % (context, traceback.format_exc()))
        elif self.count % COUNT_EVERY == 0:
            self.write(
                "forty_host: %d failures so far (tracebacks after the first %d are not shown)\n"
                % (self.count, TRACEBACKS_SHOWN)
            )

    def write(self, text):
        # A bot may have closed or broken stderr; the log is not worth dying for.
        try:
            self.log.write(text)
            self.log.flush()
        except Exception:
            pass


def parse_handshake(line):
    """The seed of a `forty 1 SEED` line."""
    fields = line.rstrip(b"\r").split(b" ")
    if len(fields) != 3 or fields[0] != b"forty" or not fields[2].isdigit():
        raise StartupError("expected `forty 1 SEED`, got %r" % line)
    if fields[1] != PROTOCOL_VERSION:
        raise StartupError("protocol version %r is not supported" % fields[1])
    return int(fields[2])


# A bot file that names numpy (`np`, `numpy`, also inside a string such as
# `"np" in globals()`) gets it imported at start-up. Any other file still
# finds `np` in its globals, but numpy is only loaded if something touches
# it: importing it costs about 0.15 s of CPU and 25 MiB per process, and
# most bots never do.
NAMES_NUMPY = re.compile(rb"\b(?:np|numpy)\b")


class SeedingLoader:
    """Loads numpy as its own loader would, then seeds its global
    generator: the seed applies whenever numpy is first loaded."""

    def __init__(self, loader, seed):
        self.loader = loader
        self.seed = seed

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        module.random.seed(self.seed)

    def __getattr__(self, name):
        return getattr(self.loader, name)


def lazy_numpy(seed):
    """numpy as a module loaded (and seeded) on first use; None when it is
    not installed or cannot be loaded lazily."""
    try:
        spec = importlib.util.find_spec("numpy")
        if spec is None or spec.loader is None or "numpy" in sys.modules:
            return None
        spec.loader = importlib.util.LazyLoader(SeedingLoader(spec.loader, seed))
        module = importlib.util.module_from_spec(spec)
        sys.modules["numpy"] = module
        spec.loader.exec_module(module)
        return module
    except Exception:
        sys.modules.pop("numpy", None)
        return None


def seed_generators(seed, log, eager=True):
    """Seeds `random`, and numpy's global generator when numpy is present:
    at once when `eager`, otherwise when numpy is first loaded. Returns the
    numpy module, or None."""
    import random

    random.seed(seed)
    if not eager:
        numpy = lazy_numpy(seed % (1 << 32))
        if numpy is not None:
            return numpy
    try:
        import numpy
    except ImportError:
        return None
    except Exception:  # a broken numpy install: run without it
        log.write("forty_host: numpy could not be imported:\n")
        traceback.print_exc(file=log)
        return None
    numpy.random.seed(seed % (1 << 32))
    return numpy


def read_source(path):
    with open(path, "rb") as source:
        return source.read()


def load_module(path, numpy, source=None):
    """Executes BOTFILE (whose bytes are `source`, if already read) in a
    fresh module that offers what the original bot file had at its top."""
    import inspect
    import random

    if source is None:
        source = read_source(path)
    module = types.ModuleType(MODULE_NAME)
    module.__file__ = os.path.abspath(path)
    sys.modules[MODULE_NAME] = module
    namespace = module.__dict__
    namespace.update(sys=sys, inspect=inspect, random=random, math=math)
    if numpy is not None:
        namespace["np"] = numpy
    exec(compile(PRELUDE, "<forty_host: Bot>", "exec"), namespace)
    exec(compile(source, path, "exec"), namespace)
    return module


def choose_class(module, wanted):
    """The class named `wanted`, otherwise the only Bot subclass the file
    defines (directly or indirectly)."""
    if wanted is not None:
        found = module.__dict__.get(wanted)
        if not isinstance(found, type):
            raise StartupError("%s defines no class named %s" % (module.__file__, wanted))
        return found
    base = module.__dict__["Bot"]
    defined, seen, queue = [], set(), list(base.__subclasses__())
    while queue:
        cls = queue.pop(0)
        if cls in seen:
            continue
        seen.add(cls)
        queue.extend(cls.__subclasses__())
        if cls.__module__ == MODULE_NAME:
            defined.append(cls)
    if len(defined) != 1:
        names = ", ".join(sorted(c.__name__ for c in defined)) or "none"
        raise StartupError(
            "%s must define exactly one Bot subclass, or name one as CLASS (found: %s)"
            % (module.__file__, names)
        )
    return defined[0]


THROW, STOP, FAILED = b" 1", b" 0", b" e"
# A failure no bot code ran for (an unknown game, a broken ask) took no
# time of the bot's.
FAILED_AT_ONCE = FAILED + b" 0"

# A reply after its game id, ready made for the times most decisions take:
# THROWN[17] is b" 1 17" (throw, 17 microseconds), STOPPED[17] b" 0 17".
QUICK = 4096
THROWN = [THROW + b" %d" % n for n in range(QUICK)]
STOPPED = [STOP + b" %d" % n for n in range(QUICK)]


def time_field(micros):
    """A reply's time field for `micros` microseconds."""
    return b" %d" % micros

# Decimal fields of asks are small numbers; a lookup is several times faster
# than int() on bytes, and decisions must cost microseconds.
SMALL_NUMBERS = {str(n).encode(): n for n in range(4096)}

# Throws fields already parsed (b"4,5,3" -> [4, 5, 3]), for turns of up to
# four dice: most decisions, and at most 780 sequences, so the cache fills
# within the first few thousand games and memory stays flat. Longer fields
# are parsed every time.
THROWS_CACHED_BYTES = 7
THROWS_CACHED = 1024


def numbers(field, lookup=SMALL_NUMBERS.__getitem__):
    """The comma-separated decimals of an ask field, as a list (the bot gets
    a copy). Not a tuple: with tuples of every turn length the host's
    memory kept creeping up over 10^5 games (CPython keeps freed tuples of
    each length for reuse); with lists it stays flat."""
    try:
        return list(map(lookup, field.split(b",")))
    except KeyError:
        return [int(x) for x in field.split(b",")]


class Games:
    """One instance and one live generator per game, answering protocol
    lines. (Not named after the original controller's fields, so that
    stack-walking bots find nothing of ours.)"""

    def __init__(self, cls, failures):
        self.cls = cls
        self.failures = failures
        # game id (bytes) -> (instance, live generator or None). A game
        # whose constructor raised has no entry: like an unknown game, its
        # asks get `G e`. A tuple, replaced when the generator changes: one
        # object to fetch per ask, which matters when thousands of games
        # take turns and none of them is in the CPU's cache any more.
        self.table = {}
        self.throws = {}

    def new(self, fields):
        gid = fields[1]
        try:
            instance = self.cls(int(fields[2]), int(fields[3]))
        except BaseException:
            self.table.pop(gid, None)
            self.failures.failed("the constructor (game %s)" % gid.decode("ascii", "replace"))
            return
        self.table[gid] = (instance, None)

    def answer(self, lines):
        """The replies to a batch of lines (without CRs), in order, as one
        bytes object (each reply ends in LF). Each reply ends with the time
        taken since the previous one, in whole microseconds: the ask's
        update_state and generator step, and whatever ran since the
        previous answer (constructors of new games, the host's parsing of
        the line). One clock reading per ask: decisions must cost
        microseconds."""
        replies = []
        clock = perf_counter_ns
        since = clock()
        field = time_field
        thrown = THROWN
        stopped = STOPPED
        reply = replies.append
        table = self.table
        find = table.get
        cache = self.throws
        cached = cache.get
        lookup = SMALL_NUMBERS.__getitem__
        for line in lines:
            fields = line.split(b" ")
            if len(fields) != 5 or fields[0] != b"ask":
                self.other(line, fields, reply)
                continue
            _, gid, last, throws, scores = fields
            entry = find(gid)
            if entry is None:
                reply(gid + FAILED_AT_ONCE)
                continue
            instance, live = entry
            try:
                dice = cached(throws)
                if dice is None:
                    dice = numbers(throws)
                    if len(throws) <= THROWS_CACHED_BYTES and len(cache) < THROWS_CACHED:
                        cache[throws] = dice
                if len(dice) == 1:
                    # A turn's first decision: a fresh generator.
                    live = None
                    try:
                        snapshot = list(map(lookup, scores.split(b",")))
                    except KeyError:
                        snapshot = [int(x) for x in scores.split(b",")]
                    instance.update_state([*dice])
                    live = iter(instance.make_throw(snapshot, last == b"1"))
                    table[gid] = (instance, live)
                elif live is None:
                    reply(gid + FAILED_AT_ONCE)
                    continue
                else:
                    instance.update_state([*dice])
                try:
                    value = next(live)
                except StopIteration:
                    table[gid] = (instance, None)
                    value = False
                now = clock()
                took = (now - since) // 1000
                since = now
                if took < QUICK:
                    reply(gid + (thrown[took] if value else stopped[took]))
                else:
                    reply(gid + (THROW if value else STOP) + field(took))
            except BaseException:
                now = clock()
                took = field((now - since) // 1000)
                since = now
                table[gid] = (instance, None)
                self.failures.failed("the decision (game %s)" % gid.decode("ascii", "replace"))
                reply(gid + FAILED + took)
        if not replies:
            return b""
        replies.append(b"")
        return b"\n".join(replies)

    def other(self, line, fields, reply):
        """Lines other than a well-formed ask."""
        command = fields[0]
        if command == b"ask":
            # A broken ask still gets its one reply, to keep the pairing.
            if len(fields) >= 2:
                reply(fields[1] + FAILED_AT_ONCE)
        elif command == b"new" and len(fields) == 4:
            self.new(fields)
        elif command == b"end" and len(fields) == 2:
            self.table.pop(fields[1], None)
        elif line:
            self.failures.write("forty_host: ignoring unknown line %r\n" % line[:200])


def serve(channel, games):
    """Answers every complete line read, one write per batch, until end of
    input or until the referee stops reading."""
    buffered = channel.pending
    channel.pending = b""
    read = channel.read_chunk
    write = channel.write
    answer = games.answer
    while True:
        if b"\n" in buffered:
            if b"\r" in buffered:
                buffered = buffered.replace(b"\r\n", b"\n")
            lines = buffered.split(b"\n")
            buffered = lines.pop()
            replies = answer(lines)
            if replies and not write(replies):
                return
        chunk = read()
        if not chunk:
            if buffered:
                replies = answer([buffered.rstrip(b"\r")])
                if replies:
                    write(replies)
            return
        buffered = buffered + chunk if buffered else chunk


def finish(status):
    """Exits at once: the bot's atexit handlers and threads must not keep
    the process alive after the referee is done with it."""
    try:
        sys.stderr.flush()
    except Exception:
        pass
    os._exit(status)


def main(argv):
    if len(argv) not in (2, 3):
        sys.stderr.write("usage: forty_host.py BOTFILE [CLASS]\n")
        return 2
    channel = Channel()
    try:
        line = channel.read_line()
        if line is None:
            raise StartupError("input ended before the handshake")
        seed = parse_handshake(line)
        source = read_source(argv[1])
        numpy = seed_generators(seed, channel.log, NAMES_NUMPY.search(source) is not None)
        module = load_module(argv[1], numpy, source)
        cls = choose_class(module, argv[2] if len(argv) == 3 else None)
    except StartupError as error:
        channel.log.write("forty_host: %s\n" % error)
        return 1
    except BaseException:
        channel.log.write("forty_host: loading %s failed:\n" % argv[1])
        traceback.print_exc(file=channel.log)
        return 1
    if not channel.write(b"ok " + cls.__name__.encode("ascii", "replace") + b"\n"):
        return 0
    serve(channel, Games(cls, FailureLog(channel.log)))
    return 0


if __name__ == "__main__":
    finish(main(sys.argv))
