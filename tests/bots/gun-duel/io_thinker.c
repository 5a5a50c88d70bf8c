/* gun-duel interface 2: a bot that thinks hard and plays a fixed cycle.
 *
 * Usage: io_thinker MS MOVES
 * Each move costs MS milliseconds of its own CPU time (a busy loop), then
 * it answers the next character of MOVES, cycling; every duel (`I` line)
 * starts the cycle again. The load tests play it on an idle and on a busy
 * machine: the moves must be the same and never late. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    if (argc < 3 || argv[2][0] == '\0') {
        fprintf(stderr, "usage: io_thinker MS MOVES\n");
        return 2;
    }
    double think = atof(argv[1]);
    const char *moves = argv[2];
    size_t cycle = strlen(moves), turn = 0;
    char line[256];
    volatile unsigned long x = 1;
    while (fgets(line, sizeof line, stdin)) {
        if (line[0] == 'I') {
            turn = 0;
        } else if (line[0] == 'F') {
            double until = cpu_ms() + think;
            while (cpu_ms() < until) {
                for (int i = 0; i < 1000; i++) x = x * 6364136223846793005UL + 1;
            }
            printf("%c\n", moves[turn % cycle]);
            fflush(stdout);
            turn++;
        }
    }
    return 0;
}
