/* api/seh_x86.c — i386 frame-based exception handling (api/README.md "Exceptions").
 *
 * On x86 the frames that want exceptions register themselves: FS:[0], the TEB's
 * ExceptionList, heads a chain of EXCEPTION_REGISTRATION_RECORDs {Next,
 * Handler} on the stack, ended by 0xFFFFFFFF.  The dispatch calls each
 * record's handler(record, frame, context, dispatcher context) (cdecl) from
 * the head on; RtlUnwind(TargetFrame, TargetIp, record, ReturnValue) calls the
 * handlers of the records above the target with EXCEPTION_UNWINDING and
 * removes them from the chain, then returns to its caller with eax =
 * ReturnValue. */
#include <stdlib.h>

#include "api/exports_gen.h"
#include "api/seh_int.h"

#define CHAIN_END 0xFFFFFFFFu
#define MAX_RECORDS 100000

static bool teb_list(hcp_ctx *c, uint64_t *head) {
    hcp_pthread *th = hcp_process_thread(c->p, c->t);
    return th && hcp_rdp(c, th->teb, head);
}
static bool set_teb_list(hcp_ctx *c, uint64_t head) {
    hcp_pthread *th = hcp_process_thread(c->p, c->t);
    return th && hcp_wrp(c, th->teb, head);
}

/* A registration record on the thread's stack, 4-aligned (else the chain is broken). */
static bool valid_record(hcp_ctx *c, uint64_t reg) { return !(reg & 3) && hcp_seh_on_stack(c, reg + 8); }

static bool add_flags(hcp_ctx *c, uint64_t rec, uint32_t set, uint32_t clear) {
    uint8_t b[4];
    if (!hcp_rd(c, rec + 4, b, 4)) return false;
    return hcp_wr32(c, rec + 4, (hcp_get32(b) | set) & ~clear);
}

int hcp_x86_frames_step(hcp_ctx *c, hcp_run *r, hcp_dispatch *d, uint64_t result, bool first) {
    if (first) {
        if (!teb_list(c, &d->reg)) return HCP_STEP_STOP;
    } else {
        uint8_t fb[4];
        if (!hcp_rd(c, d->rec + 4, fb, 4)) return HCP_STEP_STOP;
        uint32_t flags = hcp_get32(fb);
        add_flags(c, d->rec, 0, ~EXCEPTION_NONCONTINUABLE);
        switch ((uint32_t)result) {
        case ExceptionContinueExecution:
            if (flags & EXCEPTION_NONCONTINUABLE) {
                hcp_excrec e;
                hcp_excrec_read(c, d->rec, &e);
                e.code = STATUS_NONCONTINUABLE_EXCEPTION;
                hcp_excrec_write(c, d->rec, &e);
                return FR_UNHANDLED;
            }
            return FR_CONTINUE;
        case ExceptionContinueSearch: break;
        case ExceptionNestedException: add_flags(c, d->rec, EXCEPTION_NESTED_CALL, 0); break;
        default: {
            hcp_excrec e;
            hcp_excrec_read(c, d->rec, &e);
            e.code = STATUS_INVALID_DISPOSITION;
            hcp_excrec_write(c, d->rec, &e);
            return FR_UNHANDLED;
        }
        }
        if (!hcp_rdp(c, d->reg, &d->reg)) return HCP_STEP_STOP; /* the next record */
    }
    if ((d->reg & 0xFFFFFFFFu) == CHAIN_END || !d->reg) return FR_UNHANDLED;
    if (!valid_record(c, d->reg)) {
        add_flags(c, d->rec, EXCEPTION_STACK_INVALID, 0);
        return FR_UNHANDLED;
    }
    uint64_t handler;
    if (!hcp_rdp(c, d->reg + 4, &handler) || !hcp_wrp(c, d->disp, d->reg)) return HCP_STEP_STOP;
    r->fn = handler;
    r->a[0] = d->rec;
    r->a[1] = d->reg;
    r->a[2] = d->ctx;
    r->a[3] = d->disp;
    return HCP_STEP_CALL;
}

/* ---- RtlUnwind ---------------------------------------------------------------------------------------- */

typedef struct unwind32 {
    uint64_t target, rec, retval, reg;
    int n;
} unwind32;

static int unwind32_step(hcp_ctx *c, hcp_run *r, uint64_t result, bool first) {
    unwind32 *u = r->data;
    if (first) {
        uint64_t area = r->area;
        if (!u->rec) { /* a record of its own: STATUS_UNWIND */
            u->rec = area;
            hcp_excrec e = {STATUS_UNWIND, 0, 0, r->resume.pc, 0, {0}};
            if (!hcp_excrec_write(c, u->rec, &e)) return HCP_STEP_STOP;
        }
        if (!add_flags(c, u->rec, EXCEPTION_UNWINDING | (u->target ? 0 : EXCEPTION_EXIT_UNWIND), 0) ||
            !hcp_context_write(c, area + 0x60, &r->resume) || !teb_list(c, &u->reg))
            return HCP_STEP_STOP;
    } else {
        if ((uint32_t)result != ExceptionContinueSearch && (uint32_t)result != ExceptionCollidedUnwind) {
            hcp_stop(c, "an unwind handler returned %u (STATUS_INVALID_DISPOSITION)", (unsigned)result);
            return HCP_STEP_STOP;
        }
        uint64_t next; /* the handler ran: its record leaves the chain */
        if (!hcp_rdp(c, u->reg, &next) || !set_teb_list(c, next)) return HCP_STEP_STOP;
        u->reg = next;
    }
    if (u->n++ < MAX_RECORDS && (u->reg & 0xFFFFFFFFu) != CHAIN_END && u->reg && u->reg != u->target) {
        if (u->target && u->reg > u->target) {
            hcp_stop(c, "unwinding past its target frame 0x%llX (STATUS_INVALID_UNWIND_TARGET)",
                     (unsigned long long)u->target);
            return HCP_STEP_STOP;
        }
        if (!valid_record(c, u->reg)) {
            hcp_stop(c, "the exception registration chain is broken at 0x%llX (STATUS_BAD_STACK)",
                     (unsigned long long)u->reg);
            return HCP_STEP_STOP;
        }
        uint64_t handler;
        if (!hcp_rdp(c, u->reg + 4, &handler) || !hcp_wrp(c, r->area + 0x58, u->reg)) return HCP_STEP_STOP;
        r->fn = handler;
        r->a[0] = u->rec;
        r->a[1] = u->reg;
        r->a[2] = r->area + 0x60;
        r->a[3] = r->area + 0x58;
        return HCP_STEP_CALL;
    }
    r->resume.gpr[HCP_AX] = u->retval; /* back in its caller, as a return from RtlUnwind */
    return HCP_STEP_DONE;
}

uint64_t hcp_x86_RtlUnwind(hcp_ctx *c, uint64_t frame, uint64_t target, uint64_t rec, uint64_t retval) {
    (void)target; /* Windows returns to RtlUnwind's caller, whatever TargetIp says */
    sim_context gate;
    if (sim_thread_context(c->t, &gate) != SIM_OK) return hcp_stop(c, "no context");
    uint64_t ret;
    if (!hcp_rdp(c, gate.gpr[HCP_SP], &ret)) return 0;
    sim_context back = gate; /* after the call: its return address and four arguments popped */
    back.pc = ret;
    back.gpr[HCP_SP] += 4 + 16;
    unwind32 *u = calloc(1, sizeof *u);
    if (!u) return hcp_stop(c, "out of host memory");
    u->target = frame;
    u->rec = rec;
    u->retval = retval;
    hcp_run *r = hcp_run_new(HCP_RUN_UNWIND, unwind32_step, u, free);
    if (!r) return hcp_stop(c, "out of host memory");
    r->resume = back;
    hcp_run_start(c, r, &back, gate.gpr[HCP_SP], 0x60 + 0x2CC + 0x20);
    return 0;
}
