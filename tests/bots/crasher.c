/* Dies by a signal before printing anything. */
#include <signal.h>
#include <stdio.h>

int main(void) {
    fprintf(stderr, "crasher: about to die\n");
    raise(SIGSEGV);
    return 0;
}
