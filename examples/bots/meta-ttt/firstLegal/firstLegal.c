/* firstLegal: plays the smallest legal move `bt`, ordered by board then tile.
 *
 * Arguments (meta-ttt contract): letter, boards 0-8 (9 chars each: - X O),
 * master board (9 chars), last move `bt` or `xx`. Prints the move on stdout.
 */
#include <stdio.h>
#include <string.h>

static int board_open(const char *board, char owner) {
    return owner == '-' && strchr(board, '-') != NULL;
}

int main(int argc, char **argv) {
    if (argc < 13) {
        fprintf(stderr, "firstLegal: expected 12 arguments, got %d\n", argc - 1);
        return 2;
    }
    const char *master = argv[11];
    const char *last = argv[12];
    int forced = -1;
    if (strcmp(last, "xx") != 0 && last[1] >= '0' && last[1] <= '8') {
        int t = last[1] - '0';
        if (board_open(argv[2 + t], master[t])) forced = t;
    }
    for (int b = 0; b < 9; b++) {
        if (forced >= 0 && b != forced) continue;
        if (!board_open(argv[2 + b], master[b])) continue;
        for (int t = 0; t < 9; t++) {
            if (argv[2 + b][t] == '-') {
                printf("%d%d\n", b, t);
                return 0;
            }
        }
    }
    fprintf(stderr, "firstLegal: no legal move\n");
    return 1;
}
