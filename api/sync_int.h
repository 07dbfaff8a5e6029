/* api/sync_int.h — what the files of issue 33's synchronisation, APCs, timers, thread pool and
 * processor functions share (api/ only): per-thread and per-process state, the user-callback
 * dispatcher (ucb.c), thread parking (k32_srw.c), APC queues (k32_apc.c), the pool (k32_pool.c).
 * api/README.md "Synchronisation", "APCs and timers", "The thread pool", "Processes and
 * processors" describe the behaviour. */
#ifndef HCPSIM_API_SYNC_INT_H
#define HCPSIM_API_SYNC_INT_H

#include "api/exports_gen.h"

/* ---- Windows numbers of these families ---- */
#define GENERIC_READ 0x80000000u
#define GENERIC_WRITE 0x40000000u
#define GENERIC_EXECUTE 0x20000000u
#define GENERIC_ALL 0x10000000u
#define STANDARD_RIGHTS_READ 0x00020000u
#define STANDARD_RIGHTS_WRITE 0x00020000u
#define STANDARD_RIGHTS_EXECUTE 0x00020000u
#define EVENT_QUERY_STATE 0x0001u
#define MUTANT_QUERY_STATE 0x0001u
#define SEMAPHORE_QUERY_STATE 0x0001u
#define TIMER_QUERY_STATE 0x0001u
#define TIMER_MODIFY_STATE 0x0002u
#define TIMER_ALL_ACCESS 0x001F0003u
#define KEYEDEVENT_WAIT 0x0001u
#define KEYEDEVENT_WAKE 0x0002u
#define KEYEDEVENT_ALL_ACCESS 0x000F0003u
#define THREAD_RESUME 0x1000u
#define PROCESS_TERMINATE 0x0001u
#define PROCESS_CREATE_THREAD 0x0002u
#define PROCESS_VM_OPERATION 0x0008u
#define PROCESS_VM_READ 0x0010u
#define PROCESS_VM_WRITE 0x0020u
#define PROCESS_DUP_HANDLE 0x0040u
#define PROCESS_CREATE_PROCESS 0x0080u
#define PROCESS_SET_QUOTA 0x0100u
#define PROCESS_SET_INFORMATION 0x0200u
#define PROCESS_QUERY_INFORMATION 0x0400u
#define PROCESS_SUSPEND_RESUME 0x0800u
#define PROCESS_QUERY_LIMITED_INFORMATION 0x1000u
#define PROCESS_ALL_ACCESS 0x001FFFFFu
#define HANDLE_FLAG_INHERIT 0x1u
#define HANDLE_FLAG_PROTECT_FROM_CLOSE 0x2u

/* ---- the ntdll-internal wait of the platform (api/README.md "Synchronisation": wait reasons) ---- */
/* WrAlertByThreadId (37) on Windows 8 and later, WrKeyedEvent (21) on Windows 7. */
int hcp_park_reason(const hcp_os *os);

/* ---- per-thread state ---- */
typedef struct hcp_apc { /* a user APC: fn(a0, a1, a2) */
    uint64_t fn, a[3];
    uint64_t tag; /* the waitable timer that queued it (its completion routine), else 0 */
} hcp_apc;

#define HCP_UCB_DEPTH 16 /* callbacks that run inside callbacks (an APC that waits alertably) */
typedef struct hcp_ucb_frame {
    int kind;        /* UCB_* (ucb.c) */
    int stage;       /* the kind's own progress */
    uint64_t result; /* what the interrupted call returns when the callbacks are done */
    uint32_t pop;    /* x86: the bytes its stdcall return pops */
    uint64_t u[6];   /* the kind's own state */
} hcp_ucb_frame;

typedef struct hcp_xthread {
    sim_object *alert; /* its own wake-up (auto-reset): parking, NtAlertThreadByThreadId */
    /* the queue it is parked in (k32_srw.c): a waiter leaves it when woken, granted or timed out */
    bool queued;
    bool granted;      /* a lock or key was handed to it while it was parked */
    uint64_t park_key; /* what it waits for (its queue's key; diagnostics) */
    int park_kind;
    bool rtl_call; /* the waiting call is an Rtl form (an NTSTATUS result) */
    /* user APCs, FIFO */
    hcp_apc *apc;
    int napc, capapc;
    bool alertable; /* it waits alertably now: a new APC ends the wait */
    /* the user-callback dispatcher's frames (ucb.c) */
    hcp_ucb_frame ucb[HCP_UCB_DEPTH];
    int nucb;
    uint64_t rec; /* its callback record in guest memory (OS heap), 0 until needed */
    /* processes and processors (k32_procinfo.c) */
    int rel_priority;          /* SetThreadPriority's value (THREAD_PRIORITY_*) */
    bool has_rel;              /* set (else the thread's priority is its own) */
    uint64_t *fls;             /* FLS values by index (NULL: none set) */
    int nfls;                  /* entries of fls */
    uint16_t *desc;            /* SetThreadDescription's UTF-16 text, with its terminator */
    int ndesc;                 /* code units, terminator excluded */
    bool boost_off;            /* SetThreadPriorityBoost (no boosts are simulated) */
    bool hide_debugger;        /* ThreadHideFromDebugger */
    struct hcp_worker *worker; /* a thread-pool worker or waiter thread (k32_pool.c) */
    uint32_t suspend_prev;     /* SuspendThread of itself: the count before it */
    uint32_t suspend_count;    /* a Lua body's thread: its suspend count (a program's: hcp_pthread.suspend) */
} hcp_xthread;

/* The thread's state (created on first use); NULL on host memory exhaustion. */
hcp_xthread *hcp_xthread_of(hcp_os *os, sim_thread *t);
void hcp_xthread_free(hcp_xthread *x);

/* ---- per-process state ---- */
typedef struct hcp_waitq hcp_waitq;
typedef struct hcp_pool_state hcp_pool_state;
typedef struct hcp_xproc {
    /* parked threads by (kind, key) (k32_srw.c): SRW locks, condition variables, InitOnce,
     * WaitOnAddress, keyed events */
    hcp_waitq **wq;
    int nwq, capwq;
    struct hcp_srw *srw; /* SRW locks in use (held or waited for), by address */
    int nsrw, capsrw;
    struct cv_sleep *cv; /* each thread's condition-variable sleep (k32_srw.c), by thread index */
    int ncv;
    struct once_call *oc; /* each thread's InitOnce call (k32_once.c), by thread index */
    int noc;
    sim_object *global_keyed; /* the keyed event of a NULL handle (\KernelObjects\CritSecOutOfMemoryEvent) */
    /* priority class (k32_procinfo.c) */
    uint32_t priority_class;
    bool background;
    /* FLS (k32_procinfo.c): callbacks by index (0: free; HCP_FLS_NO_CALLBACK: allocated without one) */
    uint64_t *fls_cb;
    uint8_t *fls_used;
    int nfls;
    /* the thread pool, timer queues, registered waits (k32_pool.c) */
    hcp_pool_state *pool;
    /* waitable timers' completion routines (k32_timer.c) */
    struct hcp_wtimer *wt;
    int nwt, capwt;
    bool timer_hook;
    int ncreated; /* CreateThread's threads ever made (their names: PROGRAM.exe#k) */
    int nworkers; /* pool worker threads ever made (their names) */
    int nwaiters; /* pool waiter threads ever made */
} hcp_xproc;

/* The process's state (created on first use); NULL without a process or host memory. */
hcp_xproc *hcp_xproc_of(hcp_ctx *c);
void hcp_xproc_free(hcp_xproc *x);
void hcp_pool_free(hcp_pool_state *ps); /* k32_pool.c */
void hcp_waitq_free(hcp_xproc *x);      /* k32_srw.c */
/* A frame for a thread that starts in the dispatcher (a pool worker): 0, or -1 without memory. */
int hcp_ucb_push_for(hcp_os *os, sim_thread *t, int kind, uint64_t result, const uint64_t *u, int nu);
/* Whether t has FLS values whose callbacks must run when it exits (k32_procinfo.c). */
bool hcp_fls_pending(hcp_os *os, hcp_process *p, sim_thread *t);

/* ---- charging ---- */
/* One kernel entry (api_call cycles) for the calling thread, whatever the row's cost class: a
 * user-mode function (SRW, condition variable, WaitOnAddress...) that waits or wakes a thread. */
void hcp_charge_entry(hcp_ctx *c);

/* ---- the user-callback dispatcher (ucb.c) ---- */
enum {
    UCB_NONE = 0,
    UCB_APC,          /* the thread's user APCs, then the call returns `result` */
    UCB_INITONCE,     /* InitOnceExecuteOnce's function (u: once, param, context pointer, rtl) */
    UCB_FLSFREE,      /* FlsFree: the callback for each thread's value (u: index, callback, next thread) */
    UCB_THREAD_EXIT,  /* the exiting thread's FLS callbacks, then it ends (u: exit code, next index) */
    UCB_PROCESS_EXIT, /* ExitProcess: the caller's FLS callbacks, then the process ends (u: code, index) */
    UCB_WORKER,       /* a pool worker's loop (k32_pool.c) */
    UCB_WAITER,       /* a pool waiter thread's loop (k32_pool.c) */
};
/* The call of c returns through the dispatcher: callbacks of `kind` run first (as the program's
 * own code, on its thread), then it returns `result`.  Returns the frame (NULL: too deep, the run
 * stopped). */
hcp_ucb_frame *hcp_ucb_start(hcp_ctx *c, int kind, uint64_t result);
/* The dispatcher's guest entry in process p (a function: a pool worker's start routine, the
 * exit callbacks of a thread that returned from its start routine). */
uint64_t hcp_ucb_entry(hcp_process *p);
/* Places the dispatcher's guest code after the image (pe.c). */
sim_err hcp_ucb_place(hcp_process *p);
/* The next callback of frame f (kinds of other files): fills *fn and a[0..3] and returns true, or
 * returns false when the frame is done (its result stands).  prev: the last callback's result.  It
 * may block (c->pending; the dispatcher asks again when the thread runs) or end the thread. */
bool hcp_pool_next(hcp_ctx *c, hcp_ucb_frame *f, uint64_t prev, uint64_t *fn, uint64_t a[4]);
bool hcp_fls_next(hcp_ctx *c, hcp_ucb_frame *f, uint64_t prev, uint64_t *fn, uint64_t a[4]);
bool hcp_initonce_next(hcp_ctx *c, hcp_ucb_frame *f, uint64_t prev, uint64_t *fn, uint64_t a[4]);

/* ---- APCs and alertable waits (k32_apc.c) ---- */
/* Queues fn(a0, a1, a2) to t (tag: the timer of a completion routine); an alertable wait of t
 * ends (ready_reason: SIM_READY_WAKE, or SIM_READY_TIMER inside a clock interrupt). */
bool hcp_apc_queue(hcp_os *os, sim_thread *t, uint64_t fn, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t tag,
                   int ready_reason);
/* Removes the APCs `tag` queued to t that have not run. */
void hcp_apc_unqueue(hcp_os *os, sim_thread *t, uint64_t tag);
/* A wait of the calling thread on objs (n 0: only the timeout, a sleep), alertable or not:
 * satisfied at once (objects before queued APCs, as KeWaitForSingleObject tests them), ended by
 * APCs (which then run: STATUS_USER_APC), or blocks (c->pending; `resume` gives the call's result,
 * NULL: the sim status).  Returns the sim status (WAIT_*, STATUS_USER_APC) or HCP_PENDING. */
uint32_t hcp_wait_alertable(hcp_ctx *c, sim_object *const *objs, int n, bool all, uint64_t timeout, int reason,
                            bool alertable, uint64_t (*resume)(hcp_ctx *c));
/* In a resume function: the status of the wait that ended (STATUS_USER_APC starts the APCs'
 * delivery; the call then returns its result after them). */
uint32_t hcp_wait_end(hcp_ctx *c);
/* Starts delivering the caller's queued APCs; its call returns `result` after them. */
void hcp_apc_deliver(hcp_ctx *c, uint64_t result);
bool hcp_apc_pending(hcp_os *os, sim_thread *t);
/* A LARGE_INTEGER timeout (NULL: infinite; negative: relative, 100 ns; positive: absolute
 * system time) in cycles from now; false after a bad pointer (the run stopped). */
bool hcp_nt_timeout(hcp_ctx *c, uint64_t at, uint64_t *cycles);
/* A FILETIME-style absolute or relative due time (the LARGE_INTEGER's value) in absolute cycles. */
uint64_t hcp_due_cycles(hcp_ctx *c, int64_t due);
/* A cycle time as the FILETIME it is (boot_time + cycles in 100 ns). */
uint64_t hcp_cycles_filetime(const sim_machine *m, uint64_t cycles);

/* ---- parking (k32_srw.c): the ntdll-internal waits ---- */
enum { PQ_SRW = 1, PQ_CV, PQ_ONCE, PQ_ADDR, PQ_KEYED_WAIT, PQ_KEYED_REL, PQ_POOLWAIT };
/* The caller parks in queue (kind, key) with a tag and a timeout (cycles; SIM_INFINITE), waiting
 * with `reason`, alertable or not; HCP_PENDING (c->pending) or at once a status. */
uint32_t hcp_park(hcp_ctx *c, int kind, uint64_t key, uint64_t tag, uint64_t timeout, int reason, bool alertable,
                  uint64_t (*resume)(hcp_ctx *c));
/* The oldest thread parked in (kind, key) (NULL: none), and its tag; hcp_unpark wakes it. */
sim_thread *hcp_parked_first(hcp_ctx *c, int kind, uint64_t key, uint64_t *tag);
/* Takes t out of its queue (granted: it got what it waited for) and wakes it: one kernel entry
 * (NtAlertThreadByThreadId) charged to the caller. */
void hcp_unpark(hcp_ctx *c, sim_thread *t, bool granted);
/* In a park's resume: true when the thread was woken by hcp_unpark (granted), false after a timeout
 * or an APC (it left its queue); *status the wait's status. */
bool hcp_park_end(hcp_ctx *c, uint32_t *status);
/* Threads parked in (kind, key). */
int hcp_parked_count(hcp_ctx *c, int kind, uint64_t key);

/* ---- critical sections (k32_sync.c) ---- */
/* The mutex serving the CRITICAL_SECTION at `at` (NULL: not initialized; the run stopped). */
sim_object *hcp_cs_mutex(hcp_ctx *c, uint64_t at);
/* Writes LockCount, RecursionCount and OwningThread of the CRITICAL_SECTION at `at` from its
 * mutex's state, as Windows keeps them (api/README.md "Critical sections"). */
void hcp_cs_fields(hcp_ctx *c, uint64_t at);

/* ---- objects ---- */
/* The process object (waitable: signalled when the process ends). */
sim_object *hcp_process_object(hcp_os *os);
/* Generic rights mapped to the type's specific rights; MAXIMUM_ALLOWED: all. */
uint32_t hcp_map_access(obj_type type, uint32_t access);
/* A handle of `type` on the caller's process's named-object table (create_named/open_named's
 * table): its name entry gains a handle. */
void hcp_named_addref(hcp_ctx *c, sim_object *o);

/* SuspendThread's work: the previous count, or 0xFFFFFFFF with the last error set; *self when the
 * caller suspended itself (it has left its CPU). */
uint32_t hcp_suspend_thread(hcp_os *os, uint64_t h, bool *self);

/* ---- thread pool hooks ---- */
/* A call of t that blocked: a pool worker blocked in a callback may let the pool add a worker. */
void hcp_pool_on_block(hcp_ctx *c);

/* ---- priorities (k32_procinfo.c) ---- */
/* The base priority of relative priority rel in the process's class. */
int hcp_class_priority(hcp_ctx *c, int rel);

#endif
