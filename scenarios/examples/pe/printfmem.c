/* printfmem.c — msvcrt's printf reading guest memory (scenarios/tests/pe_printf.sh): a string
 * that ends on the last byte before unmapped memory, strings and a wide string across a page
 * boundary (the wide one at an odd address), twelve arguments (the stack words past the
 * registers), a va_list that %n rewrites before the next conversion reads it, and, with an
 * argument, a string that runs into unmapped memory (the run stops there, naming the first
 * byte it could not read).  msvcrt's printf, not mingw-w64's: __USE_MINGW_ANSI_STDIO 0. */
#define __USE_MINGW_ANSI_STDIO 0
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <windows.h>

int main(int argc, char **argv) {
    (void)argv;
    char *p = VirtualAlloc(NULL, 8192, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE);
    if (!p) return 1;
    memset(p, 'a', 8192);
    p[8191] = 0;
    printf("end:%s|\n", p + 8185);
    memcpy(p + 4090, "page-crossing", 14);
    printf("cross:%s|%.4s|%-15s|\n", p + 4090, p + 4094, p + 4096);
    memcpy(p + 4093, L"wide", 10);
    printf("wide:%ls|\n", (const wchar_t *)(const void *)(p + 4093));
    printf("args:%d %d %d %d %d %d %d %d %d %d %s %c|\n", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, "eleven", 'z');
    uintptr_t w[2] = {(uintptr_t)&w[1], 77};
    vprintf("n:ab%n%d|\n", (va_list)(void *)w);
    if (argc > 1) {
        p[8191] = 'a';
        printf("at:%p\n", (void *)(p + 8192));
        fflush(stdout);
        printf("%s|\n", p + 8190);
    }
    return 0;
}
