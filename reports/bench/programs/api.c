/* api.c — API-heavy: SetEvent, WaitForSingleObject (satisfied at once), ResetEvent and
 * GetTickCount, 40,000 rounds of the four calls per unit of scale, plus a zero-timeout wait on the
 * reset event.  Prints how many waits returned what (tick values are not printed: they differ). */
#include "bench.h"

int main(int argc, char **argv) {
    unsigned scale = bench_scale(argc, argv);
    HANDLE e = CreateEventA(NULL, TRUE, FALSE, NULL);
    unsigned ok = 0, timeout = 0;
    DWORD last = GetTickCount();
    unsigned back = 0;
    for (unsigned r = 0; r < 40000u * scale; r++) {
        SetEvent(e);
        if (WaitForSingleObject(e, INFINITE) == WAIT_OBJECT_0) ok++;
        ResetEvent(e);
        if (WaitForSingleObject(e, 0) == WAIT_TIMEOUT) timeout++;
        DWORD t = GetTickCount();
        if (t < last) back++;
        last = t;
    }
    CloseHandle(e);
    printf("api: %u signalled, %u timeouts, %u ticks backwards\n", ok, timeout, back);
    return 0;
}
