/* api/crt_process.c — the C runtime's start-up, process end, signals, threads and locale: what
 * mingw-w64's start-up code asks of msvcrt.dll (api/README.md "Windows programs"), the atexit
 * list the guest-code _cexit walks, signal and raise (a handler runs as the program's code after
 * the call: crt_after.c), abort, _beginthread(ex) on CreateThread's threads, the "C" locale and
 * its code pages, and the runtime's options (api/README.md "The C runtime"). */
#include <stdio.h>
#include <stdlib.h>

#include "api/crt_int.h"

#define EXIT_ABORT 3           /* abort's exit code, and raise's for a signal left at SIG_DFL */
#define EXIT_RUNTIME_ERROR 255 /* _amsg_exit's */
#define STATUS_INVALID_CRUNTIME_PARAMETER 0xC0000417u
/* signals (signal.h) */
#define SIGINT 2
#define SIGILL 4
#define SIGABRT_COMPAT 6
#define SIGFPE 8
#define SIGSEGV 11
#define SIGTERM 15
#define SIGBREAK 21
#define SIGABRT 22
#define SIG_DFL 0
#define SIG_IGN 1
#define FPE_EXPLICITGEN 0x8C
/* locale categories, code pages */
#define LC_ALL 0
#define LC_MAX 5
#define MB_CP_SBCS 0
#define MB_CP_OEM (-2)
#define MB_CP_ANSI (-3)
#define MB_CP_LOCALE (-4)
#define CP_WINDOWS_1252 1252
#define CP_ASCII 20127

/* (int *argc, char ***argv, char ***env, int glob, startinfo *) */
uint64_t hcp_crt___getmainargs(hcp_ctx *c, const hcp_crt___getmainargs_args *a) {
    hcp_wr32(c, a->_Argc, (uint32_t)c->p->argc);
    hcp_wrp(c, a->_Argv, c->p->d.argv);
    hcp_wrp(c, a->_Env, c->p->d.envp);
    return 0;
}
uint64_t hcp_crt___iob_func(hcp_ctx *c) { return c->p->d.iob; }
/* _errno: the calling thread's errno cell (the main thread's is the process block's) */
uint64_t hcp_crt__errno(hcp_ctx *c) {
    hcp_crt_thread *t = hcp_crt_thread_of(c);
    return t && t->errno_at ? t->errno_at : c->p->d.v_errno;
}
uint64_t hcp_crt___p__acmdln(hcp_ctx *c) { return c->p->d.v_acmdln; }
uint64_t hcp_crt___p__commode(hcp_ctx *c) { return c->p->d.v_commode; }
uint64_t hcp_crt___p__fmode(hcp_ctx *c) { return c->p->d.v_fmode; }
uint64_t hcp_crt___p___mb_cur_max(hcp_ctx *c) { return c->p->d.v_mb_cur_max; }
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
    hcp_crt *r = p->crt;
    if (r && r->quick) return r->nquick ? r->onexit_quick[--r->nquick] : 0;
    return p->natexit ? p->atexit_fn[--p->natexit] : 0;
}

/* ---- ends: _exit runs no atexit functions ---- */

static const char abort_msg[] = "\nThis application has requested the Runtime to terminate it in an unusual way.\n"
                                "Please contact the application's support team for more information.\n";

uint64_t hcp_crt__exit(hcp_ctx *c, const hcp_crt__exit_args *a) { return hcp_end_process(c, (uint32_t)a->_Code); }

/* abort: msvcrt writes its message (the UCRT none), raises SIGABRT (a handler the program set runs
 * first: crt_after.c), then ends the process with status 3. */
uint64_t hcp_crt_abort(hcp_ctx *c) {
    hcp_crt *r = hcp_crt_of(c);
    if (!hcp_crt_is_ucrt(c)) hcp_emit(c, 2, abort_msg, sizeof abort_msg - 1);
    uint64_t h = r ? r->sig[SIGABRT] : SIG_DFL;
    if (h != SIG_DFL && h != SIG_IGN) {
        r->sig[SIGABRT] = SIG_DFL;
        const uint64_t arg = SIGABRT;
        if (hcp_crt_after(c, h, 1, &arg)) {
            hcp_crt_after_mode(c, CRT_AFTER_EXIT, EXIT_ABORT);
            return 0;
        }
    }
    return hcp_end_process(c, EXIT_ABORT);
}
uint64_t hcp_crt_exit_after(hcp_ctx *c, uint32_t code) { return hcp_end_process(c, code); }

uint64_t hcp_crt__amsg_exit(hcp_ctx *c, const hcp_crt__amsg_exit_args *a) {
    char m[64];
    int n = snprintf(m, sizeof m, "\nruntime error R60%02u\n", (unsigned)a->_RetVal % 100);
    hcp_emit(c, 2, m, (size_t)n);
    return hcp_end_process(c, EXIT_RUNTIME_ERROR);
}
/* _c_exit: nothing to run (no atexit functions), the process goes on */
uint64_t hcp_crt__c_exit(hcp_ctx *c) {
    (void)c;
    return 0;
}
/* quick_exit(code): the _crt_at_quick_exit functions, last registered first, not the atexit ones,
 * then the end: the runtime's `exit` guest code runs as the program's (after the call returns,
 * crt_after.c) with onexit_next handing out the quick functions */
uint64_t hcp_crt_quick_exit(hcp_ctx *c, const hcp_crt_quick_exit_args *a) {
    hcp_crt *r = hcp_crt_of(c);
    if (r && r->nquick && c->p->d.stub_exit) {
        r->quick = true;
        const uint64_t arg = (uint32_t)a->_Code;
        if (hcp_crt_after(c, c->p->d.stub_exit, 1, &arg)) {
            hcp_crt_after_mode(c, CRT_AFTER_EXIT, (uint32_t)a->_Code);
            return 0;
        }
    }
    return hcp_end_process(c, (uint32_t)a->_Code);
}
uint64_t hcp_crt__set_abort_behavior(hcp_ctx *c, const hcp_crt__set_abort_behavior_args *a) {
    hcp_crt *r = hcp_crt_of(c);
    if (!r) return 0;
    uint32_t old = r->abort_behavior;
    r->abort_behavior = (old & ~a->_Mask) | (a->_Flags & a->_Mask);
    return old;
}

/* ---- signals ---- */

static bool valid_signal(int32_t s, bool ucrt) {
    return s == SIGINT || s == SIGILL || s == SIGFPE || s == SIGSEGV || s == SIGTERM || s == SIGBREAK || s == SIGABRT ||
           (ucrt && s == SIGABRT_COMPAT);
}
/* signal(sig, handler): the previous handler (SIG_DFL at first); SIG_ERR (-1) and EINVAL for a signal
 * Windows does not have */
uint64_t hcp_crt_signal(hcp_ctx *c, const hcp_crt_signal_args *a) {
    hcp_crt *r = hcp_crt_of(c);
    int32_t s = a->_SigNum;
    uint64_t err = c->w == 8 ? UINT64_MAX : 0xFFFFFFFFu;
    if (!r) return err;
    if (a->_Func == err || !valid_signal(s, hcp_crt_is_ucrt(c))) {
        hcp_crt_invalid(c, CRT_EINVAL);
        return err;
    }
    if (s == SIGABRT_COMPAT) s = SIGABRT;
    uint64_t old = r->sig[s];
    r->sig[s] = a->_Func;
    return old;
}
/* raise(sig): SIG_DFL ends the process with status 3, SIG_IGN nothing, a handler goes back to
 * SIG_DFL and runs (SIGFPE's with _FPE_EXPLICITGEN) before raise returns 0 */
uint64_t hcp_crt_raise(hcp_ctx *c, const hcp_crt_raise_args *a) {
    hcp_crt *r = hcp_crt_of(c);
    int32_t s = a->_SigNum;
    if (!r || !valid_signal(s, hcp_crt_is_ucrt(c))) {
        hcp_crt_invalid(c, CRT_EINVAL);
        return (uint32_t)-1;
    }
    if (s == SIGABRT_COMPAT) s = SIGABRT;
    uint64_t h = r->sig[s];
    if (h == SIG_DFL) return hcp_end_process(c, EXIT_ABORT);
    if (h == SIG_IGN) return 0;
    r->sig[s] = SIG_DFL;
    const uint64_t args[2] = {(uint64_t)s, FPE_EXPLICITGEN};
    hcp_crt_after(c, h, s == SIGFPE ? 2 : 1, args);
    return 0;
}
/* __pxcptinfoptrs: the exception pointers of the signal being handled (none here) */
uint64_t hcp_crt___pxcptinfoptrs(hcp_ctx *c) {
    hcp_crt *r = hcp_crt_of(c);
    return r ? r->ad.xcptinfo : 0;
}

/* ---- threads: _beginthread(ex) on CreateThread ---- */

static uint64_t create(hcp_ctx *c, uint64_t stack, uint64_t start, uint64_t arg, uint32_t flags, uint64_t idp) {
    const hcp_k32_CreateThread_args ct = {0, stack, start, arg, flags, idp};
    return hcp_k32_CreateThread(c, &ct);
}
/* _beginthreadex(security, stack, start, arg, flags, &id): CreateThread's thread and handle; 0 and
 * EINVAL for a NULL start (an invalid parameter) */
uint64_t hcp_crt__beginthreadex(hcp_ctx *c, const hcp_crt__beginthreadex_args *a) {
    if (!a->_StartAddress) return hcp_crt_invalid(c, CRT_EINVAL), 0;
    uint64_t h = create(c, a->_StackSize, a->_StartAddress, a->_ArgList, a->_InitFlag, a->_ThrdAddr);
    if (!h && !c->failed) hcp_crt_set_errno(c, CRT_EAGAIN);
    return h;
}
/* _beginthread(start, stack, arg): a thread that runs start(arg) (cdecl) through the runtime's entry
 * code, which calls _endthread when it returns; the handle, which _endthread closes; -1 on failure */
uint64_t hcp_crt__beginthread(hcp_ctx *c, const hcp_crt__beginthread_args *a) {
    uint64_t fail = c->w == 8 ? UINT64_MAX : 0xFFFFFFFFu;
    hcp_crt *r = hcp_crt_of(c);
    if (!a->_StartAddress) return hcp_crt_invalid(c, CRT_EINVAL), fail;
    if (!r) return fail;
    uint64_t block = hcp_heap_alloc(c, 2 * c->w);
    if (!block) return hcp_crt_set_errno(c, CRT_ENOMEM), fail;
    hcp_wrp(c, block, a->_StartAddress);
    hcp_wrp(c, block + c->w, a->_ArgList);
    int before = c->p->nthr;
    uint64_t h = create(c, a->_StackSize, r->g.bt_entry, block, 0, 0);
    if (!h) {
        hcp_heap_free(c, block);
        if (!c->failed) hcp_crt_set_errno(c, CRT_EAGAIN);
        return fail;
    }
    if (c->p->nthr > before) { /* the new thread's record: its block and handle for _endthread */
        hcp_ctx tc = *c;
        tc.t = c->p->thr[c->p->nthr - 1].t;
        hcp_crt_thread *nt = hcp_crt_thread_of(&tc);
        if (nt) {
            nt->bt_block = block;
            nt->bt_handle = h;
        }
    }
    return h;
}
uint64_t hcp_crt__endthread(hcp_ctx *c) {
    hcp_crt_thread *t = hcp_crt_thread_of(c);
    if (t && t->bt_handle) {
        hcp_CloseHandle(c->os, t->bt_handle);
        hcp_heap_free(c, t->bt_block);
        t->bt_handle = t->bt_block = 0;
    }
    return hcp_end_thread(c, 0);
}
uint64_t hcp_crt__endthreadex(hcp_ctx *c, const hcp_crt__endthreadex_args *a) { return hcp_end_thread(c, a->_Retval); }

/* ---- the "C" locale ---- */

uint64_t hcp_crt_localeconv(hcp_ctx *c) { return c->p->d.lconv; }
/* setlocale: the "C" locale is the one hcpsim applies: a query, or "C", gives "C"; any other name
 * ("" for the user's locale included) is refused with NULL, and the locale stays "C" */
uint64_t hcp_crt_setlocale(hcp_ctx *c, const hcp_crt_setlocale_args *a) {
    if ((uint32_t)a->_Category > LC_MAX) {
        hcp_crt_invalid(c, CRT_EINVAL);
        return 0;
    }
    if (!a->_Locale) return c->p->d.clocale;
    char name[16];
    if (!hcp_gname(c, a->_Locale, false, name, sizeof name)) return 0;
    return strcmp(name, "C") == 0 ? c->p->d.clocale : 0;
}
/* _wsetlocale: the same, "C" in UTF-16 */
uint64_t hcp_crt__wsetlocale(hcp_ctx *c, const hcp_crt__wsetlocale_args *a) {
    hcp_crt *r = hcp_crt_of(c);
    if ((uint32_t)a->_Category > LC_MAX) {
        hcp_crt_invalid(c, CRT_EINVAL);
        return 0;
    }
    if (!r) return 0;
    if (!a->_Locale) return r->ad.wclocale;
    char name[16];
    if (!hcp_gname(c, a->_Locale, true, name, sizeof name)) return 0;
    return strcmp(name, "C") == 0 ? r->ad.wclocale : 0;
}
/* ___lc_codepage_func: the "C" locale's LC_CTYPE code page, 0 (as msvcrt's) */
uint64_t hcp_crt____lc_codepage_func(hcp_ctx *c) {
    (void)c;
    return 0;
}
uint64_t hcp_crt____lc_collate_cp_func(hcp_ctx *c) {
    (void)c;
    return 0;
}
/* ___lc_handle_func: the locale's LCIDs by category, all 0 in the "C" locale */
uint64_t hcp_crt____lc_handle_func(hcp_ctx *c) {
    hcp_crt *r = hcp_crt_of(c);
    return r ? r->ad.lc_handle : 0;
}
/* _getmbcp: the multibyte code page, the ANSI code page 1252 after start-up; _setmbcp accepts the
 * single-byte code pages hcpsim has (1252, and the symbolic _MB_CP_SBCS (US-ASCII, 20127), _MB_CP_ANSI
 * (1252), _MB_CP_LOCALE (the "C" locale's: 0)), others -1 and EINVAL */
uint64_t hcp_crt__getmbcp(hcp_ctx *c) {
    hcp_crt *r = hcp_crt_of(c);
    return r ? (uint32_t)r->mbcp : 0;
}
uint64_t hcp_crt__setmbcp(hcp_ctx *c, const hcp_crt__setmbcp_args *a) {
    hcp_crt *r = hcp_crt_of(c);
    int32_t cp = a->_CodePage;
    if (!r) return (uint32_t)-1;
    switch (cp) {
    case MB_CP_SBCS: r->mbcp = CP_ASCII; return 0; /* single-byte: US-ASCII, as Wine's msvcrt has it */
    case MB_CP_ANSI:
    case CP_WINDOWS_1252: r->mbcp = CP_WINDOWS_1252; return 0;
    case MB_CP_LOCALE: r->mbcp = 0; return 0; /* the "C" locale's code page */
    default: hcp_crt_set_errno(c, CRT_EINVAL); return (uint32_t)-1;
    }
}

/* ---- options ---- */

uint64_t hcp_crt__set_invalid_parameter_handler(hcp_ctx *c, const hcp_crt__set_invalid_parameter_handler_args *a) {
    hcp_crt *r = hcp_crt_of(c);
    if (!r) return 0;
    uint64_t old = r->iph;
    r->iph = a->_Handler;
    return old;
}
uint64_t hcp_crt__get_invalid_parameter_handler(hcp_ctx *c) {
    hcp_crt *r = hcp_crt_of(c);
    return r ? r->iph : 0;
}
/* the UCRT's thread-local handler: it comes before the process's (hcp_crt_iph) */
uint64_t hcp_ucrt__set_thread_local_invalid_parameter_handler(
    hcp_ctx *c, const hcp_ucrt__set_thread_local_invalid_parameter_handler_args *a) {
    hcp_crt_thread *t = hcp_crt_thread_of(c);
    if (!t) return 0;
    uint64_t old = t->iph_local;
    t->iph_local = a->_Handler;
    return old;
}
uint64_t hcp_ucrt__get_thread_local_invalid_parameter_handler(hcp_ctx *c) {
    hcp_crt_thread *t = hcp_crt_thread_of(c);
    return t ? t->iph_local : 0;
}
/* _invalid_parameter(expr, func, file, line, reserved): the handler, or the default */
uint64_t hcp_crt__invalid_parameter(hcp_ctx *c, const hcp_crt__invalid_parameter_args *a) {
    (void)a;
    uint64_t h = hcp_crt_iph(c);
    if (h) {
        const uint64_t args[5] = {a->_Expression, a->_Function, a->_File, a->_Line, a->_Reserved};
        hcp_crt_after(c, h, 5, args);
    } else if (hcp_crt_is_ucrt(c)) {
        hcp_crt_invalid(c, CRT_EINVAL);
    }
    return 0;
}
uint64_t hcp_crt__invalid_parameter_noinfo(hcp_ctx *c) {
    uint64_t h = hcp_crt_iph(c);
    if (h) {
        static const uint64_t zeros[5];
        hcp_crt_after(c, h, 5, zeros);
    } else if (hcp_crt_is_ucrt(c)) {
        hcp_crt_invalid(c, CRT_EINVAL);
    }
    return 0;
}
uint64_t hcp_crt__invalid_parameter_noinfo_noreturn(hcp_ctx *c) {
    uint64_t h = hcp_crt_iph(c);
    if (h) {
        static const uint64_t zeros[5];
        if (hcp_crt_after(c, h, 5, zeros)) {
            hcp_crt_after_mode(c, CRT_AFTER_EXIT, STATUS_INVALID_CRUNTIME_PARAMETER);
            return 0;
        }
    }
    if (hcp_crt_is_ucrt(c)) return hcp_crt_invalid(c, CRT_EINVAL);
    return hcp_end_process(c, STATUS_INVALID_CRUNTIME_PARAMETER);
}
uint64_t hcp_crt__set_printf_count_output(hcp_ctx *c, const hcp_crt__set_printf_count_output_args *a) {
    hcp_crt *r = hcp_crt_of(c);
    if (!r) return 0;
    bool old = r->count_output;
    r->count_output = a->_Value != 0;
    return old;
}
uint64_t hcp_crt__get_printf_count_output(hcp_ctx *c) {
    hcp_crt *r = hcp_crt_of(c);
    return r && r->count_output;
}
/* _set_output_format(_TWO_DIGIT_EXPONENT = 1 or 0): msvcrt's printf exponents; others are invalid */
uint64_t hcp_crt__set_output_format(hcp_ctx *c, const hcp_crt__set_output_format_args *a) {
    hcp_crt *r = hcp_crt_of(c);
    if (!r) return 0;
    uint32_t old = r->output_format;
    if (a->_Format != 0 && a->_Format != 1) {
        hcp_crt_invalid(c, CRT_EINVAL);
        return old;
    }
    r->output_format = a->_Format;
    return old;
}
uint64_t hcp_crt__get_output_format(hcp_ctx *c) {
    hcp_crt *r = hcp_crt_of(c);
    return r ? r->output_format : 0;
}
/* _set_error_mode(mode): the previous mode (0 _OUT_TO_DEFAULT); 3 (_REPORT_ERRMODE) queries */
uint64_t hcp_crt__set_error_mode(hcp_ctx *c, const hcp_crt__set_error_mode_args *a) {
    hcp_crt *r = hcp_crt_of(c);
    if (!r) return 0;
    int32_t old = r->error_mode, m = a->_Mode;
    if (m == 3) return (uint32_t)old;
    if (m < 0 || m > 2) {
        hcp_crt_invalid(c, CRT_EINVAL);
        return (uint32_t)-1;
    }
    r->error_mode = m;
    return (uint32_t)old;
}
/* _get_pgmptr, __p__pgmptr: the program's path */
uint64_t hcp_crt__get_pgmptr(hcp_ctx *c, const hcp_crt__get_pgmptr_args *a) {
    hcp_crt *r = hcp_crt_of(c);
    if (!a->_Value) return hcp_crt_invalid(c, CRT_EINVAL);
    uint64_t path = 0;
    hcp_rdp(c, c->p->d.argv, &path);
    if (r) hcp_wrp(c, a->_Value, path);
    return 0;
}
uint64_t hcp_crt___p__pgmptr(hcp_ctx *c) {
    hcp_crt *r = hcp_crt_of(c);
    if (!r) return 0;
    if (!r->ad.pgmptr) { /* a variable holding argv[0] */
        r->ad.pgmptr = hcp_heap_alloc(c, 8);
        uint64_t path = 0;
        hcp_rdp(c, c->p->d.argv, &path);
        if (r->ad.pgmptr) hcp_wrp(c, r->ad.pgmptr, path);
    }
    return r->ad.pgmptr;
}
