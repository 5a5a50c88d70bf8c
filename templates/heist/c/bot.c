/* {{name}}: a bank-heist bot in C.
 *
 * Each decision runs this program once, from the tournament folder, with 31
 * arguments (docs/heist.md lists them): argument 2 is the round, 9 my
 * credits. Round 1: print a bet, an integer (more than my credits is cut to
 * my credits). Round 2, asked only if I bet: print one of back out, all in,
 * change jobs, acquire intel, buy guard, deposit, withdraw, double cross,
 * finger; anything else goes along. My folder is read-only: nothing
 * survives a call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc != 32) {
        fprintf(stderr, "expected 31 arguments, got %d\n", argc - 1);
        return 1;
    }
    if (strcmp(argv[2], "1") == 0) {
        long long credits = strtoll(argv[9], NULL, 10);
        printf("%lld\n", credits / 10); /* a tenth of what I have */
    } else {
        printf("go along\n");
    }
    return 0;
}
