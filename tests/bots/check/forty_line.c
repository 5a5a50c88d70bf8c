/* forty bot speaking the line protocol directly, for `referee check` tests.
 * Throws while its turn is worth less than 10. It reads what has arrived,
 * answers every complete line of it in one write, and exits at the end of
 * its input. Usage: forty_line [linger]; with `linger` it stays 30 s more
 * after its input ends. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char in[1 << 16];
static char out[1 << 16];

static size_t answer(char *line, char *dst, size_t room) {
    char *word = strtok(line, " ");
    if (!word) return 0;
    if (strcmp(word, "forty") == 0) return (size_t)snprintf(dst, room, "ok LineBot\n");
    if (strcmp(word, "ask") != 0) return 0;
    char *game = strtok(NULL, " ");
    strtok(NULL, " "); /* the last-round flag */
    char *throws = strtok(NULL, " ");
    int sum = 0;
    for (char *t = throws ? strtok(throws, ",") : NULL; t; t = strtok(NULL, ","))
        sum += atoi(t);
    return (size_t)snprintf(dst, room, "%s %d\n", game ? game : "0", sum < 10 ? 1 : 0);
}

int main(int argc, char **argv) {
    int linger = argc > 1 && strcmp(argv[1], "linger") == 0;
    size_t have = 0;
    for (;;) {
        ssize_t n = read(0, in + have, sizeof in - have - 1);
        if (n <= 0) break;
        have += (size_t)n;
        size_t used = 0, start = 0;
        for (size_t i = 0; i < have; i++) {
            if (in[i] != '\n') continue;
            in[i] = '\0';
            if (sizeof out - used > 64) used += answer(in + start, out + used, sizeof out - used);
            start = i + 1;
        }
        memmove(in, in + start, have - start);
        have -= start;
        if (used > 0 && write(1, out, used) < 0) return 1;
    }
    if (linger) sleep(30);
    return 0;
}
