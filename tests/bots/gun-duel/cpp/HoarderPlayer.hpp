// HoarderPlayer: a test entry in the original C++ form. It loads until it
// holds two charges, then fires plasma, and chats on std::cout (which the
// adapter sends to the log, never to the referee).

#ifndef __HOARDER_PLAYER_HPP__
#define __HOARDER_PLAYER_HPP__

#include "Player.hpp"
#include <iostream>

class HoarderPlayer final : public Player
{
public:
    HoarderPlayer(size_t opponent = -1) : Player(opponent) {}

public:
    virtual Action fight()
    {
        std::cout << "hoarder turn " << getTurn() << " ammo " << getAmmo() << std::endl;
        if (getAmmo() < 2)
            return load();
        return plasma();
    }

    virtual void declared(Result result)
    {
        ++duels;
        std::cout << "hoarder duel " << duels << " result " << result << std::endl;
    }

private:
    static int duels;
};

int HoarderPlayer::duels = 0;

#endif
