// SteadyPlayer: a deterministic example entry in the original form.
//
// It watches the opponent's ammo (kept by Player::perceive) and only fires
// when the opponent cannot shoot back, defending against the strongest shot
// the opponent can afford otherwise.

#ifndef STEADY_PLAYER_HPP
#define STEADY_PLAYER_HPP

#include "Player.hpp"

class SteadyPlayer final : public Player
{
public:
    SteadyPlayer(size_t opponent = -1) : Player(opponent) {}

    virtual Action fight()
    {
        const int mine = getAmmo();
        const int theirs = getAmmoOpponent();
        if (theirs == 0)
        {
            // The opponent can only load or shield: plasma beats a load and
            // a metal shield, so save up for it.
            return mine >= 2 ? plasma() : load();
        }
        if (theirs == 1)
        {
            // Only a bullet can come: metal stops it, and every other turn
            // a bullet of our own answers a reload.
            if (mine >= 1 && getTurn() % 2 == 1)
                return bullet();
            return metal();
        }
        // Plasma is affordable for the opponent: deflect it.
        return thermal();
    }

    virtual void declared(Result result)
    {
        if (result == WIN)
            ++wins();
    }

private:
    // A function-local static lives for the whole tournament, across duels.
    static int& wins()
    {
        static int count = 0;
        return count;
    }
};

#endif
