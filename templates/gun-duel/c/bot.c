/* {{name}}: a gun-duel bot in C.
 *
 * Interface io: this program runs once for the whole tournament, from the
 * tournament folder. It reads lines: I<id> when a duel starts (the
 * opponent's id), F when a move is wanted, P<c> after every turn with the
 * opponent's move (? for none). Answer each F with one move and flush:
 * 0 load (+1 ammo), 1 bullet (-1), 2 plasma (-2), - metal shield,
 * = thermal deflector. Firing without the ammo makes the gun explode.
 */
#include <stdio.h>

static int ammo_change(char move) {
    switch (move) {
    case '0': return 1;
    case '1': return -1;
    case '2': return -2;
    default: return 0; /* shields, and ? for no move */
    }
}

/* A bullet kills a loader or a thermal deflector; metal stops it. */
/* Plasma kills a loader, a bullet or metal; thermal stops it. */
static char choose(int mine, int theirs) {
    if (theirs >= 2) return '=';
    if (theirs == 1) return '-';
    if (mine >= 1) return '1'; /* an unarmed opponent can only load or shield */
    return '0';
}

int main(void) {
    char line[64];
    int mine = 0, theirs = 0;
    while (fgets(line, sizeof line, stdin)) {
        if (line[0] == 'I') {
            mine = theirs = 0;
        } else if (line[0] == 'F') {
            char move = choose(mine, theirs);
            mine += ammo_change(move);
            printf("%c\n", move);
            fflush(stdout);
        } else if (line[0] == 'P') {
            theirs += ammo_change(line[1]);
        }
    }
    return 0;
}
