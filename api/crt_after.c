/* api/crt_after.c — after-call callbacks: a C runtime function that must run a program's
 * function (the invalid-parameter handler, a signal handler for raise and abort, the new handler,
 * the terminate handler) asks for it with hcp_crt_after; when the call returns, the dispatcher
 * (hcp_after_commit) replaces the caller's return address with the runtime's guest stub
 * (api/guest/crt_*.S `after`), which calls the function as the program's own user code, then
 * returns the call's result to the caller (or the callback's, or ends the process), leaving the
 * stack as the call left it (api/README.md "The C runtime": "Callbacks"). */
#include "api/crt_int.h"

bool hcp_crt_after(hcp_ctx *c, uint64_t fn, int nargs, const uint64_t *args) {
    hcp_crt_thread *t = hcp_crt_thread_of(c);
    if (!t || !fn || nargs > 5) return false;
    if (t->after_pending) return false; /* one per call: the first wins */
    t->after_pending = true;
    t->after_mode = CRT_AFTER_RETURN;
    t->after_fn = fn;
    t->after_nargs = nargs;
    for (int i = 0; i < 5; i++) t->after_args[i] = i < nargs ? args[i] : 0;
    c->after = true;
    return true;
}

/* How the stub ends: return the call's result (the default), the callback's, or end the process
 * with `code` (abort after its SIGABRT handler returned). */
void hcp_crt_after_mode(hcp_ctx *c, int mode, uint32_t code) {
    hcp_crt_thread *t = hcp_crt_thread_of(c);
    if (!t || !t->after_pending) return;
    t->after_mode = mode;
    t->after_code = code;
}

bool hcp_after_commit(hcp_ctx *c, uint64_t r) {
    hcp_crt_thread *t = hcp_crt_thread_of(c);
    uint64_t sp, ret;
    if (!t || !t->after_pending || !c->p || !c->p->d.stub_after || sim_gate_sp(c->t, &sp) != SIM_OK ||
        !hcp_rdp(c, sp, &ret)) {
        if (t) t->after_pending = false;
        if (!c->failed) hcp_stop(c, "cannot call the program's callback here (no process stub)");
        return false;
    }
    t->after_ret_addr = ret;
    t->after_result = r;
    return hcp_wrp(c, sp, c->p->d.stub_after);
}

/* The stub's first service: the callback, its arguments, the caller's return address and the
 * result, into the stub's frame (x64: block[0] the 5th argument, [1] the function, [2..5] the
 * first four, [6] the result, [9] the return address; x86: [0..4] the arguments, [5] the function,
 * [6..7] the result, [8] the mode, [9] the return address; words of the pointer size). */
uint64_t hcp_int_after_begin(hcp_ctx *c, const hcp_int_after_begin_args *a) {
    hcp_crt_thread *t = hcp_crt_thread_of(c);
    if (!t || !t->after_pending) return hcp_stop(c, "the callback stub ran with no callback pending");
    uint64_t b = a->block;
    if (c->w == 8) {
        hcp_wr64(c, b, t->after_args[4]);
        hcp_wr64(c, b + 8, t->after_fn);
        for (int i = 0; i < 4; i++) hcp_wr64(c, b + 16 + 8 * (unsigned)i, t->after_args[i]);
        hcp_wr64(c, b + 48, t->after_result);
        hcp_wr64(c, b + 56, (uint64_t)t->after_mode | (uint64_t)t->after_code << 8);
        hcp_wr64(c, b + 72, t->after_ret_addr);
    } else {
        for (int i = 0; i < 5; i++) hcp_wr32(c, b + 4 * (unsigned)i, (uint32_t)t->after_args[i]);
        hcp_wr32(c, b + 20, (uint32_t)t->after_fn);
        hcp_wr64(c, b + 24, t->after_result);
        hcp_wr32(c, b + 32, (uint32_t)t->after_mode | t->after_code << 8);
        hcp_wr32(c, b + 36, (uint32_t)t->after_ret_addr);
    }
    t->after_pending = false;
    return 0;
}

/* The stub's last service: the value the caller gets (the call's saved result, or the callback's
 * `cb`), or the end of the process. */
uint64_t hcp_int_after_end(hcp_ctx *c, const hcp_int_after_end_args *a) {
    uint64_t b = a->block, res = 0, mode = 0;
    if (c->w == 8) {
        uint8_t x[8];
        if (!hcp_rd(c, b + 48, x, 8)) return 0;
        res = hcp_get64(x);
        if (!hcp_rd(c, b + 56, x, 8)) return 0;
        mode = hcp_get64(x);
    } else {
        uint8_t x[8];
        if (!hcp_rd(c, b + 24, x, 8)) return 0;
        res = hcp_get64(x);
        if (!hcp_rd(c, b + 32, x, 4)) return 0;
        mode = hcp_get32(x);
    }
    switch ((int)(mode & 0xFF)) {
    case CRT_AFTER_RETURN_CALLBACK: return c->w == 8 ? a->cb : (uint32_t)a->cb;
    case CRT_AFTER_RETURN_NONZERO: return (uint32_t)a->cb != 0;
    case CRT_AFTER_EXIT: return hcp_crt_exit_after(c, (uint32_t)(mode >> 8));
    default: return res;
    }
}
