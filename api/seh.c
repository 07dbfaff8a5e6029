/* api/seh.c — exception dispatch (api/README.md "Exceptions").
 *
 * A guest fault (sim/'s report, through the machine's fault handler) or a
 * RaiseException becomes an EXCEPTION_RECORD and a CONTEXT on the faulting
 * thread's stack, and a run (api/runner.c) calls the program's handlers in
 * Windows' order: the vectored exception handlers, the frame-based handlers
 * (x64: the images' unwind data, api/seh_x64.c; x86: the FS:[0] chain,
 * api/seh_x86.c), the unhandled-exception filter (SetUnhandledExceptionFilter,
 * the filter Windows' thread start routine calls), then, when a handler said
 * to go on, the vectored continue handlers, and the thread goes on from the
 * CONTEXT as the handlers left it.  An exception nobody handles ends the run
 * with the report Windows prints.  Dispatch is the faulting thread's kernel
 * work (one api_call to enter it, one per step of the run); the handlers are
 * the program's user code. */
#include <stdio.h>
#include <stdlib.h>

#include "api/exports_gen.h"
#include "api/layouts.h"
#include "api/seh_int.h"

#define MAX_NESTED 8 /* exceptions dispatched at once on one thread (one inside a handler of another...) */

/* ---- the process's handlers ------------------------------------------------------------------ */

typedef struct veh {
    uint64_t handle, fn;
    bool cont; /* a continue handler */
} veh;

struct hcp_seh_state {
    veh *list;
    int n, cap;
    uint64_t top_filter; /* SetUnhandledExceptionFilter */
};

static struct hcp_seh_state *seh_of(hcp_process *p) {
    if (!p->seh) p->seh = calloc(1, sizeof *p->seh);
    return p->seh;
}

void hcp_seh_free(hcp_process *p) {
    if (!p->seh) return;
    free(p->seh->list);
    free(p->seh);
    p->seh = NULL;
}

static uint64_t add_handler(hcp_ctx *c, uint32_t first, uint64_t fn, bool cont) {
    struct hcp_seh_state *s = seh_of(c->p);
    uint64_t h;
    if (!s || sim_heap_alloc(c->m, 16, &h) != SIM_OK) return hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    if (s->n == s->cap) {
        int nc = s->cap ? 2 * s->cap : 8;
        veh *l = realloc(s->list, (size_t)nc * sizeof *l);
        if (!l) return hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
        s->list = l;
        s->cap = nc;
    }
    int at = s->n;
    if (first) { /* the head of its list: before every handler of the same kind */
        at = 0;
        while (at < s->n && s->list[at].cont != cont) at++;
        memmove(&s->list[at + 1], &s->list[at], (size_t)(s->n - at) * sizeof *s->list);
    }
    s->list[at] = (veh){h, fn, cont};
    s->n++;
    hcp_wrp(c, h, fn); /* the handle points at an entry that holds the handler, as Windows' does */
    return h;
}

static uint64_t remove_handler(hcp_ctx *c, uint64_t h, bool cont) {
    struct hcp_seh_state *s = seh_of(c->p);
    for (int i = 0; s && i < s->n; i++)
        if (s->list[i].handle == h && s->list[i].cont == cont) {
            memmove(&s->list[i], &s->list[i + 1], (size_t)(s->n - i - 1) * sizeof *s->list);
            s->n--;
            sim_heap_free(c->m, h, 16);
            return 1;
        }
    return 0;
}

uint64_t hcp_k32_AddVectoredExceptionHandler(hcp_ctx *c, const hcp_k32_AddVectoredExceptionHandler_args *a) {
    return add_handler(c, a->First, a->Handler, false);
}
uint64_t hcp_k32_RemoveVectoredExceptionHandler(hcp_ctx *c, const hcp_k32_RemoveVectoredExceptionHandler_args *a) {
    return remove_handler(c, a->Handle, false);
}
uint64_t hcp_k32_AddVectoredContinueHandler(hcp_ctx *c, const hcp_k32_AddVectoredContinueHandler_args *a) {
    return add_handler(c, a->First, a->Handler, true);
}
uint64_t hcp_k32_RemoveVectoredContinueHandler(hcp_ctx *c, const hcp_k32_RemoveVectoredContinueHandler_args *a) {
    return remove_handler(c, a->Handle, true);
}

/* The previous filter (NULL at first). */
uint64_t hcp_k32_SetUnhandledExceptionFilter(hcp_ctx *c, const hcp_k32_SetUnhandledExceptionFilter_args *a) {
    struct hcp_seh_state *s = seh_of(c->p);
    if (!s) return 0;
    uint64_t old = s->top_filter;
    s->top_filter = a->lpTopLevelExceptionFilter;
    return old;
}

/* ---- guest structures ------------------------------------------------------------------------------ */

uint32_t hcp_context_size(unsigned w) { return w == 8 ? 0x4D0u : 0x2CCu; }
uint32_t hcp_excrec_size(unsigned w) { return w == 8 ? 0x98u : 0x50u; }

static uint8_t abridged_tag(uint16_t full) {
    uint8_t t = 0;
    for (int i = 0; i < 8; i++)
        if (((full >> (2 * i)) & 3) != 3) t |= (uint8_t)(1u << i);
    return t;
}
static uint16_t full_tag(uint8_t abridged) {
    uint16_t t = 0;
    for (int i = 0; i < 8; i++)
        if (!(abridged & (1u << i))) t |= (uint16_t)(3u << (2 * i));
    return t;
}

/* FXSAVE's 512 bytes: the x87 state, MXCSR, st0-st7, xmm0-15 (x64) or 0-7. */
static void fxsave_put(uint8_t *b, const sim_context *x, int nxmm) {
    hcp_put16(b, x->fpcw);
    hcp_put16(b + 2, x->fpsw);
    b[4] = abridged_tag(x->fptw);
    hcp_put32(b + 24, x->mxcsr);
    hcp_put32(b + 28, 0xFFFF);
    for (int i = 0; i < 8; i++) memcpy(b + 32 + 16 * i, x->st[i], 10);
    for (int i = 0; i < nxmm; i++) memcpy(b + 160 + 16 * i, x->xmm[i], 16);
}
static void fxsave_get(const uint8_t *b, sim_context *x, int nxmm) {
    x->fpcw = hcp_get16(b);
    x->fpsw = hcp_get16(b + 2);
    x->fptw = full_tag(b[4]);
    x->mxcsr = hcp_get32(b + 24);
    for (int i = 0; i < 8; i++) memcpy(x->st[i], b + 32 + 16 * i, 10);
    for (int i = 0; i < nxmm; i++) memcpy(x->xmm[i], b + 160 + 16 * i, 16);
}

/* x86 CONTEXT: the integer registers' offsets, in gpr order (eax, ecx, edx, ebx, esp, ebp, esi, edi). */
static const uint32_t gpr32_off[8] = {0xB0, 0xAC, 0xA8, 0xA4, 0xC4, 0xB4, 0xA0, 0x9C};

bool hcp_context_write(hcp_ctx *c, uint64_t at, const sim_context *x) {
    uint8_t b[0x4D0];
    memset(b, 0, sizeof b);
    if (c->w == 8) {
        hcp_put32(b + 0x30, 0x10000Fu); /* CONTEXT_AMD64: CONTROL, INTEGER, SEGMENTS, FLOATING_POINT */
        hcp_put32(b + 0x34, x->mxcsr);
        for (int i = 0; i < 6; i++) hcp_put16(b + 0x38 + 2 * i, x->seg[i]);
        hcp_put32(b + 0x44, (uint32_t)x->flags);
        for (int i = 0; i < 16; i++) hcp_put64(b + 0x78 + 8 * i, x->gpr[i]);
        hcp_put64(b + 0xF8, x->pc);
        fxsave_put(b + 0x100, x, 16);
        return hcp_wr(c, at, b, 0x4D0);
    }
    hcp_put32(b, 0x1002Fu); /* CONTEXT_i386: CONTROL, INTEGER, SEGMENTS, FLOATING_POINT, EXTENDED_REGISTERS */
    hcp_put32(b + 0x1C, x->fpcw);
    hcp_put32(b + 0x20, x->fpsw);
    hcp_put32(b + 0x24, x->fptw);
    for (int i = 0; i < 8; i++) memcpy(b + 0x38 + 10 * i, x->st[i], 10);
    hcp_put32(b + 0x8C, x->seg[4]); /* gs, fs, es, ds */
    hcp_put32(b + 0x90, x->seg[3]);
    hcp_put32(b + 0x94, x->seg[2]);
    hcp_put32(b + 0x98, x->seg[1]);
    for (int i = 0; i < 8; i++) hcp_put32(b + gpr32_off[i], (uint32_t)x->gpr[i]);
    hcp_put32(b + 0xB8, (uint32_t)x->pc);
    hcp_put32(b + 0xBC, x->seg[0]);
    hcp_put32(b + 0xC0, (uint32_t)x->flags);
    hcp_put32(b + 0xC8, x->seg[5]);
    fxsave_put(b + 0xCC, x, 8);
    return hcp_wr(c, at, b, 0x2CC);
}

/* The registers of a CONTEXT in guest memory (segments: kept from *x, a thread keeps its own). */
bool hcp_context_read(hcp_ctx *c, uint64_t at, sim_context *x) {
    uint8_t b[0x4D0];
    if (!hcp_rd(c, at, b, hcp_context_size(c->w))) return false;
    if (c->w == 8) {
        for (int i = 0; i < 16; i++) x->gpr[i] = hcp_get64(b + 0x78 + 8 * i);
        x->pc = hcp_get64(b + 0xF8);
        x->flags = hcp_get32(b + 0x44);
        fxsave_get(b + 0x100, x, 16);
        x->mxcsr = hcp_get32(b + 0x34);
        return true;
    }
    for (int i = 0; i < 8; i++) x->gpr[i] = hcp_get32(b + gpr32_off[i]);
    x->pc = hcp_get32(b + 0xB8);
    x->flags = hcp_get32(b + 0xC0);
    fxsave_get(b + 0xCC, x, 8);
    x->fpcw = (uint16_t)hcp_get32(b + 0x1C);
    x->fpsw = (uint16_t)hcp_get32(b + 0x20);
    x->fptw = (uint16_t)hcp_get32(b + 0x24);
    for (int i = 0; i < 8; i++) memcpy(x->st[i], b + 0x38 + 10 * i, 10);
    return true;
}

bool hcp_excrec_write(hcp_ctx *c, uint64_t at, const hcp_excrec *e) {
    uint8_t b[0x98];
    memset(b, 0, sizeof b);
    unsigned w = c->w;
    hcp_put32(b, e->code);
    hcp_put32(b + 4, e->flags);
    uint32_t n = e->nparams > EXCEPTION_MAXIMUM_PARAMETERS ? EXCEPTION_MAXIMUM_PARAMETERS : e->nparams;
    if (w == 8) {
        hcp_put64(b + 8, e->record);
        hcp_put64(b + 16, e->address);
        hcp_put32(b + 24, n);
        for (uint32_t i = 0; i < n; i++) hcp_put64(b + 32 + 8 * i, e->info[i]);
    } else {
        hcp_put32(b + 8, (uint32_t)e->record);
        hcp_put32(b + 12, (uint32_t)e->address);
        hcp_put32(b + 16, n);
        for (uint32_t i = 0; i < n; i++) hcp_put32(b + 20 + 4 * i, (uint32_t)e->info[i]);
    }
    return hcp_wr(c, at, b, hcp_excrec_size(w));
}

bool hcp_excrec_read(hcp_ctx *c, uint64_t at, hcp_excrec *e) {
    uint8_t b[0x98];
    unsigned w = c->w;
    memset(e, 0, sizeof *e);
    if (!hcp_rd(c, at, b, hcp_excrec_size(w))) return false;
    e->code = hcp_get32(b);
    e->flags = hcp_get32(b + 4);
    e->record = w == 8 ? hcp_get64(b + 8) : hcp_get32(b + 8);
    e->address = w == 8 ? hcp_get64(b + 16) : hcp_get32(b + 12);
    e->nparams = hcp_get32(b + (w == 8 ? 24 : 16));
    if (e->nparams > EXCEPTION_MAXIMUM_PARAMETERS) e->nparams = EXCEPTION_MAXIMUM_PARAMETERS;
    for (uint32_t i = 0; i < e->nparams; i++)
        e->info[i] = w == 8 ? hcp_get64(b + 32 + 8 * i) : hcp_get32(b + 20 + 4 * i);
    return true;
}

/* The thread's stack as its TEB's NT_TIB says (StackLimit <= sp <= StackBase), as Windows checks frames. */
bool hcp_seh_on_stack(hcp_ctx *c, uint64_t sp) {
    hcp_pthread *th = hcp_process_thread(c->p, c->t);
    uint64_t base, limit;
    if (!th || !hcp_rdp(c, th->teb + hcp_lay_off(HCP_L_TEB_StackBase, c->w == 8), &base) ||
        !hcp_rdp(c, th->teb + hcp_lay_off(HCP_L_TEB_StackLimit, c->w == 8), &limit))
        return false;
    return sp >= limit && sp <= base;
}

/* ---- the report of an exception nobody handles ------------------------------------------------------ */

/* What Windows reports: the code and its name, the address and where it lies, the thread, and for
 * a fault the inaccessible address of an access violation and the instruction. */
static void report(hcp_ctx *c, const hcp_excrec *e, const sim_fault *f) {
    hcp_process *p = c->p;
    char where[128], what[96] = "", insn[160] = "", bytes[16 * 3 + 1] = "", tail[384];
    const char *name = hcp_status_name(e->code);
    hcp_process_where(p, e->address, where, sizeof where);
    if (f) {
        int len = sim_fault_insn(c->m, f, insn, sizeof insn);
        for (int i = 0, k = 0; i < (len ? len : f->nbytes); i++)
            k += snprintf(bytes + k, sizeof bytes - (size_t)k, i ? " %02X" : "%02X", f->bytes[i]);
        if (e->code == STATUS_ACCESS_VIOLATION || e->code == STATUS_STACK_OVERFLOW)
            snprintf(what, sizeof what, ": %s 0x%llX",
                     f->access == 1   ? "writing"
                     : f->access == 8 ? "executing"
                                      : "reading",
                     (unsigned long long)f->data);
        snprintf(tail, sizeof tail, "%s; %s%s%s[%s]", what, len ? "instruction: " : "instruction bytes ",
                 len ? insn : "", len ? " " : "", bytes[0] ? bytes : "not readable");
    } else {
        snprintf(tail, sizeof tail, ": raised with %u parameter%s", (unsigned)e->nparams, e->nparams == 1 ? "" : "s");
    }
    snprintf(p->failure, sizeof p->failure,
             "%s: unhandled exception 0x%08X (%s) at 0x%llX (%s) in thread '%s' (id %u)%s", p->name, (unsigned)e->code,
             name ? name : "?", (unsigned long long)e->address, where, sim_thread_name(c->t),
             (unsigned)sim_thread_id(c->t), tail);
    p->failure_exception = true;
    c->failed = true;
}

/* ---- the dispatch ------------------------------------------------------------------------------------ */

typedef struct dispatch_run {
    hcp_dispatch d;
} dispatch_run;

/* The handler at position d->index of the vectored (cont false) or continue list, from d->index on;
 * 0 when the list ends. */
static uint64_t next_vectored(hcp_process *p, hcp_dispatch *d, bool cont) {
    struct hcp_seh_state *s = p->seh;
    int k = 0;
    for (int i = 0; s && i < s->n; i++) {
        if (s->list[i].cont != cont) continue;
        if (k++ == d->index) {
            d->index++;
            return s->list[i].fn;
        }
    }
    return 0;
}

static void set_call(hcp_run *r, uint64_t fn, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3) {
    r->fn = fn;
    r->a[0] = a0;
    r->a[1] = a1;
    r->a[2] = a2;
    r->a[3] = a3;
}

/* The thread goes on from the CONTEXT record as the handlers left it. */
static int resume_record(hcp_ctx *c, hcp_run *r, hcp_dispatch *d) {
    sim_context x = r->resume; /* its segments */
    if (!hcp_context_read(c, d->ctx, &x)) return HCP_STEP_STOP;
    r->resume = x;
    return HCP_STEP_DONE;
}

static int unhandled(hcp_ctx *c, hcp_dispatch *d) {
    hcp_excrec e;
    if (!hcp_excrec_read(c, d->rec, &e)) return HCP_STEP_STOP;
    report(c, &e, d->has_fault ? &d->fault : NULL);
    return HCP_STEP_STOP;
}

static int dispatch_step(hcp_ctx *c, hcp_run *r, uint64_t result, bool first) {
    hcp_dispatch *d = &((dispatch_run *)r->data)->d;
    int32_t res = (int32_t)(uint32_t)result;
    if (!first) {
        switch (d->phase) {
        case 0: /* a vectored handler answered */
            if (res == EXCEPTION_CONTINUE_EXECUTION) {
                d->phase = 3;
                d->index = 0;
            }
            break;
        case 2:                                     /* the unhandled-exception filter answered */
            if (res == EXCEPTION_EXECUTE_HANDLER) { /* the thread start routine's handler ends the process */
                hcp_excrec e;
                hcp_excrec_read(c, d->rec, &e);
                c->p->terminated = true;
                hcp_end_process(c, e.code);
                return HCP_STEP_STOP;
            }
            if (res != EXCEPTION_CONTINUE_EXECUTION) return unhandled(c, d);
            d->phase = 3;
            d->index = 0;
            break;
        case 3: /* a continue handler answered: one that says go on ends the list */
            if (res == EXCEPTION_CONTINUE_EXECUTION) return resume_record(c, r, d);
            break;
        default: break;
        }
    }
    for (;;) {
        if (d->phase == 0) {
            uint64_t fn = next_vectored(c->p, d, false);
            if (fn) {
                set_call(r, fn, d->ptrs, 0, 0, 0);
                return HCP_STEP_CALL;
            }
            d->phase = 1;
            first = true;
        }
        if (d->phase == 1) {
            int rc =
                c->w == 8 ? hcp_x64_frames_step(c, r, d, result, first) : hcp_x86_frames_step(c, r, d, result, first);
            if (rc == HCP_STEP_CALL || rc == HCP_STEP_STOP) return rc;
            if (rc == FR_CONTINUE) {
                d->phase = 3;
                d->index = 0;
            } else { /* searched every frame */
                d->phase = 2;
            }
        }
        if (d->phase == 2) {
            struct hcp_seh_state *s = c->p->seh;
            if (!s || !s->top_filter) return unhandled(c, d);
            set_call(r, s->top_filter, d->ptrs, 0, 0, 0);
            return HCP_STEP_CALL;
        }
        if (d->phase == 3) {
            uint64_t fn = next_vectored(c->p, d, true);
            if (fn) {
                set_call(r, fn, d->ptrs, 0, 0, 0);
                return HCP_STEP_CALL;
            }
            return resume_record(c, r, d);
        }
    }
}

/* The first step lays out the records in the run's area. */
static int dispatch_first(hcp_ctx *c, hcp_run *r, uint64_t result, bool first);

typedef struct dispatch_start {
    dispatch_run dr;
    hcp_excrec e;
    sim_context ctx;
} dispatch_start;

static int dispatch_first(hcp_ctx *c, hcp_run *r, uint64_t result, bool first) {
    dispatch_start *ds = r->data;
    hcp_dispatch *d = &ds->dr.d;
    if (first) {
        unsigned w = c->w;
        uint32_t cs = hcp_context_size(w), rs = hcp_excrec_size(w);
        d->ctx = r->area;
        d->rec = (d->ctx + cs + 15) & ~(uint64_t)15;
        d->ptrs = (d->rec + rs + 15) & ~(uint64_t)15;
        d->disp = d->ptrs + 16;
        d->ctx1 = (d->disp + 0x60 + 15) & ~(uint64_t)15;
        if (!hcp_context_write(c, d->ctx, &ds->ctx) || !hcp_excrec_write(c, d->rec, &ds->e) ||
            !hcp_wrp(c, d->ptrs, d->rec) || !hcp_wrp(c, d->ptrs + w, d->ctx))
            return HCP_STEP_STOP;
        d->walk = ds->ctx;
    }
    r->step = dispatch_step;
    return dispatch_step(c, r, result, first);
}

uint32_t hcp_seh_area(unsigned w) { return w == 8 ? 0x4D0u + 0x98u + 0x80u + 0x4D0u + 0x40u : 0x2CCu + 0x50u + 0x40u; }

int hcp_seh_dispatch(hcp_ctx *c, const hcp_excrec *e, const sim_context *ctx, const sim_fault *fault) {
    hcp_pthread *th = hcp_process_thread(c->p, c->t);
    int depth = 0;
    for (hcp_run *r = th ? th->runs : NULL; r; r = r->outer) depth += r->kind == HCP_RUN_DISPATCH;
    if (!th || depth >= MAX_NESTED) { /* an exception in a handler of an exception in a handler ... */
        report(c, e, fault);
        return HCP_STEP_STOP;
    }
    dispatch_start *ds = calloc(1, sizeof *ds);
    if (!ds) {
        hcp_stop(c, "out of host memory");
        return HCP_STEP_STOP;
    }
    ds->e = *e;
    ds->ctx = *ctx;
    ds->dr.d.code = e->code;
    if (fault) {
        ds->dr.d.has_fault = true;
        ds->dr.d.fault = *fault;
    }
    hcp_run *r = hcp_run_new(HCP_RUN_DISPATCH, dispatch_first, ds, free);
    if (!r) {
        hcp_stop(c, "out of host memory");
        return HCP_STEP_STOP;
    }
    return hcp_run_start(c, r, ctx, ctx->gpr[HCP_SP], hcp_seh_area(c->w));
}

/* ---- where exceptions come from ----------------------------------------------------------------------- */

void hcp_ctx_for(hcp_ctx *c, hcp_os *os, sim_thread *t, const char *fn) {
    memset(c, 0, sizeof *c);
    c->os = os;
    c->p = os->proc;
    c->m = os->m;
    c->t = t;
    c->w = hcp_ptr_size(os);
    snprintf(c->fn, sizeof c->fn, "%s", fn);
}

bool hcp_seh_fault(void *ud, sim_thread *t) {
    hcp_os *os = ud;
    hcp_process *p = os->proc;
    if (!p || !hcp_process_thread(p, t) || !sim_machine_config(os->m)->precise_faults) return false;
    const sim_fault *f = sim_call_fault(t);
    uint32_t code = hcp_fault_status(f->kind);
    if (code == STATUS_STACK_OVERFLOW) return false; /* no stack left to dispatch it on */
    sim_context ctx;
    if (sim_thread_context(t, &ctx) != SIM_OK) return false;
    ctx.pc = f->address; /* the faulting instruction (a breakpoint's too, as Windows reports it) */
    hcp_excrec e = {code, 0, 0, f->address, 0, {0}};
    if (code == STATUS_ACCESS_VIOLATION) {
        e.nparams = 2;
        e.info[0] = (uint64_t)f->access;
        e.info[1] = f->data;
    }
    hcp_ctx c;
    hcp_ctx_for(&c, os, t, "ntdll.dll!KiUserExceptionDispatcher");
    hcp_kernel_entry(os); /* the trap into the kernel and its dispatch: one api_call */
    int rc = hcp_seh_dispatch(&c, &e, &ctx, f);
    return rc == HCP_STEP_CALL;
}

/* RaiseException: the context is the caller's after the call returns (a handler that says go on
 * continues there). */
uint64_t hcp_k32_RaiseException(hcp_ctx *c, const hcp_k32_RaiseException_args *a) {
    sim_context ctx;
    if (sim_thread_context(c->t, &ctx) != SIM_OK) return hcp_stop(c, "no context");
    uint64_t ret = 0, sp = ctx.gpr[HCP_SP];
    if (!hcp_rdp(c, sp, &ret)) return 0;
    ctx.pc = ret;
    ctx.gpr[HCP_SP] = sp + c->w + (c->w == 4 ? 16u : 0u); /* stdcall on x86: its four arguments popped */
    hcp_excrec e = {a->dwExceptionCode, a->dwExceptionFlags & EXCEPTION_NONCONTINUABLE, 0, ret, 0, {0}};
    uint32_t n =
        a->nNumberOfArguments > EXCEPTION_MAXIMUM_PARAMETERS ? EXCEPTION_MAXIMUM_PARAMETERS : a->nNumberOfArguments;
    if (n && !a->lpArguments) n = 0;
    e.nparams = n;
    for (uint32_t i = 0; i < n; i++)
        if (!hcp_rdp(c, a->lpArguments + (uint64_t)i * c->w, &e.info[i])) return 0;
    hcp_seh_dispatch(c, &e, &ctx, NULL);
    return 0;
}

/* RtlRaiseException(record): as RaiseException with the caller's record. */
uint64_t hcp_nt_RtlRaiseException(hcp_ctx *c, const hcp_nt_RtlRaiseException_args *a) {
    sim_context ctx;
    hcp_excrec e;
    if (sim_thread_context(c->t, &ctx) != SIM_OK) return hcp_stop(c, "no context");
    if (!hcp_excrec_read(c, a->ExceptionRecord, &e)) return 0;
    uint64_t ret = 0, sp = ctx.gpr[HCP_SP];
    if (!hcp_rdp(c, sp, &ret)) return 0;
    ctx.pc = ret;
    ctx.gpr[HCP_SP] = sp + c->w + (c->w == 4 ? 4u : 0u);
    e.address = ret;
    hcp_seh_dispatch(c, &e, &ctx, NULL);
    return 0;
}

/* UnhandledExceptionFilter(pointers): the top-level filter decides when one is set; otherwise (or
 * when it searches on) Windows reports the exception and the process ends: the run ends with the
 * report. */
typedef struct uef_run {
    uint64_t ptrs;
} uef_run;

static int uef_step(hcp_ctx *c, hcp_run *r, uint64_t result, bool first) {
    uef_run *u = r->data;
    struct hcp_seh_state *s = c->p->seh;
    if (first) {
        set_call(r, s->top_filter, u->ptrs, 0, 0, 0);
        return HCP_STEP_CALL;
    }
    int32_t res = (int32_t)(uint32_t)result;
    if (res != EXCEPTION_CONTINUE_SEARCH) {
        r->resume.gpr[HCP_AX] = (uint32_t)res;
        return HCP_STEP_DONE;
    }
    uint64_t rec = 0;
    hcp_excrec e;
    if (!hcp_rdp(c, u->ptrs, &rec) || !hcp_excrec_read(c, rec, &e)) return HCP_STEP_STOP;
    report(c, &e, NULL);
    return HCP_STEP_STOP;
}

uint64_t hcp_k32_UnhandledExceptionFilter(hcp_ctx *c, const hcp_k32_UnhandledExceptionFilter_args *a) {
    struct hcp_seh_state *s = seh_of(c->p);
    uint64_t rec = 0;
    hcp_excrec e;
    if (!hcp_rdp(c, a->ExceptionInfo, &rec) || !hcp_excrec_read(c, rec, &e)) return 0;
    if (!s || !s->top_filter) {
        report(c, &e, NULL);
        return 0;
    }
    sim_context ctx;
    if (sim_thread_context(c->t, &ctx) != SIM_OK) return hcp_stop(c, "no context");
    uef_run *u = calloc(1, sizeof *u);
    if (!u) return hcp_stop(c, "out of host memory");
    u->ptrs = a->ExceptionInfo;
    hcp_run *r = hcp_run_new(HCP_RUN_CALL, uef_step, u, free);
    if (!r) return hcp_stop(c, "out of host memory");
    hcp_run_start(c, r, &ctx, ctx.gpr[HCP_SP], 0);
    return 0;
}
