// PlayoutPlayer: a Monte-Carlo entry. Before every move it plays a few
// hundred random continuations of the duel from the current ammo counts,
// starting with each move it may afford, and keeps the move whose
// continuations win most often. Its own later moves are uniform among the
// affordable ones; the opponent's are drawn from what that opponent (by
// id) played at the same ammo level in every duel so far, kept in a static
// table for the whole tournament (plus one imagined play of every
// affordable move). The expensive thinker of the benchmark
// field (benches/gun_duel_overhead.rs, G3): most of the field's thinking
// time is spent here, as it was in the original contest's field.

#ifndef PLAYOUT_PLAYER_HPP
#define PLAYOUT_PLAYER_HPP

#include "Player.hpp"
#include <map>

class PlayoutPlayer final : public Player
{
public:
    PlayoutPlayer(size_t opponent = -1) : Player(opponent), seen_(models()[opponent].seen) {}

    virtual void perceive(Action action)
    {
        const int ammo = getAmmoOpponent();
        seen_[ammo < 2 ? (ammo < 0 ? 0 : ammo) : 2][action] += 1;
        Player::perceive(action);
    }

    virtual Action fight()
    {
        const int mine = getAmmo();
        const int theirs = getAmmoOpponent();
        Action best = load();
        int bestScore = -PLAYOUTS - 1;
        for (int first = 0; first < 5; ++first)
        {
            if (cost(first) > mine)
                continue; // never explode on purpose
            int score = 0;
            for (int k = 0; k < PLAYOUTS; ++k)
                score += playout(first, mine, theirs);
            if (score > bestScore)
            {
                bestScore = score;
                best = static_cast<Action>(first);
            }
        }
        return best;
    }

private:
    static const int PLAYOUTS = 320;
    static const int DEPTH = 8;

    // An opponent's moves by its ammo before them (0, 1, 2+).
    struct Model
    {
        int seen[3][5] = {{0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}};
    };

    // Lives across duels: one object is built per duel, statics stay.
    static std::map<size_t, Model>& models()
    {
        static std::map<size_t, Model> table;
        return table;
    }

    int (&seen_)[3][5];

    // Ammo an action needs (and spends).
    static int cost(int action) { return action == BULLET ? 1 : action == PLASMA ? 2 : 0; }

    static int change(int action) { return action == LOAD ? 1 : -cost(action); }

    // Whether `shot` kills a bot that plays `target`.
    static bool kills(int shot, int target)
    {
        if (shot == BULLET)
            return target == LOAD || target == THERMAL;
        if (shot == PLASMA)
            return target == LOAD || target == BULLET || target == METAL;
        return false;
    }

    // A random move among those `ammo` allows: load, the shields, then the
    // shots it can pay for.
    static int randomMove(int ammo)
    {
        static const int moves[5] = {LOAD, METAL, THERMAL, BULLET, PLASMA};
        const int allowed = 3 + (ammo >= 1 ? 1 : 0) + (ammo >= 2 ? 1 : 0);
        return moves[GetRandomInteger(allowed - 1)];
    }

    // The opponent's move as the model predicts it at `ammo`.
    int opponentMove(int ammo) const
    {
        const int* n = seen_[ammo < 2 ? (ammo < 0 ? 0 : ammo) : 2];
        int total = 0;
        for (int b = 0; b < 5; ++b)
            if (cost(b) <= ammo)
                total += 1 + n[b];
        int pick = GetRandomInteger(total - 1);
        for (int b = 0; b < 5; ++b)
            if (cost(b) <= ammo && (pick -= 1 + n[b]) < 0)
                return b;
        return LOAD;
    }

    // +1 if we win the continuation, -1 if we lose, 0 if nobody dies
    // within DEPTH turns.
    int playout(int first, int mine, int theirs) const
    {
        int own = first;
        for (int depth = 0; depth < DEPTH; ++depth)
        {
            const int other = opponentMove(theirs);
            if (kills(own, other))
                return 1;
            if (kills(other, own))
                return -1;
            mine += change(own);
            theirs += change(other);
            own = randomMove(mine);
        }
        return 0;
    }
};

#endif
