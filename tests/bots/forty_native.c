/* A forty bot speaking the line protocol in C, for the timing tests.
 *
 * Usage: forty_native MODE MS
 * Every decision sleeps MS milliseconds, then throws while the turn's dice
 * add up to less than 15. It reads what has arrived and answers every
 * complete line of it in one write, each reply ending as MODE says:
 *   honest  `G D MICROS`, the time that decision took;
 *   lie     `G D 0`, claiming it took no time at all;
 *   plain   `G D`, no time field.
 * At the end of its input it writes how many asks it answered to
 * `asks.txt` in its folder (its HOME), so a test can tell what it slept.
 * (Not after every batch: under a disk-heavy load a file write can block
 * for a long time, and the time between asks is the bot's own.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char in[1 << 16];
static char out[1 << 17];
static long answered;

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void nap(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0) {
    }
}

/* The reply to one line (none for `new` and `end`). */
static size_t answer(char *line, char *dst, size_t room, const char *mode, long ms) {
    char *word = strtok(line, " ");
    if (!word) return 0;
    if (strcmp(word, "forty") == 0) return (size_t)snprintf(dst, room, "ok Native\n");
    if (strcmp(word, "ask") != 0) return 0;
    long long started = now_ns();
    char *game = strtok(NULL, " ");
    strtok(NULL, " "); /* the last-round flag */
    char *throws = strtok(NULL, " ");
    int sum = 0;
    for (char *t = throws ? strtok(throws, ",") : NULL; t; t = strtok(NULL, ","))
        sum += atoi(t);
    if (ms > 0) nap(ms);
    answered++;
    int throw_again = sum < 15;
    const char *id = game ? game : "0";
    if (strcmp(mode, "honest") == 0)
        return (size_t)snprintf(dst, room, "%s %d %lld\n", id, throw_again,
                                (now_ns() - started) / 1000);
    if (strcmp(mode, "lie") == 0) return (size_t)snprintf(dst, room, "%s %d 0\n", id, throw_again);
    return (size_t)snprintf(dst, room, "%s %d\n", id, throw_again);
}

static void count(void) {
    const char *home = getenv("HOME");
    char path[4096];
    snprintf(path, sizeof path, "%s/asks.txt", home ? home : ".");
    FILE *f = fopen(path, "w");
    if (!f) return;
    fprintf(f, "%ld\n", answered);
    fclose(f);
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "plain";
    long ms = argc > 2 ? atol(argv[2]) : 0;
    size_t have = 0;
    for (;;) {
        ssize_t n = read(0, in + have, sizeof in - have - 1);
        if (n <= 0) break;
        have += (size_t)n;
        size_t used = 0, start = 0;
        for (size_t i = 0; i < have; i++) {
            if (in[i] != '\n') continue;
            in[i] = '\0';
            if (sizeof out - used < 64) return 2; /* never expected: a batch is smaller */
            used += answer(in + start, out + used, sizeof out - used, mode, ms);
            start = i + 1;
        }
        memmove(in, in + start, have - start);
        have -= start;
        for (size_t done = 0; done < used;) {
            ssize_t w = write(1, out + done, used - done);
            if (w <= 0) return 1;
            done += (size_t)w;
        }
    }
    count();
    return 0;
}
