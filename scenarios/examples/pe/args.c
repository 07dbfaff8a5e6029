/* args.c — prints its arguments, one per line in brackets, and exits 0: what a program gets from
 * `hcpsim run [OPTIONS] args.exe [ARGUMENTS...]` (scenarios/tests/pe_cli.sh). */
#include <stdio.h>

int main(int argc, char **argv) {
    printf("%d arguments\n", argc - 1);
    for (int i = 1; i < argc; i++) printf("[%s]\n", argv[i]);
    return 0;
}
