// EchoPlayer: a pattern matcher. It finds the longest recent stretch of the
// duel (both players' moves) that happened before, assumes the opponent
// repeats what it played next that time, and answers that move; with no
// match it plays safe for the opponent's ammo.

#ifndef ECHO_PLAYER_HPP
#define ECHO_PLAYER_HPP

#include "Player.hpp"

class EchoPlayer final : public Player
{
public:
    EchoPlayer(size_t opponent = -1) : Player(opponent) {}

    virtual Action fight()
    {
        const int mine = getAmmo();
        const int theirs = getAmmoOpponent();
        const int predicted = predict();
        if (predicted >= 0)
        {
            // The move that kills the predicted one, if affordable, else one
            // that survives it.
            if ((predicted == LOAD || predicted == THERMAL) && mine >= 1)
                return bullet();
            if ((predicted == LOAD || predicted == METAL || predicted == BULLET) && mine >= 2)
                return plasma();
            if (predicted == BULLET)
                return metal();
            if (predicted == PLASMA)
                return thermal();
            return load();
        }
        if (theirs >= 2)
            return thermal();
        if (theirs == 1)
            return metal();
        return load();
    }

private:
    static const int LONGEST = 6;

    // The opponent's move after the longest earlier match of the last
    // turns (own and opponent moves both), or -1.
    int predict() const
    {
        const std::vector<Action>& own = getHistory();
        const std::vector<Action>& their = getHistoryOpponent();
        const int n = static_cast<int>(their.size() < own.size() ? their.size() : own.size());
        int bestLength = 0;
        int next = -1;
        for (int end = n - 1; end > 0; --end)
        {
            // Compare the turns before `end` with the turns before n.
            int length = 0;
            while (length < LONGEST && length < end && own[end - 1 - length] == own[n - 1 - length]
                   && their[end - 1 - length] == their[n - 1 - length])
                ++length;
            if (length > bestLength)
            {
                bestLength = length;
                next = their[end];
            }
        }
        return next;
    }
};

#endif
