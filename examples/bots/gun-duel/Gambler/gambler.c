/* Gambler: a gun-duel bot on interface 1 (one run per turn, the exit
 * status is the move). It reads the turn, both ammo counts and both
 * histories from its arguments, and rolls dice weighted by what the
 * opponent can afford. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

enum { LOAD = '0', BULLET = '1', PLASMA = '2', METAL = '-', THERMAL = '=' };

int main(int argc, char **argv)
{
    /* <opponent-id> <turn> <status> <ammo> <ammo-opponent> [<history> <history-opponent>] */
    if (argc < 6)
        return LOAD;
    int status = atoi(argv[3]);
    if (status != 3)
        return 0; /* the call after a duel: nothing to do */
    int mine = atoi(argv[4]);
    int theirs = atoi(argv[5]);
    srand((unsigned)time(NULL) ^ ((unsigned)getpid() << 8));
    int roll = rand() % 100;

    if (theirs <= 0) {
        /* Unarmed opponent: it can only load or shield. */
        if (mine >= 1 && roll < 60)
            return BULLET;
        if (mine >= 2 && roll < 85)
            return PLASMA;
        return LOAD;
    }
    if (theirs == 1) {
        /* Only a bullet can come. */
        if (roll < 55)
            return METAL;
        if (mine >= 1 && roll < 75)
            return BULLET; /* bullets cancel */
        return LOAD;
    }
    /* Plasma is affordable for the opponent. */
    if (roll < 45)
        return THERMAL;
    if (roll < 70)
        return METAL;
    if (mine >= 2 && roll < 85)
        return PLASMA; /* plasmas cancel, and it beats a bullet */
    return LOAD;
}
