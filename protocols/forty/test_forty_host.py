"""Tests of forty_host.py: the host runs as a subprocess and is fed protocol
lines, exactly as the referee would feed it.

Run with: python3 -m unittest discover -s protocols/forty
Set FORTY_HOST_PYTHON to run the host under another interpreter (the host
supports Python 3.8 and later).
"""

import os
import re
import select
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
HOST = os.path.join(HERE, "forty_host.py")
EXAMPLES = os.path.join(HERE, "examples")
PYTHON = os.environ.get("FORTY_HOST_PYTHON", sys.executable)

# Whether the host's interpreter (not necessarily this one) has numpy.
HAVE_NUMPY = (
    subprocess.run(
        [PYTHON, "-c", "import numpy"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    ).returncode
    == 0
)


def without_time(reply):
    """A reply without its time field (`G D MICROS` -> `G D`); other lines
    unchanged."""
    fields = reply.split(" ")
    if len(fields) == 3 and fields[2].isdigit():
        return " ".join(fields[:2])
    return reply


class Host:
    """One host process, with a deadline on every read. `line` gives
    replies without their time field; `raw` keeps every line as read."""

    def __init__(self, botfile, cls=None, seed=1, handshake=True):
        self.log = tempfile.TemporaryFile()
        args = [PYTHON, HOST, botfile] + ([cls] if cls else [])
        self.proc = subprocess.Popen(
            args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log
        )
        self.buffered = b""
        self.raw = []
        self.name = None
        if handshake:
            self.send("forty 1 %d" % seed)
            self.name = self.line(timeout=20)

    def send(self, *lines):
        self.proc.stdin.write("".join(line + "\n" for line in lines).encode())
        self.proc.stdin.flush()

    def line(self, timeout=5.0):
        """The next reply line (str), None at end of output; raises
        TimeoutError when nothing complete arrives in time."""
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buffered:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no reply line within %.1f s" % timeout)
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                return None
            self.buffered += chunk
        line, self.buffered = self.buffered.split(b"\n", 1)
        text = line.decode()
        self.raw.append(text)
        return without_time(text)

    def lines(self, n, timeout=5.0):
        return [self.line(timeout) for _ in range(n)]

    def close(self, timeout=5.0):
        """Closes stdin; returns (exit status, log text)."""
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        status = self.proc.wait(timeout=timeout)
        self.proc.stdout.close()
        return status, self.read_log()

    def read_log(self):
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except OSError:
                pass
        self.log.close()


class HostTestCase(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.hosts = []

    def tearDown(self):
        for host in self.hosts:
            host.kill()
        self.dir.cleanup()

    def bot_file(self, source, name="bot.py"):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            f.write(textwrap.dedent(source))
        return path

    def host(self, botfile, **kwargs):
        host = Host(botfile, **kwargs)
        self.hosts.append(host)
        return host

    def example(self, name):
        return self.host(os.path.join(EXAMPLES, name + ".py"))


# Bots written for these tests, in the original challenge's style.
THRESHOLD_BOT = """
class ThresholdBot(Bot):
    def make_throw(self, scores, last_round):
        while sum(self.current_throws) < 15:
            yield True
        yield False
"""

LEADER_CHASER = """
class LeaderChaser(Bot):
    def make_throw(self, scores, last_round):
        mine = scores[self.index]
        gap = max(scores) - mine
        goal = max(12, gap + 1) if last_round else max(8, min(gap, 20))
        while sum(self.current_throws) < goal:
            yield True
        yield False
"""

END_SCORE_BOT = """
class EndScoreBot(Bot):
    def make_throw(self, scores, last_round):
        mine = scores[self.index]
        while mine + sum(self.current_throws) < self.end_score and len(self.current_throws) < 4:
            yield True
        yield False
"""

NUMPY_BOT = """
class NumpyBot(Bot):
    def make_throw(self, scores, last_round):
        arr = np.array(scores)
        while np.sum(self.current_throws) < 10 + np.argmax(arr) % 3:
            yield np.bool_(True)
        yield np.bool_(False)
"""

CLASS_STATE_BOT = """
class MemoryBot(Bot):
    instances = 0

    def __init__(self, index, end_score):
        super().__init__(index, end_score)
        MemoryBot.instances += 1

    def make_throw(self, scores, last_round):
        # Throws on every decision while fewer than 3 instances were made.
        yield MemoryBot.instances < 3
        yield False
"""

RAISING_BOT = """
class RaisingBot(Bot):
    def make_throw(self, scores, last_round):
        if len(self.current_throws) == 1 and self.current_throws[0] % 2 == 0:
            raise ValueError("even first die")
        yield True
        yield False
"""


class Handshake(HostTestCase):
    def test_ok_names_the_class(self):
        host = self.example("GoToTenBot")
        self.assertEqual(host.name, "ok GoToTenBot")
        self.assertEqual(host.close()[0], 0)

    def test_a_bad_handshake_is_a_failed_start(self):
        for line in ["forty 2 5", "hello", "forty 1 x"]:
            host = self.host(os.path.join(EXAMPLES, "StopBot.py"), handshake=False)
            host.send(line)
            self.assertIsNone(host.line(timeout=20), line)
            status, log = host.close()
            self.assertEqual(status, 1, line)
            self.assertIn("forty_host:", log)

    def test_the_class_argument_picks_one_of_several(self):
        path = self.bot_file(THRESHOLD_BOT + LEADER_CHASER)
        host = self.host(path, cls="LeaderChaser")
        self.assertEqual(host.name, "ok LeaderChaser")

    def test_several_classes_without_a_choice_fail(self):
        path = self.bot_file(THRESHOLD_BOT + LEADER_CHASER)
        host = self.host(path)
        self.assertIsNone(host.name)
        status, log = host.close()
        self.assertEqual(status, 1)
        self.assertIn("LeaderChaser, ThresholdBot", log)

    def test_an_indirect_subclass_is_found(self):
        # Base counts as defined elsewhere, so Leaf is the file's only
        # (indirect) Bot subclass.
        path = self.bot_file(
            """
            Base = type("Base", (Bot,), {"__module__": "elsewhere"})

            class Leaf(Base):
                def make_throw(self, scores, last_round):
                    yield False
            """
        )
        self.assertEqual(self.host(path).name, "ok Leaf")

    def test_a_broken_file_fails_with_its_traceback(self):
        for source in ["class Broken(Bot):\n    def make_throw(self\n", "x = 1\n", "raise SystemExit(0)\n"]:
            host = Host(self.bot_file(source), handshake=False)
            self.hosts.append(host)
            host.send("forty 1 1")
            self.assertIsNone(host.line(timeout=20), source)
            status, log = host.close()
            self.assertEqual(status, 1, source)
            self.assertIn("forty_host:", log)

    def test_the_original_globals_are_there(self):
        path = self.bot_file(
            """
            import copy

            NAMES = [m.__name__ for m in (sys, inspect, random, math, copy)]
            SUBS = get_all_bots

            class GlobalsBot(Bot):
                def make_throw(self, scores, last_round):
                    found = [c.__name__ for c in SUBS()]
                    yield found == ["GlobalsBot"] and ("np" in globals()) == %r
                    yield False
            """
            % HAVE_NUMPY
        )
        host = self.host(path)
        host.send("new 0 0 40", "ask 0 0 3 0,0")
        self.assertEqual(host.line(), "0 1")
        self.assertEqual(host.close()[0], 0)


class Protocol(HostTestCase):
    def test_the_spec_example(self):
        host = self.example("GoToTenBot")
        host.send("new 0 0 40", "new 5 2 40", "ask 0 0 4 0,0,0", "ask 5 0 1 12,0,7")
        self.assertEqual(host.lines(2), ["0 1", "5 1"])
        host.send("ask 0 0 4,5 0,0,0")
        self.assertEqual(host.line(), "0 1")
        host.send("ask 0 0 4,5,3 0,0,0")
        self.assertEqual(host.line(), "0 0")
        host.send("end 0")
        self.assertEqual(host.close()[0], 0)

    def test_many_games_in_one_write_are_answered_in_order(self):
        host = self.example("ThrowTwiceBot")
        news = ["new %d %d 40" % (g, g % 8) for g in range(200)]
        asks = ["ask %d 0 %d 0,0,0,0,0,0,0,0" % (g, 1 + g % 5) for g in range(200)]
        host.send(*(news + asks))
        self.assertEqual(host.lines(200), ["%d 1" % g for g in range(200)])
        # Second decisions, in another order.
        order = list(range(199, -1, -1))
        host.send(*["ask %d 0 3,4 0,0,0,0,0,0,0,0" % g for g in order])
        self.assertEqual(host.lines(200), ["%d 0" % g for g in order])
        host.send(*["end %d" % g for g in range(200)])
        self.assertEqual(host.close()[0], 0)

    def test_a_trailing_cr_is_tolerated(self):
        host = self.example("GoToTenBot")
        host.proc.stdin.write(b"new 0 0 40\r\nask 0 0 4 0,0\r\n")
        host.proc.stdin.flush()
        self.assertEqual(host.line(), "0 1")

    def test_unknown_games_and_orphan_continuations_fail(self):
        host = self.example("GoToTenBot")
        host.send("ask 7 0 3 0,0", "new 1 0 40", "ask 1 0 3,4 0,0", "ask 1 0 3 0,0")
        self.assertEqual(host.lines(3), ["7 e", "1 e", "1 1"])
        host.send("end 1", "ask 1 0 3 0,0")
        self.assertEqual(host.line(), "1 e")

    def test_stray_lines_are_ignored_and_broken_asks_still_get_a_reply(self):
        host = self.example("GoToTenBot")
        host.send("new 0 0 40", "hello there", "", "ask 4", "ask 0 0 3 0,0")
        self.assertEqual(host.lines(2), ["4 e", "0 1"])
        self.assertIn("ignoring unknown line", host.close()[1])

    def test_an_unterminated_last_line_is_answered_before_exit(self):
        host = self.example("GoToTenBot")
        host.proc.stdin.write(b"new 0 0 40\nask 0 0 3 0,0")
        host.proc.stdin.close()
        self.assertEqual(host.line(), "0 1")
        self.assertIsNone(host.line())
        self.assertEqual(host.proc.wait(timeout=5), 0)

    def test_an_ended_generator_means_stop(self):
        host = self.example("ExhaustBot")
        host.send("new 0 1 40", "ask 0 0 3 0,0", "ask 0 0 3,5 0,0")
        self.assertEqual(host.lines(2), ["0 1", "0 0"])

    def test_yielded_values_count_by_truthiness(self):
        path = self.bot_file(
            """
            class TruthBot(Bot):
                def make_throw(self, scores, last_round):
                    for value in (1, "yes", [0], None, 0, "", []):
                        yield value
            """
        )
        host = self.host(path)
        host.send("new 0 0 40", "ask 0 0 1 0,0")
        replies = [host.line()]
        for n in range(2, 8):
            host.send("ask 0 0 %s 0,0" % ",".join(["1"] * n))
            replies.append(host.line())
        self.assertEqual(replies, ["0 1", "0 1", "0 1", "0 0", "0 0", "0 0", "0 0"])

    def test_an_exception_fails_the_turn_and_drops_its_generator(self):
        host = self.example("ErrorBot")
        host.send("new 3 0 40", "ask 3 0 5 30,0", "ask 3 0 5,5 30,0", "ask 3 0 5,5,2 30,0")
        self.assertEqual(host.lines(3), ["3 1", "3 e", "3 e"])
        # The next turn starts a fresh generator.
        host.send("ask 3 0 4 30,0", "ask 3 0 4,1 30,0")
        self.assertEqual(host.lines(2), ["3 1", "3 0"])
        status, log = host.close()
        self.assertEqual(status, 0)
        self.assertIn("ErrorBot fails on purpose", log)

    def test_system_exit_and_keyboard_interrupt_are_errors(self):
        path = self.bot_file(
            """
            import sys

            class ExitBot(Bot):
                def make_throw(self, scores, last_round):
                    if self.current_throws[0] == 1:
                        sys.exit(0)
                    if self.current_throws[0] == 2:
                        raise KeyboardInterrupt
                    yield True
            """
        )
        host = self.host(path)
        host.send("new 0 0 40", "ask 0 0 1 0,0", "ask 0 0 2 0,0", "ask 0 0 3 0,0")
        self.assertEqual(host.lines(3), ["0 e", "0 e", "0 1"])
        self.assertEqual(host.close()[0], 0)

    def test_a_failing_constructor_breaks_only_its_game(self):
        path = self.bot_file(
            """
            class PickyBot(Bot):
                def __init__(self, index, end_score):
                    if index == 1:
                        raise ValueError("no seat 1")
                    super().__init__(index, end_score)

                def make_throw(self, scores, last_round):
                    yield True
            """
        )
        host = self.host(path)
        host.send("new 0 1 40", "new 1 0 40", "ask 0 0 3 0,0", "ask 1 0 3 0,0", "ask 0 0 3,3 0,0")
        self.assertEqual(host.lines(3), ["0 e", "1 1", "0 e"])
        self.assertIn("no seat 1", host.close()[1])

    def test_prints_go_to_the_log_not_the_protocol(self):
        path = self.bot_file(
            """
            import os

            class ChattyBot(Bot):
                def make_throw(self, scores, last_round):
                    print("thinking about", self.current_throws)
                    sys.stdout.write("more chatter\\n")
                    os.write(1, b"raw descriptor write\\n")
                    yield sum(self.current_throws) < 6
                    print("stopping")
                    yield False
            """
        )
        host = self.host(path)
        host.send("new 0 0 40", "ask 0 0 2 0,0", "ask 0 0 2,3 0,0")
        self.assertEqual(host.lines(2), ["0 1", "0 0"])
        status, log = host.close()
        self.assertEqual(status, 0)
        for text in ["thinking about [2]", "more chatter", "raw descriptor write", "stopping"]:
            self.assertIn(text, log)

    def test_closing_stdin_exits_zero_within_a_second(self):
        path = self.bot_file(
            """
            import atexit, threading, time

            atexit.register(lambda: time.sleep(5))
            threading.Thread(target=time.sleep, args=(30,)).start()

            class LingeringBot(Bot):
                pass
            """
        )
        host = self.host(path)
        host.send("new 0 0 40", "ask 0 0 3 0,0")
        self.assertEqual(host.line(), "0 0")
        start = time.monotonic()
        status, _ = host.close(timeout=5)
        self.assertEqual(status, 0)
        self.assertLess(time.monotonic() - start, 1.0)

    def test_tracebacks_stop_after_ten_then_counts(self):
        path = self.bot_file(
            """
            class AlwaysRaises(Bot):
                def make_throw(self, scores, last_round):
                    raise RuntimeError("boom")
                    yield
            """
        )
        host = self.host(path)
        host.send("new 0 0 40")
        host.send(*["ask 0 0 1 0,0"] * 2000)
        self.assertEqual(host.lines(2000), ["0 e"] * 2000)
        status, log = host.close()
        self.assertEqual(status, 0)
        self.assertEqual(log.count("RuntimeError: boom"), 10)
        self.assertIn("1000 failures so far", log)
        self.assertIn("2000 failures so far", log)

    def test_every_reply_reports_its_own_time_in_microseconds(self):
        path = self.bot_file(
            """
            import time

            class NapBot(Bot):
                def make_throw(self, scores, last_round):
                    if self.current_throws[0] == 5:
                        time.sleep(0.2)
                    if self.current_throws[0] == 2:
                        raise ValueError("two")
                    yield True
                    time.sleep(0.2)
                    yield False
            """
        )
        host = self.host(path)
        # One write: a slow decision, a quick one, a failing one, an unknown
        # game, and a broken ask.
        host.send(
            "new 0 0 40", "new 1 0 40", "new 2 0 40",
            "ask 0 0 5 0,0", "ask 1 0 3 0,0", "ask 2 0 2 0,0", "ask 7 0 3 0,0", "ask 8",
        )
        self.assertEqual(host.lines(5), ["0 1", "1 1", "2 e", "7 e", "8 e"])
        times = [int(r.split(" ")[2]) for r in host.raw[-5:]]
        self.assertTrue(all(r.count(" ") == 2 for r in host.raw[-5:]), host.raw)
        # Each ask's own time, not the batch's: the sleep is charged to
        # game 0 alone.
        self.assertGreaterEqual(times[0], 150000)
        self.assertLess(times[1], times[0])
        self.assertLess(times[2], times[0])
        # No bot code ran for an unknown game or a broken ask.
        self.assertEqual(times[3:], [0, 0])
        # A continuation's time is its own step of the generator.
        host.send("ask 0 0 5,1 0,0", "ask 1 0 3,1 0,0")
        self.assertEqual(host.lines(2), ["0 0", "1 0"])
        later = [int(r.split(" ")[2]) for r in host.raw[-2:]]
        self.assertGreaterEqual(later[0], 150000)
        self.assertGreaterEqual(later[1], 150000)

    def test_class_state_lives_as_long_as_the_process(self):
        path = self.bot_file(CLASS_STATE_BOT)
        host = self.host(path)
        host.send("new 0 0 40", "ask 0 0 1 0,0")
        self.assertEqual(host.line(), "0 1")
        host.send("new 1 0 40", "new 2 0 40", "ask 2 0 1 0,0")
        self.assertEqual(host.line(), "2 0")

    def test_the_seed_drives_random(self):
        path = self.bot_file(
            """
            class CoinBot(Bot):
                def make_throw(self, scores, last_round):
                    while True:
                        yield random.random() < 0.5
            """
        )

        def decisions(seed):
            host = self.host(path, seed=seed)
            host.send("new 0 0 40")
            host.send(*["ask 0 0 %s 0,0" % ",".join(["1"] * n) for n in range(1, 65)])
            return host.lines(64)

        first = decisions(1234)
        self.assertEqual(first, decisions(1234))
        self.assertNotEqual(first, decisions(4321))

    @unittest.skipUnless(HAVE_NUMPY, "numpy is not installed")
    def test_numpy_is_seeded_and_its_bools_work(self):
        path = self.bot_file(
            """
            class NumpyCoin(Bot):
                def make_throw(self, scores, last_round):
                    while True:
                        yield np.random.random() < 0.5
            """
        )

        def decisions(seed):
            host = self.host(path, seed=seed)
            host.send("new 0 0 40")
            host.send(*["ask 0 0 %s 0,0" % ",".join(["1"] * n) for n in range(1, 33)])
            return host.lines(32)

        first = decisions(77)
        self.assertEqual(first, decisions(77))
        self.assertIn("0 1", first)
        self.assertIn("0 0", first)

    @unittest.skipUnless(HAVE_NUMPY, "numpy is not installed")
    def test_numpy_is_loaded_on_first_use_when_the_file_does_not_name_it(self):
        # This file never spells the module's names, so the host does not
        # import numpy at start-up; the global is still there, and loading
        # it on first use seeds it exactly as an import at start-up does.
        hidden = self.bot_file(
            """
            NAME = "n" + "p"
            MODULE = "nu" + "mpy"

            class HiddenCoin(Bot):
                def make_throw(self, scores, last_round):
                    yield type(sys.modules[MODULE]).__name__ != "module"
                    module = globals()[NAME]
                    yield module is sys.modules[MODULE]
                    while True:
                        yield module.random.random() < 0.5
            """,
            "hidden.py",
        )
        named = self.bot_file(
            """
            class NamedCoin(Bot):
                def make_throw(self, scores, last_round):
                    yield type(np) is type(sys)
                    yield True
                    while True:
                        yield np.random.random() < 0.5
            """,
            "named.py",
        )

        def decisions(path):
            host = self.host(path, seed=77)
            host.send("new 0 0 40")
            host.send(*["ask 0 0 %s 0,0" % ",".join(["1"] * n) for n in range(1, 35)])
            return host.lines(34)

        hidden_replies = decisions(hidden)
        self.assertEqual(hidden_replies[:2], ["0 1", "0 1"])
        self.assertEqual(hidden_replies, decisions(named))


# --- The test vectors of section 11, played through the example bots -----

END_SCORE = 40
ROUND_LIMIT = 200


def expand_dice(text):
    dice = []
    for item in text.split(","):
        value, _, count = item.partition("*")
        dice.extend([int(value)] * int(count or 1))
    return dice


class MiniReferee:
    """Section 2 for one game, with each seat's decisions asked of a host
    process over the protocol. A turn's decisions share `budget` seconds."""

    def __init__(self, hosts, dice, budget=0.2):
        self.hosts = hosts
        self.dice = iter(dice)
        self.budget = budget
        self.seats = len(hosts)
        self.scores = [0] * self.seats
        self.dead = [False] * self.seats
        self.lines = []
        self.names = [h.name.split(" ", 1)[1] for h in hosts]
        for seat, host in enumerate(hosts):
            host.send("new 0 %d %d" % (seat, END_SCORE))

    def decide(self, seat, flag, throws, snapshot, spent):
        """One decision: (mark, time spent)."""
        host = self.hosts[seat]
        host.send(
            "ask 0 %d %s %s"
            % (flag, ",".join(map(str, throws)), ",".join(map(str, snapshot)))
        )
        start = time.monotonic()
        try:
            reply = host.line(timeout=max(0.0, self.budget - spent))
        except TimeoutError:
            # The late reply still arrives, in order, and is discarded.
            late = host.line(timeout=5)
            assert late is None or late.startswith("0 "), late
            if late is None:
                self.dead[seat] = True
                return "X", 0
            return "TO", 0
        if reply is None:
            self.dead[seat] = True
            return "X", 0
        marks = {"0 1": "T", "0 0": "S", "0 e": "E"}
        return marks.get(reply, "M"), time.monotonic() - start

    def turn(self, seat, flag, phase):
        snapshot = list(self.scores)
        throws = [next(self.dice)]
        marks = []
        outcome = None
        spent = 0.0
        while throws[-1] != 6:
            if self.dead[seat]:
                outcome = "lost"
                break
            mark, took = self.decide(seat, flag, throws, snapshot, spent)
            spent += took
            marks.append(mark)
            if mark == "T":
                throws.append(next(self.dice))
                continue
            outcome = {"S": "bank", "E": "error", "TO": "timeout", "M": "malformed", "X": "crash"}[mark]
            break
        before = self.scores[seat]
        if outcome is None:
            outcome = "bust" if before + sum(throws) - 6 >= END_SCORE else "six"
        if outcome == "bank":
            self.scores[seat] = before + sum(throws)
        elif outcome == "bust":
            self.scores[seat] = 0
        self.lines.append(
            "%s s%d %s %s %s : %s %s %d"
            % (
                phase,
                seat,
                self.names[seat],
                "L" if flag else "-",
                " ".join(map(str, throws)),
                " ".join(marks) or "-",
                outcome,
                self.scores[seat],
            )
        )

    def play(self):
        last_round, initiator, rounds, limit = False, self.seats, 0, False
        while not last_round:
            for seat in range(self.seats):
                self.turn(seat, last_round, "r%d" % (rounds + 1))
                if not last_round and self.scores[seat] >= END_SCORE:
                    last_round, initiator = True, seat
                    self.lines.append(
                        "last round: s%d reached %d in round %d"
                        % (seat, self.scores[seat], rounds + 1)
                    )
            rounds += 1
            if rounds == ROUND_LIMIT:
                last_round, initiator, limit = True, self.seats, True
                self.lines.append("round limit: %d rounds played" % rounds)
        for seat in range(initiator):
            self.turn(seat, True, "fin")
        best = max(self.scores)
        winners = [s for s in range(self.seats) if self.scores[s] == best]
        self.lines.append(
            "result: scores %s; winners %s; rounds %d; tied %s; round limit %s"
            % (
                " ".join(map(str, self.scores)),
                " ".join("s%d" % s for s in winners),
                rounds,
                "yes" if len(winners) > 1 else "no",
                "yes" if limit else "no",
            )
        )
        for seat, host in enumerate(self.hosts):
            if not self.dead[seat]:
                host.send("end 0")
        return self.lines


def expand(notation, names):
    """The spec's vector notation as transcript lines (as in the Rust
    tests): names and `-` flags filled in, implied decisions written out."""
    lines = []
    for line in filter(None, (l.strip() for l in notation.splitlines())):
        if line.startswith("→ "):
            lines.append(line[2:])
            continue
        if line.startswith("result:"):
            lines.append(line)
            continue
        phase, turns = line.split(": ", 1)
        for turn in turns.split(" | "):
            turn, _, event = turn.partition(" → ")
            tokens = turn.split()
            seat = int(tokens.pop(0)[1:])
            flag = tokens.pop(0) if tokens[0] == "L" else "-"
            score, outcome = tokens.pop(), tokens.pop()
            if ":" in tokens:
                colon = tokens.index(":")
                dice, marks = tokens[:colon], " ".join(tokens[colon + 1:])
            else:
                dice = tokens
                implied = ["T"] * (len(dice) - 1) + (["S"] if outcome == "bank" else [])
                marks = " ".join(implied) or "-"
            lines.append(
                "%s s%d %s %s %s : %s %s %s"
                % (phase, seat, names[seat], flag, " ".join(dice), marks, outcome, score)
            )
            if event:
                lines.append(event)
    return lines


class Vectors(HostTestCase):
    def run_vector(self, bots, dice, notation):
        hosts = [self.example(b) for b in bots]
        dice = expand_dice(dice)
        referee = MiniReferee(hosts, dice)
        got = referee.play()
        self.assertEqual(got, expand(notation, referee.names))
        return referee

    def test_v1(self):
        self.run_vector(
            ["GoToTenBot", "ThrowTwiceBot", "StopBot"],
            "4,5,3,6,5,5,5,3,6,2,6,4,5,6,5,4,2,5,5,3,3,4,5,4,4,1",
            """
            r1: s0 4 5 3 : T T S bank 12 | s1 6 : - six 0 | s2 5 : S bank 5
            r2: s0 5 5 : T S bank 22 | s1 3 6 : T six 0 | s2 2 : S bank 7
            r3: s0 6 : - six 22 | s1 4 5 : T S bank 9 | s2 6 : - six 7
            r4: s0 5 4 2 bank 33 | s1 5 5 bank 19 | s2 3 bank 10
            r5: s0 3 4 5 bank 45 → last round: s0 reached 45 in round 5 | s1 L 4 4 bank 27 | s2 L 1 bank 11
            result: scores 45 27 11; winners s0; rounds 5; tied no; round limit no
            """,
        )

    def test_v2(self):
        self.run_vector(
            ["GoToTenBot", "ThrowTwiceBot", "StopBot"],
            "5,5,5,5,2,4,4,4,5,5,3,4,5,4,5,4,4,5,6,3,2,1,5,5,5,6,2,5,5,4,3,5,4,6",
            """
            r1: s0 5 5 bank 10 | s1 5 5 bank 10 | s2 2 bank 2
            r2: s0 4 4 4 bank 22 | s1 5 5 bank 20 | s2 3 bank 5
            r3: s0 4 5 4 bank 35 | s1 5 4 bank 29 | s2 4 bank 9
            r4: s0 5 6 bust 0 | s1 3 2 bank 34 | s2 1 bank 10
            r5: s0 5 5 bank 10 | s1 5 6 six 34 | s2 2 bank 12
            r6: s0 5 5 bank 20 | s1 4 3 bank 41 → last round: s1 reached 41 in round 6 | s2 L 5 bank 17
            fin: s0 L 4 6 six 20
            result: scores 20 41 17; winners s1; rounds 6; tied no; round limit no
            """,
        )

    def test_v3(self):
        self.run_vector(
            ["StopBot", "GoToTenBot", "ThrowTwiceBot"],
            "1,4,6,5,5,2,5,5,5,5,3,5,5,4,5,4,5,5,5,5,5,5,4,3,3,2,5",
            """
            r1: s0 1 bank 1 | s1 4 6 six 0 | s2 5 5 bank 10
            r2: s0 2 bank 3 | s1 5 5 bank 10 | s2 5 5 bank 20
            r3: s0 3 bank 6 | s1 5 5 bank 20 | s2 4 5 bank 29
            r4: s0 4 bank 10 | s1 5 5 bank 30 | s2 5 5 bank 39
            r5: s0 5 bank 15 | s1 5 4 3 bank 42 → last round: s1 reached 42 in round 5 | s2 L 3 2 bank 44
            fin: s0 L 5 bank 20
            result: scores 20 42 44; winners s2; rounds 5; tied no; round limit no
            """,
        )

    def test_v4(self):
        self.run_vector(
            ["GoToTenBot", "ThrowTwiceBot", "StopBot"],
            "5,5,5,5,1,5,5,5,5,1,5,5,5,5,1,5,5,5,5,1",
            """
            r1: s0 5 5 bank 10 | s1 5 5 bank 10 | s2 1 bank 1
            r2: s0 5 5 bank 20 | s1 5 5 bank 20 | s2 1 bank 2
            r3: s0 5 5 bank 30 | s1 5 5 bank 30 | s2 1 bank 3
            r4: s0 5 5 bank 40 → last round: s0 reached 40 in round 4 | s1 L 5 5 bank 40 | s2 L 1 bank 4
            result: scores 40 40 4; winners s0 s1; rounds 4; tied yes; round limit no
            """,
        )

    def test_v5(self):
        self.run_vector(
            ["CatchUpBot", "ExhaustBot", "StopBot", "GoToTenBot"],
            "3,3,4,2,5,5,5,2,5,4,5,4,4,4,1,6,5,3,4,5,4,1*8,5,5,6,2*5,5,4,5,3,5*8,6,6",
            """
            r1: s0 3 : S bank 3 | s1 3 4 2 : T T S bank 9 | s2 5 bank 5 | s3 5 5 bank 10
            r2: s0 2 bank 5 | s1 5 4 bank 18 | s2 5 bank 10 | s3 4 4 4 bank 22
            r3: s0 1 bank 6 | s1 6 : - six 18 | s2 5 bank 15 | s3 3 4 5 bank 34
            r4: s0 4 bank 10 | s1 1 1 1 1 1 1 1 1 bank 26 | s2 5 bank 20 | s3 5 6 six 34
            r5: s0 2 bank 12 | s1 2 2 2 2 bank 34 | s2 5 bank 25 | s3 4 5 3 bank 46 → last round: s3 reached 46 in round 5
            fin: s0 L 5 5 5 5 5 5 5 bank 47 | s1 L 5 6 six 34 | s2 L 6 : - six 25
            result: scores 47 34 25 46; winners s0; rounds 5; tied no; round limit no
            """,
        )

    V6_DICE = "5,5,5,5,1,5,5,5,5,1,5,5,5,5,1,5,5,2,3,4,1,1,4,5"
    V6 = """
        r1: s0 5 5 bank 10 | s1 5 5 bank 10 | s2 1 bank 1
        r2: s0 5 5 bank 20 | s1 5 5 bank 20 | s2 1 bank 2
        r3: s0 5 5 bank 30 | s1 5 5 bank 30 | s2 1 bank 3
        r4: %s | s1 2 3 4 1 bank 40 → last round: s1 reached 40 in round 4 | s2 L 1 bank 4
        fin: %s
        result: scores %s; winners s1; rounds 4; tied no; round limit no
        """

    def test_v6(self):
        self.run_vector(
            ["ErrorBot", "GoToTenBot", "StopBot"],
            self.V6_DICE,
            self.V6 % ("s0 5 5 : T E error 30", "s0 L 4 5 bank 39", "39 40 4"),
        )

    def test_v6_timeout(self):
        self.run_vector(
            ["SlowErrorBot", "GoToTenBot", "StopBot"],
            self.V6_DICE,
            self.V6 % ("s0 5 5 : T TO timeout 30", "s0 L 4 5 bank 39", "39 40 4"),
        )

    def test_v6_crash(self):
        referee = self.run_vector(
            ["CrashErrorBot", "GoToTenBot", "StopBot"],
            self.V6_DICE[: -len(",5")],
            self.V6 % ("s0 5 5 : T X crash 30", "s0 L 4 : - lost 30", "30 40 4"),
        )
        self.assertEqual(referee.hosts[0].proc.wait(timeout=5), 3)

    def test_v7(self):
        notation = "".join(
            "r%d: s0 6 six 0 | s1 6 six 0 | s2 6 six 0\n" % r for r in range(1, 201)
        )
        notation += """
            → round limit: 200 rounds played
            fin: s0 L 6 six 0 | s1 L 6 six 0 | s2 L 6 six 0
            result: scores 0 0 0; winners s0 s1 s2; rounds 200; tied yes; round limit yes
            """
        self.run_vector(["GoToTenBot", "ThrowTwiceBot", "StopBot"], "6*603", notation)

    def test_v8(self):
        notation = "".join(
            "r%d: s0 4 bank %d | s1 6 six 0 | s2 6 six 0\n" % (r, 4 * r) for r in range(1, 10)
        )
        notation += "".join(
            "r%d: s0 6 six 36 | s1 6 six 0 | s2 6 six 0\n" % r for r in range(10, 200)
        )
        notation += """
            r200: s0 4 bank 40 → last round: s0 reached 40 in round 200 | s1 L 6 six 0 | s2 L 6 six 0
            → round limit: 200 rounds played
            fin: s0 L 6 : - bust 0 | s1 L 5 5 bank 10 | s2 L 5 5 bank 10
            result: scores 0 10 10; winners s1 s2; rounds 200; tied yes; round limit yes
            """
        self.run_vector(
            ["StopBot", "ThrowTwiceBot", "GoToTenBot"],
            ",".join(["4,6,6"] * 9) + ",6*570,4,6,6,6,5,5,5,5",
            notation,
        )


class OriginalStyleField(HostTestCase):
    def test_a_field_of_class_based_bots_plays_a_seeded_game(self):
        """Six bots in the original style (thresholds, leader chasing,
        end-score arithmetic, numpy when installed, class state, one that
        raises) play through the host; only the raising bot fails."""
        import random

        sources = [THRESHOLD_BOT, LEADER_CHASER, END_SCORE_BOT, CLASS_STATE_BOT, RAISING_BOT]
        if HAVE_NUMPY:
            sources.append(NUMPY_BOT)
        hosts = [
            self.host(self.bot_file(src, "bot%d.py" % i), seed=i) for i, src in enumerate(sources)
        ]
        dice_source = random.Random(2019)
        dice = [dice_source.randint(1, 6) for _ in range(200000)]
        referee = MiniReferee(hosts, dice, budget=5.0)
        lines = referee.play()
        self.assertTrue(lines[-1].startswith("result: scores"), lines[-1])
        turns = [l for l in lines if re.match(r"(r\d+|fin) s\d+ ", l)]
        self.assertGreater(len(turns), 10)
        raiser = referee.names.index("RaisingBot")
        for line in turns:
            fields = line.split()
            if int(fields[1][1:]) == raiser:
                continue
            self.assertNotIn(fields[-2], ("error", "timeout", "malformed", "crash", "lost"), line)
        first_even = [
            l for l in turns
            if l.split()[1] == "s%d" % raiser and int(l.split()[4]) % 2 == 0 and l.split()[4] != "6"
        ]
        # The dice are seeded, so the raising bot's even first dice are known
        # to occur.
        self.assertTrue(first_even)
        for line in first_even:
            self.assertIn(": E error", line)
        for host in hosts:
            self.assertEqual(host.close()[0], 0)


if __name__ == "__main__":
    unittest.main()
