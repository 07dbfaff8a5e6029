/* api/ucb.c — the user-callback dispatcher (api/README.md "User callbacks") and the per-thread
 * and per-process state of issue 33's families (api/sync_int.h).
 *
 * A callback of the program (an APC, an FLS callback, an InitOnce function, a thread-pool
 * callback) runs as the program's own user-mode code on its thread, as on Windows, where
 * ntdll's KiUserApcDispatcher and the pool's worker loop call it.  A call that has callbacks to
 * run pushes a frame (what runs, and what the call returns afterwards) and returns through the
 * dispatcher's guest code (api/guest/ucb_*.S) instead of to its caller (sim_gate_redirect); a
 * pool worker's thread starts in that code.  The guest code asks hcpsim!cb_next for one
 * callback at a time (the thread's record in guest memory holds the function and its arguments),
 * calls it, and returns the frame's result when none is left.  cb_next hands out the callbacks
 * of the innermost frame, so an APC that waits alertably runs its own APCs in a nested frame. */
#include <stdlib.h>

#include "api/guest_gen.h"
#include "api/sync_int.h"

/* ---- state ---- */

hcp_xthread *hcp_xthread_of(hcp_os *os, sim_thread *t) {
    os_thread *ot = t ? hcp_os_thread(os, t) : NULL;
    if (!ot) return NULL;
    if (!ot->x) ot->x = calloc(1, sizeof *ot->x);
    return ot->x;
}

void hcp_xthread_free(hcp_xthread *x) {
    if (!x) return;
    free(x->apc);
    free(x->fls);
    free(x->desc);
    free(x);
}

hcp_xproc *hcp_xproc_of(hcp_ctx *c) {
    if (!c->p) return NULL;
    if (!c->p->sx) {
        c->p->sx = calloc(1, sizeof *c->p->sx);
        if (c->p->sx) c->p->sx->priority_class = 0x20; /* NORMAL_PRIORITY_CLASS */
    }
    return c->p->sx;
}

void hcp_xproc_free(hcp_xproc *x) {
    if (!x) return;
    hcp_waitq_free(x);
    free(x->srw);
    free(x->cv);
    free(x->oc);
    free(x->fls_cb);
    free(x->fls_used);
    free(x->wt);
    hcp_pool_free(x->pool);
    free(x);
}

int hcp_park_reason(const hcp_os *os) { return os->plat->win8 ? SIM_WR_ALERT_BY_THREAD_ID : SIM_WR_KEYED_EVENT; }

void hcp_charge_entry(hcp_ctx *c) { sim_kernel_work(c->t, sim_machine_config(c->m)->cost.api_call_cycles); }

/* ---- the guest code ---- */

static const hcp_export *internal_row(const char *name) {
    for (int i = 0; hcp_export_at(i); i++)
        if (strcmp(hcp_export_at(i)->dll, "hcpsim") == 0 && strcmp(hcp_export_at(i)->name, name) == 0)
            return hcp_export_at(i);
    return NULL;
}

sim_err hcp_ucb_place(hcp_process *p) {
    sim_machine *m = p->os->m;
    bool x64 = p->pe.pe32plus;
    uint8_t code[128];
    size_t n = x64 ? hcp_guest_ucb_x64_size : hcp_guest_ucb_x86_size;
    if (n > sizeof code) return SIM_ERR_ARG;
    memcpy(code, x64 ? hcp_guest_ucb_x64 : hcp_guest_ucb_x86, n);
    uint64_t next = hcp_export_thunk(p->os, internal_row("cb_next"));
    size_t at = x64 ? HCP_GUEST_UCB_X64_NEXT_IMM : HCP_GUEST_UCB_X86_NEXT_IMM;
    for (unsigned i = 0; i < (x64 ? 8u : 4u); i++) code[at + i] = (uint8_t)(next >> (8 * i));
    /* the page after the C runtime's stubs (crt_guest.c), or the next free one */
    uint64_t base = p->d.stubs ? p->d.stubs + 0x1000 : p->base + 0x10000000;
    for (int k = 0; k < 256 && !sim_range_free(m, base, 0x1000); k++) base += 0x10000;
    sim_err e = sim_map_fixed(m, base, 0x1000, SIM_PROT_READ | SIM_PROT_EXEC, code, n);
    if (e != SIM_OK) return e;
    p->ucb_entry = base + (x64 ? HCP_GUEST_UCB_X64_USERCB : HCP_GUEST_UCB_X86_USERCB);
    return SIM_OK;
}

uint64_t hcp_ucb_entry(hcp_process *p) { return p ? p->ucb_entry : 0; }

/* ---- frames ---- */

static hcp_ucb_frame *push(hcp_ctx *c, int kind, uint64_t result) {
    hcp_xthread *x = hcp_xthread_of(c->os, c->t);
    if (!x) {
        hcp_stop(c, "out of host memory");
        return NULL;
    }
    if (x->nucb == HCP_UCB_DEPTH) {
        hcp_stop(c, "callbacks nested more than %d deep (an APC that waits alertably inside an APC ...)",
                 HCP_UCB_DEPTH);
        return NULL;
    }
    hcp_ucb_frame *f = &x->ucb[x->nucb++];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->result = result;
    /* x86: the interrupted stdcall call's arguments, which its thunk's `ret n` would pop */
    f->pop = c->w == 4 && c->ex && c->ex->conv == HCP_CC_STDCALL ? 4u * (uint32_t)c->ex->words : 0;
    return f;
}

hcp_ucb_frame *hcp_ucb_start(hcp_ctx *c, int kind, uint64_t result) {
    hcp_ucb_frame *f = push(c, kind, result);
    if (f) sim_gate_redirect(c->t, c->p->ucb_entry);
    return f;
}

/* A frame for a thread that starts in the dispatcher (t:run of its entry): a pool worker, the exit
 * callbacks of a thread that returned from its start routine. */
int hcp_ucb_push_for(hcp_os *os, sim_thread *t, int kind, uint64_t result, const uint64_t *u, int nu) {
    hcp_xthread *x = hcp_xthread_of(os, t);
    if (!x || x->nucb == HCP_UCB_DEPTH) return -1;
    hcp_ucb_frame *f = &x->ucb[x->nucb++];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->result = result;
    for (int i = 0; i < nu && i < 6; i++) f->u[i] = u[i];
    return 0;
}

/* The next APC of the frame's thread: each delivery is a kernel entry (NtContinue back to the
 * dispatcher's loop, as KiUserApcDispatcher's). */
static bool apc_next(hcp_ctx *c, uint64_t *fn, uint64_t a[4]) {
    hcp_xthread *x = hcp_xthread_of(c->os, c->t);
    if (!x || !x->napc) return false;
    hcp_apc ap = x->apc[0];
    memmove(x->apc, x->apc + 1, (size_t)(x->napc - 1) * sizeof *x->apc);
    x->napc--;
    *fn = ap.fn;
    a[0] = ap.a[0];
    a[1] = ap.a[1];
    a[2] = ap.a[2];
    hcp_charge_entry(c);
    return true;
}

static uint64_t next(hcp_ctx *c, uint64_t prev);

static uint64_t resume_next(hcp_ctx *c) { return next(c, 0); }

static uint64_t next(hcp_ctx *c, uint64_t prev) {
    hcp_xthread *x = hcp_xthread_of(c->os, c->t);
    if (!x || !x->nucb) return hcp_stop(c, "the callback dispatcher ran with no callbacks to deliver");
    if (!x->rec && sim_heap_alloc(c->m, 64, &x->rec) != SIM_OK) return hcp_stop(c, "no OS heap for a callback record");
    hcp_ucb_frame *f = &x->ucb[x->nucb - 1];
    uint64_t fn = 0, a[4] = {0, 0, 0, 0};
    bool more = false;
    switch (f->kind) {
    case UCB_APC: more = apc_next(c, &fn, a); break;
    case UCB_INITONCE: more = hcp_initonce_next(c, f, prev, &fn, a); break;
    case UCB_FLSFREE:
    case UCB_THREAD_EXIT:
    case UCB_PROCESS_EXIT: more = hcp_fls_next(c, f, prev, &fn, a); break;
    case UCB_WORKER:
    case UCB_WAITER: more = hcp_pool_next(c, f, prev, &fn, a); break;
    default: return hcp_stop(c, "unknown callback frame %d", f->kind);
    }
    if (c->failed) return 0;
    if (c->pending) { /* it waits (a worker with nothing to do); asked again when it runs */
        c->resume = resume_next;
        return 0;
    }
    /* frames may have been pushed or popped by the kind (a thread that ends); write the record */
    unsigned w = c->w;
    uint8_t b[64] = {0};
    uint64_t v[7] = {more ? fn : 0, a[0], a[1], a[2], a[3], f->result, f->pop};
    for (int i = 0; i < 7; i++) {
        if (w == 8)
            hcp_put64(b + 8 * i, v[i]);
        else
            hcp_put32(b + 4 * i, (uint32_t)v[i]);
    }
    if (!more && x->nucb > 0 && &x->ucb[x->nucb - 1] == f) x->nucb--;
    if (!hcp_wr(c, x->rec, b, 7 * w)) return 0;
    return x->rec;
}

uint64_t hcp_int_cb_next(hcp_ctx *c, const hcp_int_cb_next_args *a) { return next(c, a->prev); }
