/* api/k32_once.c — one-time initialisation (InitOnce*, RtlRunOnce*), WaitOnAddress and
 * WakeByAddress*, and the interlocked singly linked lists (api/README.md "Synchronisation").
 *
 * User-mode functions on Windows: their rows cost nothing but the thunk; a wait or a wake is one
 * kernel entry (k32_srw.c's parking).  An INIT_ONCE keeps its whole state in its pointer-sized
 * word, as Windows' RTL_RUN_ONCE does: 0 uninitialized; 1 being initialized (synchronous), 3
 * (asynchronous); the context with its low two bits 10 once done.  InitOnceExecuteOnce's
 * function runs as the program's own code on the calling thread (ucb.c). */
#include <stdlib.h>

#include "api/sync_int.h"

#define INIT_ONCE_CHECK_ONLY 0x1u
#define INIT_ONCE_ASYNC 0x2u
#define INIT_ONCE_INIT_FAILED 0x4u
#define ONCE_AGAIN 0xFFFFFFFDu /* once_begin: a wait that ended at once (an alert left from before) */

/* ---- INIT_ONCE ---- */

static bool once_read(hcp_ctx *c, uint64_t once, uint64_t *v) { return hcp_rdp(c, once, v); }

/* Wakes every thread waiting for `once` to be done. */
static void once_wake(hcp_ctx *c, uint64_t once) {
    bool any = false;
    sim_thread *t;
    while ((t = hcp_parked_first(c, PQ_ONCE, once, NULL))) {
        hcp_unpark(c, t, true);
        any = true;
    }
    if (any) sim_sched_preempt_pending(c->t);
}

/* RtlRunOnceBeginInitialize's state machine: STATUS_SUCCESS (done: *ctx), STATUS_PENDING (the
 * caller initializes), HCP_PENDING (it waits for another thread: resume asks again), or an
 * error status. */
static uint32_t once_begin(hcp_ctx *c, uint64_t once, uint32_t flags, uint64_t *ctx, uint64_t (*resume)(hcp_ctx *c)) {
    uint64_t v;
    if (!once_read(c, once, &v)) return STATUS_ACCESS_VIOLATION;
    if (flags & INIT_ONCE_CHECK_ONLY) {
        if (flags & INIT_ONCE_ASYNC) return STATUS_INVALID_PARAMETER;
        if ((v & 3) != 2) return STATUS_UNSUCCESSFUL;
        *ctx = v & ~(uint64_t)3;
        return STATUS_SUCCESS;
    }
    switch (v & 3) {
    case 0: hcp_wrp(c, once, (flags & INIT_ONCE_ASYNC) ? 3 : 1); return STATUS_PENDING;
    case 1:
        if (flags & INIT_ONCE_ASYNC) return STATUS_INVALID_PARAMETER;
        if (hcp_park(c, PQ_ONCE, once, 0, SIM_INFINITE, hcp_park_reason(c->os), false, resume) == HCP_PENDING)
            return HCP_PENDING;
        return ONCE_AGAIN;
    case 2: *ctx = v & ~(uint64_t)3; return STATUS_SUCCESS;
    default: return (flags & INIT_ONCE_ASYNC) ? STATUS_PENDING : STATUS_INVALID_PARAMETER;
    }
}

/* RtlRunOnceComplete. */
static uint32_t once_complete(hcp_ctx *c, uint64_t once, uint32_t flags, uint64_t ctx) {
    if (ctx & 3) return STATUS_INVALID_PARAMETER;
    uint64_t nv;
    if (flags & INIT_ONCE_INIT_FAILED) {
        if (ctx || (flags & INIT_ONCE_ASYNC)) return STATUS_INVALID_PARAMETER;
        nv = 0;
    } else {
        nv = ctx | 2;
    }
    uint64_t v;
    if (!once_read(c, once, &v)) return STATUS_ACCESS_VIOLATION;
    switch (v & 3) {
    case 1:
        hcp_wrp(c, once, nv);
        once_wake(c, once);
        return STATUS_SUCCESS;
    case 3:
        if (!(flags & INIT_ONCE_ASYNC)) return STATUS_INVALID_PARAMETER;
        hcp_wrp(c, once, nv);
        return STATUS_SUCCESS;
    default: return STATUS_UNSUCCESSFUL;
    }
}

/* The call a waiting BeginInitialize / ExecuteOnce makes when it runs again (its arguments are
 * kept in its frame-less state: the park key is the INIT_ONCE; the rest in these per-thread
 * slots). */
typedef struct once_call {
    uint64_t once, pending_out, ctx_out, fn, param;
    uint32_t flags;
    bool rtl, execute;
} once_call;
static once_call *oc_of(hcp_ctx *c);

static uint64_t once_resumed(hcp_ctx *c);

/* BeginInitialize / ExecuteOnce, from the top (again after a wait). */
static uint64_t once_run(hcp_ctx *c) {
    once_call *k = oc_of(c);
    if (!k) return hcp_stop(c, "out of host memory");
    uint64_t ctx = 0;
    uint32_t st;
    for (int i = 0; i < 4; i++) {
        st = once_begin(c, k->once, k->execute ? 0 : k->flags, &ctx, once_resumed);
        if (c->failed) return 0;
        if (st == HCP_PENDING) return 0; /* it waits */
        if (st == ONCE_AGAIN) {          /* not done yet: ask again */
            uint32_t s2;
            hcp_park_end(c, &s2);
            continue;
        }
        break;
    }
    if (k->execute) {
        if (st == STATUS_SUCCESS) {
            if (k->ctx_out) hcp_wrp(c, k->ctx_out, ctx);
            return k->rtl ? STATUS_SUCCESS : 1;
        }
        if (st != STATUS_PENDING) return k->rtl ? st : hcp_nt_fail(c, st);
        /* this thread initializes: the function runs as the program's code, then the dispatcher
         * completes (hcp_initonce_next) */
        hcp_ucb_frame *f = hcp_ucb_start(c, UCB_INITONCE, 0);
        if (!f) return 0;
        f->u[0] = k->once;
        f->u[1] = k->param;
        f->u[2] = k->ctx_out;
        f->u[3] = k->rtl;
        f->u[4] = k->fn;
        return 0;
    }
    if (k->rtl) {
        if ((st == STATUS_SUCCESS || st == STATUS_PENDING) && k->ctx_out && st == STATUS_SUCCESS)
            hcp_wrp(c, k->ctx_out, ctx);
        return st;
    }
    if (st != STATUS_SUCCESS && st != STATUS_PENDING) return hcp_nt_fail(c, st);
    if (k->pending_out) hcp_wr32(c, k->pending_out, st == STATUS_PENDING);
    if (k->ctx_out && st == STATUS_SUCCESS) hcp_wrp(c, k->ctx_out, ctx);
    return 1;
}

static uint64_t once_resumed(hcp_ctx *c) {
    uint32_t st;
    hcp_park_end(c, &st);
    return once_run(c);
}

bool hcp_initonce_next(hcp_ctx *c, hcp_ucb_frame *f, uint64_t prev, uint64_t *fn, uint64_t a[4]) {
    if (f->stage == 0) { /* the function: fn(InitOnce, Parameter, Context) */
        f->stage = 1;
        *fn = f->u[4];
        a[0] = f->u[0];
        a[1] = f->u[1];
        a[2] = f->u[2];
        return true;
    }
    bool ok = (uint32_t)prev != 0; /* its BOOL */
    uint64_t ctx = 0;
    if (ok && f->u[2] && !hcp_rdp(c, f->u[2], &ctx)) return false;
    uint32_t st = once_complete(c, f->u[0], ok ? 0 : INIT_ONCE_INIT_FAILED, ok ? ctx : 0);
    if (!ok) st = STATUS_UNSUCCESSFUL;
    f->result = f->u[3] ? st : (uint64_t)(st == STATUS_SUCCESS);
    return false;
}

uint64_t hcp_k32_InitOnceInitialize(hcp_ctx *c, const hcp_k32_InitOnceInitialize_args *a) {
    hcp_wrp(c, a->InitOnce, 0);
    return 0;
}
static uint64_t begin_common(hcp_ctx *c, uint64_t once, uint32_t flags, uint64_t pending, uint64_t ctx, bool rtl) {
    once_call *k = oc_of(c);
    if (!k) return hcp_stop(c, "out of host memory");
    *k = (once_call){once, pending, ctx, 0, 0, flags, rtl, false};
    return once_run(c);
}
uint64_t hcp_k32_InitOnceBeginInitialize(hcp_ctx *c, const hcp_k32_InitOnceBeginInitialize_args *a) {
    return begin_common(c, a->lpInitOnce, a->dwFlags, a->fPending, a->lpContext, false);
}
uint64_t hcp_nt_RtlRunOnceBeginInitialize(hcp_ctx *c, const hcp_nt_RtlRunOnceBeginInitialize_args *a) {
    return begin_common(c, a->RunOnce, a->Flags, 0, a->Context, true);
}
uint64_t hcp_k32_InitOnceComplete(hcp_ctx *c, const hcp_k32_InitOnceComplete_args *a) {
    uint32_t st = once_complete(c, a->lpInitOnce, a->dwFlags, a->lpContext);
    return st == STATUS_SUCCESS ? 1 : hcp_nt_fail(c, st);
}
uint64_t hcp_nt_RtlRunOnceComplete(hcp_ctx *c, const hcp_nt_RtlRunOnceComplete_args *a) {
    return once_complete(c, a->RunOnce, a->Flags, a->Context);
}
static uint64_t execute_common(hcp_ctx *c, uint64_t once, uint64_t fn, uint64_t param, uint64_t ctx, bool rtl) {
    once_call *k = oc_of(c);
    if (!k) return hcp_stop(c, "out of host memory");
    *k = (once_call){once, 0, ctx, fn, param, 0, rtl, true};
    return once_run(c);
}
uint64_t hcp_k32_InitOnceExecuteOnce(hcp_ctx *c, const hcp_k32_InitOnceExecuteOnce_args *a) {
    return execute_common(c, a->InitOnce, a->InitFn, a->Parameter, a->Context, false);
}
uint64_t hcp_nt_RtlRunOnceExecuteOnce(hcp_ctx *c, const hcp_nt_RtlRunOnceExecuteOnce_args *a) {
    return execute_common(c, a->RunOnce, a->InitFn, a->Parameter, a->Context, true);
}

static once_call *oc_of(hcp_ctx *c) {
    hcp_xproc *x = hcp_xproc_of(c);
    if (!x) return NULL;
    int i = sim_thread_index(c->t);
    if (i >= x->noc) {
        int nc = x->noc ? x->noc : 8;
        while (nc <= i) nc *= 2;
        once_call *n = realloc(x->oc, (size_t)nc * sizeof *n);
        if (!n) return NULL;
        memset(n + x->noc, 0, (size_t)(nc - x->noc) * sizeof *n);
        x->oc = n;
        x->noc = nc;
    }
    return &x->oc[i];
}

/* ---- WaitOnAddress ---- */

static uint64_t addr_resumed(hcp_ctx *c);

/* TRUE (STATUS_SUCCESS) when the values differ or a wake (or a spurious alert) ended the wait;
 * FALSE with ERROR_TIMEOUT (STATUS_TIMEOUT) after the timeout. */
static uint64_t wait_on_address(hcp_ctx *c, uint64_t addr, uint64_t cmp, uint64_t size, uint64_t timeout, bool rtl) {
    if (size != 1 && size != 2 && size != 4 && size != 8)
        return rtl ? STATUS_INVALID_PARAMETER : hcp_fail(c, ERROR_INVALID_PARAMETER);
    uint8_t x[8], y[8];
    if (!hcp_rd(c, addr, x, (size_t)size) || !hcp_rd(c, cmp, y, (size_t)size)) return 0;
    if (memcmp(x, y, (size_t)size) != 0) return rtl ? STATUS_SUCCESS : 1;
    hcp_xthread *xt = hcp_xthread_of(c->os, c->t);
    if (!xt) return hcp_stop(c, "out of host memory");
    xt->rtl_call = rtl;
    uint32_t r = hcp_park(c, PQ_ADDR, addr, 0, timeout, hcp_park_reason(c->os), false, addr_resumed);
    if (c->failed || r == HCP_PENDING) return 0;
    return addr_resumed(c);
}

static uint64_t addr_resumed(hcp_ctx *c) {
    hcp_xthread *xt = hcp_xthread_of(c->os, c->t);
    uint32_t st;
    bool woken = hcp_park_end(c, &st);
    bool rtl = xt && xt->rtl_call;
    if (!woken && st == WAIT_TIMEOUT) return rtl ? STATUS_TIMEOUT : hcp_fail(c, ERROR_TIMEOUT);
    return rtl ? STATUS_SUCCESS : 1;
}

uint64_t hcp_k32_WaitOnAddress(hcp_ctx *c, const hcp_k32_WaitOnAddress_args *a) {
    uint64_t t = a->dwMilliseconds == INFINITE ? SIM_INFINITE : sim_ms_to_cycles(c->m, a->dwMilliseconds);
    return wait_on_address(c, a->Address, a->CompareAddress, a->AddressSize, t, false);
}
uint64_t hcp_nt_RtlWaitOnAddress(hcp_ctx *c, const hcp_nt_RtlWaitOnAddress_args *a) {
    uint64_t t;
    if (!hcp_nt_timeout(c, a->Timeout, &t)) return 0;
    return wait_on_address(c, a->Address, a->CompareAddress, a->AddressSize, t, true);
}
static void wake_address(hcp_ctx *c, uint64_t addr, bool all) {
    bool any = false;
    sim_thread *t;
    while ((t = hcp_parked_first(c, PQ_ADDR, addr, NULL))) {
        hcp_unpark(c, t, true);
        any = true;
        if (!all) break;
    }
    if (any) sim_sched_preempt_pending(c->t);
}
uint64_t hcp_k32_WakeByAddressSingle(hcp_ctx *c, const hcp_k32_WakeByAddressSingle_args *a) {
    wake_address(c, a->Address, false);
    return 0;
}
uint64_t hcp_k32_WakeByAddressAll(hcp_ctx *c, const hcp_k32_WakeByAddressAll_args *a) {
    wake_address(c, a->Address, true);
    return 0;
}

/* ---- interlocked singly linked lists ----
 * SLIST_HEADER, x64 (16 bytes): the first quadword holds Depth (bits 0-15) and Sequence (bits
 * 16-63), the second the first entry's address (16-byte aligned; bits 0-3 reserved, 0).  x86 (8
 * bytes): Next (4), Depth (2), Sequence (2).  Sequence counts pushes, modulo its width.  An
 * entry's first pointer-sized word is its Next.  Atomic here because a call is. */

typedef struct slist {
    uint64_t first;
    uint32_t depth;
    uint64_t seq;
} slist;

static bool sl_read(hcp_ctx *c, uint64_t h, slist *s) {
    uint8_t b[16];
    if (!hcp_rd(c, h, b, c->w == 8 ? 16 : 8)) return false;
    if (c->w == 8) {
        uint64_t q0 = hcp_get64(b), q1 = hcp_get64(b + 8);
        *s = (slist){q1 & ~(uint64_t)0xF, (uint32_t)(q0 & 0xFFFF), q0 >> 16};
    } else {
        *s = (slist){hcp_get32(b), hcp_get16(b + 4), hcp_get16(b + 6)};
    }
    return true;
}

static bool sl_write(hcp_ctx *c, uint64_t h, const slist *s) {
    uint8_t b[16];
    if (c->w == 8) {
        hcp_put64(b, (s->depth & 0xFFFFu) | (s->seq << 16));
        hcp_put64(b + 8, s->first & ~(uint64_t)0xF);
        return hcp_wr(c, h, b, 16);
    }
    hcp_put32(b, (uint32_t)s->first);
    hcp_put16(b + 4, (uint16_t)s->depth);
    hcp_put16(b + 6, (uint16_t)s->seq);
    return hcp_wr(c, h, b, 8);
}

uint64_t hcp_k32_InitializeSListHead(hcp_ctx *c, const hcp_k32_InitializeSListHead_args *a) {
    slist s = {0, 0, 0};
    sl_write(c, a->ListHead, &s);
    return 0;
}
static uint64_t push_list(hcp_ctx *c, uint64_t h, uint64_t first, uint64_t last, uint32_t n) {
    slist s;
    if (!sl_read(c, h, &s)) return 0;
    uint64_t old = s.first;
    if (!hcp_wrp(c, last, old)) return 0;
    s.first = first;
    s.depth += n;
    s.seq++;
    sl_write(c, h, &s);
    return old;
}
uint64_t hcp_k32_InterlockedPushEntrySList(hcp_ctx *c, const hcp_k32_InterlockedPushEntrySList_args *a) {
    return push_list(c, a->ListHead, a->ListEntry, a->ListEntry, 1);
}
uint64_t hcp_k32_InterlockedPopEntrySList(hcp_ctx *c, const hcp_k32_InterlockedPopEntrySList_args *a) {
    slist s;
    if (!sl_read(c, a->ListHead, &s) || !s.first) return 0;
    uint64_t next;
    if (!hcp_rdp(c, s.first, &next)) return 0;
    uint64_t e = s.first;
    s.first = next;
    s.depth--;
    sl_write(c, a->ListHead, &s);
    return e;
}
uint64_t hcp_k32_InterlockedFlushSList(hcp_ctx *c, const hcp_k32_InterlockedFlushSList_args *a) {
    slist s;
    if (!sl_read(c, a->ListHead, &s)) return 0;
    uint64_t e = s.first;
    s.first = 0;
    s.depth = 0;
    sl_write(c, a->ListHead, &s);
    return e;
}
uint64_t hcp_k32_QueryDepthSList(hcp_ctx *c, const hcp_k32_QueryDepthSList_args *a) {
    slist s;
    return sl_read(c, a->ListHead, &s) ? s.depth : 0;
}
uint64_t hcp_nt_RtlFirstEntrySList(hcp_ctx *c, const hcp_nt_RtlFirstEntrySList_args *a) {
    slist s;
    return sl_read(c, a->ListHead, &s) ? s.first : 0;
}
