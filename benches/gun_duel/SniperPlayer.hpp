// SniperPlayer: keeps one bullet ready and fires it when the opponent
// loaded on its previous turn, betting that it loads again.

#ifndef SNIPER_PLAYER_HPP
#define SNIPER_PLAYER_HPP

#include "Player.hpp"

class SniperPlayer final : public Player
{
public:
    SniperPlayer(size_t opponent = -1) : Player(opponent) {}

    virtual Action fight()
    {
        const std::vector<Action>& seen = getHistoryOpponent();
        if (getAmmo() == 0)
            return getAmmoOpponent() > 0 ? metal() : load();
        if (!seen.empty() && seen.back() == LOAD)
            return bullet();
        if (getAmmoOpponent() >= 2)
            return thermal();
        return getAmmoOpponent() == 1 ? metal() : load();
    }
};

#endif
