/* api/dispatch.c — the one call path of the Windows surface (api/README.md
 * "The export spec").
 *
 * sim/ maps the call gate's thunks (x64 thunk k: `mov eax, k; syscall; ret`;
 * x86 `mov eax, k; int 0x2e; ret n`; ARM64 and ARM `svc #k` and a return) and
 * calls the handler registered here when guest code enters thunk k.  Service k
 * is row k of the export table (exports.spec), so every call, whether the
 * program imported it, found it with GetProcAddress or a scenario placed code
 * calling m:imports(), takes this path: the arguments are read by the row's
 * parameter types and normalised (marshal), the row's cost is charged, the
 * implementation gets its named, typed arguments, the result is narrowed to
 * the return type (edx:eax for 64-bit results on x86), and the call observer
 * sees the call with its decoded arguments.  Services from HCP_SVC_MISSING up
 * are the imports hcpsim lacks, one thunk each, so the call can name them. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "api/sync_int.h"

_Static_assert(HCP_EXPORT_ROWS <= HCP_SVC_MISSING, "the export rows fit below the missing imports' services");
_Static_assert(HCP_SVC_MISSING + HCP_MAX_MISSING <= SIM_GATE_SERVICES, "one thunk per service");
#define MAX_PARAMS 16

/* ---- the table ---------------------------------------------------------------------------------- */

extern const hcp_export hcp_exports[HCP_EXPORT_ROWS];
extern const uint16_t hcp_export_index[HCP_EXPORT_ROWS];
extern const char *const hcp_export_dlls[];

const hcp_export *hcp_export_at(int i) { return i >= 0 && i < HCP_EXPORT_ROWS ? &hcp_exports[i] : NULL; }
int hcp_export_count(void) { return HCP_EXPORT_ROWS; }
int hcp_export_service(const hcp_export *e) { return (int)(e - hcp_exports); }
const char *hcp_export_dll_at(int i) {
    for (int k = 0; hcp_export_dlls[k]; k++)
        if (k == i) return hcp_export_dlls[k];
    return NULL;
}

static int lower(int ch) { return ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch; }
static int cmp_ci(const char *a, const char *b) { /* as specgen.pl sorts: ASCII lower case, byte order */
    for (;; a++, b++) {
        int x = lower((unsigned char)*a), y = lower((unsigned char)*b);
        if (x != y || !x) return x - y;
    }
}
static bool eq_ci_n(const char *a, const char *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (lower((unsigned char)a[i]) != lower((unsigned char)b[i]) || !a[i]) return false;
    return true;
}

/* DLL names Windows resolves to another DLL (API sets): a name starting with `prefix`. */
static const struct {
    const char *prefix, *dll;
} apisets[] = {
    {"api-ms-win-core-synch-", "KERNEL32.dll"},
    {"api-ms-win-core-processthreads-", "KERNEL32.dll"},
    {"api-ms-win-core-heap-", "KERNEL32.dll"},
    {"api-ms-win-core-memory-", "KERNEL32.dll"},
    {"api-ms-win-core-libraryloader-", "KERNEL32.dll"},
    {"api-ms-win-core-sysinfo-", "KERNEL32.dll"},
    {"api-ms-win-core-errorhandling-", "KERNEL32.dll"},
    {"api-ms-win-core-profile-", "KERNEL32.dll"},
    {"api-ms-win-core-file-", "KERNEL32.dll"},
    {"api-ms-win-core-processenvironment-", "KERNEL32.dll"},
    {"api-ms-win-core-timezone-", "KERNEL32.dll"},
    {"api-ms-win-core-realtime-", "KERNEL32.dll"},
    {"api-ms-win-core-debug-", "KERNEL32.dll"},
    {"api-ms-win-core-localization-", "KERNEL32.dll"},
    {"kernelbase", "KERNEL32.dll"},
    {"api-ms-win-crt-", "ucrtbase.dll"}, /* the UCRT's API sets: every one is ucrtbase.dll */
};

const char *hcp_export_dll(const char *dll) {
    if (!dll) return NULL;
    for (const char *s = dll; *s; s++)
        if (*s == '\\' || *s == '/') dll = s + 1;
    size_t n = strlen(dll);
    if (n >= 4 && cmp_ci(dll + n - 4, ".dll") == 0) n -= 4;
    for (int k = 0; hcp_export_dlls[k]; k++) {
        const char *d = hcp_export_dlls[k];
        size_t dn = strlen(d);
        if (dn >= 4 && cmp_ci(d + dn - 4, ".dll") == 0) dn -= 4;
        if (dn == n && eq_ci_n(dll, d, n) && strcmp(d, "hcpsim") != 0) return d;
    }
    for (size_t i = 0; i < sizeof apisets / sizeof apisets[0]; i++) {
        size_t pn = strlen(apisets[i].prefix);
        if (n >= pn && eq_ci_n(dll, apisets[i].prefix, pn)) return apisets[i].dll;
    }
    return NULL;
}

const hcp_export *hcp_export_find(const char *dll, const char *name) {
    const char *d = hcp_export_dll(dll);
    if (!d || !name) return NULL;
    int lo = 0, hi = HCP_EXPORT_ROWS - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        const hcp_export *e = &hcp_exports[hcp_export_index[mid]];
        int c = cmp_ci(e->dll, d);
        if (!c) c = strcmp(e->name, name);
        if (!c) return (e->flags & HCP_EX_INTERNAL) ? NULL : e;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

const hcp_export *hcp_export_named(const char *name) {
    for (int i = 0; name && i < HCP_EXPORT_ROWS; i++)
        if (strcmp(hcp_exports[i].name, name) == 0) return &hcp_exports[i];
    return NULL;
}

const hcp_export *hcp_export_by_ordinal(const char *dll, unsigned ordinal) {
    const char *d = hcp_export_dll(dll);
    if (!d) return NULL;
    for (int i = 0; i < HCP_EXPORT_ROWS; i++)
        if ((unsigned)hcp_exports[i].ordinal == ordinal && strcmp(hcp_exports[i].dll, d) == 0 &&
            !(hcp_exports[i].flags & HCP_EX_INTERNAL))
            return &hcp_exports[i];
    return NULL;
}

const char *hcp_type_name(hcp_type t) {
    static const char *const names[] = {
        [HCP_T_VOID] = "VOID",       [HCP_T_HANDLE] = "HANDLE",     [HCP_T_DWORD] = "DWORD",
        [HCP_T_MASK] = "MASK",       [HCP_T_TIMEOUT] = "TIMEOUT",   [HCP_T_INT] = "INT",
        [HCP_T_BOOL] = "BOOL",       [HCP_T_PTR] = "PTR",           [HCP_T_STR] = "LPCSTR",
        [HCP_T_WSTR] = "LPCWSTR",    [HCP_T_SIZE] = "SIZE_T",       [HCP_T_SSIZE] = "SSIZE_T",
        [HCP_T_U64] = "DWORD64",     [HCP_T_MASK64] = "MASK64",     [HCP_T_I64] = "INT64",
        [HCP_T_F64] = "DOUBLE",      [HCP_T_F32] = "FLOAT",         [HCP_T_VALIST] = "VA_LIST",
        [HCP_T_ERRCODE] = "ERRCODE", [HCP_T_NTSTATUS] = "NTSTATUS", [HCP_T_WAITRES] = "WAITRES",
        [HCP_T_PFLAGS] = "PFLAGS",   [HCP_T_RFLAGS] = "RFLAGS",     [HCP_T_VARARGS] = "...",
    };
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "?";
}

const char *hcp_export_does(const hcp_export *e) {
    if (e->kind == HCP_EXPORT_STUB) return "stub";
    if (e->flags & HCP_EX_NOP) return "no-op";
    if (e->flags & HCP_EX_TRUE) return "returns TRUE";
    return "yes";
}

const char *hcp_export_cost(const hcp_export *e) {
    switch (e->kind) {
    case HCP_EXPORT_DATA: return "-";
    case HCP_EXPORT_GUEST: return "user instructions (api/README.md)";
    case HCP_EXPORT_STUB: return "-";
    case HCP_EXPORT_FUNCTION: break;
    }
    if (e->work_text) return e->work_text;
    return e->cost == HCP_COST_NONE ? "none (user mode only)" : "1 api_call";
}

/* ---- guest memory ------------------------------------------------------------------------------- */

/* The call's name for a failure message ("msvcrt.dll!printf"), made when first needed: a call
 * that does not fail never formats it. */
static const char *ctx_fn(hcp_ctx *c) {
    if (!c->fn[0] && c->ex) snprintf(c->fn, sizeof c->fn, "%s!%s", c->ex->dll, c->ex->name);
    return c->fn;
}

bool hcp_bad(hcp_ctx *c, uint64_t addr, bool write) {
    if (!c->failed && c->p)
        snprintf(c->p->failure, sizeof c->p->failure,
                 "%s: %s: access violation %s 0x%llX (an unhandled exception in simulated OS code)", c->p->name,
                 ctx_fn(c), write ? "writing" : "reading", (unsigned long long)addr);
    c->failed = true;
    return false;
}
bool hcp_rd(hcp_ctx *c, uint64_t at, void *b, size_t n) {
    return !n || sim_mem_read(c->m, at, b, n) == SIM_OK || hcp_bad(c, at, false);
}
bool hcp_wr(hcp_ctx *c, uint64_t at, const void *b, size_t n) {
    c->args_n = 0; /* what hcp_varg read ahead may have changed */
    return !n || sim_mem_write(c->m, at, b, n) == SIM_OK || hcp_bad(c, at, true);
}
bool hcp_wr16(hcp_ctx *c, uint64_t at, uint16_t v) {
    uint8_t b[2];
    hcp_put16(b, v);
    return hcp_wr(c, at, b, 2);
}
bool hcp_wr32(hcp_ctx *c, uint64_t at, uint32_t v) {
    uint8_t b[4];
    hcp_put32(b, v);
    return hcp_wr(c, at, b, 4);
}
bool hcp_wr64(hcp_ctx *c, uint64_t at, uint64_t v) {
    uint8_t b[8];
    hcp_put64(b, v);
    return hcp_wr(c, at, b, 8);
}
bool hcp_wrp(hcp_ctx *c, uint64_t at, uint64_t v) {
    uint8_t b[8];
    hcp_put64(b, v);
    return hcp_wr(c, at, b, c->w);
}
bool hcp_rdp(hcp_ctx *c, uint64_t at, uint64_t *v) {
    uint8_t b[8] = {0};
    if (!hcp_rd(c, at, b, c->w)) return false;
    *v = c->w == 8 ? hcp_get64(b) : hcp_get32(b);
    return true;
}
bool hcp_zero(hcp_ctx *c, uint64_t at, uint64_t n) {
    static const uint8_t z[4096];
    for (uint64_t off = 0; off < n; off += sizeof z)
        if (!hcp_wr(c, at + off, z, n - off < sizeof z ? (size_t)(n - off) : sizeof z)) return false;
    return true;
}

char *hcp_gstr(hcp_ctx *c, uint64_t at, size_t *len) {
    size_t cap = 256, n = 0;
    char *s = malloc(cap);
    while (s) {
        size_t chunk = 0x1000 - (size_t)((at + n) & 0xFFF);
        if (n + chunk + 1 > cap) {
            cap = (n + chunk + 1) * 2;
            char *ns = realloc(s, cap);
            if (!ns) break;
            s = ns;
        }
        if (sim_mem_read(c->m, at + n, s + n, chunk) != SIM_OK) {
            /* the string may end before the unreadable page: read it byte by byte */
            size_t k = 0;
            while (k < chunk && sim_mem_read(c->m, at + n + k, s + n + k, 1) == SIM_OK && s[n + k]) k++;
            if (k < chunk && sim_mem_read(c->m, at + n + k, s + n + k, 1) == SIM_OK) {
                n += k;
                break;
            }
            free(s);
            hcp_bad(c, at + n + k, false);
            return NULL;
        }
        void *z = memchr(s + n, 0, chunk);
        if (z) {
            n = (size_t)((char *)z - s);
            break;
        }
        n += chunk;
        if (n > HCP_MAX_STR) {
            free(s);
            hcp_bad(c, at + n, false);
            return NULL;
        }
    }
    if (!s) return NULL;
    s[n] = '\0';
    if (len) *len = n;
    return s;
}

bool hcp_gname(hcp_ctx *c, uint64_t at, bool wide, char *out, size_t cap) {
    out[0] = '\0';
    if (!at) return true;
    for (size_t i = 0; i + 1 < cap; i++) {
        uint8_t b[2] = {0, 0};
        if (!hcp_rd(c, at + (wide ? 2 * i : i), b, wide ? 2 : 1)) return false;
        uint16_t u = wide ? hcp_get16(b) : b[0];
        out[i] = (char)(u < 256 ? u : '?');
        out[i + 1] = '\0';
        if (!u) return true;
    }
    return true;
}

bool hcp_word(hcp_ctx *c, int k, uint64_t *v) {
    if (sim_gate_arg_any(c->t, k, v) == SIM_OK) return true;
    *v = 0;
    return hcp_bad(c, 0, false);
}

/* ---- results ------------------------------------------------------------------------------------ */

uint64_t hcp_fail(hcp_ctx *c, uint32_t err) {
    hcp_SetLastError(c->os, err);
    return 0;
}
uint64_t hcp_nt_fail(hcp_ctx *c, uint32_t status) { return hcp_fail(c, hcp_nt_to_win32(status)); }

uint64_t hcp_blocking(hcp_ctx *c, uint32_t r, uint64_t (*resume)(hcp_ctx *c)) {
    if (r != HCP_PENDING) return r;
    c->pending = true;
    c->resume = resume;
    return 0;
}

uint64_t hcp_stop(hcp_ctx *c, const char *fmt, ...) {
    if (!c->failed && c->p) {
        int n = snprintf(c->p->failure, sizeof c->p->failure, "%s: %s: ", c->p->name, ctx_fn(c));
        if (n > 0 && (size_t)n < sizeof c->p->failure) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(c->p->failure + n, sizeof c->p->failure - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    c->failed = true;
    return 0;
}

/* ---- marshalling -------------------------------------------------------------------------------- */

/* The normalised values of e's parameters in t's call (api/exports.h "hcp_type"): false when an
 * argument word cannot be read; *got: the parameters read. */
static bool marshal(hcp_os *os, sim_thread *t, const hcp_export *e, uint64_t *v, int *got) {
    bool p32 = hcp_ptr_size(os) == 4;
    int w = 0, fp = 0;
    *got = 0;
    for (int i = 0; i < e->nparams && i < MAX_PARAMS; i++) {
        uint64_t x = 0;
        sim_err err = SIM_OK;
        switch (e->params[i].type) {
        case HCP_T_VARARGS: x = (uint64_t)w; break;
        case HCP_T_U64:
        case HCP_T_MASK64:
        case HCP_T_I64: err = sim_gate_arg64(t, &w, &x); break;
        case HCP_T_F64:
        case HCP_T_F32:
            if (p32) { /* in argument words: a double is two (a pair), a float one */
                if (e->params[i].type == HCP_T_F64)
                    err = sim_gate_arg64(t, &w, &x);
                else
                    err = sim_gate_arg(t, w++, &x);
            } else {
                err = sim_gate_fparg(t, w++, fp++, &x);
            }
            if (e->params[i].type == HCP_T_F32) x &= 0xFFFFFFFFu;
            break;
        case HCP_T_HANDLE:
            err = sim_gate_arg(t, w++, &x);
            x = hcp_handle_arg(os, x);
            break;
        case HCP_T_SSIZE:
            err = sim_gate_arg(t, w++, &x);
            if (p32) x = (uint64_t)(int64_t)(int32_t)(uint32_t)x;
            break;
        case HCP_T_PTR:
        case HCP_T_STR:
        case HCP_T_WSTR:
        case HCP_T_SIZE:
        case HCP_T_VALIST:
            err = sim_gate_arg(t, w++, &x);
            if (p32) x &= 0xFFFFFFFFu;
            break;
        case HCP_T_DWORD:
        case HCP_T_MASK:
        case HCP_T_TIMEOUT:
        case HCP_T_INT:
        case HCP_T_BOOL:
        case HCP_T_ERRCODE:
        case HCP_T_NTSTATUS:
        case HCP_T_WAITRES:
        case HCP_T_PFLAGS:
        case HCP_T_RFLAGS:
        case HCP_T_VOID:
            err = sim_gate_arg(t, w++, &x);
            x &= 0xFFFFFFFFu; /* the upper half of a 32-bit argument's register or slot is undefined */
            break;
        }
        if (err != SIM_OK) return false;
        v[i] = x;
        *got = i + 1;
    }
    return true;
}

/* The result register's value for return type `rt` (32-bit types zero-extended, as a 32-bit
 * register write leaves them); 64-bit results on x86 put their high half in edx, floating-point
 * results go to the ISA's FP result register. */
static uint64_t narrow(hcp_ctx *c, hcp_type rt, uint64_t r) {
    switch (rt) {
    case HCP_T_VOID: return 0;
    case HCP_T_U64:
    case HCP_T_MASK64:
    case HCP_T_I64:
        if (c->w == 4) sim_gate_result_high(c->t, (uint32_t)(r >> 32));
        return r;
    case HCP_T_F64:
    case HCP_T_F32:
        if (sim_gate_result_fp(c->t, r, rt == HCP_T_F64) != SIM_OK)
            hcp_stop(c, "a floating-point result on this ISA is not supported");
        return 0;
    case HCP_T_HANDLE:
    case HCP_T_PTR:
    case HCP_T_STR:
    case HCP_T_WSTR:
    case HCP_T_SIZE:
    case HCP_T_SSIZE:
    case HCP_T_VALIST:
    case HCP_T_VARARGS: return c->w == 4 ? r & 0xFFFFFFFFu : r;
    case HCP_T_DWORD:
    case HCP_T_MASK:
    case HCP_T_TIMEOUT:
    case HCP_T_INT:
    case HCP_T_BOOL:
    case HCP_T_ERRCODE:
    case HCP_T_NTSTATUS:
    case HCP_T_WAITRES:
    case HCP_T_PFLAGS:
    case HCP_T_RFLAGS: return r & 0xFFFFFFFFu;
    }
    return r;
}

/* ---- the call path ------------------------------------------------------------------------------ */

/* A result as the observer sees it: normalised like an argument of its type (a HANDLE result of a
 * 32-bit guest sign-extended, so (HANDLE)-2 reads -2 whichever side of the call it is on). */
static uint64_t seen(hcp_os *os, hcp_type rt, uint64_t r) { return rt == HCP_T_HANDLE ? hcp_handle_arg(os, r) : r; }

/* The call observer (hcp_set_call_observer) sees a call: completed when it returned a result. */
static void observe(hcp_os *os, const hcp_export *e, const char *name, sim_thread *t, const uint64_t *v, int nargs,
                    uint64_t start, uint64_t result, bool pending, bool resumed, bool completed) {
    hcp_call call = {name, e, t, v, nargs, start, result, pending, resumed, completed};
    for (int i = 0; i < HCP_MAX_CALL_OBSERVERS; i++)
        if (os->call_fn[i]) os->call_fn[i](os->call_ud[i], &call);
}

static void ctx_init(hcp_ctx *c, hcp_os *os, sim_thread *t, const hcp_export *e) {
    memset(c, 0, sizeof *c);
    c->os = os;
    c->p = os->proc;
    c->m = os->m;
    c->t = t;
    c->w = hcp_ptr_size(os);
    c->ex = e; /* c->fn stays empty until a failure message needs it (ctx_fn) */
}

/* The spec's DLL `dll` passes arguments cdecl (the caller pops them): its functions are. */
static bool dll_cdecl(const char *dll) {
    const char *d = hcp_export_dll(dll);
    for (int i = 0; d && i < HCP_EXPORT_ROWS; i++)
        if (hcp_exports[i].kind == HCP_EXPORT_FUNCTION && strcmp(hcp_exports[i].dll, d) == 0)
            return hcp_exports[i].conv == HCP_CC_CDECL;
    return false;
}

/* A call of an import hcpsim lacks, or of a stub row `stub` (NULL for an import the spec does not
 * know): by default it stops the run naming the function; under --missing-imports=fail it returns
 * what a function missing from a Windows DLL returns (0 and ERROR_CALL_NOT_IMPLEMENTED; ntdll's
 * Nt and Zw functions STATUS_NOT_IMPLEMENTED), warned once per function.  On x86 the callee pops
 * a stdcall function's arguments: a function the spec does not describe cannot return there. */
static uint64_t missing_call(hcp_os *os, sim_thread *t, uint32_t service, const char *full, const hcp_export *stub) {
    hcp_process *p = os->proc;
    if (!p) return STATUS_INVALID_SYSTEM_SERVICE;
    char dll[96];
    snprintf(dll, sizeof dll, "%s", full);
    char *bang = strchr(dll, '!');
    const char *fn = bang ? bang + 1 : full;
    if (bang) *bang = '\0';
    bool x86_unknown = hcp_ptr_size(os) == 4 && !stub && !dll_cdecl(dll);
    if (p->missing_fail && !x86_unknown) {
        if (!p->warned) p->warned = calloc(SIM_GATE_SERVICES, 1);
        if (p->warned && service < SIM_GATE_SERVICES && !p->warned[service] && os->warn_fn) {
            p->warned[service] = 1;
            char msg[256];
            snprintf(msg, sizeof msg,
                     "called %s, which hcpsim does not implement: it returns failure (--missing-imports=fail)", full);
            os->warn_fn(os->warn_ud, t, msg);
        }
        bool nt = hcp_export_dll(dll) && strcmp(hcp_export_dll(dll), "ntdll.dll") == 0 &&
                  (strncmp(fn, "Nt", 2) == 0 || strncmp(fn, "Zw", 2) == 0);
        uint64_t r = nt ? STATUS_NOT_IMPLEMENTED : 0;
        if (!nt) hcp_SetLastError(os, ERROR_CALL_NOT_IMPLEMENTED);
        observe(os, stub, full, t, NULL, 0, sim_clock(os->m), r, false, false, true);
        return r;
    }
    if (x86_unknown && p->missing_fail)
        snprintf(p->failure, sizeof p->failure,
                 "%s called %s, which hcpsim does not implement; --missing-imports=fail cannot return from it on "
                 "x86, where the callee pops arguments the spec does not describe",
                 p->name, full);
    else
        snprintf(p->failure, sizeof p->failure, "%s called %s, which hcpsim does not implement", p->name, full);
    p->failure_missing = true;
    observe(os, stub, full, t, NULL, 0, sim_clock(os->m), 0, false, false, false);
    sim_gate_end_call(t);
    return 0;
}

/* The work part of a call's cost (work=UNIT:N/D): ceil(units x N / D) kernel cycles, priced like the
 * call's kernel entry, so a cost table whose api_call_cycles is 0 (`unit`) makes it 0 too. */
static void charge_work(hcp_os *os, sim_thread *t, const hcp_export *e, uint64_t units) {
    if (!sim_machine_config(os->m)->cost.api_call_cycles) return;
    uint64_t q = units / e->work_den, rem = units % e->work_den;
    uint64_t cycles = q * e->work_num + (rem * e->work_num + e->work_den - 1) / e->work_den;
    sim_kernel_work(t, cycles);
}

static uint64_t dispatch(void *ud, sim_thread *t, uint32_t service, bool resumed, bool *pending) {
    hcp_os *os = ud;
    *pending = false;
    if (service >= HCP_SVC_MISSING) {
        hcp_process *p = os->proc;
        uint32_t k = service - HCP_SVC_MISSING;
        if (!p || k >= (uint32_t)p->nmissing) return STATUS_INVALID_SYSTEM_SERVICE;
        return missing_call(os, t, service, p->missing[k], NULL);
    }
    if (service >= HCP_EXPORT_ROWS) return STATUS_INVALID_SYSTEM_SERVICE;
    const hcp_export *e = &hcp_exports[service];
    /* the gate's own imports serve any guest code; the others are a process's */
    if ((int)service >= HCP_GATE_IMPORTS && !os->proc) return STATUS_INVALID_SYSTEM_SERVICE;
    if (e->kind == HCP_EXPORT_STUB) {
        char full[96];
        snprintf(full, sizeof full, "%s!%s", e->dll, e->name);
        return missing_call(os, t, service, full, e);
    }
    if (e->kind != HCP_EXPORT_FUNCTION) return STATUS_INVALID_SYSTEM_SERVICE;
    hcp_ctx c;
    ctx_init(&c, os, t, e);
    uint64_t start = sim_clock(os->m);
    if (resumed) { /* a call that blocked, now that its thread runs again */
        os_thread *ot = hcp_os_thread(os, t);
        uint64_t (*resume)(hcp_ctx *) = ot ? ot->resume : NULL;
        uint64_t r = resume ? resume(&c) : e->ret == HCP_T_VOID ? 0 : hcp_wait_result(os);
        if (e->ret == HCP_T_VOID) r = 0;
        if (c.failed) { /* the resumed work stopped the run */
            sim_gate_end_call(t);
            return 0;
        }
        if (c.pending) { /* it waits again (a lock it must take after a wake-up) */
            if (ot) ot->resume = c.resume;
            *pending = true;
            hcp_pool_on_block(&c);
            return 0;
        }
        r = narrow(&c, e->ret, r);
        observe(os, e, e->name, t, NULL, 0, start, seen(os, e->ret, r), false, true, true);
        return r;
    }
    uint64_t v[MAX_PARAMS] = {0};
    int got;
    if (!marshal(os, t, e, v, &got)) { /* an argument word the callee cannot read (32-bit guests: the stack) */
        observe(os, e, e->name, t, v, got, start, 0, false, false, false);
        if ((int)service < HCP_GATE_IMPORTS) { /* the gate's own: as their Lua forms answer a bad pointer */
            hcp_SetLastError(os, ERROR_NOACCESS);
            return 0;
        }
        hcp_bad(&c, 0, false);
        sim_gate_end_call(t);
        return 0;
    }
    int nfixed = e->nparams - ((e->flags & HCP_EX_VARARGS) ? 1 : 0);
    bool charge = e->cost == HCP_COST_CALL;
    if (charge) hcp_kernel_entry(os);
    os->entered = charge; /* api/ functions it calls charge no second entry */
    uint64_t r = e->call ? e->call(&c, v) : (e->flags & HCP_EX_TRUE) ? 1 : 0;
    os->entered = false;
    if (charge && c.work && e->work_den) charge_work(os, t, e, c.work);
    if (c.failed) {
        observe(os, e, e->name, t, v, nfixed, start, 0, false, false, false);
        sim_gate_end_call(t);
        return 0;
    }
    if (c.pending) {
        os_thread *ot = hcp_os_thread(os, t);
        if (ot) ot->resume = c.resume;
        *pending = true;
        observe(os, e, e->name, t, v, nfixed, start, 0, true, false, false);
        hcp_pool_on_block(&c); /* a pool worker that blocks may let its pool add a worker */
        return 0;
    }
    r = narrow(&c, e->ret, r);
    if (c.after && !hcp_after_commit(&c, r)) { /* guest code to run before the caller gets r */
        observe(os, e, e->name, t, v, nfixed, start, 0, false, false, false);
        sim_gate_end_call(t);
        return 0;
    }
    observe(os, e, e->name, t, v, nfixed, start, seen(os, e->ret, r), false, false, !(e->flags & HCP_EX_NORETURN));
    return r;
}

uint64_t hcp_call_again(hcp_ctx *c) {
    uint64_t v[MAX_PARAMS] = {0};
    int got;
    if (!marshal(c->os, c->t, c->ex, v, &got)) return hcp_bad(c, 0, false), 0;
    return c->ex->call ? c->ex->call(c, v) : 0;
}

uint64_t hcp_export_thunk(hcp_os *os, const hcp_export *e) {
    uint32_t svc = (uint32_t)hcp_export_service(e);
    if (e->conv == HCP_CC_STDCALL) sim_gate_set_pop(os->m, svc, 4u * (uint32_t)e->words);
    return sim_gate_thunk(os->m, svc);
}

int hcp_add_call_observer(hcp_os *os, hcp_call_fn fn, void *ud) {
    for (int i = 0; i < HCP_MAX_CALL_OBSERVERS; i++)
        if (!os->call_fn[i]) {
            os->call_fn[i] = fn;
            os->call_ud[i] = ud;
            return i;
        }
    return -1;
}

void hcp_remove_call_observer(hcp_os *os, int slot) {
    if (!os || slot < 0 || slot >= HCP_MAX_CALL_OBSERVERS) return;
    os->call_fn[slot] = NULL;
    os->call_ud[slot] = NULL;
}

/* One code point as UTF-8 into out[k..cap-1): the new k, or 0 when it does not fit. */
static size_t put_utf8(char *out, size_t k, size_t cap, uint32_t cp) {
    uint8_t b[4];
    size_t n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (n == 1) b[0] = (uint8_t)cp;
    if (n == 2) b[0] = (uint8_t)(0xC0 | cp >> 6);
    if (n == 3) b[0] = (uint8_t)(0xE0 | cp >> 12);
    if (n == 4) b[0] = (uint8_t)(0xF0 | cp >> 18);
    for (size_t i = 1; i < n; i++) b[i] = (uint8_t)(0x80 | (cp >> (6 * (n - 1 - i)) & 0x3F));
    if (k + n >= cap) return 0;
    memcpy(out + k, b, n);
    return k + n;
}

int hcp_guest_string(sim_machine *m, uint64_t at, bool wide, char *out, size_t cap) {
    size_t k = 0, unit = wide ? 2 : 1;
    if (cap < 8) return -1;
    for (uint64_t i = 0;; i++) {
        uint8_t b[2] = {0, 0};
        if (sim_mem_read(m, at + i * unit, b, unit) != SIM_OK) {
            if (!i) return -1;
            break; /* the rest is not readable: show what was */
        }
        uint32_t cp = wide ? (uint32_t)hcp_get16(b) : b[0];
        if (!cp) break;
        if (wide && cp >= 0xD800 && cp < 0xE000) cp = 0xFFFD; /* surrogates: not decoded here */
        size_t nk = put_utf8(out, k, cap - 3, cp);
        if (!nk) {
            memcpy(out + k, "...", 3);
            k += 3;
            break;
        }
        k = nk;
    }
    out[k] = '\0';
    return (int)k;
}

const char *hcp_import_name(int i) { return i >= 0 && i < HCP_GATE_IMPORTS ? hcp_exports[i].name : NULL; }

uint64_t hcp_import_address(const sim_machine *m, const char *name) {
    for (int i = 0; i < HCP_GATE_IMPORTS; i++)
        if (strcmp(hcp_exports[i].name, name) == 0) return sim_gate_thunk(m, (uint32_t)i);
    return 0;
}

void hcp_gate_attach(hcp_os *os) {
    sim_set_gate(os->m, dispatch, os);
    sim_set_gate_refusal(os->m, STATUS_INVALID_SYSTEM_SERVICE); /* a syscall no thunk serves */
    for (int i = 0; i < HCP_GATE_IMPORTS; i++) hcp_export_thunk(os, &hcp_exports[i]);
}

void hcp_gate_detach(hcp_os *os) {
    if (os) sim_set_gate(os->m, NULL, NULL);
}
