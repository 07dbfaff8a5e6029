/* runaway.c — a program that never ends: it prints one line, then counts in a loop forever.
 * `hcpsim run --timeout SECONDS runaway.exe` stops it after that much simulated time, by default
 * 1 s (scenarios/README.md "Limits"; scenarios/tests/endings.sh). */
#include <stdio.h>

int main(void) {
    volatile unsigned long long n = 0;
    puts("counting forever");
    fflush(stdout);
    for (;;) n++;
}
