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
// Written for the referee project (not taken from fzql/GunDuel).
//
// Build: g++ -std=c++14 -O2 -I <protocols>/gun-duel -I <dir of field.hpp and
//        the players' headers> inprocess.cpp -o inprocess
// where field.hpp includes each `<Name>.hpp` and defines
//   static const FieldEntry FIELD[] = {{"Name", [](size_t o) -> Player* { return new Name(o); }}, ...};
// Run:   inprocess [--passes N] [--turns N] [--seed N]   (defaults 100, 100, 1)
// Prints one JSON line on stdout: duels, turns, rounds, the winners and the
// bots that left in each round. Players' own output goes to stderr, as the
// driver sends it to the bot's log. Time is measured from outside.

#include "Player.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
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
        if (isAction(ia))
            ammoA += GunDuelDriverAccess::ammoChange(ia);
        if (isAction(ib))
            ammoB += GunDuelDriverAccess::ammoChange(ib);
        const bool validA = isAction(ia) && ammoA >= 0;
        const bool validB = isAction(ib) && ammoB >= 0;
        if (validA && validB)
        {
            if (kills(ia, ib))
                outcome = A_WINS, decided = true;
            else if (kills(ib, ia))
                outcome = B_WINS, decided = true;
        }
        else
        {
            outcome = validA ? A_WINS : validB ? B_WINS : DRAW;
            decided = true;
        }
    }
    pa->declared(outcome == A_WINS ? Player::WIN : outcome == B_WINS ? Player::LOSS : Player::DRAW);
    pb->declared(outcome == B_WINS ? Player::WIN : outcome == A_WINS ? Player::LOSS : Player::DRAW);
    delete pa;
    delete pb;
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
    for (int i = 1; i + 1 < argc; i += 2)
    {
        const long value = std::strtol(argv[i + 1], nullptr, 10);
        if (!std::strcmp(argv[i], "--passes") && value > 0)
            passes = value;
        else if (!std::strcmp(argv[i], "--turns") && value > 0)
            maxTurns = value;
        else if (!std::strcmp(argv[i], "--seed"))
            seed = std::strtoull(argv[i + 1], nullptr, 10);
        else
        {
            std::fprintf(stderr, "usage: inprocess [--passes N] [--turns N] [--seed N]\n");
            return 2;
        }
    }
    // The result line keeps the real stdout; players' output goes to stderr.
    const int out = ::dup(1);
    if (out < 0 || ::dup2(2, 1) < 0)
    {
        std::perror("inprocess: cannot set up stdout");
        return 1;
    }

    const size_t n = sizeof FIELD / sizeof FIELD[0];
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
                const Outcome o = duel(p.first, p.second, cards[p.first].id, cards[p.second].id,
                                       static_cast<int>(maxTurns), turns);
                if (o != DRAW)
                {
                    Card& w = cards[o == A_WINS ? p.first : p.second];
                    w.points += 1;
                    w.total += 1;
                }
            }
        }
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

    std::string line = "{\"duels\":" + std::to_string(duels) + ",\"turns\":" + std::to_string(turns)
        + ",\"rounds\":" + std::to_string(round) + ",\"winners\":[";
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
