/* gun-duel interface-1 test bot: plays a script and records its argv.
 *
 *   exit_script SCRIPT RECORD <opponent-id> <turn> <status> <ammo> <ammo-opp> [<hist> <hist-opp>]
 *
 * Appends the referee's fields (everything after RECORD) as one line to
 * RECORD ("-" records nothing). On turn t it plays SCRIPT[t] (the last
 * character once the script is used up):
 *   0 1 2 - =  exit with that character's code (the move)
 *   x          exit 7 (bad output)
 *   k          killed by SIGKILL (crash)
 *   s          sleep 60 s (timeout)
 *   o          write 100 KB to stdout, then load (stdout is only logged)
 * The call after the duel (status 0, 1 or 2) records and exits 0.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 8) {
        fprintf(stderr, "exit_script: expected SCRIPT RECORD and 5 or 7 fields, got %d args\n", argc - 1);
        return 3;
    }
    const char *script = argv[1];
    if (strcmp(argv[2], "-") != 0) {
        FILE *f = fopen(argv[2], "a");
        if (!f)
            return 4;
        for (int i = 3; i < argc; i++)
            fprintf(f, "%s%s", i > 3 ? " " : "", argv[i]);
        fputc('\n', f);
        fclose(f);
    }
    if (strcmp(argv[5], "3") != 0)
        return 0;
    size_t len = strlen(script);
    if (len == 0)
        return 5;
    size_t turn = (size_t)strtoul(argv[4], NULL, 10);
    char c = script[turn < len ? turn : len - 1];
    fprintf(stderr, "turn %zu: %c\n", turn, c);
    switch (c) {
    case 'x':
        return 7;
    case 'k':
        raise(SIGKILL);
        return 8;
    case 's':
        sleep(60);
        return '0';
    case 'o': {
        static char chunk[4096];
        memset(chunk, 'o', sizeof chunk);
        for (int i = 0; i < 25; i++)
            if (fwrite(chunk, 1, sizeof chunk, stdout) != sizeof chunk)
                break;
        fflush(stdout);
        return '0';
    }
    default:
        return (unsigned char)c;
    }
}
