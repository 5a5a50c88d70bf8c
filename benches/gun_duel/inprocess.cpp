// inprocess.cpp: the in-process baseline of the gun-duel benchmark (G3 in
// benches/gun_duel_overhead.rs). One process, one thread, the original
// contest's design: every player is a C++ object behind `Player*`, called
// virtually; no pipes, no processes, no database. The same `<Name>.hpp`
// files the referee runs through protocols/gun-duel/driver.cpp compile in
// here, and each player sees exactly the calls the driver makes (spec 8.2):
// built with the opponent's id per duel, fight() on both each turn, the
// driver's own bookkeeping (turn, history, ammo), perceive() of the other's
// move on both, one declared(result), then destroyed. The tournament is the
// referee's (spec 5): ids a seeded permutation, rounds of `passes` shuffled
// passes over every live pair, elimination as 5.4. The referee's time over
// this program's, for the same players and the same number of duels, is the
// cost of running every player in its own process (issue 19).
//
// `--pipes BIN...` (G3's third side): the same tournament loop, but each
// player is its adapter binary (built from the same `<Name>.hpp` with
// driver.cpp), started once with fork/exec in the binary's folder (the
// referee uses the tournament folder; no player here touches files), in
// its own process group, stdin and stdout on pipes, stderr inherited (this
// program's stderr, the log), and talked to exactly as the referee talks
// to an interface-2 bot (spec 4): `I<id>` with the first `F` in one write; each turn one write to both
// players (the last turn's `P<c>` with the next `F`), then one move byte
// read from each (blocking reads: no timeouts, no sandbox, no database);
// a duel's final `P` goes with the next duel's `I` and `F`, or at the end
// of the round (as the referee flushes); at the end every stdin is closed
// and every process waited for. This is the isolated design at its minimum:
// the cost of pipes and process wake-ups alone.
//
// Written for the referee project (not taken from fzql/GunDuel).
//
// Build: g++ -std=c++14 -O2 -I <protocols>/gun-duel -I <dir of field.hpp and
//        the players' headers> inprocess.cpp -o inprocess
// where field.hpp includes each `<Name>.hpp` and defines
//   static const FieldEntry FIELD[] = {{"Name", [](size_t o) -> Player* { return new Name(o); }}, ...};
// Run:   inprocess [--passes N] [--turns N] [--seed N] [--pipes BIN...]
//        (defaults 100, 100, 1; `--pipes` comes last and lists one binary
//        per FIELD entry, in FIELD order; the names printed are FIELD's)
// Prints one JSON line on stdout: duels, turns, rounds, bots whose process
// closed a pipe (`dead`, always 0 in process), the winners, the bots that
// left in each round and every bot's total. Players' own output goes to stderr, as the
// driver sends it to the bot's log. Time is measured from outside.

#include "Player.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <numeric>
#include <random>
#include <string>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

const char Player::ACTION[5] = {'0', '1', '2', '-', '='};

// The only code allowed to change a player's own ammo, turn and history,
// as in driver.cpp.
class GunDuelDriverAccess
{
public:
    static void recordOwnMove(Player& player, Player::Action action)
    {
        player.turn_ += 1;
        player.history_.push_back(action);
        player.ammo_ += ammoChange(static_cast<int>(action));
    }

    // +1 load, -1 bullet, -2 plasma; shields and unknown values cost nothing.
    static int ammoChange(int action)
    {
        switch (action)
        {
        case Player::LOAD: return 1;
        case Player::BULLET: return -1;
        case Player::PLASMA: return -2;
        default: return 0;
        }
    }
};

struct FieldEntry
{
    const char* name;
    Player* (*make)(size_t opponent);
};

#include "field.hpp"

namespace inprocess
{

bool isAction(int action) { return action >= 0 && action < 5; }

// Whether `shot` kills a bot that plays `target` (spec 2's table).
bool kills(int shot, int target)
{
    if (shot == Player::BULLET)
        return target == Player::LOAD || target == Player::THERMAL;
    if (shot == Player::PLASMA)
        return target == Player::LOAD || target == Player::BULLET || target == Player::METAL;
    return false;
}

enum Outcome { DRAW, A_WINS, B_WINS };

// The rules of one turn (spec 2, steps 2, 3 and 5) on both modes' moves:
// `ia`, `ib` are the actions, any value outside 0..4 meaning no action;
// `ammoA`, `ammoB` the referee's own counts. Returns whether the duel is
// decided, with its outcome in `outcome`.
inline bool resolveTurn(int ia, int ib, int& ammoA, int& ammoB, Outcome& outcome)
{
    if (isAction(ia))
        ammoA += GunDuelDriverAccess::ammoChange(ia);
    if (isAction(ib))
        ammoB += GunDuelDriverAccess::ammoChange(ib);
    const bool validA = isAction(ia) && ammoA >= 0;
    const bool validB = isAction(ib) && ammoB >= 0;
    if (validA && validB)
    {
        if (kills(ia, ib))
            return outcome = A_WINS, true;
        if (kills(ib, ia))
            return outcome = B_WINS, true;
        return false;
    }
    outcome = validA ? A_WINS : validB ? B_WINS : DRAW;
    return true;
}

// One duel between field entries `a` and `b` (ids idA, idB); adds the turns
// played to `turns`.
Outcome duel(size_t a, size_t b, size_t idA, size_t idB, int maxTurns, unsigned long long& turns)
{
    Player* pa = FIELD[a].make(idB);
    Player* pb = FIELD[b].make(idA);
    int ammoA = 0, ammoB = 0; // the driver's own account of both guns
    Outcome outcome = DRAW;
    bool decided = false;
    for (int turn = 0; turn < maxTurns && !decided; ++turn)
    {
        ++turns;
        const Player::Action x = pa->fight();
        GunDuelDriverAccess::recordOwnMove(*pa, x);
        const Player::Action y = pb->fight();
        GunDuelDriverAccess::recordOwnMove(*pb, y);
        const int ia = static_cast<int>(x), ib = static_cast<int>(y);
        // A value outside the enumeration reaches the other side as `?`,
        // which the driver does not pass on.
        if (isAction(ib))
            pa->perceive(y);
        if (isAction(ia))
            pb->perceive(x);
        decided = resolveTurn(ia, ib, ammoA, ammoB, outcome);
    }
    pa->declared(outcome == A_WINS ? Player::WIN : outcome == B_WINS ? Player::LOSS : Player::DRAW);
    pb->declared(outcome == B_WINS ? Player::WIN : outcome == A_WINS ? Player::LOSS : Player::DRAW);
    delete pa;
    delete pb;
    return outcome;
}

// `--pipes`: one player's adapter process, as the referee holds an
// interface-2 bot (spec 4), minus timeouts, sandbox and logs of its own.
struct PipeBot
{
    pid_t pid = -1;
    int in = -1;  // the write end of its stdin
    int out = -1; // the read end of its stdout
    bool dead = false;
    std::string pending; // the bytes owed to it, sent with its next ask
    char buf[64];
    size_t pos = 0, len = 0;
};

// Starts `path` in its own folder (and process group, as the referee
// does), stdin and stdout on pipes, stderr inherited. False if it cannot.
bool startBot(const char* path, PipeBot& bot)
{
    char real[PATH_MAX];
    if (!::realpath(path, real))
        return false;
    std::string folder(real);
    folder.erase(folder.rfind('/') + 1);
    int in[2], out[2];
    if (::pipe2(in, O_CLOEXEC) < 0)
        return false;
    if (::pipe2(out, O_CLOEXEC) < 0)
        return false;
    const pid_t pid = ::fork();
    if (pid < 0)
        return false;
    if (pid == 0)
    {
        // dup2 clears close-on-exec on 0 and 1; every other pipe end (this
        // bot's and the earlier bots') closes at exec.
        if (::dup2(in[0], 0) < 0 || ::dup2(out[1], 1) < 0 || ::chdir(folder.c_str()) < 0)
            ::_exit(127);
        ::setpgid(0, 0);
        ::signal(SIGPIPE, SIG_DFL); // an ignored signal stays ignored across exec
        ::execl(real, real, static_cast<char*>(nullptr));
        ::_exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    bot.pid = pid;
    bot.in = in[1];
    bot.out = out[0];
    return true;
}

// Writes what is pending to the bot in one write (a dead bot's bytes are
// dropped, as the referee drops them).
void flushBot(PipeBot& bot)
{
    size_t done = 0;
    while (!bot.dead && done < bot.pending.size())
    {
        const ssize_t w = ::write(bot.in, bot.pending.data() + done, bot.pending.size() - done);
        if (w > 0)
            done += static_cast<size_t>(w);
        else if (w < 0 && errno == EINTR)
            continue;
        else
            bot.dead = true; // it closed its stdin: dead from now on
    }
    bot.pending.clear();
}

// The bot's next move (spec 4): the next byte on its stdout that is not
// whitespace, read as the referee reads (what is there, bytes kept for
// later moves), turned into an action, -1 for bad output. A bot that closes
// its stdout is dead: no action from then on. (The referee's limit of 4096
// whitespace bytes before a move is left out: the adapter writes one LF.)
int readMove(PipeBot& bot)
{
    while (!bot.dead)
    {
        while (bot.pos < bot.len)
        {
            const char c = bot.buf[bot.pos++];
            if (c == ' ' || (c >= '\t' && c <= '\r'))
                continue;
            for (int i = 0; i < 5; ++i)
                if (Player::ACTION[i] == c)
                    return i;
            return -1;
        }
        const ssize_t n = ::read(bot.out, bot.buf, sizeof bot.buf);
        if (n > 0)
            bot.pos = 0, bot.len = static_cast<size_t>(n);
        else if (!(n < 0 && errno == EINTR))
            bot.dead = true;
    }
    return -1;
}

void appendId(std::string& s, size_t id)
{
    char digits[24];
    const int k = std::snprintf(digits, sizeof digits, "%zu", id);
    s.append(digits, static_cast<size_t>(k));
}

// One duel over pipes between field entries `a` and `b` (ids idA, idB):
// the referee's messages and rules, the players' moves from their
// processes. Adds the turns played to `turns`.
Outcome duelPipes(std::vector<PipeBot>& bots, size_t a, size_t b, size_t idA, size_t idB, int maxTurns,
                  unsigned long long& turns)
{
    PipeBot& pa = bots[a];
    PipeBot& pb = bots[b];
    // Any `P` owed from the last duel, `I`, and the first `F`, in one write.
    if (!pa.dead)
    {
        pa.pending += 'I';
        appendId(pa.pending, idB);
        pa.pending += "\nF\n";
        flushBot(pa);
    }
    if (!pb.dead)
    {
        pb.pending += 'I';
        appendId(pb.pending, idA);
        pb.pending += "\nF\n";
        flushBot(pb);
    }
    int ammoA = 0, ammoB = 0;
    Outcome outcome = DRAW;
    bool decided = false;
    for (int turn = 0; turn < maxTurns && !decided; ++turn)
    {
        ++turns;
        // Both were asked at once: both think while the first is read.
        const int ia = readMove(pa);
        const int ib = readMove(pb);
        decided = resolveTurn(ia, ib, ammoA, ammoB, outcome);
        const bool more = !decided && turn + 1 < maxTurns;
        if (!pa.dead)
        {
            const char p[] = {'P', isAction(ib) ? Player::ACTION[ib] : '?', '\n', 'F', '\n'};
            pa.pending.append(p, more ? 5 : 3);
            if (more)
                flushBot(pa);
        }
        if (!pb.dead)
        {
            const char p[] = {'P', isAction(ia) ? Player::ACTION[ia] : '?', '\n', 'F', '\n'};
            pb.pending.append(p, more ? 5 : 3);
            if (more)
                flushBot(pb);
        }
    }
    return outcome;
}

struct Card
{
    size_t id;
    bool alive = true;
    long points = 0;
    long total = 0;
};

std::string quoted(const char* s)
{
    std::string out = "\"";
    for (; *s; ++s)
    {
        if (*s == '"' || *s == '\\')
            out.push_back('\\');
        out.push_back(*s);
    }
    return out + "\"";
}

} // namespace inprocess

int main(int argc, char** argv)
{
    using namespace inprocess;
    long passes = 100, maxTurns = 100;
    unsigned long long seed = 1;
    const size_t n = sizeof FIELD / sizeof FIELD[0];
    std::vector<const char*> binaries; // `--pipes`: one per FIELD entry
    bool usage = false;
    for (int i = 1; i < argc && !usage; i += 2)
    {
        if (!std::strcmp(argv[i], "--pipes"))
        {
            binaries.assign(argv + i + 1, argv + argc);
            usage = binaries.size() != n;
            break;
        }
        if (i + 1 >= argc)
        {
            usage = true;
            break;
        }
        const long value = std::strtol(argv[i + 1], nullptr, 10);
        if (!std::strcmp(argv[i], "--passes") && value > 0)
            passes = value;
        else if (!std::strcmp(argv[i], "--turns") && value > 0)
            maxTurns = value;
        else if (!std::strcmp(argv[i], "--seed"))
            seed = std::strtoull(argv[i + 1], nullptr, 10);
        else
            usage = true;
    }
    if (usage)
    {
        std::fprintf(stderr,
                     "usage: inprocess [--passes N] [--turns N] [--seed N] [--pipes BIN...]\n"
                     "       (--pipes last, with one binary per player of field.hpp: %zu)\n",
                     n);
        return 2;
    }
    const bool pipes = !binaries.empty();
    // The result line keeps the real stdout; players' output goes to stderr.
    const int out = ::dup(1);
    if (out < 0 || ::fcntl(out, F_SETFD, FD_CLOEXEC) < 0 || ::dup2(2, 1) < 0)
    {
        std::perror("inprocess: cannot set up stdout");
        return 1;
    }
    // As the referee: a bot that stops reading is a value, not a signal.
    std::signal(SIGPIPE, SIG_IGN);
    // Every process starts when play begins and runs to the end.
    std::vector<PipeBot> bots(pipes ? n : 0);
    for (size_t i = 0; i < bots.size(); ++i)
        if (!startBot(binaries[i], bots[i]))
        {
            std::fprintf(stderr, "inprocess: cannot start %s: %s\n", binaries[i], std::strerror(errno));
            return 2;
        }

    std::vector<Card> cards(n);
    {
        std::vector<size_t> ids(n);
        std::iota(ids.begin(), ids.end(), 0);
        std::mt19937_64 rng(seed);
        std::shuffle(ids.begin(), ids.end(), rng);
        for (size_t i = 0; i < n; ++i)
            cards[i].id = ids[i];
    }

    unsigned long long duels = 0, turns = 0;
    std::vector<std::vector<size_t>> left;
    std::vector<size_t> winners;
    size_t round = 0;
    for (;;)
    {
        std::vector<size_t> live;
        for (size_t i = 0; i < n; ++i)
            if (cards[i].alive)
                live.push_back(i);
        if (live.size() <= 1)
        {
            winners = live;
            break;
        }
        for (size_t i : live)
            cards[i].points = 0;
        std::vector<std::pair<size_t, size_t>> pairs;
        for (size_t x = 0; x < live.size(); ++x)
            for (size_t y = x + 1; y < live.size(); ++y)
                pairs.emplace_back(live[x], live[y]);
        for (long pass = 0; pass < passes; ++pass)
        {
            std::seed_seq s{static_cast<unsigned>(seed), static_cast<unsigned>(seed >> 32),
                            static_cast<unsigned>(round), static_cast<unsigned>(pass)};
            std::mt19937_64 rng(s);
            std::vector<std::pair<size_t, size_t>> order = pairs;
            std::shuffle(order.begin(), order.end(), rng);
            for (const auto& p : order)
            {
                ++duels;
                const size_t idA = cards[p.first].id, idB = cards[p.second].id;
                const int limit = static_cast<int>(maxTurns);
                const Outcome o = pipes ? duelPipes(bots, p.first, p.second, idA, idB, limit, turns)
                                        : duel(p.first, p.second, idA, idB, limit, turns);
                if (o != DRAW)
                {
                    Card& w = cards[o == A_WINS ? p.first : p.second];
                    w.points += 1;
                    w.total += 1;
                }
            }
        }
        // The `P`s owed from the round's last duels go out now, as the
        // referee flushes every bot after a round.
        for (PipeBot& bot : bots)
            flushBot(bot);
        // Elimination (spec 5.4).
        long m = cards[live[0]].points;
        for (size_t i : live)
            m = std::min(m, cards[i].points);
        long t = -1;
        for (size_t i : live)
            if (cards[i].points == m && (t < 0 || cards[i].total < t))
                t = cards[i].total;
        std::vector<size_t> leaving;
        for (size_t i : live)
            if (cards[i].points == m && cards[i].total == t)
                leaving.push_back(i);
        ++round;
        if (leaving.size() == live.size())
        {
            // Nobody leaves: the joint winners.
            winners = live;
            break;
        }
        for (size_t i : leaving)
            cards[i].alive = false;
        left.push_back(leaving);
    }

    // The end (spec 4): EOF to every process, then wait for it (its CPU
    // time then counts in this program's RUSAGE_CHILDREN).
    for (PipeBot& bot : bots)
    {
        flushBot(bot);
        ::close(bot.in);
    }
    size_t dead = 0; // bots that closed a pipe during play (none should)
    for (PipeBot& bot : bots)
    {
        dead += bot.dead;
        ::close(bot.out);
        int status = 0;
        while (::waitpid(bot.pid, &status, 0) < 0 && errno == EINTR)
        {
        }
    }

    std::string line = "{\"duels\":" + std::to_string(duels) + ",\"turns\":" + std::to_string(turns)
        + ",\"rounds\":" + std::to_string(round) + ",\"dead\":" + std::to_string(dead) + ",\"winners\":[";
    for (size_t k = 0; k < winners.size(); ++k)
        line += (k ? "," : "") + quoted(FIELD[winners[k]].name);
    line += "],\"left\":[";
    for (size_t r = 0; r < left.size(); ++r)
    {
        line += r ? ",[" : "[";
        for (size_t k = 0; k < left[r].size(); ++k)
            line += (k ? "," : "") + quoted(FIELD[left[r][k]].name);
        line += "]";
    }
    line += "],\"totals\":{";
    for (size_t i = 0; i < n; ++i)
        line += (i ? "," : "") + quoted(FIELD[i].name) + ":" + std::to_string(cards[i].total);
    line += "}}\n";
    std::fflush(stdout);
    size_t done = 0;
    while (done < line.size())
    {
        const ssize_t w = ::write(out, line.data() + done, line.size() - done);
        if (w <= 0)
            return 1;
        done += static_cast<size_t>(w);
    }
    return 0;
}
