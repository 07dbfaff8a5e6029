/* crash.c — exports a Lua thread calls with t:run(p.exports.add, 2, 3) (and waitex, which waits on
 * an event a Lua scenario made), and an unhandled access violation: `crash.exe x` writes through a
 * NULL pointer in poke on the main thread, `crash.exe thread` does so on a thread it creates
 * (scenarios/tests/pe_threads.sh). */
#include <stdio.h>
#include <string.h>
#include <windows.h>

__declspec(dllexport) __attribute__((noinline)) int add(int a, int b) { return a + b; }
__declspec(dllexport) __attribute__((noinline)) void poke(volatile int *p) { *p = 1; }

/* waits on a handle a Lua body made (m:event): the same objects for both */
__declspec(dllexport) __attribute__((noinline)) DWORD waitex(HANDLE h, DWORD ms) {
    return WaitForSingleObjectEx(h, ms, FALSE) + 100;
}

static volatile int cell;

static DWORD WINAPI poker(LPVOID p) {
    poke(p);
    return 0;
}

int main(int argc, char **argv) {
    printf("before\n");
    fflush(stdout);
    if (argc > 1 && strcmp(argv[1], "thread") == 0) {
        HANDLE h = CreateThread(NULL, 0, poker, NULL, 0, NULL);
        WaitForSingleObject(h, INFINITE);
    }
    poke(argc > 1 ? NULL : &cell);
    printf("after %d\n", cell);
    return 0;
}
