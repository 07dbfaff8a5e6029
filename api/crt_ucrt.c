/* api/crt_ucrt.c — the Universal CRT's own entry points (ucrtbase.dll and the
 * api-ms-win-crt-*-l1-1-0.dll API sets): start-up (argv, environment, app type, onexit tables),
 * the __stdio_common_* printf entry points with their option bits, __acrt_iob_func, the new
 * handler and terminate (api/README.md "The C runtime": "The UCRT").  The functions the UCRT
 * shares with msvcrt.dll are msvcrt's (their rows name hcp_crt_* implementations). */
#include <stdlib.h>

#include "api/crt_int.h"
#include "api/files_int.h"

#define ENABLE_PER_THREAD_LOCALE 1
#define DISABLE_PER_THREAD_LOCALE 2
#define EXCEPTION_CONTINUE_SEARCH 0

/* ---- start-up ---- */

uint64_t hcp_ucrt__set_app_type(hcp_ctx *c, const hcp_ucrt__set_app_type_args *a) {
    hcp_crt *r = hcp_crt_of(c);
    if (r) r->app_type = a->_Type;
    return 0;
}
uint64_t hcp_ucrt___p___argc(hcp_ctx *c) { return c->p->d.v_argc; }
uint64_t hcp_ucrt___p___argv(hcp_ctx *c) { return c->p->d.v_argv; }
uint64_t hcp_ucrt___p__environ(hcp_ctx *c) { return c->p->d.v_environ; }

/* A wide copy of a NULL-terminated array of narrow strings (argv or the environment), on the heap,
 * into the variable *var (made, NULL, at the first use); the variable's address. */
static uint64_t wide_var(hcp_ctx *c, uint64_t *var) {
    if (!*var && (*var = hcp_heap_alloc(c, c->w))) hcp_wrp(c, *var, 0);
    return *var;
}
static uint64_t widen_array(hcp_ctx *c, uint64_t arr, uint64_t *var) {
    uint64_t cur = 0;
    if (!wide_var(c, var)) return 0;
    if (hcp_rdp(c, *var, &cur) && cur) return *var;
    uint64_t n = 0, s;
    while (n < 4096 && hcp_rdp(c, arr + n * c->w, &s) && s) n++;
    uint64_t out = hcp_heap_alloc(c, (n + 1) * c->w), v = *var;
    if (!out) return 0;
    for (uint64_t i = 0; i < n; i++) {
        hcp_rdp(c, arr + i * c->w, &s);
        size_t len;
        char *t = hcp_gstr(c, s, &len);
        if (!t) return 0;
        uint64_t w = hcp_heap_alloc(c, 2 * (len + 1));
        for (size_t k = 0; w && k <= len; k++) hcp_wr16(c, w + 2 * k, (uint8_t)t[k]);
        free(t);
        hcp_wrp(c, out + i * c->w, w);
    }
    hcp_wrp(c, out + n * c->w, 0);
    hcp_wrp(c, v, out);
    return v;
}
uint64_t hcp_ucrt___p___wargv(hcp_ctx *c) {
    hcp_crt *r = hcp_crt_of(c);
    return r ? widen_array(c, c->p->d.argv, &r->ad.wargv) : 0;
}
/* __p__wenviron: _wenviron (the variables api/k32_env.c keeps for the runtime), NULL until
 * _initialize_wide_environment, _wgetenv or _wputenv makes it */
uint64_t hcp_ucrt___p__wenviron(hcp_ctx *c) { return hcp_crtenv_wenviron(c, false); }
uint64_t hcp_ucrt___p__wcmdln(hcp_ctx *c) {
    hcp_crt *r = hcp_crt_of(c);
    if (!r) return 0;
    if (!r->ad.wcmdln) {
        r->ad.wcmdln = hcp_heap_alloc(c, c->w);
        if (r->ad.wcmdln) hcp_wrp(c, r->ad.wcmdln, c->p->d.cmdline_w);
    }
    return r->ad.wcmdln;
}
/* _configure_narrow_argv(mode), _configure_wide_argv: the arguments are split when the process is
 * built; 0 (wildcards are not expanded, as _crt_argv_unexpanded_arguments) */
uint64_t hcp_ucrt__configure_narrow_argv(hcp_ctx *c, const hcp_ucrt__configure_narrow_argv_args *a) {
    if (a->_Mode < 0 || a->_Mode > 2) return hcp_crt_invalid(c, CRT_EINVAL);
    return 0;
}
uint64_t hcp_ucrt__configure_wide_argv(hcp_ctx *c, const hcp_ucrt__configure_wide_argv_args *a) {
    if (a->_Mode < 0 || a->_Mode > 2) return hcp_crt_invalid(c, CRT_EINVAL);
    hcp_ucrt___p___wargv(c);
    return 0;
}
uint64_t hcp_ucrt__initialize_narrow_environment(hcp_ctx *c) {
    (void)c;
    return 0;
}
uint64_t hcp_ucrt__initialize_wide_environment(hcp_ctx *c) {
    hcp_crtenv_wenviron(c, true);
    return 0;
}
uint64_t hcp_ucrt__get_initial_narrow_environment(hcp_ctx *c) { return c->p->d.envp; }
uint64_t hcp_ucrt__get_initial_wide_environment(hcp_ctx *c) {
    hcp_ucrt__initialize_wide_environment(c);
    uint64_t v = hcp_ucrt___p__wenviron(c), arr = 0;
    if (v) hcp_rdp(c, v, &arr);
    return arr;
}
/* _get_narrow_winmain_command_line: the command line after the program's name and the blanks */
static uint64_t after_program(hcp_ctx *c, uint64_t cmd, unsigned w) {
    uint64_t i = 0;
    bool quoted = false;
    for (;; i++) {
        uint8_t b[2] = {0, 0};
        if (!hcp_rd(c, cmd + i * w, b, w)) return 0;
        uint16_t ch = w == 2 ? hcp_get16(b) : b[0];
        if (!ch) break;
        if (ch == '"') quoted = !quoted;
        if ((ch == ' ' || ch == '\t') && !quoted) break;
    }
    for (;; i++) {
        uint8_t b[2] = {0, 0};
        if (!hcp_rd(c, cmd + i * w, b, w)) return 0;
        uint16_t ch = w == 2 ? hcp_get16(b) : b[0];
        if (ch != ' ' && ch != '\t') break;
    }
    return cmd + i * w;
}
uint64_t hcp_ucrt__get_narrow_winmain_command_line(hcp_ctx *c) { return after_program(c, c->p->d.cmdline_a, 1); }
uint64_t hcp_ucrt__get_wide_winmain_command_line(hcp_ctx *c) { return after_program(c, c->p->d.cmdline_w, 2); }

/* _set_fmode, _get_fmode: the default file translation mode (_O_TEXT 0x4000, _O_BINARY 0x8000) */
uint64_t hcp_ucrt__set_fmode(hcp_ctx *c, const hcp_ucrt__set_fmode_args *a) {
    int32_t m = a->_Mode;
    if (m != 0x4000 && m != 0x8000 && m != 0x10000 && m != 0x20000 && m != 0x40000)
        return hcp_crt_invalid(c, CRT_EINVAL);
    hcp_wr32(c, c->p->d.v_fmode, (uint32_t)m);
    return 0;
}
uint64_t hcp_ucrt__get_fmode(hcp_ctx *c, const hcp_ucrt__get_fmode_args *a) {
    if (!a->_PMode) return hcp_crt_invalid(c, CRT_EINVAL);
    uint8_t b[4] = {0};
    hcp_rd(c, c->p->d.v_fmode, b, 4);
    hcp_wr(c, a->_PMode, b, 4);
    return 0;
}

/* _seh_filter_exe(code, pointers), _seh_filter_dll: the exception filter of the UCRT's start-up code;
 * no C signal handler maps exceptions here (no exception reaches a filter: api/README.md), so
 * EXCEPTION_CONTINUE_SEARCH */
uint64_t hcp_ucrt__seh_filter_exe(hcp_ctx *c, const hcp_ucrt__seh_filter_exe_args *a) {
    (void)c;
    (void)a;
    return EXCEPTION_CONTINUE_SEARCH;
}

/* _configthreadlocale(type): the previous per-thread locale setting (_DISABLE_PER_THREAD_LOCALE at
 * first); 0 or -1 query; other values -1 and EINVAL */
uint64_t hcp_ucrt__configthreadlocale(hcp_ctx *c, const hcp_ucrt__configthreadlocale_args *a) {
    hcp_crt *r = hcp_crt_of(c);
    if (!r) return (uint32_t)-1;
    int32_t old = r->per_thread_locale ? ENABLE_PER_THREAD_LOCALE : DISABLE_PER_THREAD_LOCALE;
    if (a->_Flag == ENABLE_PER_THREAD_LOCALE)
        r->per_thread_locale = true;
    else if (a->_Flag == DISABLE_PER_THREAD_LOCALE)
        r->per_thread_locale = false;
    else if (a->_Flag != 0) /* -1 included (Wine's ucrtbase refuses it too) */
        return hcp_crt_invalid(c, CRT_EINVAL), (uint32_t)-1;
    return (uint32_t)old;
}

/* __acrt_iob_func(i): the i-th standard stream (msvcrt's _iob entries) */
uint64_t hcp_ucrt___acrt_iob_func(hcp_ctx *c, const hcp_ucrt___acrt_iob_func_args *a) {
    if (a->_Index > 2) return hcp_crt_invalid(c, CRT_EINVAL), 0;
    return c->p->d.iob + (uint64_t)a->_Index * c->p->d.file_size;
}

/* __sys_errlist, __sys_nerr: the addresses of the message table and its size */
uint64_t hcp_ucrt___sys_errlist(hcp_ctx *c) {
    hcp_crt *r = hcp_crt_of(c);
    return r ? r->ad.sys_errlist : 0;
}
uint64_t hcp_ucrt___sys_nerr(hcp_ctx *c) {
    hcp_crt *r = hcp_crt_of(c);
    return r ? r->ad.sys_nerr : 0;
}

/* ---- onexit tables: {first, last, end} of function pointers ---- */

/* _initialize_onexit_table(table): empty */
uint64_t hcp_ucrt__initialize_onexit_table(hcp_ctx *c, const hcp_ucrt__initialize_onexit_table_args *a) {
    if (!a->_Table) return (uint32_t)-1;
    uint64_t first = 0;
    if (!hcp_rdp(c, a->_Table, &first)) return (uint32_t)-1;
    if (first) return 0; /* already set up */
    for (int i = 0; i < 3; i++) hcp_wrp(c, a->_Table + (uint64_t)i * c->w, 0);
    return 0;
}
/* _register_onexit_function(table, fn): appended (the table's block grows on the heap) */
uint64_t hcp_ucrt__register_onexit_function(hcp_ctx *c, const hcp_ucrt__register_onexit_function_args *a) {
    if (!a->_Table) return (uint32_t)-1;
    uint64_t first, last, end, w = c->w;
    if (!hcp_rdp(c, a->_Table, &first) || !hcp_rdp(c, a->_Table + w, &last) || !hcp_rdp(c, a->_Table + 2 * w, &end))
        return (uint32_t)-1;
    if (!first || last >= end) { /* grow: double, at least 32 */
        uint64_t n = first ? (end - first) / w : 0, nn = n ? 2 * n : 32;
        uint64_t nb = first ? hcp_heap_realloc(c, first, nn * w, false) : hcp_heap_alloc(c, nn * w);
        if (!nb) return (uint32_t)-1;
        last = nb + (last - first);
        if (!first) last = nb;
        first = nb;
        end = nb + nn * w;
    }
    hcp_wrp(c, last, a->_Function);
    last += w;
    hcp_wrp(c, a->_Table, first);
    hcp_wrp(c, a->_Table + w, last);
    hcp_wrp(c, a->_Table + 2 * w, end);
    return 0;
}
/* onexit_table_next(table): the last function, taken off (the guest-code _execute_onexit_table calls
 * it); at the end the table's block is freed and the table emptied */
uint64_t hcp_int_onexit_table_next(hcp_ctx *c, const hcp_int_onexit_table_next_args *a) {
    uint64_t first, last, w = c->w, fn = 0;
    if (!a->table || !hcp_rdp(c, a->table, &first) || !hcp_rdp(c, a->table + w, &last)) return 0;
    while (last > first && !fn) {
        last -= w;
        hcp_rdp(c, last, &fn);
    }
    if (fn) {
        hcp_wrp(c, a->table + w, last);
        return fn;
    }
    if (first) hcp_heap_free(c, first);
    for (int i = 0; i < 3; i++) hcp_wrp(c, a->table + (uint64_t)i * w, 0);
    return 0;
}
/* _crt_atexit: atexit; _crt_at_quick_exit: at_quick_exit (quick_exit runs them: crt_process.c) */
uint64_t hcp_ucrt__crt_at_quick_exit(hcp_ctx *c, const hcp_ucrt__crt_at_quick_exit_args *a) {
    hcp_crt *r = hcp_crt_of(c);
    if (!r || r->nquick >= (int)(sizeof r->onexit_quick / sizeof r->onexit_quick[0])) return (uint32_t)-1;
    r->onexit_quick[r->nquick++] = a->_Function;
    return 0;
}

/* ---- the new handler, terminate ---- */

uint64_t hcp_ucrt__set_new_mode(hcp_ctx *c, const hcp_ucrt__set_new_mode_args *a) {
    hcp_crt *r = hcp_crt_of(c);
    if (!r) return 0;
    if (a->_NewMode != 0 && a->_NewMode != 1) return hcp_crt_invalid(c, CRT_EINVAL), (uint32_t)-1;
    int32_t old = r->new_mode;
    r->new_mode = a->_NewMode;
    return (uint32_t)old;
}
uint64_t hcp_ucrt__query_new_mode(hcp_ctx *c) {
    hcp_crt *r = hcp_crt_of(c);
    return r ? (uint32_t)r->new_mode : 0;
}
uint64_t hcp_ucrt__set_new_handler(hcp_ctx *c, const hcp_ucrt__set_new_handler_args *a) {
    hcp_crt *r = hcp_crt_of(c);
    if (!r) return 0;
    uint64_t old = r->new_handler;
    r->new_handler = a->_NewHandler;
    return old;
}
uint64_t hcp_ucrt__query_new_handler(hcp_ctx *c) {
    hcp_crt *r = hcp_crt_of(c);
    return r ? r->new_handler : 0;
}
/* _callnewh(size): 1 when the new handler (run as the program's code) returns non-zero, 0 when it
 * returns 0 or there is none */
uint64_t hcp_ucrt__callnewh(hcp_ctx *c, const hcp_ucrt__callnewh_args *a) {
    hcp_crt *r = hcp_crt_of(c);
    if (!r || !r->new_handler) return 0;
    const uint64_t arg = a->_Size;
    if (hcp_crt_after(c, r->new_handler, 1, &arg)) hcp_crt_after_mode(c, CRT_AFTER_RETURN_NONZERO, 0);
    return 0;
}
/* _crt_atexit(fn): the atexit list (a NULL function is accepted and not kept) */
uint64_t hcp_ucrt__crt_atexit(hcp_ctx *c, const hcp_ucrt__crt_atexit_args *a) {
    if (!a->_Func) return 0;
    const hcp_crt_atexit_args x = {a->_Func};
    return hcp_crt_atexit(c, &x);
}
uint64_t hcp_ucrt_set_terminate(hcp_ctx *c, const hcp_ucrt_set_terminate_args *a) {
    hcp_crt *r = hcp_crt_of(c);
    if (!r) return 0;
    uint64_t old = r->terminate_handler;
    r->terminate_handler = a->_NewTerminateHandler;
    return old;
}
uint64_t hcp_ucrt__get_terminate(hcp_ctx *c) {
    hcp_crt *r = hcp_crt_of(c);
    return r ? r->terminate_handler : 0;
}
/* terminate: the terminate handler (as the program's code), then abort (status 3) */
uint64_t hcp_ucrt_terminate(hcp_ctx *c) {
    hcp_crt *r = hcp_crt_of(c);
    if (r && r->terminate_handler && hcp_crt_after(c, r->terminate_handler, 0, NULL)) {
        hcp_crt_after_mode(c, CRT_AFTER_EXIT, 3);
        return 0;
    }
    return hcp_crt_abort(c);
}

/* ---- printf: __stdio_common_* (options, ..., locale, va_list) ---- */

static unsigned ucrt_opts(uint64_t options, bool wide, bool s_form) {
    return (unsigned)(options & PF_UCRT_MASK) | (wide ? PF_WIDE : 0) | (s_form ? PF_INVALID_UNKNOWN : 0);
}
/* to a stream */
uint64_t hcp_ucrt___stdio_common_vfprintf(hcp_ctx *c, const hcp_ucrt___stdio_common_vfprintf_args *a) {
    hcp_vargs v = {c, true, 0, a->_ArgList};
    size_t nl = strlen(c->ex->name);
    bool wide = strstr(c->ex->name, "vfw") != NULL, s_form = nl > 2 && !strcmp(c->ex->name + nl - 2, "_s");
    return hcp_pf_to_file(c, a->_Stream, a->_Format, ucrt_opts(a->_Options, wide, s_form), &v);
}
/* __stdio_common_vsprintf, __stdio_common_vswprintf: the C99 writer (what fits is kept, the count
 * goes on), then the options decide the result and the terminator */
uint64_t hcp_ucrt___stdio_common_vsprintf(hcp_ctx *c, const hcp_ucrt___stdio_common_vsprintf_args *a) {
    bool wide = strstr(c->ex->name, "vsw") != NULL;
    hcp_vargs v = {c, true, 0, a->_ArgList};
    uint64_t len = a->_BufferCount;
    hcp_pfout o = {0};
    o.c99 = true;
    o.count_only = !a->_Buffer;
    o.limit = a->_Buffer ? (len > HCP_MAX_STR * 64ull ? HCP_MAX_STR * 64ull : len) : SIZE_MAX;
    int64_t ret = hcp_pf_format(c, a->_Format, ucrt_opts(a->_Options, wide, false), &v, &o);
    if (a->_Buffer && !c->failed) hcp_pf_store(c, a->_Buffer, &o, wide, o.n < o.limit);
    hcp_work(c, o.n);
    free(o.u);
    if (!a->_Buffer || ret < 0) return (uint32_t)(int32_t)ret;
    if (a->_Options & PF_LEGACY_VSPRINTF_NULL) return (uint32_t)(ret > (int64_t)len ? -1 : (int32_t)ret);
    if ((uint64_t)ret >= len) {
        if (len) {
            uint16_t z = 0;
            hcp_wr(c, a->_Buffer + (len - 1) * (wide ? 2 : 1), &z, wide ? 2 : 1);
        }
        if (a->_Options & PF_STANDARD_SNPRINTF) return (uint32_t)(int32_t)ret;
        return (uint32_t)(len ? -2 : -1);
    }
    return (uint32_t)(int32_t)ret;
}
/* __stdio_common_vsnprintf_s(options, buf, size, count, ...) and vsnwprintf_s: at most count units
 * (_TRUNCATE: what fits); an unknown conversion is an invalid parameter; -1 when it did not fit
 * (the buffer emptied, an invalid parameter with ERANGE, unless _TRUNCATE or count fits) */
uint64_t hcp_crt_vsnprintf_s_impl(hcp_ctx *c, uint64_t str, uint64_t size, uint64_t count, uint64_t fmt, unsigned opts,
                                  hcp_vargs *v) {
    uint64_t trunc = c->w == 8 ? UINT64_MAX : 0xFFFFFFFFu;
    bool wide = opts & PF_WIDE;
    if (!str || !size) return hcp_crt_invalid(c, CRT_EINVAL), (uint32_t)-1;
    uint64_t len = (size < count + 1 || count == trunc) ? size : count + 1;
    hcp_pfout o = {0};
    o.limit = len > HCP_MAX_STR * 64ull ? HCP_MAX_STR * 64ull : len;
    int64_t ret = hcp_pf_format(c, fmt, opts | PF_INVALID_UNKNOWN, v, &o);
    if (!c->failed) hcp_pf_store(c, str, &o, wide, o.n < o.limit);
    hcp_work(c, o.n);
    free(o.u);
    if (ret < 0 || (uint64_t)ret == len) {
        unsigned us = wide ? 2 : 1;
        if (count != trunc && count > size) {
            hcp_zero(c, str, size * us);
            hcp_crt_invalid(c, CRT_ERANGE);
        } else {
            uint16_t z = 0;
            hcp_wr(c, str + (len - 1) * us, &z, us);
        }
        return (uint32_t)-1;
    }
    return (uint32_t)(int32_t)ret;
}
uint64_t hcp_ucrt___stdio_common_vsnprintf_s(hcp_ctx *c, const hcp_ucrt___stdio_common_vsnprintf_s_args *a) {
    hcp_vargs v = {c, true, 0, a->_ArgList};
    bool wide = strstr(c->ex->name, "vsnw") != NULL;
    return hcp_crt_vsnprintf_s_impl(c, a->_Buffer, a->_BufferCount, a->_MaxCount, a->_Format,
                                    ucrt_opts(a->_Options, wide, true), &v);
}
/* __stdio_common_vsprintf_s, __stdio_common_vswprintf_s, and msvcrt's vsprintf_s family: the output
 * and its terminator must fit, else the buffer is emptied, an invalid parameter (ERANGE), -1 */
uint64_t hcp_crt_vsprintf_s_impl(hcp_ctx *c, uint64_t str, uint64_t size, uint64_t fmt, unsigned opts, hcp_vargs *v) {
    bool wide = opts & PF_WIDE;
    unsigned us = wide ? 2 : 1;
    if (!str || !size || !fmt) {
        if (str && size) hcp_wr(c, str, "\0", us);
        return hcp_crt_invalid(c, CRT_EINVAL), (uint32_t)-1;
    }
    hcp_pfout o = {0};
    o.limit = size > HCP_MAX_STR * 64ull ? HCP_MAX_STR * 64ull : size;
    int64_t ret = hcp_pf_format(c, fmt, opts | PF_INVALID_UNKNOWN, v, &o);
    hcp_work(c, o.n);
    if (!c->failed && ret >= 0 && (uint64_t)ret < size) hcp_pf_store(c, str, &o, wide, true);
    free(o.u);
    if (c->failed) return (uint32_t)-1;
    if (ret < 0 || (uint64_t)ret >= size) {
        hcp_wr(c, str, "\0", us);
        if (ret >= 0 || o.overflow) hcp_crt_invalid(c, CRT_ERANGE);
        return (uint32_t)-1;
    }
    return (uint32_t)(int32_t)ret;
}
uint64_t hcp_ucrt___stdio_common_vsprintf_s(hcp_ctx *c, const hcp_ucrt___stdio_common_vsprintf_s_args *a) {
    hcp_vargs v = {c, true, 0, a->_ArgList};
    bool wide = strstr(c->ex->name, "vsw") != NULL;
    return hcp_crt_vsprintf_s_impl(c, a->_Buffer, a->_BufferCount, a->_Format, ucrt_opts(a->_Options, wide, true), &v);
}
