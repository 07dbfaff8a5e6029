/* bench.h — the few Windows functions the bench programs use, for the Linux build of the same
 * source (reports/bench/programs.sh): events, waits, threads and GetTickCount on Linux.  The
 * Windows build (mingw-w64) takes them from <windows.h>.  Only what the programs need: an event
 * (auto or manual reset), a wait on an event or a thread with INFINITE or 0, a thread; and a
 * large zeroed block (bench_big). */
#ifndef HCPSIM_BENCH_H
#define HCPSIM_BENCH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef _WIN32
#include <windows.h>
#else
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

typedef uint32_t DWORD;
typedef int BOOL;
typedef void *LPVOID;
#define WINAPI
#define INFINITE 0xFFFFFFFFu
#define WAIT_OBJECT_0 0u
#define WAIT_TIMEOUT 258u
#define TRUE 1
#define FALSE 0

/* A Windows event is a kernel object and each of these calls enters the kernel; so here: an
 * eventfd, signalled while its count is not 0 (SetEvent writes, a wait polls, an auto-reset wait
 * and ResetEvent read the count back to 0).  A thread handle is an event set when the thread ends. */
typedef struct bench_obj {
    int fd, manual;
    pthread_t th;
    DWORD (*fn)(LPVOID);
    LPVOID arg;
} * HANDLE;

static HANDLE bench_obj_new(int manual, int initial) {
    HANDLE h = calloc(1, sizeof *h);
    if (!h || (h->fd = eventfd(initial ? 1 : 0, EFD_NONBLOCK)) < 0) abort();
    h->manual = manual;
    return h;
}

static inline HANDLE CreateEventA(void *sa, BOOL manual, BOOL initial, const char *name) {
    (void)sa, (void)name;
    return bench_obj_new(manual, initial);
}

static inline BOOL SetEvent(HANDLE h) {
    uint64_t one = 1;
    return write(h->fd, &one, sizeof one) == sizeof one;
}

static inline BOOL ResetEvent(HANDLE h) {
    uint64_t n;
    return read(h->fd, &n, sizeof n) == sizeof n || 1; /* EAGAIN: it was not set */
}

static inline DWORD WaitForSingleObject(HANDLE h, DWORD ms) {
    for (;;) {
        struct pollfd p = {h->fd, POLLIN, 0};
        if (poll(&p, 1, ms == INFINITE ? -1 : (int)ms) == 0) return WAIT_TIMEOUT;
        if (h->manual) return WAIT_OBJECT_0;
        uint64_t n;
        if (read(h->fd, &n, sizeof n) == sizeof n) return WAIT_OBJECT_0; /* else another waiter took it */
    }
}

static void *bench_thread_main(void *p) {
    HANDLE h = p;
    h->fn(h->arg);
    SetEvent(h); /* a thread stays signalled once it has ended */
    return NULL;
}

static inline HANDLE CreateThread(void *sa, size_t stack, DWORD(WINAPI *fn)(LPVOID), LPVOID arg, DWORD flags,
                                  DWORD *id) {
    (void)sa, (void)stack, (void)flags, (void)id;
    HANDLE h = bench_obj_new(1, 0);
    h->fn = fn;
    h->arg = arg;
    if (pthread_create(&h->th, NULL, bench_thread_main, h) != 0) abort();
    return h;
}

static inline BOOL CloseHandle(HANDLE h) {
    if (h->fn) pthread_join(h->th, NULL);
    close(h->fd);
    free(h);
    return TRUE;
}

static inline DWORD GetTickCount(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (DWORD)((uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u);
}
#endif

/* A large zeroed read/write block (the msvcrt heap of hcpsim is 16 MiB; VirtualAlloc maps pages). */
static inline void *bench_big(size_t n) {
#ifdef _WIN32
    return VirtualAlloc(NULL, n, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE);
#else
    return calloc(1, n);
#endif
}

/* The scale argument (argv[1], decimal, 1..1000, default 10): every program's work grows linearly
 * with it.  Parsed by hand: hcpsim's msvcrt has no strtol. */
static inline unsigned bench_scale(int argc, char **argv) {
    unsigned s = 0;
    if (argc < 2) return 10;
    for (const char *p = argv[1]; *p >= '0' && *p <= '9' && s <= 1000; p++) s = s * 10 + (unsigned)(*p - '0');
    return s > 0 && s <= 1000 ? s : 10;
}

#endif
