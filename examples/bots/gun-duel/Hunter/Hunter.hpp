// Hunter: a gun-duel entry in the original C++ form (see
// protocols/gun-duel/README.md). It remembers, per opponent id and for the
// whole tournament, which defence each opponent raises when it is armed,
// and aims the shot that defence does not stop.

#ifndef HUNTER_HPP
#define HUNTER_HPP

#include "Player.hpp"
#include <map>

class Hunter final : public Player
{
public:
    Hunter(size_t opponent = -1) : Player(opponent) {}

    virtual Action fight()
    {
        const int mine = getAmmo();
        const int theirs = getAmmoOpponent();
        Habits& h = habits()[getOpponent()];
        if (theirs >= 2)
            return thermal(); // plasma may come
        if (theirs == 1)
            return GetRandomInteger(3) == 0 && mine >= 1 ? bullet() : metal();
        // The opponent cannot shoot: pick the shot its favourite defence lets through.
        if (mine >= 2 && h.metal >= h.thermal)
            return plasma(); // plasma goes through metal
        if (mine >= 1)
            return bullet(); // a bullet goes through thermal
        return load();
    }

    virtual void perceive(Action action)
    {
        Habits& h = habits()[getOpponent()];
        if (action == METAL)
            ++h.metal;
        else if (action == THERMAL)
            ++h.thermal;
        Player::perceive(action);
    }

private:
    struct Habits
    {
        int metal = 0;
        int thermal = 0;
    };

    // Lives across duels: one object is built per duel, statics stay.
    static std::map<size_t, Habits>& habits()
    {
        static std::map<size_t, Habits> table;
        return table;
    }
};

#endif
