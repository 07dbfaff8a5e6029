/* api/seh_csh.c — x64's scope tables and the context and table functions
 * (api/README.md "Exceptions"): __C_specific_handler (the __try/__except/
 * __finally of C, mingw-w64's __try1/__except1), RtlCaptureContext,
 * RtlRestoreContext, NtContinue, RtlLookupFunctionEntry, RtlVirtualUnwind,
 * RtlPcToFileHeader, RtlAddFunctionTable, RtlDeleteFunctionTable, on the
 * unwinder of api/seh_x64.c. */
#include <stdlib.h>

#include "api/exports_gen.h"
#include "api/seh_int.h"

/* ---- __C_specific_handler --------------------------------------------------------------------------- */

typedef struct csh_run {
    uint64_t rec, frame, ctx, disp, ptrs;
    hcp_frame f;
    uint64_t history, ctxrec;
    uint32_t count, i, code, flags;
    uint64_t table;
    bool unwinding;
    sim_context caller; /* where __C_specific_handler was called from (an unwind walks from there) */
} csh_run;

static bool scope(hcp_ctx *c, const csh_run *s, uint32_t i, uint32_t rec[4]) {
    uint8_t b[16];
    if (!hcp_rd(c, s->table + 4 + 16ull * i, b, 16)) return false;
    for (int k = 0; k < 4; k++) rec[k] = hcp_get32(b + 4 * k);
    return true;
}

static int csh_step(hcp_ctx *c, hcp_run *r, uint64_t result, bool first) {
    csh_run *s = r->data;
    uint64_t pc = s->f.control_pc, base = s->f.image_base;
    if (first) { /* EXCEPTION_POINTERS for the filters, in the run's area */
        s->ptrs = r->area;
        if (!hcp_wrp(c, s->ptrs, s->rec) || !hcp_wrp(c, s->ptrs + 8, s->ctx)) return HCP_STEP_STOP;
    } else if (!s->unwinding) { /* a filter answered */
        int32_t res = (int32_t)(uint32_t)result;
        if (res == EXCEPTION_CONTINUE_EXECUTION) {
            r->resume.gpr[HCP_AX] = ExceptionContinueExecution;
            return HCP_STEP_DONE;
        }
        if (res == EXCEPTION_EXECUTE_HANDLER) goto unwind;
        s->i++;
    }
    for (; s->i < s->count; s->i++) {
        uint32_t sr[4]; /* BeginAddress, EndAddress, HandlerAddress, JumpTarget */
        if (!scope(c, s, s->i, sr)) return HCP_STEP_STOP;
        if (pc < base + sr[0] || pc >= base + sr[1]) continue;
        if (s->unwinding) { /* __finally blocks up to the target's scope */
            if (sr[3]) continue;
            if ((s->flags & EXCEPTION_TARGET_UNWIND) && s->f.establisher == s->frame) {
                uint8_t tb[8];
                if (!hcp_rd(c, s->disp + 0x20, tb, 8)) return HCP_STEP_STOP;
                uint64_t target = hcp_get64(tb);
                if (target >= base + sr[0] && target < base + sr[1]) break;
            }
            if (!hcp_wr32(c, s->disp + 0x48, s->i + 1)) return HCP_STEP_STOP; /* ScopeIndex */
            r->fn = base + sr[2];
            r->a[0] = 1; /* AbnormalTermination */
            r->a[1] = s->frame;
            s->i++;
            return HCP_STEP_CALL;
        }
        if (!sr[3]) continue;
        if (sr[2] == EXCEPTION_EXECUTE_HANDLER) goto unwind;
        r->fn = base + sr[2]; /* the filter: (EXCEPTION_POINTERS *, EstablisherFrame) */
        r->a[0] = s->ptrs;
        r->a[1] = s->frame;
        return HCP_STEP_CALL;
    }
    r->resume.gpr[HCP_AX] = ExceptionContinueSearch;
    return HCP_STEP_DONE;
unwind : {
    uint32_t sr[4];
    if (!scope(c, s, s->i, sr)) return HCP_STEP_STOP;
    /* RtlUnwindEx(frame, JumpTarget, record, the exception code, the dispatcher's context, history):
     * Windows passes the code as the value rax holds at the target (Wine passes 0) */
    sim_context gate;
    if (sim_thread_context(c->t, &gate) != SIM_OK) return HCP_STEP_STOP;
    if (hcp_x64_start_unwind(c, &gate, &s->caller, s->frame, base + sr[3], s->rec, s->code, s->ctxrec, s->history) ==
        HCP_STEP_STOP)
        return HCP_STEP_STOP;
    return HCP_STEP_NEWRUN; /* the unwind's run goes on: this one is left behind */
}
}

uint64_t hcp_crt___C_specific_handler(hcp_ctx *c, const hcp_crt___C_specific_handler_args *a) {
    if (c->w != 8) return ExceptionContinueSearch;
    csh_run *s = calloc(1, sizeof *s);
    if (!s) return hcp_stop(c, "out of host memory");
    s->rec = a->ExceptionRecord;
    s->frame = a->EstablisherFrame;
    s->ctx = a->ContextRecord;
    s->disp = a->DispatcherContext;
    uint8_t b[0x50];
    hcp_excrec e;
    if (!hcp_rd(c, s->disp, b, sizeof b) || !hcp_excrec_read(c, s->rec, &e)) {
        free(s);
        return 0;
    }
    hcp_x64_read_disp(c, s->disp, &s->f, &s->ctxrec);
    s->history = hcp_get64(b + 0x40);
    s->table = s->f.handler_data;
    s->i = s->f.scope_index;
    s->code = e.code;
    s->flags = e.flags;
    s->unwinding = (e.flags & (EXCEPTION_UNWINDING | EXCEPTION_EXIT_UNWIND)) != 0;
    uint8_t cb[4];
    if (!hcp_rd(c, s->table, cb, 4)) {
        free(s);
        return 0;
    }
    s->count = hcp_get32(cb);
    sim_context gate;
    if (sim_thread_context(c->t, &gate) != SIM_OK || !hcp_x64_caller_context(c, &s->caller, 0)) {
        free(s);
        return hcp_stop(c, "no context");
    }
    hcp_run *r = hcp_run_new(HCP_RUN_CALL, csh_step, s, free);
    if (!r) return hcp_stop(c, "out of host memory");
    r->resume = gate;
    r->resume.gpr[HCP_AX] = ExceptionContinueSearch;
    if (hcp_run_start(c, r, &gate, gate.gpr[HCP_SP], 16) == HCP_STEP_DONE) return ExceptionContinueSearch;
    return 0; /* the run's context replaces the result */
}

/* ---- contexts and tables ---------------------------------------------------------------------- */

/* RtlCaptureContext(context): the caller's registers as they are after the call returns. */
uint64_t hcp_k32_RtlCaptureContext(hcp_ctx *c, const hcp_k32_RtlCaptureContext_args *a) {
    sim_context x;
    if (!hcp_x64_caller_context(c, &x, c->w == 4 ? 4u : 0u)) return 0;
    hcp_context_write(c, a->ContextRecord, &x);
    return 0;
}

/* RtlRestoreContext(context, record): the thread goes on from the context (a longjmp record's jump
 * buffer applied). */
uint64_t hcp_k32_RtlRestoreContext(hcp_ctx *c, const hcp_k32_RtlRestoreContext_args *a) {
    sim_context x;
    if (sim_thread_context(c->t, &x) != SIM_OK) return hcp_stop(c, "no context");
    if (!hcp_context_read(c, a->ContextRecord, &x) || !hcp_x64_restore_record(c, a->ExceptionRecord, &x)) return 0;
    sim_thread_set_context(c->t, &x);
    hcp_run_drop_below(hcp_process_thread(c->p, c->t), x.gpr[HCP_SP]);
    return 0;
}

uint64_t hcp_nt_NtContinue(hcp_ctx *c, const hcp_nt_NtContinue_args *a) {
    sim_context x;
    if (sim_thread_context(c->t, &x) != SIM_OK) return hcp_stop(c, "no context");
    if (!hcp_context_read(c, a->ContextRecord, &x)) return 0;
    sim_thread_set_context(c->t, &x);
    hcp_run_drop_below(hcp_process_thread(c->p, c->t), x.gpr[HCP_SP]);
    return 0;
}

uint64_t hcp_k32_RtlLookupFunctionEntry(hcp_ctx *c, const hcp_k32_RtlLookupFunctionEntry_args *a) {
    uint64_t base = 0, e = c->w == 8 ? hcp_x64_lookup(c, a->ControlPc, &base) : 0;
    if (a->ImageBase && !hcp_wrp(c, a->ImageBase, base)) return 0;
    return e;
}

uint64_t hcp_k32_RtlVirtualUnwind(hcp_ctx *c, const hcp_k32_RtlVirtualUnwind_args *a) {
    if (c->w != 8) return 0;
    sim_context x;
    memset(&x, 0, sizeof x);
    hcp_ctx_ptrs cp;
    memset(&cp, 0, sizeof cp);
    if (!hcp_context_read(c, a->ContextRecord, &x)) return 0;
    uint64_t data = 0, est = 0;
    uint64_t h = hcp_x64_virtual_unwind(c, a->HandlerType, a->ImageBase, a->ControlPc, a->FunctionEntry, &x, &data,
                                        &est, a->ContextPointers ? &cp : NULL);
    uint8_t b[0x4D0];
    if (!hcp_rd(c, a->ContextRecord, b, sizeof b)) return 0;
    for (int i = 0; i < 16; i++) hcp_put64(b + 0x78 + 8 * i, x.gpr[i]);
    hcp_put64(b + 0xF8, x.pc);
    for (int i = 0; i < 16; i++) memcpy(b + 0x1A0 + 16 * i, x.xmm[i], 16);
    if (!hcp_wr(c, a->ContextRecord, b, sizeof b)) return 0;
    if (a->HandlerData && !hcp_wr64(c, a->HandlerData, data)) return 0;
    if (a->EstablisherFrame && !hcp_wr64(c, a->EstablisherFrame, est)) return 0;
    if (a->ContextPointers) { /* KNONVOLATILE_CONTEXT_POINTERS: FloatingContext[16], IntegerContext[16] */
        for (int i = 0; i < 16; i++)
            if (!hcp_wr64(c, a->ContextPointers + 8ull * i, cp.xmm[i]) ||
                !hcp_wr64(c, a->ContextPointers + 128 + 8ull * i, cp.gpr[i]))
                return 0;
    }
    return h;
}

/* RtlPcToFileHeader(pc, *base): the base of the image holding pc (the program's or a DLL's). */
uint64_t hcp_k32_RtlPcToFileHeader(hcp_ctx *c, const hcp_k32_RtlPcToFileHeader_args *a) {
    const hcp_module *mod = hcp_module_at(c->p, a->PcValue);
    uint64_t base = mod ? mod->base : 0;
    if (!hcp_wrp(c, a->BaseOfImage, base)) return 0;
    return base;
}

uint64_t hcp_k32_RtlAddFunctionTable(hcp_ctx *c, const hcp_k32_RtlAddFunctionTable_args *a) {
    hcp_process *p = c->p;
    if (!p->seh64 && !(p->seh64 = calloc(1, sizeof *p->seh64))) return 0;
    struct hcp_seh64_state *s = p->seh64;
    if (s->n == s->cap) {
        int nc = s->cap ? 2 * s->cap : 8;
        fn_table *t = realloc(s->t, (size_t)nc * sizeof *t);
        if (!t) return 0;
        s->t = t;
        s->cap = nc;
    }
    s->t[s->n++] = (fn_table){a->FunctionTable, a->BaseAddress, a->EntryCount};
    return 1;
}

uint64_t hcp_k32_RtlDeleteFunctionTable(hcp_ctx *c, const hcp_k32_RtlDeleteFunctionTable_args *a) {
    struct hcp_seh64_state *s = c->p->seh64;
    for (int i = 0; s && i < s->n; i++)
        if (s->t[i].table == a->FunctionTable) {
            memmove(&s->t[i], &s->t[i + 1], (size_t)(s->n - i - 1) * sizeof *s->t);
            s->n--;
            return 1;
        }
    return 0;
}
