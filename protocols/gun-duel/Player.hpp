// Player.hpp: the base class of a gun-duel player, compatible with the
// original C++ entries of "The Futuristic Gun Duel" so they compile
// unchanged against driver.cpp (see README.md).
//
// Written for the referee project; it only reproduces the public interface
// the original entries were written against.

#ifndef GUNDUEL_PLAYER_HPP
#define GUNDUEL_PLAYER_HPP

// Original entries rely on this header for these includes.
#include <chrono>
#include <climits>
#include <cstddef>
#include <limits>
#include <random>
#include <string>
#include <vector>

// Original entries write `size_t` unqualified.
using std::size_t;

// The driver's access to a player's private counters; defined in driver.cpp.
class GunDuelDriverAccess;

class Player
{
public:
    enum Action { LOAD, BULLET, PLASMA, METAL, THERMAL };
    enum Result { DRAW, WIN, LOSS };

    // '0' '1' '2' '-' '=', indexed by Action; defined in driver.cpp.
    static const char ACTION[5];

    explicit Player(size_t opponent = size_t(-1))
        : ammo_(0), turn_(0), ammoOpponent_(0), opponent_(opponent)
    {
    }

    virtual ~Player() {}

    // Chooses this turn's action.
    virtual Action fight() = 0;

    // Learns the opponent's action of the turn just played. The default keeps
    // the opponent's history and ammo; an override that does not call it
    // leaves both empty, as in the original.
    virtual void perceive(Action action)
    {
        historyOpponent_.push_back(action);
        switch (action)
        {
        case LOAD: ammoOpponent_ += 1; break;
        case BULLET: ammoOpponent_ -= 1; break;
        case PLASMA: ammoOpponent_ -= 2; break;
        default: break;
        }
    }

    // Learns how the duel ended, once, before the object is destroyed.
    virtual void declared(Result) {}

    int getAmmo() const { return ammo_; }

    // Turns completed; inside fight() this is the current turn's index.
    int getTurn() const { return turn_; }

    const std::vector<Action>& getHistory() const { return history_; }
    const std::vector<Action>& getHistoryOpponent() const { return historyOpponent_; }

    // Uniform in [0, max], both ends included. One engine per process, seeded
    // once from the system clock.
    static int GetRandomInteger(int max = INT_MAX)
    {
        static std::default_random_engine engine(static_cast<std::default_random_engine::result_type>(
            std::chrono::system_clock::now().time_since_epoch().count()));
        if (max <= 0)
            return 0;
        std::uniform_int_distribution<int> pick(0, max);
        return pick(engine);
    }

protected:
    Action load() const { return LOAD; }
    Action bullet() const { return BULLET; }
    Action plasma() const { return PLASMA; }
    Action metal() const { return METAL; }
    Action thermal() const { return THERMAL; }

    size_t getOpponent() const { return opponent_; }
    int getAmmoOpponent() const { return ammoOpponent_; }

private:
    int ammo_;
    int turn_;
    std::vector<Action> history_;
    std::vector<Action> historyOpponent_;
    int ammoOpponent_;
    size_t opponent_;

    friend class GunDuelDriverAccess;
};

// One ACTION character per entry, '?' for a value outside the enumeration.
inline std::string toActionString(const std::vector<Player::Action>& actions)
{
    std::string text;
    text.reserve(actions.size());
    for (Player::Action action : actions)
    {
        const int index = static_cast<int>(action);
        text.push_back(index >= 0 && index < 5 ? Player::ACTION[index] : '?');
    }
    return text;
}

#endif // GUNDUEL_PLAYER_HPP
