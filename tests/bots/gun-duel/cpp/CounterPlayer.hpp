// CounterPlayer: a test entry in the original C++ form. It reads the
// opponent's ammo, as kept by Player::perceive, and answers the strongest
// shot the opponent can afford; an unarmed opponent gets a bullet if it can.

#ifndef __COUNTER_PLAYER_HPP__
#define __COUNTER_PLAYER_HPP__

#include "Player.hpp"

class CounterPlayer final : public Player
{
public:
    CounterPlayer(size_t opponent = -1) : Player(opponent) {}

public:
    virtual Action fight()
    {
        if (getAmmoOpponent() >= 2)
            return thermal();
        if (getAmmoOpponent() == 1)
            return metal();
        return getAmmo() >= 1 ? bullet() : load();
    }
};

#endif
