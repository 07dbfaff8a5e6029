/* hello.c — a mingw-w64 hello world for `hcpsim run` (scenarios/tests/pe.sh states its output). */
#include <stdio.h>

int main(int argc, char **argv) {
    printf("hello from %s, %d args\n", "hcpsim", argc - 1);
    printf("[%5d|%-5d|%05d|%x|%X|%#x|%o|%c|%s|%.3s|%%]\n", 42, 42, 42, 255, 255, 255, 8, 'z', "str", "abcdef");
    printf("[%I64d|%u|%+d|% d]\n", (long long)-1234567890123, 4000000000u, 5, 5);
    printf("[%.2f|%e|%g]\n", 3.14159, 12345.678, 0.0001);
    for (int i = 1; i < argc; i++) printf("argv[%d]=%s\n", i, argv[i]);
    fprintf(stderr, "to stderr\n");
    return 7;
}
