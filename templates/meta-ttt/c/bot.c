/* {{name}}: a meta tic-tac-toe bot in C.
 *
 * Each move runs this program once, from the tournament folder, with 12
 * arguments: my letter (X or O), boards 0-8 (9 characters each: -, X or O),
 * the master board, and the last move (two digits, or xx when the move is
 * free). Print one move, board then tile (e.g. 38), and exit within the
 * time limit. The folder {{name}}/ is yours: {{name}}/data.txt persists
 * between games.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const int LINES[8][3] = {
    {0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6}, {1, 4, 7}, {2, 5, 8}, {0, 4, 8}, {2, 4, 6},
};

/* Neither won (the master board shows it) nor full. */
static int is_open(char **boards, const char *master, int b) {
    return master[b] == '-' && strchr(boards[b], '-') != NULL;
}

static int wins_board(const char *board, int tile, char me) {
    char cells[9];
    memcpy(cells, board, 9);
    cells[tile] = me;
    for (int i = 0; i < 8; i++) {
        if (cells[LINES[i][0]] == me && cells[LINES[i][1]] == me && cells[LINES[i][2]] == me) {
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 13) {
        fprintf(stderr, "expected 12 arguments, got %d\n", argc - 1);
        return 1;
    }
    char me = argv[1][0];
    char **boards = argv + 2;
    const char *master = argv[11], *last = argv[12];
    int forced = strcmp(last, "xx") == 0 ? -1 : last[1] - '0';
    if (forced >= 0 && !is_open(boards, master, forced)) {
        forced = -1; /* sent to a closed board: a free move */
    }
    int moves[81], winning[81], n = 0, w = 0;
    for (int b = 0; b < 9; b++) {
        if ((forced >= 0 && b != forced) || !is_open(boards, master, b)) {
            continue;
        }
        for (int t = 0; t < 9; t++) {
            if (boards[b][t] == '-') {
                moves[n++] = b * 10 + t;
                if (wins_board(boards[b], t, me)) {
                    winning[w++] = b * 10 + t;
                }
            }
        }
    }
    if (n == 0) {
        fprintf(stderr, "no legal move\n");
        return 1;
    }
    srand((unsigned)time(NULL) ^ (unsigned)getpid());
    int move = w > 0 ? winning[rand() % w] : moves[rand() % n];
    printf("%02d\n", move);
    return 0;
}
