/* crash.c — exports a Lua thread calls with t:run(p.exports.add, 2, 3) (and waitex, which waits on
 * an event a Lua scenario made), and an unhandled access
 * violation: `crash.exe x` writes through a NULL pointer in poke (scenarios/tests/pe_threads.sh). */
#include <stdio.h>
#include <windows.h>

__declspec(dllexport) __attribute__((noinline)) int add(int a, int b) { return a + b; }
__declspec(dllexport) __attribute__((noinline)) void poke(volatile int *p) { *p = 1; }

/* waits on a handle a Lua body made (m:event): the same objects for both */
__declspec(dllexport) __attribute__((noinline)) DWORD waitex(HANDLE h, DWORD ms) {
    return WaitForSingleObjectEx(h, ms, FALSE) + 100;
}

static volatile int cell;

int main(int argc, char **argv) {
    (void)argv;
    printf("before\n");
    fflush(stdout);
    poke(argc > 1 ? NULL : &cell);
    printf("after %d\n", cell);
    return 0;
}
