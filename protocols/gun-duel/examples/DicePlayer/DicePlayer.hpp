// DicePlayer: a random example entry in the original form.
//
// It rolls among the moves that cannot make its own gun explode, and chats
// on std::cout: the driver sends that to the log, never to the referee.

#ifndef DICE_PLAYER_HPP
#define DICE_PLAYER_HPP

#include "Player.hpp"
#include <iostream>

class DicePlayer final : public Player
{
public:
    DicePlayer(size_t opponent = -1) : Player(opponent)
    {
        std::cout << "DicePlayer meets opponent " << getOpponent() << std::endl;
    }

    virtual Action fight()
    {
        std::vector<Action> options = {load(), metal(), thermal()};
        if (getAmmo() >= 1)
            options.push_back(bullet());
        if (getAmmo() >= 2)
            options.push_back(plasma());
        const Action chosen = options[GetRandomInteger(static_cast<int>(options.size()) - 1)];
        std::cout << "turn " << getTurn() << ": " << ACTION[chosen] << std::endl;
        return chosen;
    }

    virtual void perceive(Action action)
    {
        Player::perceive(action);
        std::cout << "opponent so far: " << toActionString(getHistoryOpponent()) << std::endl;
    }

    virtual void declared(Result result)
    {
        static const char* const words[] = {"draw", "win", "loss"};
        std::cout << "result: " << words[result] << " after " << toActionString(getHistory()) << std::endl;
    }
};

#endif
