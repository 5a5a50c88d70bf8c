/* crosser: joins every heist with a single credit and, when the heist is
 * crowded (many rabble heisters whose winnings are worth stealing),
 * double-crosses. A lone double-crosser among fewer than 20 real heisters
 * takes every going-along heister's winnings. */
#include <stdio.h>
#include <stdlib.h>

#define ARGS 31
#define CROWDED 20

int main(int argc, char **argv) {
    if (argc < ARGS + 1) {
        puts("0");
        return 0;
    }
    char **a = argv + argc - ARGS; /* the 31 game arguments */
    int round = atoi(a[1]);
    long heisters = atol(a[4]);
    long asked = atol(a[3]);
    long confirmed = atol(a[6]);
    long credits = atol(a[8]);

    if (round == 1) {
        puts(credits > 0 ? "1" : "0");
    } else if (heisters >= CROWDED && (asked - confirmed) * 4 <= asked) {
        puts("double cross");
    } else {
        puts("guncheck");
    }
    return 0;
}
