/* api/crt_int.h — what the C runtime's subject files share (api/crt_*.c only): errno values,
 * msvcrt's invalid-parameter rule, exact decimal conversions, the printf engine and the
 * character tables of the "C" locale (api/README.md "The C runtime"). */
#ifndef HCPSIM_API_CRT_INT_H
#define HCPSIM_API_CRT_INT_H

#include "api/exports_gen.h"

/* errno values (msvcrt's errno.h; the UCRT keeps them) */
#define CRT_EPERM 1
#define CRT_ENOENT 2
#define CRT_EBADF 9
#define CRT_ENOMEM 12
#define CRT_EACCES 13
#define CRT_EAGAIN 11
#define CRT_EINVAL 22
#define CRT_EMFILE 24
#define CRT_EDOM 33
#define CRT_ERANGE 34
#define CRT_EILSEQ 42
#define CRT_STRUNCATE 80
#define CRT_EOF ((uint32_t)-1)
#define CRT_INT_MAX 0x7FFFFFFF

/* ---- the runtime's state (crt_state.c) ---- */
#define CRT_MAX_SORTS 8 /* qsort/bsearch calls one thread has in progress (a comparator may sort) */
#define CRT_NSIG 23     /* signal numbers below this (SIGABRT_COMPAT 6 .. SIGABRT 22) */
struct crt_sort;
typedef struct hcp_crt_thread {
    bool used;
    uint64_t errno_at; /* the thread's errno and _doserrno cells (guest memory) */
    uint32_t rand_next;
    bool rand_seeded;
    uint64_t strtok_next, wcstok_next; /* strtok's and wcstok's place (guest pointers) */
    uint64_t tm_at, asctime_at;        /* gmtime/localtime's struct tm, asctime/ctime's text */
    /* an after-call callback waiting for its stub (crt_after.c) */
    bool after_pending;
    int after_mode; /* CRT_AFTER_* */
    uint32_t after_code;
    uint64_t after_fn, after_args[5], after_ret_addr, after_result;
    int after_nargs;
    struct crt_sort *sorts[CRT_MAX_SORTS];
    uint64_t bt_block, bt_handle; /* _beginthread's thread: its start block and handle */
    uint64_t strerror_at;         /* strerror's buffer */
    uint64_t iph_local;           /* the UCRT's thread-local invalid-parameter handler */
} hcp_crt_thread;

/* Guest addresses of the runtime's own data (its block after the guest code: crt_guest.c). */
typedef struct hcp_crt_addr {
    uint64_t ctype, wctype, wctype_u, pctype, pwctype; /* the class tables, the pointers to entry 0 */
    uint64_t timezone, daylight, dstbias, tzname;      /* _timezone, _daylight, _dstbias, _tzname[2] */
    uint64_t sys_errlist, sys_nerr;                    /* _sys_errlist[], _sys_nerr */
    uint64_t xcptinfo;                                 /* __pxcptinfoptrs' cell (NULL) */
    uint64_t wclocale;                                 /* L"C": _wsetlocale's answer */
    uint64_t lc_handle;                                /* six LCIDs, 0 */
    uint64_t pgmptr;                                   /* _pgmptr (made at the first use) */
    uint64_t wargv, wcmdln;                            /* the UCRT's wide variables (made at the first use) */
} hcp_crt_addr;

/* Guest addresses of the runtime's guest code (api/guest/crt_*.S) beyond msvcrt's first three. */
typedef struct hcp_crt_code {
    uint64_t initterm_e, onexit_table, qsort, qsort_s, bsearch, bsearch_s, setjmp, setjmp3, longjmp, bt_entry;
} hcp_crt_code;

typedef struct hcp_crt {
    hcp_crt_addr ad;
    hcp_crt_code g;
    uint64_t rand_s_state;
    hcp_crt_thread *th; /* by sim thread index */
    int nth;
    uint64_t iph;      /* _set_invalid_parameter_handler's handler */
    bool count_output; /* _set_printf_count_output */
    uint64_t sig[CRT_NSIG];
    int mbcp;               /* _getmbcp */
    uint32_t output_format; /* _set_output_format: _TWO_DIGIT_EXPONENT (1) or 0 */
    uint64_t new_handler, terminate_handler;
    int new_mode;
    bool tz_set;               /* _tzset ran */
    uint32_t abort_behavior;   /* _set_abort_behavior's flags */
    int32_t error_mode;        /* _set_error_mode's */
    int32_t app_type;          /* _set_app_type's */
    bool per_thread_locale;    /* _configthreadlocale's */
    uint64_t onexit_quick[32]; /* _crt_at_quick_exit's functions */
    int nquick;
    bool quick; /* quick_exit runs: onexit_next hands out onexit_quick instead of the atexit functions */
} hcp_crt;

/* The process's C runtime state (made at the first call), or NULL without a process or memory. */
hcp_crt *hcp_crt_of(hcp_ctx *c);
/* The same for a process being loaded (no call yet). */
hcp_crt *hcp_crt_of_process(hcp_process *p);
/* The calling thread's part of it, or NULL. */
hcp_crt_thread *hcp_crt_thread_of(hcp_ctx *c);
enum { CRT_AFTER_RETURN, CRT_AFTER_RETURN_CALLBACK, CRT_AFTER_RETURN_NONZERO, CRT_AFTER_EXIT };
/* How the pending callback's stub ends (CRT_AFTER_*; code: the exit code of CRT_AFTER_EXIT). */
void hcp_crt_after_mode(hcp_ctx *c, int mode, uint32_t code);
/* abort's end after its SIGABRT handler returned (crt_process.c): the message, exit code `code`. */
uint64_t hcp_crt_exit_after(hcp_ctx *c, uint32_t code);

/* True for a call of a ucrtbase.dll row (or an API set resolved to it), false for msvcrt.dll's. */
bool hcp_crt_is_ucrt(const hcp_ctx *c);
/* errno of the calling thread's C runtime (msvcrt keeps one per process here: one errno cell). */
void hcp_crt_set_errno(hcp_ctx *c, uint32_t e);
uint32_t hcp_crt_get_errno(hcp_ctx *c);
/* An invalid parameter (msvcrt's _invalid_parameter): errno = e; the handler a program set with
 * _set_invalid_parameter_handler runs after the call returns (crt_after.c); the UCRT without one
 * ends the process as its default handler does (STATUS_INVALID_CRUNTIME_PARAMETER).  Returns e. */
uint32_t hcp_crt_invalid(hcp_ctx *c, uint32_t e);
/* The invalid-parameter handler a call of this thread gets: its thread-local one (the UCRT's
 * _set_thread_local_invalid_parameter_handler), else the process's, else 0. */
uint64_t hcp_crt_iph(hcp_ctx *c);
/* Runs guest function `fn` with `nargs` pointer-sized arguments after the current call returns,
 * then returns the call's result to its caller (crt_after.c).  false: not possible here. */
bool hcp_crt_after(hcp_ctx *c, uint64_t fn, int nargs, const uint64_t *args);

/* ---- errno's messages (crt_stdlib.c): _sys_errlist[0.._sys_nerr] ---- */
int hcp_crt_nerr(void);
const char *hcp_crt_errmsg(int e);

/* ---- character classes (crt_ctype.c) ---- */
/* The C1 classes of a UTF-16 unit in the "C" locale (the UCRT's table differs below U+0100). */
uint16_t hcp_crt_wclass(uint16_t ch, bool ucrt);
bool hcp_crt_wspace(uint16_t ch);
/* Writes the class tables and their pointers at guest address at (b: the host copy), addresses
 * into *ad; returns the bytes used (at most 2,200). */
size_t hcp_crt_ctype_data(uint8_t *b, uint64_t at, unsigned w, hcp_crt_addr *ad);

/* ---- exact decimal forms of doubles (crt_num.c) ---- */
#define HCP_DEC_MAX 800 /* significant digits: a double's exact value has at most 767 */
typedef struct hcp_dec {
    char d[HCP_DEC_MAX + 2]; /* significant digits '0'..'9', no leading zeros (0: n = 0) */
    int n;                   /* digits in d */
    int point;               /* value = 0.d[0]d[1]... x 10^point */
} hcp_dec;
/* The exact decimal value of a finite v >= 0. */
void hcp_dec_of(double v, hcp_dec *x);
/* Keeps the first k digits (k <= 0: the value rounds to 0 or to 1 unit at digit k): ties (the
 * dropped digits exactly half a unit) go up, or to an even last digit when `even`. */
void hcp_dec_round(hcp_dec *x, int k, bool even);
/* The double nearest to 0.digits x 10^point (ties to even), digits '0'..'9' (n of them, any
 * leading zeros, at most HCP_DEC_MAX + 1; a last digit stands for all the dropped ones: callers
 * append '1' when nonzero digits were dropped).  *range: 1 overflow (HUGE_VAL), -1 a result below
 * the smallest normal (denormal or 0: underflow), 0 else. */
double hcp_dec_to_double(const char *digits, int n, long point, int *range);
/* The double nearest to mant x 2^(e2 - 63) (mant's top bit at 63, its lowest bit sticky for what was
 * dropped below it), ties to even; *range as above. */
double hcp_bits_to_double(uint64_t mant, int e2, int *range);

/* ---- the printf engine (crt_printf.c) ---- */
enum {
    PF_LEGACY_VSPRINTF_NULL = 0x1, /* the UCRT's _CRT_INTERNAL_PRINTF_* option bits */
    PF_STANDARD_SNPRINTF = 0x2,
    PF_LEGACY_WIDE = 0x4,
    PF_LEGACY_MSVCRT = 0x8,
    PF_THREE_DIGIT_EXP = 0x10,
    PF_STANDARD_ROUNDING = 0x20,
    PF_UCRT_MASK = 0x3F,
    PF_MSVCRT = 0x100,         /* msvcrt.dll's parser (no UCRT extensions) */
    PF_WIDE = 0x200,           /* a wide (wchar_t) function: format and output are UTF-16 */
    PF_INVALID_UNKNOWN = 0x400 /* an unknown conversion is an invalid parameter (the _s forms) */
};
/* msvcrt.dll's options: legacy everything, three-digit exponents. */
#define PF_MSVCRT_OPTS (PF_MSVCRT | PF_LEGACY_WIDE | PF_LEGACY_MSVCRT | PF_THREE_DIGIT_EXP)

/* Where the variadic arguments come from: the call's argument words from word k (printf), or a
 * va_list in guest memory (vprintf). */
typedef struct hcp_vargs {
    hcp_ctx *c;
    bool mem;
    int k;
    uint64_t at;
} hcp_vargs;
uint64_t hcp_varg(hcp_vargs *v, bool wide);
/* crt_stdlib.c: the double at the start of u (NUL-terminated units) as strtod reads it (w: 1 for
 * bytes, 2 for UTF-16; ucrt: the UCRT's inf, nan and hexadecimal forms too); *end the units read,
 * *err ERANGE or 0. */
double hcp_crt_parse_double(const uint16_t *u, unsigned w, bool ucrt, size_t *end, int *err);

/* Output of the engine: code units (bytes for narrow functions, UTF-16 units for wide ones). */
typedef struct hcp_pfout {
    uint16_t *u;
    size_t n, cap;
    uint16_t *fixed; /* the caller's buffer u starts as (not freed; NULL: none, u starts NULL) */
    size_t limit;    /* units a buffer takes (SIZE_MAX: no limit) */
    bool overflow;   /* a write did not fit: the engine stopped there (c99: went on counting) */
    bool count_only; /* no buffer: units are counted, not kept */
    bool c99;        /* the UCRT's buffer writer: what fits is kept, the formatting goes on */
} hcp_pfout;
/* printf to a FILE: formatted, then written as the stream writes (text mode); the result. */
uint64_t hcp_pf_to_file(hcp_ctx *c, uint64_t file, uint64_t fmt, unsigned opts, hcp_vargs *v);
/* vsprintf_s: the output must fit (with its terminator) in size units (crt_ucrt.c). */
uint64_t hcp_crt_vsprintf_s_impl(hcp_ctx *c, uint64_t str, uint64_t size, uint64_t fmt, unsigned opts, hcp_vargs *v);
/* _vsnprintf_s: at most count units (_TRUNCATE: what fits) in a buffer of size units (crt_ucrt.c). */
uint64_t hcp_crt_vsnprintf_s_impl(hcp_ctx *c, uint64_t str, uint64_t size, uint64_t count, uint64_t fmt, unsigned opts,
                                  hcp_vargs *v);
/* Writes o's units to guest memory at dst (2-byte units for wide), then a terminator when `nul`. */
bool hcp_pf_store(hcp_ctx *c, uint64_t dst, const hcp_pfout *o, bool wide, bool nul);
/* Formats the string at guest address fmt (narrow, or UTF-16 with PF_WIDE).  The result: units
 * written as msvcrt counts them, or -1 (an overflowing buffer, a character the code page cannot
 * represent, an invalid parameter: errno is set).  *o holds what was produced; the caller frees
 * o->u. */
int64_t hcp_pf_format(hcp_ctx *c, uint64_t fmt, unsigned opts, hcp_vargs *v, hcp_pfout *o);
/* printf to a buffer of count units (dst 0: count only); the engine's result, *overflow when the
 * output did not fit (crt_printf.c). */
int64_t hcp_pf_to_mem(hcp_ctx *c, uint64_t dst, uint64_t count, uint64_t fmt, unsigned opts, hcp_vargs *v,
                      bool *overflow);

#endif
