// CautiousPlayer: a few branches. It loads only when the opponent cannot
// shoot, keeps at most two charges, shields against the shot the opponent
// can afford (at random between the two when both are), and fires plasma
// at an unarmed opponent.

#ifndef CAUTIOUS_PLAYER_HPP
#define CAUTIOUS_PLAYER_HPP

#include "Player.hpp"

class CautiousPlayer final : public Player
{
public:
    CautiousPlayer(size_t opponent = -1) : Player(opponent) {}

    virtual Action fight()
    {
        const int mine = getAmmo();
        const int theirs = getAmmoOpponent();
        if (theirs == 0)
            return mine >= 2 ? plasma() : load();
        if (theirs == 1)
            return mine >= 1 && GetRandomInteger(2) == 0 ? bullet() : metal();
        return GetRandomInteger(1) == 0 ? thermal() : metal();
    }
};

#endif
