/* conformance/native/shim/hcpshim.c — runs conformance/native/hcpcheck.c
 * inside hcpsim: the Windows functions of windows.h (this folder) on top of
 * api/hcp_api.h, and a driver that runs the check program in simulated
 * threads.
 *
 * Each simulated thread's body is a host thread, but only one host thread
 * runs at a time: the driver (main) runs the scheduler (sim_sched_next) and
 * hands a baton to the body of the thread it dispatched; the body runs until
 * a call leaves its simulated thread off its CPU (a wait that blocks, a
 * Sleep, SwitchToThread, a preemption) or it returns, and hands the baton
 * back.  That is how the Lua binding drives its coroutines (scenarios/
 * lmachine.c m_run), so the run is as deterministic as a scenario's.
 *
 * Pointers: the check program passes host pointers; each function copies the
 * caller's bytes into the running thread's scratch page in guest memory
 * (sim_thread_scratch), calls the api/ function with that guest address and
 * copies the bytes back, field by field in little-endian order (HCP-SPEC
 * §3.3), so hcpsim writes (or leaves) exactly the bytes it would in a guest.
 * A NULL pointer stays NULL (guest address 0).  Handles are the simulator's
 * values, passed through unchanged.
 *
 * Usage: hcpcheck-sim [documented|observed] [--platform NAME] [--without-hcp]
 * The platform sets the OS behaviour (api/platform.c); one without the HCP
 * functions, or --without-hcp, makes GetProcAddress return NULL for them, as
 * Wine 8.0 does.  The machine stays x64: the check program runs no guest code. */
#define _POSIX_C_SOURCE 200809L /* strcasecmp */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/hcp_api.h"
#include "api/platform.h"
#include "api/system.h"
#include "conformance/native/shim/hcpshim.h"

#define MAX_THREADS 64

/* scratch page layout (bytes from sim_thread_scratch) */
#define SCR_PD 0x000      /* PERFORMANCE_DATA, 288 bytes */
#define SCR_HANDLE 0x200  /* HANDLE, 8 */
#define SCR_BOOLEAN 0x210 /* BOOLEAN, 1 */
#define SCR_CYCLES 0x220  /* ULONG64, 8 */
#define SCR_TIMES 0x240   /* 4 x FILETIME, 32 */

typedef struct shim_thread {
    sim_thread *t;
    hcpshim_start_fn start;
    void *arg;
    pthread_t host;
    bool started, finished;
    uint32_t code;
} shim_thread;

static struct {
    hcp_system sys;
    sim_machine *m;
    hcp_os *os;
    bool hcp; /* the platform has the HCP functions */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    shim_thread *turn; /* whose turn it is: NULL = the driver */
    shim_thread *threads[MAX_THREADS];
    int argc;
    char *argv[3];
} S = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static _Thread_local shim_thread *self;

static _Noreturn void bail(const char *msg) {
    printf("Bail out! hcpcheck-sim: %s\n", msg);
    fflush(stdout);
    exit(2);
}

/* ---- the baton ----------------------------------------------------------------------------------- */
static void wait_turn(shim_thread *who) {
    while (S.turn != who) pthread_cond_wait(&S.cv, &S.mu);
}

/* A body gives the baton to the driver and waits until it is dispatched again. */
static void to_driver(void) {
    pthread_mutex_lock(&S.mu);
    S.turn = NULL;
    pthread_cond_broadcast(&S.cv);
    wait_turn(self);
    pthread_mutex_unlock(&S.mu);
}

/* After any call: if the calling thread left its CPU, the driver runs until it is back. */
static void settle(void) {
    if (sim_sched_current(S.m) != self->t) to_driver();
    if (sim_sched_current(S.m) != self->t) bail("a body resumed while its thread is not running");
}

static void *host_main(void *arg) {
    shim_thread *st = arg;
    pthread_mutex_lock(&S.mu);
    wait_turn(st);
    pthread_mutex_unlock(&S.mu);
    self = st;
    uint32_t code = st->start(st->arg);
    pthread_mutex_lock(&S.mu);
    st->code = code;
    st->finished = true;
    S.turn = NULL;
    pthread_cond_broadcast(&S.cv);
    pthread_mutex_unlock(&S.mu);
    return NULL;
}

/* The driver runs the body of st until it hands the baton back. */
static void run_body(shim_thread *st) {
    pthread_mutex_lock(&S.mu);
    if (!st->started) {
        st->started = true;
        if (pthread_create(&st->host, NULL, host_main, st) != 0) bail("pthread_create failed");
    }
    S.turn = st;
    pthread_cond_broadcast(&S.cv);
    wait_turn(NULL);
    pthread_mutex_unlock(&S.mu);
}

static shim_thread *new_thread(const char *name, hcpshim_start_fn start, void *arg) {
    sim_thread *t;
    if (sim_thread_new(S.m, name, 8, ~UINT64_C(0), -1, &t) != SIM_OK) return NULL;
    int i = sim_thread_index(t);
    if (i < 0 || i >= MAX_THREADS) bail("too many threads");
    shim_thread *st = calloc(1, sizeof *st);
    if (!st) bail("out of memory");
    st->t = t;
    st->start = start;
    st->arg = arg;
    S.threads[i] = st;
    return st;
}

/* ---- guest memory -------------------------------------------------------------------------------- */
static uint64_t scratch(uint64_t off) { return sim_thread_scratch(self->t) + off; }
static uint64_t gh(const void *h) { return (uint64_t)(uintptr_t)h; }
static void *hh(uint64_t v) { return (void *)(uintptr_t)v; }

static void put_bytes(uint64_t addr, const uint8_t *b, size_t n) {
    if (sim_mem_write(S.m, addr, b, n) != SIM_OK) bail("scratch page not writable");
}
static void get_bytes(uint64_t addr, uint8_t *b, size_t n) {
    if (sim_mem_read(S.m, addr, b, n) != SIM_OK) bail("scratch page not readable");
}

static void pd_encode(uint8_t *b, const PERFORMANCE_DATA *pd) {
    hcp_put16(b, pd->Size);
    b[2] = pd->Version;
    b[3] = pd->HwCountersCount;
    hcp_put32(b + 4, pd->ContextSwitchCount);
    hcp_put64(b + 8, pd->WaitReasonBitMap);
    hcp_put64(b + 16, pd->CycleTime);
    hcp_put32(b + 24, pd->RetryCount);
    hcp_put32(b + 28, pd->Reserved);
    for (int i = 0; i < MAX_HW_COUNTERS; i++) {
        hcp_put32(b + 32 + 16 * i, pd->HwCounters[i].Type);
        hcp_put32(b + 36 + 16 * i, pd->HwCounters[i].Reserved);
        hcp_put64(b + 40 + 16 * i, pd->HwCounters[i].Value);
    }
}

static void pd_decode(PERFORMANCE_DATA *pd, const uint8_t *b) {
    pd->Size = hcp_get16(b);
    pd->Version = b[2];
    pd->HwCountersCount = b[3];
    pd->ContextSwitchCount = hcp_get32(b + 4);
    pd->WaitReasonBitMap = hcp_get64(b + 8);
    pd->CycleTime = hcp_get64(b + 16);
    pd->RetryCount = hcp_get32(b + 24);
    pd->Reserved = hcp_get32(b + 28);
    for (int i = 0; i < MAX_HW_COUNTERS; i++) {
        pd->HwCounters[i].Type = hcp_get32(b + 32 + 16 * i);
        pd->HwCounters[i].Reserved = hcp_get32(b + 36 + 16 * i);
        pd->HwCounters[i].Value = hcp_get64(b + 40 + 16 * i);
    }
}

/* ---- the functions GetProcAddress hands out ------------------------------------------------------ */
static uint32_t w_EnableThreadProfiling(void *th, uint32_t flags, uint64_t mask, void **out) {
    uint64_t slot = 0;
    uint8_t b[8];
    if (out) {
        slot = scratch(SCR_HANDLE);
        hcp_put64(b, gh(*out));
        put_bytes(slot, b, 8);
    }
    uint32_t rc = EnableThreadProfiling(S.os, gh(th), flags, mask, slot);
    if (out) {
        get_bytes(slot, b, 8);
        *out = hh(hcp_get64(b));
    }
    settle();
    return rc;
}

static uint32_t w_DisableThreadProfiling(void *ph) {
    uint32_t rc = DisableThreadProfiling(S.os, gh(ph));
    settle();
    return rc;
}

static uint32_t w_QueryThreadProfiling(void *th, uint8_t *enabled) {
    uint64_t slot = 0;
    if (enabled) {
        slot = scratch(SCR_BOOLEAN);
        put_bytes(slot, enabled, 1);
    }
    uint32_t rc = QueryThreadProfiling(S.os, gh(th), slot);
    if (enabled) get_bytes(slot, enabled, 1);
    settle();
    return rc;
}

static uint32_t w_ReadThreadProfilingData(void *ph, uint32_t flags, PERFORMANCE_DATA *pd) {
    uint64_t slot = 0;
    uint8_t b[HCP_PERFORMANCE_DATA_SIZE];
    if (pd) {
        slot = scratch(SCR_PD);
        pd_encode(b, pd);
        put_bytes(slot, b, sizeof b);
    }
    uint32_t rc = ReadThreadProfilingData(S.os, gh(ph), flags, slot);
    if (pd) {
        get_bytes(slot, b, sizeof b);
        pd_decode(pd, b);
    }
    settle();
    return rc;
}

static int w_GetThreadTimes(void *th, FILETIME *c, FILETIME *e, FILETIME *k, FILETIME *u) {
    FILETIME *ft[4] = {c, e, k, u};
    uint64_t slot[4] = {0, 0, 0, 0};
    uint8_t b[8];
    for (int i = 0; i < 4; i++) {
        if (!ft[i]) continue;
        slot[i] = scratch(SCR_TIMES + 8 * (uint64_t)i);
        hcp_put32(b, ft[i]->dwLowDateTime);
        hcp_put32(b + 4, ft[i]->dwHighDateTime);
        put_bytes(slot[i], b, 8);
    }
    int r = GetThreadTimes(S.os, gh(th), slot[0], slot[1], slot[2], slot[3]);
    for (int i = 0; i < 4; i++) {
        if (!ft[i]) continue;
        get_bytes(slot[i], b, 8);
        ft[i]->dwLowDateTime = hcp_get32(b);
        ft[i]->dwHighDateTime = hcp_get32(b + 4);
    }
    settle();
    return r;
}

static int w_QueryThreadCycleTime(void *th, uint64_t *cycles) {
    uint64_t slot = 0;
    uint8_t b[8];
    if (cycles) {
        slot = scratch(SCR_CYCLES);
        hcp_put64(b, *cycles);
        put_bytes(slot, b, 8);
    }
    int r = QueryThreadCycleTime(S.os, gh(th), slot);
    if (cycles) {
        get_bytes(slot, b, 8);
        *cycles = hcp_get64(b);
    }
    settle();
    return r;
}

/* ---- modules ---------------------------------------------------------------------------------------- */
static char module_kernel32, module_kernelbase; /* their addresses are the HMODULEs */

void *hcpshim_GetModuleHandleA(const char *name) {
    if (name && strcasecmp(name, "kernel32.dll") == 0) return &module_kernel32;
    if (name && strcasecmp(name, "kernelbase.dll") == 0) return &module_kernelbase;
    SetLastError(S.os, 126); /* ERROR_MOD_NOT_FOUND */
    return NULL;
}

void *hcpshim_LoadLibraryA(const char *name) { return hcpshim_GetModuleHandleA(name); }

hcpshim_proc hcpshim_GetProcAddress(void *module, const char *name) {
    static const struct {
        const char *name;
        bool hcp;
        hcpshim_proc fn;
    } exports[] = {
        {"EnableThreadProfiling", true, (hcpshim_proc)w_EnableThreadProfiling},
        {"DisableThreadProfiling", true, (hcpshim_proc)w_DisableThreadProfiling},
        {"QueryThreadProfiling", true, (hcpshim_proc)w_QueryThreadProfiling},
        {"ReadThreadProfilingData", true, (hcpshim_proc)w_ReadThreadProfilingData},
        {"GetThreadTimes", false, (hcpshim_proc)w_GetThreadTimes},
        {"QueryThreadCycleTime", false, (hcpshim_proc)w_QueryThreadCycleTime},
    };
    if ((module == &module_kernel32 || module == &module_kernelbase) && name) {
        for (size_t i = 0; i < sizeof exports / sizeof exports[0]; i++)
            if (strcmp(exports[i].name, name) == 0 && (S.hcp || !exports[i].hcp)) return exports[i].fn;
    }
    SetLastError(S.os, 127); /* ERROR_PROC_NOT_FOUND */
    return NULL;
}

/* ---- threads, handles, waits ----------------------------------------------------------------------- */
void *hcpshim_GetCurrentThread(void) { return hh(GetCurrentThread(S.os)); }
void *hcpshim_GetCurrentProcess(void) { return hh(HCP_CURRENT_PROCESS); }
uint32_t hcpshim_GetCurrentThreadId(void) { return GetCurrentThreadId(S.os); }
uint32_t hcpshim_GetLastError(void) { return GetLastError(S.os); }
void hcpshim_SetLastError(uint32_t code) { SetLastError(S.os, code); }

void *hcpshim_OpenThread(uint32_t access, int inherit, uint32_t thread_id) {
    uint64_t h = OpenThread(S.os, access, inherit, thread_id);
    settle();
    return hh(h);
}

int hcpshim_CloseHandle(void *h) {
    int r = CloseHandle(S.os, gh(h));
    settle();
    return r;
}

void *hcpshim_CreateEventA(void *attributes, int manual_reset, int initial_state, const char *name) {
    if (attributes || name) bail("CreateEventA: only unnamed events with default security");
    uint64_t h = hcp_create_event(S.os, manual_reset, initial_state);
    settle();
    return hh(h);
}

int hcpshim_SetEvent(void *h) {
    int r = SetEvent(S.os, gh(h));
    settle();
    return r;
}

uint32_t hcpshim_WaitForSingleObject(void *h, uint32_t ms) {
    uint32_t r = WaitForSingleObject(S.os, gh(h), ms);
    if (r == HCP_PENDING) {
        to_driver();
        r = hcp_wait_result(S.os);
    }
    settle();
    return r;
}

void hcpshim_Sleep(uint32_t ms) {
    if (Sleep(S.os, ms) == HCP_PENDING) to_driver();
    settle();
}

int hcpshim_SwitchToThread(void) {
    int r = SwitchToThread(S.os);
    settle();
    return r;
}

void *hcpshim_CreateThread(void *attributes, size_t stack_size, hcpshim_start_fn start, void *arg, uint32_t flags,
                           uint32_t *thread_id) {
    (void)stack_size;
    if (attributes || flags) bail("CreateThread: only default security and no creation flags");
    shim_thread *st = new_thread("hcpcheck-job", start, arg);
    if (!st) {
        SetLastError(S.os, ERROR_NOT_ENOUGH_MEMORY);
        return NULL;
    }
    uint64_t h = hcp_thread_handle(S.os, st->t, THREAD_ALL_ACCESS);
    if (thread_id) *thread_id = sim_thread_id(st->t);
    settle();
    return hh(h);
}

/* ---- the driver ------------------------------------------------------------------------------------ */
static uint32_t main_body(void *arg) {
    (void)arg;
    return (uint32_t)hcpcheck_main(S.argc, S.argv);
}

static int usage(void) {
    fprintf(stderr,
            "usage: hcpcheck-sim [documented|observed] [--platform NAME] [--without-hcp]\n"
            "  NAME: one of %s\n",
            hcp_platform_names());
    return 2;
}

int main(int argc, char **argv) {
    hcp_semantics sem = HCP_OBSERVED;
    const hcp_platform *plat = hcp_platform_at(0);
    bool without_hcp = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "documented") == 0)
            sem = HCP_DOCUMENTED;
        else if (strcmp(argv[i], "observed") == 0)
            sem = HCP_OBSERVED;
        else if (strcmp(argv[i], "--platform") == 0 && i + 1 < argc) {
            plat = hcp_platform_find(argv[++i]);
            if (!plat) {
                fprintf(stderr, "hcpcheck-sim: unknown platform '%s'\n", argv[i]);
                return usage();
            }
        } else if (strcmp(argv[i], "--without-hcp") == 0)
            without_hcp = true;
        else
            return usage();
    }
    hcp_system_opts o;
    hcp_system_opts_init(&o, plat);
    o.semantics = sem;
    char why[256];
    if (hcp_system_new(&o, &S.sys, why, sizeof why) != 0) {
        fprintf(stderr, "hcpcheck-sim: %s\n", why);
        bail("machine set-up failed");
    }
    S.m = S.sys.m;
    S.os = S.sys.os;
    S.hcp = plat->hcp && !without_hcp;
    S.argc = 2;
    S.argv[0] = "hcpcheck";
    S.argv[1] = sem == HCP_OBSERVED ? "observed" : "documented";
    S.argv[2] = NULL;
    shim_thread *first = new_thread("hcpcheck", main_body, NULL);
    if (!first) bail("thread set-up failed");

    for (;;) {
        sim_thread *t;
        sim_run_status rs = sim_sched_next(S.m, &t);
        if (rs == SIM_RUN_DONE) break;
        if (rs == SIM_RUN_DEADLOCK) {
            char buf[2048], msg[2100];
            sim_deadlock_report(S.m, buf, sizeof buf);
            snprintf(msg, sizeof msg, "deadlock: %s", buf);
            bail(msg);
        }
        if (rs == SIM_RUN_LIMIT) bail("cycle limit reached");
        int i = sim_thread_index(t);
        shim_thread *st = i >= 0 && i < MAX_THREADS ? S.threads[i] : NULL;
        if (!st) bail("the scheduler dispatched a thread the shim did not create");
        run_body(st);
        if (st->finished) {
            pthread_join(st->host, NULL);
            sim_thread_exit(t, st->code);
        }
    }
    int rc = first->finished ? (int)first->code : 2;
    for (int i = 0; i < MAX_THREADS; i++) free(S.threads[i]);
    hcp_system_free(&S.sys);
    fflush(stdout);
    return rc;
}
