/* api/crt_state.c — the C runtime's state: per process (invalid-parameter handler, signal
 * handlers, code page, options) and per thread (errno, rand, strtok, the buffers of gmtime and
 * asctime, a pending after-call callback, qsort's progress), and the rules every function uses:
 * errno and the invalid-parameter path (api/README.md "The C runtime"). */
#include <stdlib.h>

#include "api/crt_int.h"

#define CP_ANSI_DEFAULT 1252 /* _getmbcp after start-up: the ANSI code page (Windows-1252) */

hcp_crt *hcp_crt_of_process(hcp_process *p) {
    if (!p) return NULL;
    if (!p->crt) {
        p->crt = calloc(1, sizeof *p->crt);
        if (p->crt) {
            p->crt->mbcp = CP_ANSI_DEFAULT;
            p->crt->abort_behavior = 3; /* _WRITE_ABORT_MSG | _CALL_REPORTFAULT */
        }
    }
    return p->crt;
}
hcp_crt *hcp_crt_of(hcp_ctx *c) { return hcp_crt_of_process(c->p); }

void hcp_crt_state_free(hcp_process *p) {
    hcp_crt *r = p->crt;
    if (!r) return;
    for (int i = 0; i < r->nth; i++)
        for (int k = 0; k < CRT_MAX_SORTS; k++) free(r->th[i].sorts[k]);
    free(r->th);
    free(r);
    p->crt = NULL;
}

hcp_crt_thread *hcp_crt_thread_of(hcp_ctx *c) {
    hcp_crt *r = hcp_crt_of(c);
    if (!r || !c->t) return NULL;
    int i = sim_thread_index(c->t);
    if (i < 0) return NULL;
    if (i >= r->nth) {
        int nn = i + 8;
        hcp_crt_thread *n = realloc(r->th, (size_t)nn * sizeof *n);
        if (!n) return NULL;
        memset(n + r->nth, 0, (size_t)(nn - r->nth) * sizeof *n);
        r->th = n;
        r->nth = nn;
    }
    hcp_crt_thread *t = &r->th[i];
    if (!t->used) {
        t->used = true;
        t->rand_next = 1; /* srand(1) is the default seed */
        /* the main thread keeps the process block's errno cell; the others get theirs */
        hcp_pthread *pt = c->p->nthr ? &c->p->thr[0] : NULL;
        t->errno_at = pt && pt->t == c->t ? c->p->d.v_errno : hcp_heap_alloc(c, 8);
        if (t->errno_at && t->errno_at != c->p->d.v_errno) hcp_zero(c, t->errno_at, 8);
    }
    return t;
}

bool hcp_crt_is_ucrt(const hcp_ctx *c) { return c->ex && strcmp(c->ex->dll, "ucrtbase.dll") == 0; }

void hcp_crt_set_errno(hcp_ctx *c, uint32_t e) {
    hcp_crt_thread *t = hcp_crt_thread_of(c);
    uint64_t at = t && t->errno_at ? t->errno_at : c->p ? c->p->d.v_errno : 0;
    if (at) hcp_wr32(c, at, e);
}

uint32_t hcp_crt_get_errno(hcp_ctx *c) {
    hcp_crt_thread *t = hcp_crt_thread_of(c);
    uint64_t at = t && t->errno_at ? t->errno_at : c->p ? c->p->d.v_errno : 0;
    uint8_t b[4] = {0};
    if (at) hcp_rd(c, at, b, 4);
    return hcp_get32(b);
}

uint64_t hcp_crt_iph(hcp_ctx *c) {
    hcp_crt *r = hcp_crt_of(c);
    hcp_crt_thread *t = hcp_crt_thread_of(c);
    if (t && t->iph_local) return t->iph_local;
    return r ? r->iph : 0;
}

uint32_t hcp_crt_invalid(hcp_ctx *c, uint32_t e) {
    uint64_t h = hcp_crt_iph(c);
    hcp_crt_set_errno(c, e);
    if (h) {
        static const uint64_t zeros[5];
        hcp_crt_after(c, h, 5, zeros); /* handler(NULL, NULL, NULL, 0, 0), then the result */
    } else if (hcp_crt_is_ucrt(c)) {
        /* the UCRT's default handler: _invoke_watson, __fastfail(FAST_FAIL_INVALID_ARG) */
        hcp_stop(c, "an invalid parameter, and no handler: the UCRT's default handler ends the process "
                    "(__fastfail: STATUS_STACK_BUFFER_OVERRUN 0xC0000409)");
    }
    return e;
}
