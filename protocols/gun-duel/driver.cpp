// driver.cpp: runs one C++ gun-duel player as an interface-2 bot.
//
// Build, in the bot's folder, as one command (see README.md):
//   g++ -std=c++14 -O2 -I <protocols>/gun-duel -include <Name>.hpp
//       -DGUNDUEL_PLAYER=<Name> <protocols>/gun-duel/driver.cpp -o <Name>
//
// Protocol: the referee writes `I<opponent-id>` at the start of every duel,
// `F` when it wants a move and `P<c>` after every turn; the driver answers
// each `F` with one action character and a newline.

#include "Player.hpp"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <unistd.h>

#ifndef GUNDUEL_PLAYER
#error "GUNDUEL_PLAYER is not defined: build with -include <Name>.hpp -DGUNDUEL_PLAYER=<Name> (see protocols/gun-duel/README.md)"
#endif

const char Player::ACTION[5] = {'0', '1', '2', '-', '='};

// The only code allowed to change a player's own ammo, turn and history.
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

// A named namespace: names of the driver cannot clash with a player's own
// global names, even under `using namespace std;`.
namespace gunduel_driver
{

const int NO_ACTION = -1;

bool isAction(int action) { return action >= 0 && action < 5; }

int actionFromChar(char c)
{
    for (int i = 0; i < 5; ++i)
        if (Player::ACTION[i] == c)
            return i;
    return NO_ACTION;
}

// The outcome table: whether `shot` kills a bot that plays `target`.
bool kills(int shot, int target)
{
    if (shot == Player::BULLET)
        return target == Player::LOAD || target == Player::THERMAL;
    if (shot == Player::PLASMA)
        return target == Player::LOAD || target == Player::BULLET || target == Player::METAL;
    return false;
}

// Writes all of `data` to `fd`; false once the referee stopped listening.
bool writeAll(int fd, const char* data, size_t size)
{
    while (size > 0)
    {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        data += n;
        size -= static_cast<size_t>(n);
    }
    return true;
}

// Reads stdin line by line with its own buffer: one read() serves many lines.
class LineReader
{
public:
    bool next(std::string& line)
    {
        line.clear();
        for (;;)
        {
            while (pos_ < len_)
            {
                const char c = buf_[pos_++];
                if (c == '\n')
                    return true;
                line.push_back(c);
            }
            if (eof_)
                return !line.empty();
            const ssize_t n = ::read(0, buf_, sizeof buf_);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                eof_ = true;
            else
            {
                pos_ = 0;
                len_ = static_cast<size_t>(n);
            }
        }
    }

private:
    char buf_[1 << 16];
    size_t pos_ = 0;
    size_t len_ = 0;
    bool eof_ = false;
};

// `I` line id: decimal digits only, else size_t(-1).
size_t parseId(const std::string& line)
{
    if (line.size() < 2)
        return size_t(-1);
    size_t id = 0;
    for (size_t i = 1; i < line.size(); ++i)
    {
        const char c = line[i];
        if (c < '0' || c > '9')
            return size_t(-1);
        const size_t digit = static_cast<size_t>(c - '0');
        if (id > (size_t(-1) - digit) / 10)
            return size_t(-1);
        id = id * 10 + digit;
    }
    return id;
}

// One duel as the driver sees it: the player object and the driver's own
// account of both guns, used to tell the player how the duel ended.
class Duel
{
public:
    explicit Duel(size_t opponent) : player_(new ::GUNDUEL_PLAYER(opponent)) {}

    Duel(const Duel&) = delete;
    Duel& operator=(const Duel&) = delete;

    // Calls declared() exactly once, then the player is destroyed.
    ~Duel() { player_->declared(result_); }

    char fight()
    {
        const Player::Action action = player_->fight();
        GunDuelDriverAccess::recordOwnMove(*player_, action);
        const int value = static_cast<int>(action);
        ownMove_ = isAction(value) ? value : NO_ACTION;
        asked_ = true;
        return isAction(value) ? Player::ACTION[value] : '?';
    }

    void perceive(char c)
    {
        const int opponentMove = actionFromChar(c);
        if (isAction(opponentMove))
            player_->perceive(static_cast<Player::Action>(opponentMove));
        // Without an `F` since the last `P` this bot made no move this turn.
        const int ownMove = asked_ ? ownMove_ : NO_ACTION;
        asked_ = false;
        if (!decided_)
            resolve(ownMove, opponentMove);
    }

private:
    // Section 2 of the rules: ammo changes apply even when lacking, a move is
    // valid when it is an action and leaves ammo >= 0.
    void resolve(int own, int opponent)
    {
        if (isAction(own))
            ammo_ += GunDuelDriverAccess::ammoChange(own);
        if (isAction(opponent))
            ammoOpponent_ += GunDuelDriverAccess::ammoChange(opponent);
        const bool ownValid = isAction(own) && ammo_ >= 0;
        const bool opponentValid = isAction(opponent) && ammoOpponent_ >= 0;
        if (ownValid && opponentValid)
        {
            if (kills(own, opponent))
                decide(Player::WIN);
            else if (kills(opponent, own))
                decide(Player::LOSS);
        }
        else if (ownValid)
            decide(Player::WIN);
        else if (opponentValid)
            decide(Player::LOSS);
        else
            decide(Player::DRAW);
    }

    void decide(Player::Result result)
    {
        result_ = result;
        decided_ = true;
    }

    std::unique_ptr<Player> player_;
    int ammo_ = 0;
    int ammoOpponent_ = 0;
    int ownMove_ = NO_ACTION;
    bool asked_ = false;
    bool decided_ = false;
    Player::Result result_ = Player::DRAW;
};

} // namespace gunduel_driver

int main()
{
    // Keep the real stdout for moves only; whatever the player prints (to
    // std::cout or printf) goes to stderr, the bot's log.
    const int moves = ::dup(1);
    if (moves < 0 || ::dup2(2, 1) < 0)
    {
        std::perror("gun-duel driver: cannot set up stdout");
        return 1;
    }
    // A referee that stopped listening must not kill us before declared().
    std::signal(SIGPIPE, SIG_IGN);

    gunduel_driver::LineReader input;
    std::unique_ptr<gunduel_driver::Duel> duel;
    std::string line;
    bool listening = true;
    while (input.next(line))
    {
        while (!line.empty() && (line.back() == '\r' || line.back() == '\n'))
            line.pop_back();
        if (line.empty())
            continue;
        switch (line[0])
        {
        case 'I':
            duel.reset(); // the previous player learns its result first
            duel.reset(new gunduel_driver::Duel(gunduel_driver::parseId(line)));
            break;
        case 'F':
        {
            if (!duel)
                duel.reset(new gunduel_driver::Duel(size_t(-1)));
            const char answer[2] = {duel->fight(), '\n'};
            if (listening)
                listening = gunduel_driver::writeAll(moves, answer, sizeof answer);
            break;
        }
        case 'P':
            if (duel)
                duel->perceive(line.size() > 1 ? line[1] : '?');
            break;
        default:
            break;
        }
    }
    duel.reset();
    std::fflush(stdout);
    return 0;
}
