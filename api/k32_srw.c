/* api/k32_srw.c — the user-mode synchronisation of kernel32 and ntdll (api/README.md
 * "Synchronisation"): SRW locks, condition variables, one-time initialisation, WaitOnAddress,
 * interlocked singly linked lists, and the parking they wait by.
 *
 * On Windows these run in user mode and enter the kernel only to wait or to wake a waiter (Windows 8
 * and later: NtWaitForAlertByThreadId / NtAlertThreadByThreadId; Windows 7: keyed events).  So do
 * they here: their rows cost nothing but the thunk (cost=self), and a call charges one kernel
 * entry (api_call cycles) when its thread waits and one per thread it wakes.  A waiting thread
 * parks: it joins the FIFO queue of what it waits for (an SRW lock, a condition variable, an
 * INIT_ONCE, an address) and waits on its own alert, with the platform's wait reason
 * (hcp_park_reason: WrAlertByThreadId, or WrKeyedEvent on Windows 7).  A waker takes it out of the
 * queue and alerts it.  SRW locks are handed over: a release with waiters gives the lock to the
 * oldest waiter (and to every shared waiter right behind a shared one) before it wakes them, as
 * the mutexes of sim/ are. */
#include <stdlib.h>

#include "api/sync_int.h"

/* ---- wait queues ---- */

struct hcp_waitq {
    int kind;
    uint64_t key;
    sim_thread **t;
    uint64_t *tag;
    int n, cap;
};

void hcp_waitq_free(hcp_xproc *x) {
    for (int i = 0; i < x->nwq; i++) {
        free(x->wq[i]->t);
        free(x->wq[i]->tag);
        free(x->wq[i]);
    }
    free(x->wq);
}

static hcp_waitq *wq_find(hcp_xproc *x, int kind, uint64_t key, bool make) {
    for (int i = 0; i < x->nwq; i++)
        if (x->wq[i]->kind == kind && x->wq[i]->key == key) return x->wq[i];
    if (!make) return NULL;
    if (x->nwq == x->capwq) {
        int nc = x->capwq ? 2 * x->capwq : 16;
        hcp_waitq **n = realloc(x->wq, (size_t)nc * sizeof *n);
        if (!n) return NULL;
        x->wq = n;
        x->capwq = nc;
    }
    hcp_waitq *q = calloc(1, sizeof *q);
    if (!q) return NULL;
    q->kind = kind;
    q->key = key;
    x->wq[x->nwq++] = q;
    return q;
}

static void wq_drop_if_empty(hcp_xproc *x, hcp_waitq *q) {
    if (q->n) return;
    for (int i = 0; i < x->nwq; i++)
        if (x->wq[i] == q) {
            x->wq[i] = x->wq[--x->nwq];
            break;
        }
    free(q->t);
    free(q->tag);
    free(q);
}

static void wq_remove(hcp_xproc *x, hcp_waitq *q, int i) {
    memmove(q->t + i, q->t + i + 1, (size_t)(q->n - i - 1) * sizeof *q->t);
    memmove(q->tag + i, q->tag + i + 1, (size_t)(q->n - i - 1) * sizeof *q->tag);
    q->n--;
    wq_drop_if_empty(x, q);
}

/* Takes t out of whatever queue it is parked in. */
static void unqueue(hcp_ctx *c, sim_thread *t) {
    hcp_xproc *x = hcp_xproc_of(c);
    hcp_xthread *xt = hcp_xthread_of(c->os, t);
    if (!x || !xt || !xt->queued) return;
    xt->queued = false;
    hcp_waitq *q = wq_find(x, xt->park_kind, xt->park_key, false);
    for (int i = 0; q && i < q->n; i++)
        if (q->t[i] == t) {
            wq_remove(x, q, i);
            return;
        }
}

uint32_t hcp_park(hcp_ctx *c, int kind, uint64_t key, uint64_t tag, uint64_t timeout, int reason, bool alertable,
                  uint64_t (*resume)(hcp_ctx *c)) {
    hcp_xproc *x = hcp_xproc_of(c);
    hcp_xthread *xt = hcp_xthread_of(c->os, c->t);
    if (!x || !xt) {
        hcp_stop(c, "out of host memory");
        return WAIT_FAILED;
    }
    if (!xt->alert && !(xt->alert = sim_event_new(c->m, false, false))) {
        hcp_stop(c, "out of host memory");
        return WAIT_FAILED;
    }
    hcp_waitq *q = wq_find(x, kind, key, true);
    if (!q || (q->n == q->cap && !(q->cap = q->cap ? 2 * q->cap : 4))) {
        hcp_stop(c, "out of host memory");
        return WAIT_FAILED;
    }
    if (q->n + 1 > q->cap || !q->t) {
        sim_thread **nt = realloc(q->t, (size_t)q->cap * sizeof *nt);
        uint64_t *ng = nt ? realloc(q->tag, (size_t)q->cap * sizeof *ng) : NULL;
        if (nt) q->t = nt;
        if (!ng) {
            hcp_stop(c, "out of host memory");
            return WAIT_FAILED;
        }
        q->tag = ng;
    }
    q->t[q->n] = c->t;
    q->tag[q->n] = tag;
    q->n++;
    xt->queued = true;
    xt->granted = false;
    xt->park_kind = kind;
    xt->park_key = key;
    hcp_charge_entry(c); /* the wait's system call */
    return hcp_wait_alertable(c, &xt->alert, 1, false, timeout, reason, alertable, resume);
}

bool hcp_park_end(hcp_ctx *c, uint32_t *status) {
    hcp_xthread *xt = hcp_xthread_of(c->os, c->t);
    *status = hcp_wait_end(c);
    if (!xt) return false;
    if (xt->queued) { /* a timeout, an APC, or an alert of another kind (NtAlertThreadByThreadId) */
        unqueue(c, c->t);
        return false;
    }
    if (*status != WAIT_OBJECT_0 && xt->alert) sim_event_reset(xt->alert); /* woken as it timed out */
    *status = WAIT_OBJECT_0;
    return xt->granted;
}

sim_thread *hcp_parked_first(hcp_ctx *c, int kind, uint64_t key, uint64_t *tag) {
    hcp_xproc *x = hcp_xproc_of(c);
    hcp_waitq *q = x ? wq_find(x, kind, key, false) : NULL;
    while (q && q->n) {
        if (sim_thread_state_of(q->t[0]) != SIM_TS_TERMINATED) { /* a waiter that was terminated is gone */
            if (tag) *tag = q->tag[0];
            return q->t[0];
        }
        hcp_xthread *xt = hcp_xthread_of(c->os, q->t[0]);
        if (xt) xt->queued = false;
        int n = q->n;
        wq_remove(x, q, 0);
        if (n == 1) return NULL; /* the queue is gone */
    }
    return NULL;
}

int hcp_parked_count(hcp_ctx *c, int kind, uint64_t key) {
    hcp_xproc *x = hcp_xproc_of(c);
    hcp_waitq *q = x ? wq_find(x, kind, key, false) : NULL;
    return q ? q->n : 0;
}

void hcp_unpark(hcp_ctx *c, sim_thread *t, bool granted) {
    hcp_xthread *xt = hcp_xthread_of(c->os, t);
    if (!xt) return;
    unqueue(c, t);
    xt->granted = granted;
    hcp_charge_entry(c); /* NtAlertThreadByThreadId */
    if (xt->alert) sim_event_set(xt->alert);
}

/* ---- SRW locks ---- */

#define SRW_EXCL 1u
#define SRW_SHARED 2u

typedef struct hcp_srw {
    uint64_t addr;
    bool excl;
    uint32_t shared;
} hcp_srw;

static hcp_srw *srw_find(hcp_xproc *x, uint64_t addr, bool make) {
    for (int i = 0; i < x->nsrw; i++)
        if (x->srw[i].addr == addr) return &x->srw[i];
    if (!make) return NULL;
    if (x->nsrw == x->capsrw) {
        int nc = x->capsrw ? 2 * x->capsrw : 16;
        hcp_srw *n = realloc(x->srw, (size_t)nc * sizeof *n);
        if (!n) return NULL;
        x->srw = n;
        x->capsrw = nc;
    }
    hcp_srw *s = &x->srw[x->nsrw++];
    *s = (hcp_srw){addr, false, 0};
    return s;
}

/* The lock word as a debugger would see its state: 0 free; bit 0 held, bit 1 waiters, shared
 * owners from bit 4 (Windows keeps a pointer to its waiters there instead). */
static bool srw_word(hcp_ctx *c, uint64_t addr, const hcp_srw *s) {
    uint64_t v = 0;
    if (s && (s->excl || s->shared)) v = s->excl ? 1 : ((uint64_t)s->shared << 4) | 1;
    if (s && hcp_parked_count(c, PQ_SRW, addr)) v |= 2;
    return hcp_wrp(c, addr, v);
}

static void srw_forget(hcp_xproc *x, hcp_srw *s) { *s = x->srw[--x->nsrw]; }

/* A released lock goes to its oldest waiter (with the shared waiters right behind a shared one). */
static void srw_grant(hcp_ctx *c, hcp_xproc *x, uint64_t addr) {
    hcp_srw *s = srw_find(x, addr, false);
    uint64_t tag;
    sim_thread *w = hcp_parked_first(c, PQ_SRW, addr, &tag);
    if (!w) {
        if (s) srw_forget(x, s);
        srw_word(c, addr, NULL);
        return;
    }
    if (tag == SRW_EXCL) {
        s->excl = true;
        hcp_unpark(c, w, true);
    } else {
        while (w && tag == SRW_SHARED) {
            s->shared++;
            hcp_unpark(c, w, true);
            w = hcp_parked_first(c, PQ_SRW, addr, &tag);
        }
    }
    srw_word(c, addr, srw_find(x, addr, false));
    sim_sched_preempt_pending(c->t);
}

/* Takes the lock now if it can: an exclusive lock when it is free, a shared one when it is free or
 * shared and nobody waits (a waiting writer keeps new readers out). */
static bool srw_take(hcp_ctx *c, hcp_xproc *x, uint64_t addr, bool excl) {
    hcp_srw *s = srw_find(x, addr, false);
    bool waiters = s && hcp_parked_count(c, PQ_SRW, addr) > 0;
    if (s && (s->excl || (excl && s->shared) || (!excl && waiters))) return false;
    if (!s && !(s = srw_find(x, addr, true))) return false;
    if (excl)
        s->excl = true;
    else
        s->shared++;
    srw_word(c, addr, s);
    return true;
}

/* Acquires the lock: 1 at once; 0 parked until a release hands it over (c->pending: `resume`
 * runs then); -1 when the run stopped.  A park that ends at once (an alert left from an earlier
 * wake) is no grant: the thread tries again, and the second park waits. */
static int srw_lock(hcp_ctx *c, uint64_t addr, bool excl, uint64_t (*resume)(hcp_ctx *c)) {
    hcp_xproc *x = hcp_xproc_of(c);
    if (!x) {
        hcp_stop(c, "out of host memory");
        return -1;
    }
    for (int k = 0; k < 4; k++) {
        if (srw_take(c, x, addr, excl)) return 1;
        uint32_t r = hcp_park(c, PQ_SRW, addr, excl ? SRW_EXCL : SRW_SHARED, SIM_INFINITE, hcp_park_reason(c->os),
                              false, resume);
        if (c->failed) return -1;
        srw_word(c, addr, srw_find(x, addr, false));
        if (r == HCP_PENDING) return 0;
        uint32_t st;
        if (hcp_park_end(c, &st)) return 1;
    }
    hcp_stop(c, "the SRW lock at 0x%llX: no progress", (unsigned long long)addr);
    return -1;
}

static bool srw_release(hcp_ctx *c, uint64_t addr, bool excl) {
    hcp_xproc *x = hcp_xproc_of(c);
    hcp_srw *s = x ? srw_find(x, addr, false) : NULL;
    if (!s || (excl ? !s->excl : !s->shared)) {
        hcp_stop(c,
                 "the SRW lock at 0x%llX is not held %s: STATUS_RESOURCE_NOT_OWNED (0xC0000264), an exception "
                 "on Windows",
                 (unsigned long long)addr, excl ? "exclusive" : "shared");
        return false;
    }
    if (excl)
        s->excl = false;
    else if (--s->shared)
        return srw_word(c, addr, s);
    srw_grant(c, x, addr);
    return true;
}

uint64_t hcp_k32_InitializeSRWLock(hcp_ctx *c, const hcp_k32_InitializeSRWLock_args *a) {
    hcp_xproc *x = hcp_xproc_of(c);
    hcp_srw *s = x ? srw_find(x, a->SRWLock, false) : NULL;
    if (s) srw_forget(x, s); /* a new lock at that address */
    hcp_wrp(c, a->SRWLock, 0);
    return 0;
}

/* The address each resumed acquire is for: kept by the thread (its park key). */
static uint64_t park_addr(hcp_ctx *c) {
    hcp_xthread *xt = hcp_xthread_of(c->os, c->t);
    return xt ? xt->park_key : 0;
}

static uint64_t excl_resumed(hcp_ctx *c) {
    uint64_t addr = park_addr(c);
    uint32_t st;
    if (!hcp_park_end(c, &st)) srw_lock(c, addr, true, excl_resumed); /* an unrelated alert: again */
    return 0;
}
static uint64_t shared_resumed(hcp_ctx *c) {
    uint64_t addr = park_addr(c);
    uint32_t st;
    if (!hcp_park_end(c, &st)) srw_lock(c, addr, false, shared_resumed);
    return 0;
}

uint64_t hcp_k32_AcquireSRWLockExclusive(hcp_ctx *c, const hcp_k32_AcquireSRWLockExclusive_args *a) {
    srw_lock(c, a->SRWLock, true, excl_resumed);
    return 0;
}
uint64_t hcp_k32_AcquireSRWLockShared(hcp_ctx *c, const hcp_k32_AcquireSRWLockShared_args *a) {
    srw_lock(c, a->SRWLock, false, shared_resumed);
    return 0;
}
uint64_t hcp_k32_ReleaseSRWLockExclusive(hcp_ctx *c, const hcp_k32_ReleaseSRWLockExclusive_args *a) {
    srw_release(c, a->SRWLock, true);
    return 0;
}
uint64_t hcp_k32_ReleaseSRWLockShared(hcp_ctx *c, const hcp_k32_ReleaseSRWLockShared_args *a) {
    srw_release(c, a->SRWLock, false);
    return 0;
}
static uint64_t srw_try(hcp_ctx *c, uint64_t addr, bool excl) {
    hcp_xproc *x = hcp_xproc_of(c);
    if (!x) return hcp_stop(c, "out of host memory");
    return srw_take(c, x, addr, excl);
}
uint64_t hcp_k32_TryAcquireSRWLockExclusive(hcp_ctx *c, const hcp_k32_TryAcquireSRWLockExclusive_args *a) {
    return srw_try(c, a->SRWLock, true);
}
uint64_t hcp_k32_TryAcquireSRWLockShared(hcp_ctx *c, const hcp_k32_TryAcquireSRWLockShared_args *a) {
    return srw_try(c, a->SRWLock, false);
}

/* ---- condition variables ---- */

enum { CVL_CS = 1, CVL_SRW_EXCL, CVL_SRW_SHARED };
#define CONDITION_VARIABLE_LOCKMODE_SHARED 0x1u

/* What a sleeping thread re-acquires and returns (its xthread's fields would do; a small table
 * keeps sync_int.h free of them). */
struct cv_sleep {
    sim_thread *t;
    uint64_t lock;
    int mode;
    bool nt;        /* the Rtl form: an NTSTATUS */
    bool timed_out; /* its wait timed out (FALSE, ERROR_TIMEOUT / STATUS_TIMEOUT) */
};
typedef struct cv_sleep cv_sleep;
static cv_sleep *cv_of(hcp_ctx *c);

static uint64_t cv_done(hcp_ctx *c) {
    cv_sleep *z = cv_of(c);
    if (!z) return 0;
    if (z->mode == CVL_CS) hcp_cs_fields(c, z->lock);
    if (z->nt) return z->timed_out ? STATUS_TIMEOUT : STATUS_SUCCESS;
    return z->timed_out ? hcp_fail(c, ERROR_TIMEOUT) : 1;
}

static uint64_t cv_cs_resumed(hcp_ctx *c) { return cv_done(c); }

static uint64_t cv_srw_resumed(hcp_ctx *c) {
    cv_sleep *z = cv_of(c);
    uint32_t st;
    if (!z) return 0;
    if (!hcp_park_end(c, &st) && srw_lock(c, z->lock, z->mode == CVL_SRW_EXCL, cv_srw_resumed) != 1) return 0;
    return cv_done(c);
}

/* Woken (or timed out): the lock again, as any acquirer gets it. */
static uint64_t cv_woken(hcp_ctx *c) {
    cv_sleep *z = cv_of(c);
    uint32_t st;
    if (!z) return 0;
    bool granted = hcp_park_end(c, &st);
    z->timed_out = !granted && st == WAIT_TIMEOUT;
    if (z->mode == CVL_CS) {
        sim_object *mx = hcp_cs_mutex(c, z->lock);
        if (!mx) return 0;
        if (sim_wait(c->t, &mx, 1, false, SIM_INFINITE, SIM_WR_USER_REQUEST) == SIM_WAIT_BLOCKED) {
            hcp_charge_entry(c);
            hcp_cs_fields(c, z->lock);
            c->pending = true;
            c->resume = cv_cs_resumed;
            return 0;
        }
        return cv_done(c);
    }
    if (srw_lock(c, z->lock, z->mode == CVL_SRW_EXCL, cv_srw_resumed) != 1) return 0;
    return cv_done(c);
}

static uint64_t cv_sleep_on(hcp_ctx *c, uint64_t cv, uint64_t lock, int mode, uint64_t timeout, bool nt) {
    cv_sleep *z = cv_of(c);
    if (!z) return hcp_stop(c, "out of host memory");
    *z = (cv_sleep){c->t, lock, mode, nt, false};
    if (mode == CVL_CS) { /* the caller must hold it (entered once) */
        sim_object *mx = hcp_cs_mutex(c, lock);
        if (!mx) return 0;
        if (sim_mutex_release(c->t, mx) != 0)
            return hcp_stop(c, "thread %u does not own the CRITICAL_SECTION at 0x%llX it sleeps on",
                            (unsigned)sim_thread_id(c->t), (unsigned long long)lock);
        hcp_cs_fields(c, lock);
    } else if (!srw_release(c, lock, mode == CVL_SRW_EXCL)) {
        return 0;
    }
    uint32_t r = hcp_park(c, PQ_CV, cv, (uint64_t)mode, timeout, hcp_park_reason(c->os), false, cv_woken);
    if (c->failed || r == HCP_PENDING) return 0;
    return cv_woken(c);
}

static uint64_t ms_cycles(hcp_ctx *c, uint32_t ms) {
    return ms == INFINITE ? SIM_INFINITE : sim_ms_to_cycles(c->m, ms);
}

uint64_t hcp_k32_InitializeConditionVariable(hcp_ctx *c, const hcp_k32_InitializeConditionVariable_args *a) {
    hcp_wrp(c, a->ConditionVariable, 0);
    return 0;
}
uint64_t hcp_k32_SleepConditionVariableCS(hcp_ctx *c, const hcp_k32_SleepConditionVariableCS_args *a) {
    return cv_sleep_on(c, a->ConditionVariable, a->CriticalSection, CVL_CS, ms_cycles(c, a->dwMilliseconds), false);
}
uint64_t hcp_k32_SleepConditionVariableSRW(hcp_ctx *c, const hcp_k32_SleepConditionVariableSRW_args *a) {
    int mode = (a->Flags & CONDITION_VARIABLE_LOCKMODE_SHARED) ? CVL_SRW_SHARED : CVL_SRW_EXCL;
    return cv_sleep_on(c, a->ConditionVariable, a->SRWLock, mode, ms_cycles(c, a->dwMilliseconds), false);
}
uint64_t hcp_nt_RtlSleepConditionVariableCS(hcp_ctx *c, const hcp_nt_RtlSleepConditionVariableCS_args *a) {
    uint64_t t;
    if (!hcp_nt_timeout(c, a->TimeOut, &t)) return 0;
    return cv_sleep_on(c, a->ConditionVariable, a->CriticalSection, CVL_CS, t, true);
}
uint64_t hcp_nt_RtlSleepConditionVariableSRW(hcp_ctx *c, const hcp_nt_RtlSleepConditionVariableSRW_args *a) {
    uint64_t t;
    if (!hcp_nt_timeout(c, a->TimeOut, &t)) return 0;
    int mode = (a->Flags & CONDITION_VARIABLE_LOCKMODE_SHARED) ? CVL_SRW_SHARED : CVL_SRW_EXCL;
    return cv_sleep_on(c, a->ConditionVariable, a->SRWLock, mode, t, true);
}

/* Wake: the oldest sleeper (All: every one), FIFO; each re-acquires its lock when it runs. */
static void cv_wake(hcp_ctx *c, uint64_t cv, bool all) {
    bool any = false;
    sim_thread *t;
    while ((t = hcp_parked_first(c, PQ_CV, cv, NULL))) {
        hcp_unpark(c, t, true);
        any = true;
        if (!all) break;
    }
    if (any) sim_sched_preempt_pending(c->t);
}
uint64_t hcp_k32_WakeConditionVariable(hcp_ctx *c, const hcp_k32_WakeConditionVariable_args *a) {
    cv_wake(c, a->ConditionVariable, false);
    return 0;
}
uint64_t hcp_k32_WakeAllConditionVariable(hcp_ctx *c, const hcp_k32_WakeAllConditionVariable_args *a) {
    cv_wake(c, a->ConditionVariable, true);
    return 0;
}

/* one sleep per thread at a time: by thread index */
static cv_sleep *cv_of(hcp_ctx *c) {
    hcp_xproc *x = hcp_xproc_of(c);
    if (!x) return NULL;
    int i = sim_thread_index(c->t);
    if (i >= x->ncv) {
        int nc = x->ncv ? x->ncv : 8;
        while (nc <= i) nc *= 2;
        cv_sleep *n = realloc(x->cv, (size_t)nc * sizeof *n);
        if (!n) return NULL;
        memset(n + x->ncv, 0, (size_t)(nc - x->ncv) * sizeof *n);
        x->cv = n;
        x->ncv = nc;
    }
    return &x->cv[i];
}
