/* conformance/native/shim/hcpshim.c — runs conformance/native/hcpcheck.c
 * inside hcpsim: the Windows functions hcpshim.h declares (under their
 * Windows names) on top of api/hcp_api.h, and a driver that runs the check
 * program in simulated threads.
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
 * Wine 8.0 does.  The machine has the platform's guest CPU; the check program runs no guest code
 * but the one-instruction stub of take_ticks. */
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
#define SHIM_CREATE_SUSPENDED 0x4u
#define SHIM_ERROR_INVALID_PARAMETER 87u
#define SHIM_ERROR_INVALID_HANDLE 6u
#define SHIM_ERROR_PARTIAL_COPY 299u

/* scratch page layout (bytes from sim_thread_scratch) */
#define SCR_PD 0x000        /* PERFORMANCE_DATA, 288 bytes */
#define SCR_HANDLE 0x200    /* HANDLE, 8 */
#define SCR_BOOLEAN 0x210   /* BOOLEAN, 1 */
#define SCR_CYCLES 0x220    /* ULONG64, 8 */
#define SCR_TIMES 0x240     /* 4 x FILETIME, 32 */
#define SCR_PREVIOUS 0x260  /* LONG, 4 */
#define SCR_EXIT_CODE 0x264 /* DWORD, 4 */
#define SCR_HANDLES 0x300   /* up to 64 HANDLEs, 512 */
#define SCR_HANDLES_MAX 64

typedef struct shim_thread {
    sim_thread *t;
    hcpshim_start_fn start;
    void *arg;
    pthread_t host;
    bool started, finished;
    uint32_t code;
} shim_thread;

/* A thread created with CREATE_SUSPENDED: hcpsim fixes a thread's priority and affinity when it
 * creates it, so the simulated thread is made at ResumeThread with what SetThreadPriority and
 * SetThreadAffinityMask recorded.  Until then the program holds a placeholder handle (PENDING_BASE
 * + 16 x k, far above hcpsim's handle values); afterwards every function maps it to the thread's
 * real handle. */
#define MAX_PENDING 64
#define PENDING_BASE UINT64_C(0x7FFE000000000000)
typedef struct pending_thread {
    hcpshim_start_fn start;
    void *arg;
    int priority;      /* THREAD_PRIORITY_* relative to the normal class's base 8 */
    uint64_t affinity; /* 0: all CPUs */
    uint64_t handle;   /* the real handle once resumed, else 0 */
} pending_thread;

static struct {
    hcp_system sys;
    sim_machine *m;
    hcp_os *os;
    bool hcp; /* the platform has the HCP functions */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    shim_thread *turn; /* whose turn it is: NULL = the driver */
    shim_thread *threads[MAX_THREADS];
    pending_thread pending[MAX_PENDING];
    uint64_t ret_stub;       /* guest address of one `ret` instruction (take_ticks) */
    uint64_t ticks_seen[64]; /* per CPU: clock / tick when the last tick stub ran */
    int npending;
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

/* The return to user mode after a call.  hcpsim takes a clock tick that kernel work crossed at the
 * thread's next guest block boundary (sim/README.md), and the check program runs no guest code: so
 * when the call's kernel cycles crossed a tick, the thread executes one guest `ret` (S.ret_stub),
 * where the tick is taken, with its quantum end or preemption, as Windows takes a pending clock
 * interrupt on the way back from a system call.  A thread switched out there resumes the stub
 * when it is dispatched again. */
static void take_ticks(void) {
    int cpu = sim_thread_cpu(self->t);
    uint64_t tc = sim_tick_cycles(S.m);
    if (!S.ret_stub || cpu < 0 || cpu >= 64 || tc == 0 || sim_clock(S.m) / tc <= S.ticks_seen[cpu]) return;
    if (sim_call_begin(self->t, S.ret_stub, NULL, 0) != SIM_OK) bail("the tick stub could not be called");
    for (int guard = 0;; guard++) {
        sim_call_status cs = sim_call_continue(self->t);
        if (cs == SIM_CALL_RETURNED) break;
        if (cs != SIM_CALL_YIELD || guard == 1000000) bail("the tick stub did not return");
        to_driver();
    }
    cpu = sim_thread_cpu(self->t);
    if (cpu >= 0 && cpu < 64) S.ticks_seen[cpu] = sim_clock(S.m) / tc;
}

/* After any call: if the calling thread left its CPU, the driver runs until it is back. */
static void settle(void) {
    if (sim_sched_current(S.m) != self->t) to_driver();
    if (sim_sched_current(S.m) != self->t) bail("a body resumed while its thread is not running");
    take_ticks();
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

static shim_thread *new_thread(const char *name, hcpshim_start_fn start, void *arg, int priority, uint64_t affinity) {
    sim_thread *t;
    if (sim_thread_new(S.m, name, priority, affinity, -1, &t) != SIM_OK) return NULL;
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
static pending_thread *pending_of(const void *h) {
    uint64_t v = (uint64_t)(uintptr_t)h;
    if (v < PENDING_BASE || (v - PENDING_BASE) % 16 != 0 || (v - PENDING_BASE) / 16 >= (uint64_t)S.npending)
        return NULL;
    return &S.pending[(v - PENDING_BASE) / 16];
}
static uint64_t gh(const void *h) {
    pending_thread *p = pending_of(h);
    return p ? p->handle : (uint64_t)(uintptr_t)h; /* a thread not yet resumed: handle 0, an invalid handle */
}
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
    uint32_t rc = hcp_EnableThreadProfiling(S.os, gh(th), flags, mask, slot);
    if (out) {
        get_bytes(slot, b, 8);
        *out = hh(hcp_get64(b));
    }
    settle();
    return rc;
}

static uint32_t w_DisableThreadProfiling(void *ph) {
    uint32_t rc = hcp_DisableThreadProfiling(S.os, gh(ph));
    settle();
    return rc;
}

static uint32_t w_QueryThreadProfiling(void *th, uint8_t *enabled) {
    uint64_t slot = 0;
    if (enabled) {
        slot = scratch(SCR_BOOLEAN);
        put_bytes(slot, enabled, 1);
    }
    uint32_t rc = hcp_QueryThreadProfiling(S.os, gh(th), slot);
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
    uint32_t rc = hcp_ReadThreadProfilingData(S.os, gh(ph), flags, slot);
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
    int r = hcp_GetThreadTimes(S.os, gh(th), slot[0], slot[1], slot[2], slot[3]);
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
    int r = hcp_QueryThreadCycleTime(S.os, gh(th), slot);
    if (cycles) {
        get_bytes(slot, b, 8);
        *cycles = hcp_get64(b);
    }
    settle();
    return r;
}

static uint32_t n_RtlNtStatusToDosError(uint32_t status);
static uint32_t n_NtQueryTimerResolution(uint32_t *max, uint32_t *min, uint32_t *cur);

/* ---- modules ---------------------------------------------------------------------------------------- */
static char module_kernel32, module_kernelbase, module_ntdll, module_advapi32; /* their addresses: HMODULEs */

void *GetModuleHandleA(const char *name) {
    if (name && strcasecmp(name, "kernel32.dll") == 0) return &module_kernel32;
    if (name && strcasecmp(name, "kernelbase.dll") == 0) return &module_kernelbase;
    if (name && strcasecmp(name, "ntdll.dll") == 0) return &module_ntdll;
    if (name && strcasecmp(name, "advapi32.dll") == 0) return &module_advapi32;
    hcp_SetLastError(S.os, 126); /* ERROR_MOD_NOT_FOUND */
    return NULL;
}

void *LoadLibraryA(const char *name) { return GetModuleHandleA(name); }

hcpshim_proc GetProcAddress(void *module, const char *name) {
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
    static const struct {
        const char *name;
        hcpshim_proc fn;
    } ntdll[] = {
        {"RtlNtStatusToDosError", (hcpshim_proc)n_RtlNtStatusToDosError},
        {"NtQueryTimerResolution", (hcpshim_proc)n_NtQueryTimerResolution},
    };
    if (module == &module_ntdll && name) {
        for (size_t i = 0; i < sizeof ntdll / sizeof ntdll[0]; i++)
            if (strcmp(ntdll[i].name, name) == 0) return ntdll[i].fn;
    }
    if (module == &module_advapi32 && name) {
        hcpshim_proc fn = hcpshim_etw_export(name);
        if (fn) return fn;
    }
    hcp_SetLastError(S.os, 127); /* ERROR_PROC_NOT_FOUND */
    return NULL;
}

/* ---- threads, handles, waits ----------------------------------------------------------------------- */
void *GetCurrentThread(void) { return hh(hcp_GetCurrentThread(S.os)); }
void *GetCurrentProcess(void) { return hh(HCP_CURRENT_PROCESS); }
uint32_t GetCurrentThreadId(void) { return hcp_GetCurrentThreadId(S.os); }
uint32_t GetLastError(void) { return hcp_GetLastError(S.os); }
void SetLastError(uint32_t code) { hcp_SetLastError(S.os, code); }

void *OpenThread(uint32_t access, int inherit, uint32_t thread_id) {
    uint64_t h = hcp_OpenThread(S.os, access, inherit, thread_id);
    settle();
    return hh(h);
}

int CloseHandle(void *h) {
    int r = hcp_CloseHandle(S.os, gh(h));
    settle();
    return r;
}

void *CreateEventA(void *attributes, int manual_reset, int initial_state, const char *name) {
    if (attributes || name) bail("CreateEventA: only unnamed events with default security");
    uint64_t h = hcp_create_event(S.os, manual_reset, initial_state);
    settle();
    return hh(h);
}

int SetEvent(void *h) {
    int r = hcp_SetEvent(S.os, gh(h));
    settle();
    return r;
}

uint32_t WaitForSingleObject(void *h, uint32_t ms) {
    uint32_t r = hcp_WaitForSingleObject(S.os, gh(h), ms);
    if (r == HCP_PENDING) {
        to_driver();
        r = hcp_wait_result(S.os);
    }
    settle();
    return r;
}

void Sleep(uint32_t ms) {
    if (hcp_Sleep(S.os, ms) == HCP_PENDING) to_driver();
    settle();
}

int SwitchToThread(void) {
    int r = hcp_SwitchToThread(S.os);
    settle();
    return r;
}

void *CreateThread(void *attributes, size_t stack_size, hcpshim_start_fn start, void *arg, uint32_t flags,
                   uint32_t *thread_id) {
    (void)stack_size;
    if (attributes || (flags & ~(uint32_t)SHIM_CREATE_SUSPENDED))
        bail("CreateThread: only default security and no creation flags but CREATE_SUSPENDED");
    if (flags & SHIM_CREATE_SUSPENDED) {
        if (thread_id) bail("CreateThread(CREATE_SUSPENDED): ask GetThreadId after ResumeThread");
        if (S.npending >= MAX_PENDING) bail("CreateThread: too many suspended threads");
        pending_thread *p = &S.pending[S.npending];
        *p = (pending_thread){.start = start, .arg = arg};
        return hh(PENDING_BASE + 16 * (uint64_t)S.npending++);
    }
    shim_thread *st = new_thread("hcpcheck-job", start, arg, 8, ~UINT64_C(0));
    if (!st) {
        hcp_SetLastError(S.os, ERROR_NOT_ENOUGH_MEMORY);
        return NULL;
    }
    uint64_t h = hcp_thread_handle(S.os, st->t, THREAD_ALL_ACCESS);
    if (thread_id) *thread_id = sim_thread_id(st->t);
    settle();
    return hh(h);
}

/* ---- more of KERNEL32: objects, thread control, processors, memory, time ----------------------------- */
int ResetEvent(void *h) {
    int r = hcp_ResetEvent(S.os, gh(h));
    settle();
    return r;
}

void *CreateMutexA(void *attributes, int initial_owner, const char *name) {
    if (attributes || name) bail("CreateMutexA: only unnamed mutexes with default security");
    uint64_t h = hcp_create_mutex(S.os, initial_owner);
    settle();
    return hh(h);
}

int ReleaseMutex(void *h) {
    int r = hcp_ReleaseMutex(S.os, gh(h));
    settle();
    return r;
}

void *CreateSemaphoreA(void *attributes, int32_t initial, int32_t maximum, const char *name) {
    if (attributes || name) bail("CreateSemaphoreA: only unnamed semaphores with default security");
    uint64_t h = hcp_create_semaphore(S.os, initial, maximum);
    settle();
    return hh(h);
}

int ReleaseSemaphore(void *h, int32_t count, int32_t *previous) {
    uint64_t slot = 0;
    uint8_t b[4];
    if (previous) {
        slot = scratch(SCR_PREVIOUS);
        hcp_put32(b, (uint32_t)*previous);
        put_bytes(slot, b, 4);
    }
    int r = hcp_ReleaseSemaphore(S.os, gh(h), count, slot);
    if (previous) {
        get_bytes(slot, b, 4);
        *previous = (int32_t)hcp_get32(b);
    }
    settle();
    return r;
}

uint32_t WaitForMultipleObjects(uint32_t n, void *const *handles, int all, uint32_t ms) {
    uint64_t slot = 0;
    unsigned ptr = sim_arch_ptr_size(sim_machine_config(S.m)->arch); /* a guest HANDLE: 8 or 4 bytes */
    if (handles && n <= SCR_HANDLES_MAX) { /* more than fit are refused by the count check (at most 64) */
        slot = scratch(SCR_HANDLES);
        uint8_t b[8];
        for (uint32_t i = 0; i < n; i++) {
            hcp_put64(b, gh(handles[i]));
            put_bytes(slot + ptr * (uint64_t)i, b, ptr);
        }
    } else if (handles) {
        slot = scratch(SCR_HANDLES); /* n > 64: never read */
    }
    uint32_t r = hcp_WaitForMultipleObjects(S.os, n, slot, all, ms);
    if (r == HCP_PENDING) {
        to_driver();
        r = hcp_wait_result(S.os);
    }
    settle();
    return r;
}

int GetExitCodeThread(void *h, uint32_t *code) {
    uint64_t slot = 0;
    uint8_t b[4];
    if (code) {
        slot = scratch(SCR_EXIT_CODE);
        hcp_put32(b, *code);
        put_bytes(slot, b, 4);
    }
    int r = hcp_GetExitCodeThread(S.os, gh(h), slot);
    if (code) {
        get_bytes(slot, b, 4);
        *code = hcp_get32(b);
    }
    settle();
    return r;
}

_Noreturn void ExitThread(uint32_t code) {
    shim_thread *st = self;
    pthread_mutex_lock(&S.mu);
    st->code = code;
    st->finished = true;
    S.turn = NULL;
    pthread_cond_broadcast(&S.cv);
    pthread_mutex_unlock(&S.mu);
    pthread_exit(NULL);
}

uint32_t GetThreadId(void *h) {
    sim_thread *t = NULL;
    uint32_t st = hcp_ref_thread(S.os, gh(h), 0x0800u /* THREAD_QUERY_LIMITED_INFORMATION */, &t);
    settle();
    if (st != 0 || !t) {
        hcp_SetLastError(S.os, hcp_nt_to_win32(st));
        return 0;
    }
    return sim_thread_id(t);
}

/* Windows' normal priority class: base 8 plus the THREAD_PRIORITY_* value; IDLE (-15) gives 1,
 * TIME_CRITICAL (15) gives 15. */
static int class_priority(int rel) { return rel <= -15 ? 1 : rel >= 15 ? 15 : 8 + rel; }

int SetThreadPriority(void *h, int priority) {
    if (!(priority >= -2 && priority <= 2) && priority != -15 && priority != 15) {
        hcp_SetLastError(S.os, SHIM_ERROR_INVALID_PARAMETER);
        return 0;
    }
    pending_thread *p = pending_of(h);
    if (p && !p->handle) {
        p->priority = priority;
        return 1;
    }
    sim_thread *t = NULL;
    if (hcp_ref_thread(S.os, gh(h), 0x0020u /* THREAD_SET_INFORMATION */, &t) != 0 || !t) {
        hcp_SetLastError(S.os, SHIM_ERROR_INVALID_HANDLE);
        return 0;
    }
    if (sim_thread_priority(t) != class_priority(priority))
        bail("SetThreadPriority: the shim changes a priority only between CreateThread(CREATE_SUSPENDED) and "
             "ResumeThread");
    return 1;
}

static uint64_t machine_cpus(void) {
    int n = sim_cpu_count(S.m);
    return n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1;
}

uintptr_t SetThreadAffinityMask(void *h, uintptr_t mask) {
    uint64_t all = machine_cpus();
    if (((uint64_t)mask & ~all) != 0 || mask == 0) { /* Windows: a processor the system lacks is 87 */
        hcp_SetLastError(S.os, SHIM_ERROR_INVALID_PARAMETER);
        return 0;
    }
    pending_thread *p = pending_of(h);
    if (p && !p->handle) {
        uint64_t old = p->affinity ? p->affinity : all;
        p->affinity = mask;
        return (uintptr_t)old;
    }
    sim_thread *t = NULL;
    if (hcp_ref_thread(S.os, gh(h), 0x0020u /* THREAD_SET_INFORMATION */, &t) != 0 || !t) {
        hcp_SetLastError(S.os, SHIM_ERROR_INVALID_HANDLE);
        return 0;
    }
    uint64_t old = sim_thread_affinity(t) & all;
    if (((uint64_t)mask & all) != old)
        bail("SetThreadAffinityMask: the shim changes a running thread's affinity only to what it is");
    return (uintptr_t)old;
}

int GetProcessAffinityMask(void *process, uintptr_t *proc_mask, uintptr_t *sys_mask) {
    if (gh(process) != HCP_CURRENT_PROCESS) {
        hcp_SetLastError(S.os, SHIM_ERROR_INVALID_HANDLE);
        return 0;
    }
    if (proc_mask) *proc_mask = (uintptr_t)machine_cpus();
    if (sys_mask) *sys_mask = (uintptr_t)machine_cpus();
    return 1;
}

uint32_t ResumeThread(void *h) {
    pending_thread *p = pending_of(h);
    if (!p) return 0; /* a running thread: previous suspend count 0 */
    if (p->handle) return 0;
    shim_thread *st = new_thread("hcpcheck-job", p->start, p->arg, class_priority(p->priority),
                                 p->affinity ? p->affinity : ~UINT64_C(0));
    if (!st) bail("ResumeThread: the simulator refused the thread");
    p->handle = hcp_thread_handle(S.os, st->t, THREAD_ALL_ACCESS);
    /* a thread of higher priority than the caller runs at once, as Windows' dispatcher does */
    if (sim_sched_preempt_pending(self->t)) to_driver();
    settle();
    return 1;
}

uint32_t GetCurrentProcessorNumber(void) { return (uint32_t)sim_thread_cpu(self->t); }

int ReadProcessMemory(void *process, const void *address, void *buffer, size_t n, size_t *done) {
    if (done) *done = 0;
    if (gh(process) != HCP_CURRENT_PROCESS) bail("ReadProcessMemory: only the current process");
    if (n > 4096 || sim_mem_read(S.m, (uint64_t)(uintptr_t)address, buffer, n) != SIM_OK) {
        hcp_SetLastError(S.os, SHIM_ERROR_PARTIAL_COPY);
        return 0;
    }
    if (done) *done = n;
    return 1;
}

/* QueryPerformanceCounter at 10 MHz from the virtual clock, as the guest-side KERNEL32 does. */
int QueryPerformanceFrequency(LARGE_INTEGER *f) {
    f->QuadPart = 10000000;
    return 1;
}

int QueryPerformanceCounter(LARGE_INTEGER *c) {
    c->QuadPart = (int64_t)sim_mul_div(sim_clock(S.m), 10000000u, sim_machine_config(S.m)->frequency);
    return 1;
}

/* SYSTEMTIME <-> FILETIME: days from 1601-01-01 by the proleptic Gregorian calendar (a 400-year
 * cycle is 146097 days). */
static int64_t days_from_1601(int64_t y, int64_t m, int64_t d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400, yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1, doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 584694; /* 584694: days from 0000-03-01 to 1601-01-01 */
}

int SystemTimeToFileTime(const SYSTEMTIME *st, FILETIME *ft) {
    static const int mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (st->wYear < 1601 || st->wYear > 30827 || st->wMonth < 1 || st->wMonth > 12 || st->wDay < 1 ||
        st->wDay > mdays[st->wMonth - 1] || st->wHour > 23 || st->wMinute > 59 || st->wSecond > 59 ||
        st->wMilliseconds > 999) {
        hcp_SetLastError(S.os, SHIM_ERROR_INVALID_PARAMETER);
        return 0;
    }
    int64_t days = days_from_1601(st->wYear, st->wMonth, st->wDay);
    uint64_t v = ((((uint64_t)days * 24 + st->wHour) * 60 + st->wMinute) * 60 + st->wSecond) * 10000000u +
                 (uint64_t)st->wMilliseconds * 10000u;
    ft->dwLowDateTime = (uint32_t)v;
    ft->dwHighDateTime = (uint32_t)(v >> 32);
    return 1;
}

uint32_t GetCurrentProcessId(void) { return HCP_ETW_PROCESS_ID; }

/* No file system: ETW sessions keep their events in memory (hcpshim_etw.c), so there is no
 * temporary directory (0: the program uses a relative name) and nothing to delete. */
uint32_t GetTempPathA(uint32_t n, char *buf) {
    if (buf && n) buf[0] = 0;
    return 0;
}
int DeleteFileA(const char *path) { return path != NULL; }

/* ---- the kernel logger, for hcpshim_etw.c ------------------------------------------------------------ */
typedef struct etw_adapter {
    hcpshim_etw_sink sink;
    void *ud;
} etw_adapter;
static etw_adapter etw_to;

static void etw_forward(void *ud, const hcp_etw_event *ev) {
    etw_adapter *a = ud;
    a->sink(a->ud, ev->data, ev->size, ev->cpu);
}

uint32_t hcpshim_etw_start(uint32_t flags, hcpshim_etw_sink sink, void *ud) {
    etw_to = (etw_adapter){sink, ud};
    uint32_t rc = hcp_etw_start(S.os, flags, etw_forward, &etw_to);
    settle();
    return rc;
}

uint32_t hcpshim_etw_stop(void) {
    uint32_t rc = hcp_etw_stop(S.os, true);
    settle();
    return rc;
}

/* ---- NTDLL: RtlNtStatusToDosError, NtQueryTimerResolution ------------------------------------------ */
static uint32_t n_RtlNtStatusToDosError(uint32_t status) { return hcp_nt_to_win32(status); }

/* Maximum (coarsest) resolution = the clock tick, the unit of thread times; the machine's tick is
 * also its minimum and current resolution. */
static uint32_t n_NtQueryTimerResolution(uint32_t *max, uint32_t *min, uint32_t *cur) {
    uint32_t tick = sim_machine_config(S.m)->tick;
    if (!max || !min || !cur) return 0xC0000005u; /* STATUS_ACCESS_VIOLATION */
    *max = *min = *cur = tick;
    return 0;
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
    /* the tick stub in the platform's ISA: ret (x86-64, x86), ret (ARM64), bx lr (ARM) */
    static const uint8_t ret_x86[] = {0xC3}, ret_a64[] = {0xC0, 0x03, 0x5F, 0xD6}, ret_a32[] = {0x1E, 0xFF, 0x2F, 0xE1};
    const uint8_t *stub = o.sim.arch == SIM_ARCH_ARM64 ? ret_a64 : o.sim.arch == SIM_ARCH_ARM ? ret_a32 : ret_x86;
    size_t stub_len = o.sim.arch == SIM_ARCH_ARM64 || o.sim.arch == SIM_ARCH_ARM ? 4 : 1;
    if (sim_code(S.m, stub, stub_len, &S.ret_stub) != SIM_OK) bail("the tick stub could not be placed");
    S.argc = 2;
    S.argv[0] = "hcpcheck";
    S.argv[1] = sem == HCP_OBSERVED ? "observed" : "documented";
    S.argv[2] = NULL;
    shim_thread *first = new_thread("hcpcheck", main_body, NULL, 8, ~UINT64_C(0));
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
