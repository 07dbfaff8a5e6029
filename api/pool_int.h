/* api/pool_int.h — the thread pool's private state, shared by k32_pool.c (workers, the waiter
 * thread, the Vista pool's work, timer and wait objects) and k32_poolq.c (pools, cleanup groups,
 * callback instances, timer queues, registered waits).  api/README.md "The thread pool". */
#ifndef HCP_POOL_INT_H
#define HCP_POOL_INT_H

#include "api/sync_int.h"

#define WT_EXECUTEINWAITTHREAD 0x04u
#define WT_EXECUTEONLYONCE 0x08u
#define WT_EXECUTEINTIMERTHREAD 0x20u
#define POOL_IDLE_MS 5000u
#define POOL_DEFAULT_MAX 512
#define MAX_WAITS 63 /* objects one waiter thread waits on (with its own alert: 64) */

enum { TP_WORK = 1, TP_SIMPLE, TP_TIMER, TP_WAIT, TP_LEGACY, TP_TQTIMER, TP_RWAIT, TP_POOL, TP_GROUP, TP_QUEUE };

typedef struct tpool tpool;
typedef struct tpobj tpobj;

struct tpobj {
    int kind;
    uint64_t addr; /* the opaque pointer the program holds */
    tpool *pool;
    uint64_t fn, ctx;
    tpobj *group; /* its cleanup group, or NULL */
    int pending;  /* queued callbacks not started */
    int running;  /* callbacks running */
    bool closed;  /* the program let it go: freed when nothing is outstanding */
    /* timers (TP_TIMER, TP_TQTIMER) */
    bool armed;
    bool set; /* TP_TIMER: set with a due time and not stopped (IsThreadpoolTimerSet: after it expired too) */
    uint64_t due, period;
    /* waits (TP_WAIT, TP_RWAIT) */
    bool waiting;
    sim_object *wobj;
    uint64_t wdue; /* its timeout's due time, SIM_INFINITE none */
    uint32_t ms;   /* a registered wait's timeout, re-armed after each callback */
    uint32_t flags;
    tpobj *queue;              /* a timer-queue timer's queue */
    uint64_t completion_event; /* signalled when it is gone with no callback running (Delete*, UnregisterWaitEx) */
    bool retire;               /* pools: closed */
};

typedef struct item {
    tpobj *obj; /* NULL: a simple or legacy callback */
    int kind;
    uint64_t fn, ctx;
    uint32_t result; /* a wait's WaitResult, a timer-queue timer's / registered wait's TimerOrWaitFired */
} item;

typedef struct hcp_worker {
    sim_thread *t;
    tpool *pool; /* NULL: a waiter thread */
    bool idle, has_item, retire;
    item cur;
    uint64_t instance; /* PTP_CALLBACK_INSTANCE: its guest address */
    bool disassociated;
    /* the actions of the *WhenCallbackReturns functions */
    uint64_t on_event, on_sem, on_mutex, on_cs;
    int32_t on_sem_count;
    /* a waiter thread: the waits it waits on (parallel to its sim_wait list after its alert) */
    tpobj *waits[MAX_WAITS];
    int nwaits;
} hcp_worker;

struct tpool {
    tpobj *self; /* its object (NULL: the default pool) */
    int max, min;
    hcp_worker **idle; /* LIFO */
    int nidle, capidle;
    int nworkers;
    item *q; /* FIFO */
    int nq, capq;
    bool closed;
};

struct hcp_pool_state {
    tpool def;
    tpool **pools;
    int npools, cappools;
    tpobj **objs;
    int nobjs, capobjs;
    hcp_worker **workers; /* workers and waiter threads, in creation order */
    int nworkers, capworkers;
    hcp_worker *waiter; /* the waiter thread, created when the first timer or wait is set */
};

bool hcp_pool_grow(void **p, int *cap, int n, size_t sz);
hcp_pool_state *hcp_pool_state_of(hcp_ctx *c);
tpobj *hcp_pool_obj_new(hcp_ctx *c, int kind);
tpobj *hcp_pool_obj_find(hcp_ctx *c, uint64_t addr, int kind);
void hcp_pool_obj_release(hcp_ctx *c, tpobj *o);
void hcp_pool_obj_idle_check(hcp_ctx *c, tpobj *o);
hcp_worker *hcp_pool_worker_new(hcp_ctx *c, tpool *pool);
void hcp_pool_waiter_poke(hcp_ctx *c);
tpobj *hcp_pool_create(hcp_ctx *c, int kind, uint64_t fn, uint64_t ctx, uint64_t env);
tpobj *hcp_pool_arg_obj(hcp_ctx *c, uint64_t addr, int kind);
void hcp_pool_cancel_pending(hcp_ctx *c, tpobj *o);

#endif
