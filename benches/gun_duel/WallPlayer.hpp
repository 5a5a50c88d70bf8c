// WallPlayer: raises the metal shield every turn. Two of them draw every
// duel at the turn limit, which makes the longest possible duels: the
// benchmark's measure of the cost of a turn.

#ifndef WALL_PLAYER_HPP
#define WALL_PLAYER_HPP

#include "Player.hpp"

class WallPlayer final : public Player
{
public:
    WallPlayer(size_t opponent = -1) : Player(opponent) {}

    virtual Action fight() { return metal(); }
};

#endif
