/* api/crt_process.c — msvcrt's start-up, process end and locale: what
 * mingw-w64's C runtime start-up code asks of msvcrt.dll (api/README.md
 * "Windows programs"), and the atexit list the guest-code _cexit walks. */
#include <stdio.h>

#include "api/crt_int.h"

#define EXIT_ABORT 3           /* abort's exit code */
#define EXIT_RUNTIME_ERROR 255 /* _amsg_exit's */

/* (int *argc, char ***argv, char ***env, int glob, startinfo *) */
uint64_t hcp_crt___getmainargs(hcp_ctx *c, const hcp_crt___getmainargs_args *a) {
    hcp_wr32(c, a->_Argc, (uint32_t)c->p->argc);
    hcp_wrp(c, a->_Argv, c->p->d.argv);
    hcp_wrp(c, a->_Env, c->p->d.envp);
    return 0;
}
uint64_t hcp_crt___iob_func(hcp_ctx *c) { return c->p->d.iob; }
uint64_t hcp_crt__errno(hcp_ctx *c) { return c->p->d.v_errno; }
uint64_t hcp_crt___p__acmdln(hcp_ctx *c) { return c->p->d.v_acmdln; }
uint64_t hcp_crt___p__commode(hcp_ctx *c) { return c->p->d.v_commode; }
uint64_t hcp_crt___p__fmode(hcp_ctx *c) { return c->p->d.v_fmode; }
uint64_t hcp_crt____mb_cur_max_func(hcp_ctx *c) {
    (void)c;
    return 1; /* the "C" locale: single-byte characters */
}

/* ---- the atexit list: _onexit/atexit add, the guest-code _cexit takes them last first ---- */

uint64_t hcp_crt__onexit(hcp_ctx *c, const hcp_crt__onexit_args *a) {
    hcp_process *p = c->p;
    if (p->natexit >= HCP_MAX_ATEXIT) return 0;
    p->atexit_fn[p->natexit++] = a->_Func;
    return a->_Func;
}
uint64_t hcp_crt_atexit(hcp_ctx *c, const hcp_crt_atexit_args *a) {
    const hcp_crt__onexit_args o = {a->_Func};
    return hcp_crt__onexit(c, &o) ? 0 : (uint32_t)-1;
}
uint64_t hcp_int_onexit_next(hcp_ctx *c) {
    hcp_process *p = c->p;
    return p->natexit ? p->atexit_fn[--p->natexit] : 0;
}

/* ---- ends: _exit runs no atexit functions ---- */

uint64_t hcp_crt__exit(hcp_ctx *c, const hcp_crt__exit_args *a) { return hcp_end_process(c, (uint32_t)a->_Code); }
static const char abort_msg[] = "\nThis application has requested the Runtime to terminate it in an unusual way.\n"
                                "Please contact the application's support team for more information.\n";
uint64_t hcp_crt_abort(hcp_ctx *c) {
    hcp_emit(c, 2, abort_msg, sizeof abort_msg - 1);
    return hcp_end_process(c, EXIT_ABORT);
}
uint64_t hcp_crt_exit_after(hcp_ctx *c, uint32_t code) {
    hcp_emit(c, 2, abort_msg, sizeof abort_msg - 1);
    return hcp_end_process(c, code);
}
uint64_t hcp_crt__amsg_exit(hcp_ctx *c, const hcp_crt__amsg_exit_args *a) {
    char m[64];
    int n = snprintf(m, sizeof m, "\nruntime error R60%02u\n", (unsigned)a->_RetVal % 100);
    hcp_emit(c, 2, m, (size_t)n);
    return hcp_end_process(c, EXIT_RUNTIME_ERROR);
}

/* ---- locale and signals: the "C" locale only ---- */

uint64_t hcp_crt_localeconv(hcp_ctx *c) { return c->p->d.lconv; }
uint64_t hcp_crt_setlocale(hcp_ctx *c, const hcp_crt_setlocale_args *a) {
    (void)a;
    return c->p->d.clocale;
}
uint64_t hcp_crt_signal(hcp_ctx *c, const hcp_crt_signal_args *a) {
    (void)c;
    (void)a;
    return 0; /* SIG_DFL: no handler was installed before */
}
