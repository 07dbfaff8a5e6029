/* threads.c — threads and waits: two threads hand a token back and forth through two auto-reset
 * events (5,000 round trips per unit of scale), then four threads each hash their own quarter of a
 * buffer while the main thread waits for each to end.  Prints the round trips and the hashes. */
#include "bench.h"

static HANDLE ping, pong;
static unsigned rounds;
static volatile unsigned trips;

static DWORD WINAPI partner(LPVOID arg) {
    (void)arg;
    for (unsigned r = 0; r < rounds; r++) {
        WaitForSingleObject(ping, INFINITE);
        trips++;
        SetEvent(pong);
    }
    return 0;
}

static unsigned char buf[1 << 16];
static uint64_t hashes[4];
static unsigned passes;

static DWORD WINAPI worker(LPVOID arg) {
    unsigned q = (unsigned)(uintptr_t)arg;
    uint64_t h = UINT64_C(0xcbf29ce484222325) + q;
    for (unsigned p = 0; p < passes; p++)
        for (unsigned i = q * (sizeof buf / 4); i < (q + 1) * (sizeof buf / 4); i++)
            h = (h ^ buf[i]) * UINT64_C(0x100000001b3);
    hashes[q] = h;
    return 0;
}

int main(int argc, char **argv) {
    unsigned scale = bench_scale(argc, argv);
    rounds = 5000u * scale;
    passes = 50u * scale;
    ping = CreateEventA(NULL, FALSE, FALSE, NULL);
    pong = CreateEventA(NULL, FALSE, FALSE, NULL);
    HANDLE t = CreateThread(NULL, 0, partner, NULL, 0, NULL);
    for (unsigned r = 0; r < rounds; r++) {
        SetEvent(ping);
        WaitForSingleObject(pong, INFINITE);
    }
    WaitForSingleObject(t, INFINITE);
    CloseHandle(t);
    for (unsigned i = 0; i < sizeof buf; i++) buf[i] = (unsigned char)(i * 7 + (i >> 8));
    HANDLE w[4];
    for (unsigned q = 0; q < 4; q++) w[q] = CreateThread(NULL, 0, worker, (LPVOID)(uintptr_t)q, 0, NULL);
    for (unsigned q = 0; q < 4; q++) {
        WaitForSingleObject(w[q], INFINITE);
        CloseHandle(w[q]);
    }
    printf("threads: %u round trips, hashes %016llx %016llx %016llx %016llx\n", trips, (unsigned long long)hashes[0],
           (unsigned long long)hashes[1], (unsigned long long)hashes[2], (unsigned long long)hashes[3]);
    CloseHandle(ping);
    CloseHandle(pong);
    return 0;
}
