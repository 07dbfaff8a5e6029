/* api/seh_x64.c — x64 table-based exception handling (api/README.md "Exceptions").
 *
 * The images' .pdata (RUNTIME_FUNCTION) and .xdata (UNWIND_INFO) as Microsoft's
 * x64 exception-handling documentation describes them: RtlLookupFunctionEntry,
 * RtlVirtualUnwind, the frame-based part of the dispatch (the language handler
 * of each frame, from the fault outwards), RtlUnwindEx (unwind handlers up to
 * the target frame, then the target's context), __C_specific_handler (the
 * scope tables of __try/__except/__finally), RtlCaptureContext,
 * RtlRestoreContext.  A frame the walk meets in hcpsim's own runner (a run of
 * api/runner.c) is crossed as Windows crosses its dispatcher's frames: a
 * dispatch's to the context of the exception it dispatches (a nested
 * exception), an unwind's as a collided unwind, a loader's to its caller. */
#include <stdio.h>
#include <stdlib.h>

#include "api/exports_gen.h"
#include "api/seh_int.h"

#define MAX_FRAMES 100000 /* a walk longer than this is a broken stack */

/* ---- dynamic function tables (RtlAddFunctionTable) ----------------------------------------------- */

void hcp_seh64_free(hcp_process *p) {
    if (!p->seh64) return;
    free(p->seh64->t);
    free(p->seh64);
    p->seh64 = NULL;
}

/* ---- lookup -------------------------------------------------------------------------------------- */

/* The RUNTIME_FUNCTION (12 bytes: BeginAddress, EndAddress, UnwindData) of n entries at `table`
 * that covers rva, binary search; 0 for none. */
static uint64_t search(hcp_ctx *c, uint64_t table, uint32_t n, uint64_t rva) {
    uint32_t lo = 0, hi = n;
    for (int k = 0; k < 64 && lo < hi; k++) {
        uint32_t mid = lo + (hi - lo) / 2;
        uint8_t e[12];
        if (sim_mem_read(c->m, table + 12ull * mid, e, 12) != SIM_OK) return 0;
        if (rva < hcp_get32(e))
            hi = mid;
        else if (rva >= hcp_get32(e + 4))
            lo = mid + 1;
        else
            return table + 12ull * mid;
    }
    return 0;
}

/* The function entry covering pc and its image's base; 0 for none (a leaf). */
uint64_t hcp_x64_lookup(hcp_ctx *c, uint64_t pc, uint64_t *base) {
    const hcp_module *mod = hcp_module_at(c->p, pc);
    *base = 0;
    if (mod && mod->pe.dir_rva[HCP_DIR_EXCEPTION]) {
        uint64_t e = search(c, mod->base + mod->pe.dir_rva[HCP_DIR_EXCEPTION], mod->pe.dir_size[HCP_DIR_EXCEPTION] / 12,
                            pc - mod->base);
        for (int k = 0; e && k < 8; k++) { /* UnwindData with bit 0 set: another entry's (an indirect entry) */
            uint8_t b[4];
            if (sim_mem_read(c->m, e + 8, b, 4) != SIM_OK) return 0;
            if (!(hcp_get32(b) & 1)) break;
            e = mod->base + (hcp_get32(b) & ~1u);
        }
        if (e) {
            *base = mod->base;
            return e;
        }
    }
    struct hcp_seh64_state *s = c->p->seh64;
    for (int i = 0; s && i < s->n; i++) {
        if (pc < s->t[i].base) continue;
        uint64_t e = search(c, s->t[i].table, s->t[i].count, pc - s->t[i].base);
        if (e) {
            *base = s->t[i].base;
            return e;
        }
    }
    return 0;
}

/* ---- RtlVirtualUnwind ---------------------------------------------------------------------------- */

enum {
    UWOP_PUSH_NONVOL = 0,
    UWOP_ALLOC_LARGE,
    UWOP_ALLOC_SMALL,
    UWOP_SET_FPREG,
    UWOP_SAVE_NONVOL,
    UWOP_SAVE_NONVOL_FAR,
    UWOP_EPILOG,
    UWOP_SPARE,
    UWOP_SAVE_XMM128,
    UWOP_SAVE_XMM128_FAR,
    UWOP_PUSH_MACHFRAME
};

static unsigned op_slots(unsigned op, unsigned info) {
    switch (op) {
    case UWOP_ALLOC_LARGE: return info ? 3 : 2;
    case UWOP_SAVE_NONVOL:
    case UWOP_SAVE_XMM128:
    case UWOP_EPILOG: return 2;
    case UWOP_SAVE_NONVOL_FAR:
    case UWOP_SAVE_XMM128_FAR:
    case UWOP_SPARE: return 3;
    default: return 1;
    }
}

static bool rd64(hcp_ctx *c, uint64_t at, uint64_t *v) {
    uint8_t b[8];
    if (sim_mem_read(c->m, at, b, 8) != SIM_OK) return false;
    *v = hcp_get64(b);
    return true;
}

static bool set_gpr(hcp_ctx *c, sim_context *x, hcp_ctx_ptrs *cp, unsigned reg, uint64_t at) {
    if (!rd64(c, at, &x->gpr[reg & 15])) return false;
    if (cp) cp->gpr[reg & 15] = at;
    return true;
}

/* The code at pc is an epilog (add rsp or lea rsp, pops, then ret or a jmp out of the function):
 * the unwind is running it, as Windows does. */
static bool epilog(hcp_ctx *c, uint64_t pc, uint64_t base, uint64_t entry, sim_context *x, hcp_ctx_ptrs *cp, bool run) {
    uint8_t b[64];
    uint8_t e[12];
    size_t n = 0;
    while (n < sizeof b && sim_mem_read(c->m, pc + n, b + n, 1) == SIM_OK) n++;
    if (sim_mem_read(c->m, entry, e, 12) != SIM_OK) return false;
    uint64_t begin = base + hcp_get32(e), end = base + hcp_get32(e + 4);
    size_t i = 0;
    sim_context t = *x;
    if (n >= 4 && (b[0] & 0xF8) == 0x48) { /* add rsp, imm / lea rsp, [reg + disp]: REX.W first */
        if (b[0] == 0x48 && b[1] == 0x83 && b[2] == 0xC4) {
            t.gpr[HCP_SP] += (uint64_t)(int8_t)b[3];
            i = 4;
        } else if (b[0] == 0x48 && b[1] == 0x81 && b[2] == 0xC4 && n >= 7) {
            t.gpr[HCP_SP] += (uint64_t)(int32_t)hcp_get32(b + 3);
            i = 7;
        } else if (b[1] == 0x8D && !(b[0] & 0x06) && ((b[2] >> 3) & 7) == 4 && (b[2] & 7) != 4) {
            unsigned reg = (b[2] & 7) + (b[0] & 1) * 8;
            if (b[2] >> 6 == 1) {
                t.gpr[HCP_SP] = t.gpr[reg] + (uint64_t)(int8_t)b[3];
                i = 4;
            } else if (b[2] >> 6 == 2 && n >= 7) {
                t.gpr[HCP_SP] = t.gpr[reg] + (uint64_t)(int32_t)hcp_get32(b + 3);
                i = 7;
            } else {
                return false;
            }
        } else {
            return false;
        }
    }
    for (int k = 0; k < 32 && i < n; k++) {
        unsigned rex = 0;
        if ((b[i] & 0xF0) == 0x40) rex = b[i++] & 0x0F;
        if (i >= n) return false;
        uint8_t op = b[i];
        if (op >= 0x58 && op <= 0x5F) { /* pop */
            if (run && !set_gpr(c, &t, cp, (op - 0x58u) + (rex & 1) * 8, t.gpr[HCP_SP])) return false;
            t.gpr[HCP_SP] += 8;
            i++;
            continue;
        }
        if (op == 0xC3 || (op == 0xF3 && i + 1 < n && b[i + 1] == 0xC3) || op == 0xC2) {
            if (run) {
                if (!rd64(c, t.gpr[HCP_SP], &t.pc)) return false;
                t.gpr[HCP_SP] += 8 + (op == 0xC2 && i + 2 < n ? hcp_get16(b + i + 1) : 0);
                *x = t;
            }
            return true;
        }
        if (op == 0xE9 || op == 0xEB) { /* a jmp: an epilog only when it leaves the function */
            uint64_t at = pc + i + (op == 0xE9 ? 5 : 2);
            at += op == 0xE9 ? (uint64_t)(int32_t)(i + 4 < n ? hcp_get32(b + i + 1) : 0) : (uint64_t)(int8_t)b[i + 1];
            if (at >= begin && at < end) return false;
            if (run) { /* a tail call: the return address is the caller's */
                if (!rd64(c, t.gpr[HCP_SP], &t.pc)) return false;
                t.gpr[HCP_SP] += 8;
                *x = t;
            }
            return true;
        }
        return false;
    }
    return false;
}

/* RtlVirtualUnwind: unwinds x by the function at `entry` (image `base`) executing at pc; the
 * handler of `type` (0 for none, or inside the prolog), its data and the establisher frame. */
uint64_t hcp_x64_virtual_unwind(hcp_ctx *c, uint32_t type, uint64_t base, uint64_t pc, uint64_t entry, sim_context *x,
                                uint64_t *data, uint64_t *establisher, hcp_ctx_ptrs *cp) {
    uint64_t frame = x->gpr[HCP_SP];
    *establisher = frame;
    *data = 0;
    bool mach = false;
    uint8_t info[4] = {0};
    uint64_t ui = 0;
    uint32_t prolog_off = 0xFFFFFFFFu;
    for (int chain = 0; chain < 32; chain++) {
        uint8_t e[12];
        if (sim_mem_read(c->m, entry, e, 12) != SIM_OK) return 0;
        ui = base + hcp_get32(e + 8);
        if (sim_mem_read(c->m, ui, info, 4) != SIM_OK) return 0;
        unsigned version = info[0] & 7, count = info[2], freg = info[3] & 15, foff = info[3] >> 4;
        if (version != 1 && version != 2) return 0;
        if (freg) frame = x->gpr[freg] - 16ull * foff;
        uint64_t begin = base + hcp_get32(e);
        if (chain == 0) {
            if (pc >= begin && pc < begin + info[1])
                prolog_off = (uint32_t)(pc - begin);
            else if (count && epilog(c, pc, base, entry, x, cp, false)) {
                epilog(c, pc, base, entry, x, cp, true);
                *establisher = frame;
                return 0;
            }
        }
        uint8_t codes[512];
        if (count && sim_mem_read(c->m, ui + 4, codes, 2u * count) != SIM_OK) return 0;
        for (unsigned i = 0; i < count; i += op_slots(codes[2 * i + 1] & 15, codes[2 * i + 1] >> 4)) {
            unsigned off = codes[2 * i], op = codes[2 * i + 1] & 15, in = codes[2 * i + 1] >> 4;
            if (chain == 0 && prolog_off < off) continue; /* not yet done by the prolog */
            uint64_t sp = x->gpr[HCP_SP];
            switch (op) {
            case UWOP_PUSH_NONVOL:
                if (!set_gpr(c, x, cp, in, sp)) return 0;
                x->gpr[HCP_SP] += 8;
                break;
            case UWOP_ALLOC_LARGE:
                if (i + (in ? 2 : 1) >= count) return 0;
                x->gpr[HCP_SP] += in ? hcp_get32(codes + 2 * (i + 1)) : 8u * hcp_get16(codes + 2 * (i + 1));
                break;
            case UWOP_ALLOC_SMALL: x->gpr[HCP_SP] += 8ull * in + 8; break;
            case UWOP_SET_FPREG: x->gpr[HCP_SP] = *establisher = frame; break;
            case UWOP_SAVE_NONVOL:
            case UWOP_SAVE_NONVOL_FAR: {
                if (i + (op == UWOP_SAVE_NONVOL ? 1 : 2) >= count) return 0;
                uint64_t at = frame + (op == UWOP_SAVE_NONVOL ? 8ull * hcp_get16(codes + 2 * (i + 1))
                                                              : hcp_get32(codes + 2 * (i + 1)));
                if (!set_gpr(c, x, cp, in, at)) return 0;
                break;
            }
            case UWOP_SAVE_XMM128:
            case UWOP_SAVE_XMM128_FAR: {
                if (i + (op == UWOP_SAVE_XMM128 ? 1 : 2) >= count) return 0;
                uint64_t at = frame + (op == UWOP_SAVE_XMM128 ? 16ull * hcp_get16(codes + 2 * (i + 1))
                                                              : hcp_get32(codes + 2 * (i + 1)));
                if (sim_mem_read(c->m, at, x->xmm[in], 16) != SIM_OK) return 0;
                if (cp) cp->xmm[in] = at;
                break;
            }
            case UWOP_PUSH_MACHFRAME:
                if (in) x->gpr[HCP_SP] += 8; /* an error code */
                if (!rd64(c, x->gpr[HCP_SP], &x->pc) || !rd64(c, x->gpr[HCP_SP] + 24, &x->gpr[HCP_SP])) return 0;
                mach = true;
                break;
            default: break; /* UWOP_EPILOG (version 2): nothing to do */
            }
        }
        if (!(info[0] >> 3 & UNW_FLAG_CHAININFO)) break;
        entry = ui + 4 + 2ull * ((count + 1u) & ~1u); /* the chained RUNTIME_FUNCTION */
    }
    if (!mach) {
        if (!rd64(c, x->gpr[HCP_SP], &x->pc)) return 0;
        x->gpr[HCP_SP] += 8;
    }
    unsigned flags = info[0] >> 3, count = info[2];
    if (!(flags & type) || prolog_off != 0xFFFFFFFFu) return 0;
    uint64_t h = ui + 4 + 2ull * ((count + 1u) & ~1u);
    uint8_t hb[4];
    if (sim_mem_read(c->m, h, hb, 4) != SIM_OK) return 0;
    *data = h + 4;
    return base + hcp_get32(hb);
}

/* ---- the walk ------------------------------------------------------------------------------------- */

typedef struct unwind_run {
    uint64_t end_frame, target, retval, rec, ctxrec, disp, history;
    bool exit_unwind;
    sim_context context, next; /* the frame being unwound (before), its caller (after) */
    hcp_frame frame;
    bool frame_ready;
    int frames;
    int stage; /* 0 unwinding, 1 the consolidate callback called */
} unwind_run;

static bool on_stack(hcp_ctx *c, uint64_t sp) { return hcp_seh_on_stack(c, sp); }

bool hcp_x64_walk(hcp_ctx *c, uint32_t type, sim_context *ctx, hcp_frame *f) {
    hcp_process *p = c->p;
    uint64_t pc = ctx->pc;
    memset(f, 0, sizeof *f);
    f->control_pc = pc;
    if (!pc || !on_stack(c, ctx->gpr[HCP_SP])) return false;
    if (pc == p->d.runner_ret) { /* a frame of hcpsim's runner */
        hcp_run *r = hcp_run_at(p, c->t, ctx->gpr[HCP_SP]);
        if (!r) return false;
        f->establisher = r->block;
        if (r->kind == HCP_RUN_DISPATCH) { /* on at the exception's context: a nested exception */
            const hcp_dispatch *d = r->data;
            sim_context x = *ctx;
            if (!hcp_context_read(c, d->ctx, &x)) return false;
            *ctx = x;
            f->from_run = 1;
            return true;
        }
        if (r->kind == HCP_RUN_UNWIND) return hcp_x64_collided(c, r, ctx, f);
        *ctx = r->resume; /* a loader's or a filter's: on at its caller's */
        f->from_run = 3;
        return true;
    }
    if ((p->d.stubs && pc - p->d.stubs < 0x1000) || (p->d.runner_page && pc - p->d.runner_page < 0x1000))
        return false; /* hcpsim's own guest code has no unwind data: the walk ends there */
    uint64_t base, entry = hcp_x64_lookup(c, pc, &base);
    if (!entry) { /* a leaf: its return address on top of the stack */
        f->establisher = ctx->gpr[HCP_SP];
        if (!rd64(c, ctx->gpr[HCP_SP], &ctx->pc)) return false;
        ctx->gpr[HCP_SP] += 8;
        return true;
    }
    f->image_base = base;
    f->function_entry = entry;
    f->handler = hcp_x64_virtual_unwind(c, type, base, pc, entry, ctx, &f->handler_data, &f->establisher, NULL);
    return true;
}

bool hcp_x64_collided(hcp_ctx *c, hcp_run *r, sim_context *ctx, hcp_frame *f) {
    const unwind_run *u = r->data;
    *f = u->frame;
    f->from_run = 2;
    sim_context x = u->context; /* the frame that unwind was unwinding: its own context, unwound */
    uint64_t data, est;
    if (f->function_entry)
        hcp_x64_virtual_unwind(c, UNW_FLAG_NHANDLER, f->image_base, f->control_pc, f->function_entry, &x, &data, &est,
                               NULL);
    else if (!rd64(c, x.gpr[HCP_SP], &x.pc))
        return false;
    else
        x.gpr[HCP_SP] += 8;
    *ctx = x;
    return true;
}

static bool write_disp(hcp_ctx *c, uint64_t at, const hcp_frame *f, uint64_t target, uint64_t ctxrec,
                       uint64_t history) {
    uint8_t b[0x50];
    memset(b, 0, sizeof b);
    hcp_put64(b, f->control_pc);
    hcp_put64(b + 0x08, f->image_base);
    hcp_put64(b + 0x10, f->function_entry);
    hcp_put64(b + 0x18, f->establisher);
    hcp_put64(b + 0x20, target);
    hcp_put64(b + 0x28, ctxrec);
    hcp_put64(b + 0x30, f->handler);
    hcp_put64(b + 0x38, f->handler_data);
    hcp_put64(b + 0x40, history);
    hcp_put32(b + 0x48, f->scope_index);
    return hcp_wr(c, at, b, sizeof b);
}

bool hcp_x64_read_disp(hcp_ctx *c, uint64_t at, hcp_frame *f, uint64_t *ctxrec) {
    uint8_t b[0x50];
    if (!hcp_rd(c, at, b, sizeof b)) return false;
    f->control_pc = hcp_get64(b);
    f->image_base = hcp_get64(b + 0x08);
    f->function_entry = hcp_get64(b + 0x10);
    f->establisher = hcp_get64(b + 0x18);
    *ctxrec = hcp_get64(b + 0x28);
    f->handler = hcp_get64(b + 0x30);
    f->handler_data = hcp_get64(b + 0x38);
    f->scope_index = hcp_get32(b + 0x48);
    return true;
}

static bool rec_flags(hcp_ctx *c, uint64_t rec, uint32_t set, uint32_t clear) {
    uint8_t b[4];
    if (!hcp_rd(c, rec + 4, b, 4)) return false;
    return hcp_wr32(c, rec + 4, (hcp_get32(b) | set) & ~clear);
}

static bool valid_frame(hcp_ctx *c, uint64_t est) { return !(est & 7) && on_stack(c, est); }

/* ---- the frame-based part of a dispatch -------------------------------------------------------- */

int hcp_x64_frames_step(hcp_ctx *c, hcp_run *r, hcp_dispatch *d, uint64_t result, bool first) {
    bool collided = false;          /* d->frame is a collided unwind's frame: its handler next, no walk */
    if (!first && d->frame_ready) { /* the frame's handler answered */
        d->frame_ready = false;
        uint8_t fb[4];
        if (!hcp_rd(c, d->rec + 4, fb, 4)) return HCP_STEP_STOP;
        uint32_t flags = hcp_get32(fb);
        rec_flags(c, d->rec, 0, ~EXCEPTION_NONCONTINUABLE); /* only that flag stays */
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
        case ExceptionContinueSearch:
        case ExceptionNestedException: break;
        case ExceptionCollidedUnwind: { /* the handler gave a dispatcher context to go on from */
            uint64_t ctxrec;
            hcp_frame f;
            if (!hcp_x64_read_disp(c, d->disp, &f, &ctxrec)) return HCP_STEP_STOP;
            sim_context x = d->walk;
            if (!hcp_context_read(c, ctxrec, &x)) return HCP_STEP_STOP;
            uint64_t data, est;
            hcp_x64_virtual_unwind(c, UNW_FLAG_NHANDLER, f.image_base, f.control_pc, f.function_entry, &x, &data, &est,
                                   NULL);
            d->walk = x;
            d->frame = f;
            collided = true;
            break;
        }
        default: {
            hcp_excrec e;
            hcp_excrec_read(c, d->rec, &e);
            e.code = STATUS_INVALID_DISPOSITION;
            hcp_excrec_write(c, d->rec, &e);
            return FR_UNHANDLED;
        }
        }
    }
    for (int k = 0; k < MAX_FRAMES; k++) {
        if (!collided) {
            if (!hcp_x64_walk(c, UNW_FLAG_EHANDLER, &d->walk, &d->frame)) return FR_UNHANDLED;
            if (d->frame.from_run == 1 && !rec_flags(c, d->rec, EXCEPTION_NESTED_CALL, 0)) return HCP_STEP_STOP;
        }
        collided = false;
        if (d->frame.from_run != 3 && !valid_frame(c, d->frame.establisher)) {
            rec_flags(c, d->rec, EXCEPTION_STACK_INVALID, 0);
            return FR_UNHANDLED;
        }
        if (d->frame.handler) { /* handler(record, frame, context, dispatcher context) */
            if (!hcp_context_write(c, d->ctx1, &d->walk) || !write_disp(c, d->disp, &d->frame, 0, d->ctx1, 0))
                return HCP_STEP_STOP;
            r->fn = d->frame.handler;
            r->a[0] = d->rec;
            r->a[1] = d->frame.establisher;
            r->a[2] = d->ctx;
            r->a[3] = d->disp;
            d->frame_ready = true;
            return HCP_STEP_CALL;
        }
    }
    return FR_UNHANDLED;
}

/* ---- RtlUnwindEx ---------------------------------------------------------------------------------- */

/* Restores `x` for a record: STATUS_LONGJUMP takes the registers of the jump buffer
 * (_JUMP_BUFFER: Frame, Rbx, Rsp, Rbp, Rsi, Rdi, R12-R15, Rip, MxCsr, FpCsr, Spare, Xmm6-15). */
bool hcp_x64_restore_record(hcp_ctx *c, uint64_t rec, sim_context *x) {
    hcp_excrec e;
    if (!rec || !hcp_excrec_read(c, rec, &e) || e.code != STATUS_LONGJUMP || e.nparams < 1) return true;
    uint8_t j[0x100];
    if (!hcp_rd(c, e.info[0], j, sizeof j)) return false;
    static const int regs[] = {HCP_BX, HCP_SP, HCP_BP, HCP_SI, HCP_DI, 12, 13, 14, 15};
    for (int i = 0; i < 9; i++) x->gpr[regs[i]] = hcp_get64(j + 8 + 8 * i);
    x->pc = hcp_get64(j + 0x50);
    x->mxcsr = hcp_get32(j + 0x58);
    x->fpcw = hcp_get16(j + 0x5C);
    for (int i = 0; i < 10; i++) memcpy(x->xmm[6 + i], j + 0x60 + 16 * i, 16);
    return true;
}

static int unwind_step(hcp_ctx *c, hcp_run *r, uint64_t result, bool first) {
    unwind_run *u = r->data;
    bool collided = false; /* u->frame is a collided unwind's frame: its handler next, no walk */
    if (first) {
        uint64_t area = r->area;
        u->disp = area;
        if (!u->ctxrec) u->ctxrec = (area + 0x60 + 15) & ~(uint64_t)15;
        if (!u->rec) { /* a record of its own: STATUS_UNWIND */
            u->rec = (u->ctxrec == ((area + 0x60 + 15) & ~(uint64_t)15) ? u->ctxrec + 0x4D0 : area + 0x60);
            hcp_excrec e = {STATUS_UNWIND, 0, 0, u->context.pc, 0, {0}};
            if (!hcp_excrec_write(c, u->rec, &e)) return HCP_STEP_STOP;
        }
        if (!rec_flags(c, u->rec, EXCEPTION_UNWINDING | (u->end_frame ? 0 : EXCEPTION_EXIT_UNWIND), 0))
            return HCP_STEP_STOP;
        u->next = u->context;
    } else if (u->stage == 1) { /* the consolidate callback gave the address to go on at */
        u->context.pc = result;
        r->resume = u->context;
        return HCP_STEP_DONE;
    } else if (u->frame_ready) { /* an unwind handler answered */
        u->frame_ready = false;
        if (!hcp_context_read(c, u->ctxrec, &u->context)) return HCP_STEP_STOP; /* as the handler left it */
        if ((uint32_t)result == ExceptionCollidedUnwind) {
            uint64_t ctxrec;
            if (!hcp_x64_read_disp(c, u->disp, &u->frame, &ctxrec)) return HCP_STEP_STOP;
            sim_context x = u->context;
            if (ctxrec != u->ctxrec && !hcp_context_read(c, ctxrec, &x)) return HCP_STEP_STOP;
            u->context = x;
            uint64_t data, est;
            hcp_x64_virtual_unwind(c, UNW_FLAG_NHANDLER, u->frame.image_base, u->frame.control_pc,
                                   u->frame.function_entry, &x, &data, &est, NULL);
            u->next = x;
            rec_flags(c, u->rec, EXCEPTION_COLLIDED_UNWIND, 0);
            collided = true;
        } else {
            if ((uint32_t)result != ExceptionContinueSearch) {
                hcp_stop(c, "an unwind handler returned %u (STATUS_INVALID_DISPOSITION)", (unsigned)result);
                return HCP_STEP_STOP;
            }
            rec_flags(c, u->rec, 0, EXCEPTION_COLLIDED_UNWIND);
            if (u->frame.establisher == u->end_frame) goto done;
            u->context = u->next;
        }
    }
    for (; u->frames < MAX_FRAMES; u->frames++) {
        if (!collided) {
            sim_context before = u->next;
            if (!hcp_x64_walk(c, UNW_FLAG_UHANDLER, &u->next, &u->frame)) break;
            u->context = before;
            if (u->frame.from_run == 2) { /* a collided unwind: that unwind's frame, its handler again */
                const unwind_run *o = hcp_run_at(c->p, c->t, before.gpr[HCP_SP])->data;
                u->context = o->context;
                rec_flags(c, u->rec, EXCEPTION_COLLIDED_UNWIND, 0);
            }
        }
        collided = false;
        if (u->frame.from_run != 3 && u->frame.from_run != 1 && !valid_frame(c, u->frame.establisher)) {
            rec_flags(c, u->rec, EXCEPTION_STACK_INVALID, 0);
            break;
        }
        if (u->frame.handler) {
            if (u->end_frame && u->frame.establisher > u->end_frame) {
                hcp_stop(c, "unwinding past its target frame 0x%llX (STATUS_INVALID_UNWIND_TARGET)",
                         (unsigned long long)u->end_frame);
                return HCP_STEP_STOP;
            }
            if (u->frame.establisher == u->end_frame) rec_flags(c, u->rec, EXCEPTION_TARGET_UNWIND, 0);
            if (!hcp_context_write(c, u->ctxrec, &u->context) ||
                !write_disp(c, u->disp, &u->frame, u->target, u->ctxrec, u->history))
                return HCP_STEP_STOP;
            r->fn = u->frame.handler;
            r->a[0] = u->rec;
            r->a[1] = u->frame.establisher;
            r->a[2] = u->ctxrec;
            r->a[3] = u->disp;
            u->frame_ready = true;
            return HCP_STEP_CALL;
        }
        if (u->frame.establisher == u->end_frame) break;
        u->context = u->next;
    }
done:
    u->context.gpr[HCP_AX] = u->retval;
    u->context.pc = u->target;
    hcp_excrec e;
    if (hcp_excrec_read(c, u->rec, &e) && e.code == STATUS_UNWIND_CONSOLIDATE && e.nparams >= 1) {
        u->stage = 1; /* the callback (a catch block's funclet) gives the address to go on at */
        r->fn = e.info[0];
        r->a[0] = u->rec;
        r->a[1] = r->a[2] = r->a[3] = 0;
        return HCP_STEP_CALL;
    }
    if (!hcp_x64_restore_record(c, u->rec, &u->context)) return HCP_STEP_STOP;
    r->resume = u->context;
    return HCP_STEP_DONE;
}

/* Starts an unwind of c's thread, walking from `from` (the caller's context). */
int hcp_x64_start_unwind(hcp_ctx *c, const sim_context *gate, const sim_context *from, uint64_t end_frame,
                         uint64_t target, uint64_t rec, uint64_t retval, uint64_t ctxrec, uint64_t history) {
    unwind_run *u = calloc(1, sizeof *u);
    if (!u) {
        hcp_stop(c, "out of host memory");
        return HCP_STEP_STOP;
    }
    u->end_frame = end_frame;
    u->target = target;
    u->rec = rec;
    u->retval = retval;
    u->ctxrec = ctxrec;
    u->history = history;
    u->context = *from;
    hcp_run *r = hcp_run_new(HCP_RUN_UNWIND, unwind_step, u, free);
    if (!r) {
        hcp_stop(c, "out of host memory");
        return HCP_STEP_STOP;
    }
    return hcp_run_start(c, r, gate, gate->gpr[HCP_SP], 0x60 + 0x4D0 + 0xA0 + 0x40);
}

/* The context of the gate call's caller after it returns (x64: the return address popped). */
bool hcp_x64_caller_context(hcp_ctx *c, sim_context *x, unsigned pop) {
    if (sim_thread_context(c->t, x) != SIM_OK) return false;
    uint64_t ret;
    if (!hcp_rdp(c, x->gpr[HCP_SP], &ret)) return false;
    x->pc = ret;
    x->gpr[HCP_SP] += c->w + pop;
    return true;
}

uint64_t hcp_k32_RtlUnwindEx(hcp_ctx *c, const hcp_k32_RtlUnwindEx_args *a) {
    sim_context gate, from;
    if (sim_thread_context(c->t, &gate) != SIM_OK || !hcp_x64_caller_context(c, &from, 0))
        return hcp_stop(c, "no context");
    hcp_x64_start_unwind(c, &gate, &from, a->TargetFrame, a->TargetIp, a->ExceptionRecord, a->ReturnValue,
                         a->ContextRecord, a->HistoryTable);
    return 0;
}

uint64_t hcp_k32_RtlUnwind(hcp_ctx *c, const hcp_k32_RtlUnwind_args *a) {
    if (c->w == 4) return hcp_x86_RtlUnwind(c, a->TargetFrame, a->TargetIp, a->ExceptionRecord, a->ReturnValue);
    sim_context gate, from;
    if (sim_thread_context(c->t, &gate) != SIM_OK || !hcp_x64_caller_context(c, &from, 0))
        return hcp_stop(c, "no context");
    hcp_x64_start_unwind(c, &gate, &from, a->TargetFrame, a->TargetIp, a->ExceptionRecord, a->ReturnValue, 0, 0);
    return 0;
}
