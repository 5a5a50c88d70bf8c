// RandomPlayer: any move its ammo allows, uniformly at random.

#ifndef RANDOM_PLAYER_HPP
#define RANDOM_PLAYER_HPP

#include "Player.hpp"

class RandomPlayer final : public Player
{
public:
    RandomPlayer(size_t opponent = -1) : Player(opponent) {}

    virtual Action fight()
    {
        Action options[5] = {load(), metal(), thermal(), bullet(), plasma()};
        int allowed = 3 + (getAmmo() >= 1 ? 1 : 0) + (getAmmo() >= 2 ? 1 : 0);
        return options[GetRandomInteger(allowed - 1)];
    }
};

#endif
