/* missing.c — calls Beep, which hcpsim does not implement: the run stops at the call. */
#include <stdio.h>
#include <windows.h>

int main(void) {
    puts("before");
    fflush(stdout);
    Beep(440, 10);
    puts("after");
    return 0;
}
