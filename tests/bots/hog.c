/* A hostile bot: forks 200 sleeping children, leaves a setsid'd
 * double-forked sleeper behind, then tries to use 2 GiB of memory.
 * It records the pids it started in its own folder (pids.txt). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void) {
    char path[4096];
    snprintf(path, sizeof path, "%s/pids.txt", getenv("HOME"));
    FILE *f = fopen(path, "a");
    for (int i = 0; i < 200; i++) {
        pid_t p = fork();
        if (p == 0) { sleep(60); _exit(0); }
        if (p > 0 && f) fprintf(f, "%d\n", p);
    }
    pid_t p = fork();
    if (p == 0) {
        setsid();
        pid_t q = fork();
        if (q == 0) {
            FILE *g = fopen(path, "a");
            if (g) { fprintf(g, "%d\n", getpid()); fclose(g); }
            sleep(60);
            _exit(0);
        }
        _exit(0);
    }
    if (f) fclose(f);
    usleep(100000); /* let the escapee record itself */
    size_t size = (size_t)2 << 30;
    char *volatile mem = malloc(size);
    if (mem == NULL) abort(); /* refused under the memory limit: a crash */
    memset(mem, 1, size);
    printf("%d\n", mem[size - 1]);
    return 0;
}
