/* misc.c — setjmp and longjmp out of nested frames, signal and raise (a handler runs and raise
 * returns), _beginthread and _beginthreadex (the threads run their routines; _endthreadex's code),
 * the invalid-parameter handler, the "C" locale and its code pages, the runtime's options
 * (crt_test.h).  With an argument it ends as that path ends: "abort" (msvcrt's message, status 3),
 * "sigabrt" (abort after a SIGABRT handler), "raise" (raise(SIGTERM) left at SIG_DFL: status 3),
 * "exit" (exit(7) after two atexit functions, last registered first). */
#include <locale.h>
#include <mbctype.h>
#include <process.h>
#include <setjmp.h>
#include <signal.h>

#include "crt_test.h"

/* the setjmp each build's setjmp() calls (mingw-w64's setjmp.h), and the one _setjmp names */
#if defined(_WIN64) && defined(_UCRT)
#define SETJMP "__intrinsic_setjmpex"
#define SETJMP_BY_NAME "__intrinsic_setjmpex"
#elif defined(_WIN64)
#define SETJMP "_setjmp"
#define SETJMP_BY_NAME "_setjmp"
#elif defined(_UCRT)
#define SETJMP "_setjmp3"
#define SETJMP_BY_NAME "__intrinsic_setjmp"
#else
#define SETJMP "_setjmp3"
#define SETJMP_BY_NAME "_setjmp"
#endif
/* msvcrt.dll lacks the invalid-parameter handler's setter and getter: mingw-w64's library has its
 * own, which msvcrt's functions do not call */
#define IPH UCRT_DLL
#if defined(_WIN64) && !defined(_UCRT)
int __cdecl __attribute__((__returns_twice__)) _setjmpex(jmp_buf, void *);
#endif
static jmp_buf jb2;

static jmp_buf jb;
static int depth;
static void __attribute__((noinline)) dive(int n) {
    volatile char pad[64];
    pad[0] = (char)n;
    depth = n + pad[0] - n;
    if (n == 5) longjmp(jb, n * 10);
    if (n < 100) dive(n + 1);
}
static volatile int caught;
#ifndef _UCRT
static int zero(void) { return 0; }
static int five(void) { return 5; }
static int never(void) { return 9; }
#endif
static void on_signal(int sig) { caught = sig; }
static void on_fpe(int sig, int code) { caught = sig * 1000 + code; }
static void on_abort(int sig) { printf(DLL "abort: the SIGABRT handler ran (%d)\n", sig); }
static void on_exit1(void) { printf(DLL "exit: atexit function 1\n"); }
static void on_exit2(void) { printf(DLL "exit: atexit function 2 (registered last, runs first)\n"); }

static HANDLE done_event;
static volatile long started;
static void __cdecl ending(void *arg) {
    started += (long)(intptr_t)arg;
    SetEvent(done_event);
    _endthread();
    started = -1000; /* never */
}
static void __cdecl plain(void *arg) {
    started += (long)(intptr_t)arg;
    SetEvent(done_event);
}
static unsigned __stdcall with_code(void *arg) { return (unsigned)(intptr_t)arg * 2; }
static unsigned __stdcall with_end(void *arg) {
    _endthreadex((unsigned)(intptr_t)arg + 1);
    return 0;
}

static int iph_calls;
static void __cdecl on_invalid(const wchar_t *e, const wchar_t *f, const wchar_t *file, unsigned line,
                               uintptr_t r) {
    iph_calls++;
    printf(DLL "_set_invalid_parameter_handler: the handler ran (arguments %d)\n",
           e == NULL && f == NULL && file == NULL && line == 0 && r == 0);
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "abort")) abort();
    if (argc > 1 && !strcmp(argv[1], "sigabrt")) {
        signal(SIGABRT, on_abort);
        abort();
    }
    if (argc > 1 && !strcmp(argv[1], "raise")) raise(SIGTERM);
    if (argc > 1 && !strcmp(argv[1], "exit")) {
        atexit(on_exit1);
        atexit(on_exit2);
        exit(7);
    }
    /* setjmp, longjmp */
    volatile int local = 1;
    int r = setjmp(jb);
    if (r == 0) {
        local = 2;
        dive(0);
        printf(DLL "longjmp: never here\n");
    }
    printf(DLL "longjmp: " DLL SETJMP ": returned %d after %d nested frames, a volatile local %d\n", r, depth, local);
    r = setjmp(jb);
    if (!r) longjmp(jb, 0);
    printf(DLL "longjmp: a value of 0 arrives as %d\n", r);
    r = _setjmp(jb2, NULL);
    if (!r) longjmp(jb2, 3);
    printf(DLL SETJMP_BY_NAME ": called by name, returned %d after longjmp\n", r);
#if defined(_WIN64) && !defined(_UCRT)
    r = _setjmpex(jb2, NULL);
    if (!r) longjmp(jb2, 4);
    printf(DLL "_setjmpex: returned %d after longjmp\n", r);
#else
    printf("_setjmpex: x86-64's msvcrt.dll only\n");
#endif
    /* signal, raise */
    void (*old)(int) = signal(SIGINT, on_signal);
    printf(DLL "signal: the first handler of SIGINT is SIG_DFL %d\n", old == SIG_DFL);
    caught = 0;
    r = raise(SIGINT);
    printf(DLL "raise: SIGINT %d, the handler got %d, and it is SIG_DFL again %d\n", r, caught,
           signal(SIGINT, SIG_IGN) == SIG_DFL);
    r = raise(SIGINT);
    printf(DLL "raise: SIGINT ignored %d\n", r);
    signal(SIGFPE, (void (*)(int))on_fpe);
    caught = 0;
    r = raise(SIGFPE);
    printf(DLL "raise: SIGFPE %d, handler got %d (signal x 1000 + _FPE_EXPLICITGEN)\n", r, caught);
    mark();
    old = signal(99, on_signal);
    printf(DLL "signal: 99 gives SIG_ERR %d, errno %d\n", old == SIG_ERR, err());
    /* threads */
    done_event = CreateEventA(NULL, FALSE, FALSE, NULL);
    uintptr_t h = _beginthread(plain, 0, (void *)5);
    WaitForSingleObject(done_event, INFINITE);
    printf(DLL "_beginthread: a handle %d, the routine ran with its argument %ld\n", h != (uintptr_t)-1, started);
    mark();
    h = _beginthread(NULL, 0, NULL);
    printf(DLL "_beginthread: NULL routine -1 %d, errno %d\n", h == (uintptr_t)-1, err());
    started = 0;
    h = _beginthread(ending, 0, (void *)6);
    WaitForSingleObject(done_event, INFINITE);
    WaitForSingleObject((HANDLE)h, 2000);
    Sleep(10);
    printf(DLL "_endthread: the routine ended at its call %ld\n", started);
    unsigned id = 0;
    HANDLE t = (HANDLE)_beginthreadex(NULL, 0, with_code, (void *)21, 0, &id);
    WaitForSingleObject(t, INFINITE);
    DWORD code = 0;
    GetExitCodeThread(t, &code);
    printf(DLL "_beginthreadex: id %d, exit code %lu (the routine's value)\n", id != 0, code);
    CloseHandle(t);
    t = (HANDLE)_beginthreadex(NULL, 0, with_end, (void *)8, CREATE_SUSPENDED, NULL);
    ResumeThread(t);
    WaitForSingleObject(t, INFINITE);
    GetExitCodeThread(t, &code);
    printf(DLL "_endthreadex: exit code %lu\n", code);
    CloseHandle(t);
    /* the invalid-parameter handler */
    _invalid_parameter_handler prev = _set_invalid_parameter_handler(on_invalid);
    int before = iph_calls;
    char b[8];
    mark();
    r = strcpy_s(b, 0, "x");
    printf(IPH "_set_invalid_parameter_handler: strcpy_s returned %d errno %d after %d handler call\n", r, err(),
           iph_calls - before);
    printf(IPH "_get_invalid_parameter_handler: the one set %d\n", _get_invalid_parameter_handler() == on_invalid);
    _set_invalid_parameter_handler(prev);
    /* locale */
    printf(DLL "setlocale: query %s; \"C\" %s; ", setlocale(LC_ALL, NULL), setlocale(LC_ALL, "C"));
    printf("LC_NUMERIC query %s\n", setlocale(LC_NUMERIC, NULL));
    struct lconv *lc = localeconv();
    printf(DLL "localeconv: decimal point \"%s\", thousands \"%s\", grouping \"%s\", currency \"%s\", frac %d\n",
           lc->decimal_point, lc->thousands_sep, lc->grouping, lc->currency_symbol, lc->frac_digits);
    wchar_t *ws = _wsetlocale(LC_ALL, NULL);
    printf(DLL "_wsetlocale: query %s\n", ws ? wshow(ws, wcslen(ws)) : "NULL");
    printf(DLL "___lc_codepage_func: %u; " DLL "___mb_cur_max_func: %d\n", ___lc_codepage_func(), ___mb_cur_max_func());
    printf(DLL "_getmbcp: %d\n", _getmbcp());
#ifndef _UCRT
    printf(DLL "___lc_handle_func: LC_CTYPE %lu\n",
           (unsigned long)CRT_FN(unsigned long *(*)(void), ___lc_handle_func)()[LC_CTYPE]);
#ifdef _WIN64 /* i386's msvcrt.dll only (Wine's msvcrt.spec: -arch=i386) */
    printf("i386 only: __p___mb_cur_max\n");
#else
    printf(DLL "__p___mb_cur_max: %d\n", *CRT_FN(int *(*)(void), __p___mb_cur_max)());
#endif
#endif
    printf(DLL "___lc_collate_cp_func: %d\n", CRT_FN(int (*)(void), ___lc_collate_cp_func)());
    r = _setmbcp(0);
    printf(DLL "_setmbcp: 0 gives %d, then _getmbcp %d; ", r, _getmbcp());
    r = _setmbcp(_MB_CP_ANSI);
    printf("_MB_CP_ANSI %d, then %d\n", r, _getmbcp());
    /* options */
#ifndef _UCRT
    unsigned of = _set_output_format(_TWO_DIGIT_EXPONENT);
    printf(DLL "_set_output_format: was %u; " DLL "_get_output_format: now %u: %e\n", of, _get_output_format(), 1.5);
    _set_output_format(of);
    printf(DLL "_set_output_format: back to three digits: %e\n", 1.5);
#endif
#ifdef _UCRT
    int pc = _set_printf_count_output(1);
    printf(DLL "_set_printf_count_output: was %d; " DLL "_get_printf_count_output: now %d\n", pc,
           _get_printf_count_output());
    unsigned ab = _set_abort_behavior(0, _WRITE_ABORT_MSG);
    unsigned ab2 = _set_abort_behavior(ab, _WRITE_ABORT_MSG);
    printf(DLL "_set_abort_behavior: the flags were %X, then %X\n", ab, ab2);
    _set_printf_count_output(pc);
#endif
    r = _set_error_mode(_REPORT_ERRMODE);
    printf(DLL "_set_error_mode: query %d\n", r);
    char *pgm = NULL;
    CRT_FN(errno_t(*)(char **), _get_pgmptr)(&pgm);
    printf(DLL "_get_pgmptr: ends in misc %d\n", pgm && strstr(pgm, "misc") != NULL);
#if defined(_WIN64) && !defined(_UCRT) /* i386's msvcrt.dll only (Wine's msvcrt.spec: -arch=i386) */
    printf("i386 only: __p__pgmptr\n");
#else
    char **pp = CRT_FN(char **(*)(void), __p__pgmptr)();
    printf(DLL "__p__pgmptr: the same %d\n", pp && *pp == pgm);
#endif
    void **xp = CRT_FN(void **(*)(void), __pxcptinfoptrs)();
    printf(DLL "__pxcptinfoptrs: a cell %d holding NULL %d\n", xp != NULL, xp && *xp == NULL);
#ifndef _UCRT
    CRT_FN(void (*)(const wchar_t *, const wchar_t *, const wchar_t *, unsigned, uintptr_t), _invalid_parameter)(
        NULL, NULL, NULL, 0, 0);
    printf(DLL "_invalid_parameter: returns when no handler is set\n");
    int (*ite)(int (**)(void), int (**)(void)) = CRT_FN(int (*)(int (**)(void), int (**)(void)), _initterm_e);
    int (*list[])(void) = {zero, NULL, zero};
    int (*list5[])(void) = {zero, five, never};
    printf(DLL "_initterm_e: all 0 %d; the first non-zero %d\n", ite(list, list + 3), ite(list5, list5 + 3));
#endif
    CRT_FN(void (*)(void), _c_exit)();
    printf(DLL "_c_exit: returned, the process goes on\n");
    printf("misc: done\n");
    return 0;
}
