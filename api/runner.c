/* api/runner.c — runs: the simulated OS calling the program's code in the
 * middle of one of its threads' guest calls (api/README.md "Exceptions":
 * "Runs").
 *
 * LoadLibrary and FreeLibrary call DllMain, the exception dispatcher calls
 * handlers, filters and unwind handlers, RtlUnwindEx calls unwind handlers:
 * each is a run.  A run puts a small block on the thread's stack, below
 * everything in use, and continues the thread in the runner (guest code:
 * api/guest/seh_x64.S, seh_x86.S), which asks hcpsim!runner_next for each call
 * and makes it: the callees are the program's own code, counted as its user
 * work, and each step of the run is one kernel entry.  The run's step
 * function (C) decides each call from the results so far and ends the run by
 * continuing the thread from a context (sim_thread_set_context): where the
 * caller of LoadLibrary resumes, or where an exception handler said to go on.
 * Runs nest (a DllMain that calls LoadLibrary; an exception inside a handler):
 * each thread has a stack of them, and a run whose part of the stack a context
 * leaves behind is gone. */
#include <stdlib.h>

#include "api/exports_gen.h"
#include "api/guest_gen.h"
#include "api/seh_int.h"

#define BLOCK_WORDS 6 /* function, four arguments, the last result */

static const hcp_export *internal_row(const char *name) {
    for (int i = 0; hcp_export_at(i); i++)
        if (strcmp(hcp_export_at(i)->dll, "hcpsim") == 0 && strcmp(hcp_export_at(i)->name, name) == 0)
            return hcp_export_at(i);
    return NULL;
}

sim_err hcp_runner_place(hcp_process *p) {
    sim_machine *m = p->os->m;
    bool x64 = p->pe.pe32plus;
    uint8_t code[128];
    size_t n = x64 ? hcp_guest_seh_x64_size : hcp_guest_seh_x86_size;
    if (n > sizeof code) return SIM_ERR_ARG;
    memcpy(code, x64 ? hcp_guest_seh_x64 : hcp_guest_seh_x86, n);
    uint64_t next = hcp_export_thunk(p->os, internal_row("runner_next"));
    for (unsigned i = 0; i < (x64 ? 8u : 4u); i++)
        code[(x64 ? HCP_GUEST_SEH_X64_RUNNER_NEXT_IMM : HCP_GUEST_SEH_X86_RUNNER_NEXT_IMM) + i] =
            (uint8_t)(next >> 8 * i);
    uint64_t base = p->d.stubs + 0x10000;
    for (int k = 0; k < 256 && !sim_range_free(m, base, 0x1000); k++) base += 0x10000;
    sim_err e = sim_map_fixed(m, base, 0x1000, SIM_PROT_READ | SIM_PROT_EXEC, code, n);
    if (e != SIM_OK) return e;
    p->d.runner = base + (x64 ? HCP_GUEST_SEH_X64_RUNNER : HCP_GUEST_SEH_X86_RUNNER);
    p->d.runner_ret = base + (x64 ? HCP_GUEST_SEH_X64_RUNNER_RET : HCP_GUEST_SEH_X86_RUNNER_RET);
    p->d.runner_page = base;
    return SIM_OK;
}

static void run_free(hcp_run *r) {
    if (r->free) r->free(r->data);
    free(r);
}

/* Runs of thread r whose part of the stack lies below sp are gone (a context left them behind). */
void hcp_run_drop_below(hcp_pthread *th, uint64_t sp) {
    while (th && th->runs && th->runs->frame_hi <= sp) {
        hcp_run *r = th->runs;
        th->runs = r->outer;
        run_free(r);
    }
}

void hcp_runs_free(hcp_pthread *th) {
    while (th && th->runs) {
        hcp_run *r = th->runs;
        th->runs = r->outer;
        run_free(r);
    }
}

/* Writes the next call into the run's block. */
static bool put_call(hcp_ctx *c, hcp_run *r) {
    uint64_t w = c->w;
    if (!hcp_wrp(c, r->block, r->fn)) return false;
    for (int i = 0; i < 4; i++)
        if (!hcp_wrp(c, r->block + w * (uint64_t)(i + 1), r->a[i])) return false;
    return true;
}

/* Ends a run: the thread goes on from ctx; the runs it leaves behind go. */
static void finish(hcp_ctx *c, hcp_pthread *th, const sim_context *ctx) {
    sim_thread_set_context(c->t, ctx);
    hcp_run_drop_below(th, ctx->gpr[HCP_SP]);
}

hcp_run *hcp_run_new(hcp_run_kind kind, hcp_run_step step, void *data, void (*freefn)(void *)) {
    hcp_run *r = calloc(1, sizeof *r);
    if (!r) {
        if (freefn) freefn(data);
        return NULL;
    }
    r->kind = kind;
    r->step = step;
    r->data = data;
    r->free = freefn;
    return r;
}

int hcp_run_start(hcp_ctx *c, hcp_run *r, const sim_context *from, uint64_t top, uint32_t extra) {
    hcp_process *p = c->p;
    hcp_pthread *th = hcp_process_thread(p, c->t);
    unsigned w = c->w;
    if (!th || !p->d.runner) {
        run_free(r);
        hcp_stop(c, "no runner for this thread");
        return HCP_STEP_STOP;
    }
    /* below `top`: the step's own area (extra bytes), the block, 32 bytes of shadow space (x64) */
    uint64_t area = (top - extra) & ~(uint64_t)63;
    uint64_t block = (area - BLOCK_WORDS * w) & ~(uint64_t)15;
    uint64_t sp = w == 8 ? block - 32 : block;
    r->block = block;
    r->area = area;
    r->frame_hi = top;
    r->resume = *from;
    r->outer = th->runs;
    th->runs = r;
    if (sim_mem_probe(c->m, sp - 0x1000, top - sp + 0x1000, true) != SIM_OK) {
        th->runs = r->outer;
        run_free(r);
        hcp_stop(c, "no stack left for the call at 0x%llX", (unsigned long long)sp);
        return HCP_STEP_STOP;
    }
    int rc = r->step(c, r, 0, true);
    if (rc == HCP_STEP_CALL) {
        if (!put_call(c, r)) return HCP_STEP_STOP;
        sim_context ctx = *from;
        ctx.gpr[HCP_SP] = sp;
        ctx.gpr[HCP_BX] = block;
        ctx.pc = p->d.runner;
        sim_thread_set_context(c->t, &ctx);
        return HCP_STEP_CALL;
    }
    if (rc == HCP_STEP_NEWRUN) return rc;   /* another run took over: r stays below it */
    if (th->runs == r) th->runs = r->outer; /* nothing to call: the step ended it */
    if (rc == HCP_STEP_DONE) finish(c, th, &r->resume);
    run_free(r);
    return rc;
}

/* hcpsim!runner_next(block): the run of that block takes the last result and gives the next call,
 * or ends. */
uint64_t hcp_int_runner_next(hcp_ctx *c, const hcp_int_runner_next_args *a) {
    hcp_pthread *th = c->p ? hcp_process_thread(c->p, c->t) : NULL;
    while (th && th->runs && th->runs->block != a->block) { /* runs a longjmp or an unwind passed over */
        hcp_run *r = th->runs;
        th->runs = r->outer;
        run_free(r);
    }
    if (!th || !th->runs) return hcp_stop(c, "no run at 0x%llX", (unsigned long long)a->block);
    hcp_run *r = th->runs;
    uint64_t result = 0;
    if (!hcp_rdp(c, r->block + (uint64_t)c->w * 5, &result)) return 0;
    if (c->w == 4) result &= 0xFFFFFFFFu;
    int rc = r->step(c, r, result, false);
    if (rc == HCP_STEP_CALL) {
        put_call(c, r);
        return 0;
    }
    if (rc == HCP_STEP_NEWRUN) return 0; /* another run took over: r stays below it */
    if (th->runs == r) th->runs = r->outer;
    if (rc == HCP_STEP_DONE) finish(c, th, &r->resume);
    run_free(r);
    return 0;
}

hcp_run *hcp_run_at(hcp_process *p, sim_thread *t, uint64_t sp) {
    hcp_pthread *th = hcp_process_thread(p, t);
    for (hcp_run *r = th ? th->runs : NULL; r; r = r->outer)
        if (sp >= r->block - 64 && sp < r->frame_hi) return r;
    return NULL;
}
