/* reports/decode.c — an API call as a person reads it, for the Markdown and HTML reports:
 * the function's parameter names (as Microsoft's documentation names them), handles and
 * masks in hex, flags as their constant names, DWORD timeouts as INFINITE or milliseconds,
 * Win32 errors and NTSTATUS values by name, wait results as WAIT_*, and a
 * PERFORMANCE_DATA with its WaitReasonBitMap decoded to KWAIT_REASON names.
 * A guest call is read by its export's row of api/exports.spec (parameter names and types), a
 * Lua body's call by the binding's own table below; functions neither knows are shown raw.
 * reports/SCHEMA.md "API calls in Markdown and HTML" lists the rules. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "api/exports.h"
#include "reports/report_data.h"

/* Kinds of values. */
enum {
    K_ANY = 0, /* compact JSON */
    K_H,       /* handle: hex, 64 bits */
    K_X,       /* mask or access: hex */
    K_U,       /* unsigned count: decimal, digits grouped */
    K_PTR,     /* guest pointer: hex */
    K_MS,      /* DWORD milliseconds: INFINITE or "N ms" */
    K_ERR,     /* Win32 error code by name */
    K_NT,      /* NTSTATUS by name */
    K_WAIT,    /* wait result */
    K_BOOL,    /* BOOL / boolean */
    K_PF,      /* EnableThreadProfiling flags */
    K_RF,      /* ReadThreadProfilingData flags */
    K_PD,      /* PERFORMANCE_DATA (a Lua table) */
    K_I,       /* signed decimal */
    K_STR,     /* an input string: its text (JSON string), or its pointer when unreadable */
};

typedef struct param {
    const char *name;
    int kind;
} param;

#define MAXP 6
typedef struct fnspec {
    const char *fn;
    param lua[MAXP]; /* the Lua binding's arguments */
    param res[MAXP]; /* the Lua results */
} fnspec;

static const fnspec specs[] = {
    {"EnableThreadProfiling",
     {{"ThreadHandle", K_H}, {"Flags", K_PF}, {"HardwareCounters", K_X}},
     {{"", K_ERR}, {"PerformanceDataHandle", K_H}}},
    {"DisableThreadProfiling", {{"PerformanceDataHandle", K_H}}, {{"", K_ERR}}},
    {"QueryThreadProfiling", {{"ThreadHandle", K_H}}, {{"", K_ERR}, {"Enabled", K_BOOL}}},
    {"ReadThreadProfilingData",
     {{"PerformanceDataHandle", K_H}, {"Flags", K_RF}, {"PerformanceData", K_ANY}},
     {{"", K_ERR}, {"PerformanceData", K_PD}}},
    {"KeSetHardwareCounterConfiguration", {{"CounterArray", K_ANY}}, {{"", K_NT}}},
    {"KeQueryHardwareCounterConfiguration",
     {{"MaximumCount", K_U}},
     {{"", K_NT}, {"CounterArray", K_ANY}, {"Count", K_U}, {"bytes", K_ANY}}},
    {"QueryThreadCycleTime", {{"ThreadHandle", K_H}}, {{"", K_BOOL}, {"CycleTime", K_U}}},
    {"GetThreadTimes",
     {{"hThread", K_H}},
     {{"", K_BOOL}, {"CreationTime", K_U}, {"ExitTime", K_U}, {"KernelTime", K_U}, {"UserTime", K_U}}},
    {"GetCurrentThread", {{NULL, 0}}, {{"", K_H}}},
    {"GetCurrentThreadId", {{NULL, 0}}, {{"", K_U}}},
    {"Sleep", {{"dwMilliseconds", K_MS}}, {{NULL, 0}}},
    {"SwitchToThread", {{NULL, 0}}, {{"", K_BOOL}}},
    {"WaitForSingleObject", {{"hHandle", K_H}, {"dwMilliseconds", K_MS}}, {{"", K_WAIT}}},
    {"WaitForMultipleObjects", {{"lpHandles", K_ANY}, {"bWaitAll", K_BOOL}, {"dwMilliseconds", K_MS}}, {{"", K_WAIT}}},
    {"OpenThread", {{"dwDesiredAccess", K_X}, {"bInheritHandle", K_BOOL}, {"dwThreadId", K_U}}, {{"", K_H}}},
    {"CloseHandle", {{"hObject", K_H}}, {{"", K_BOOL}}},
    {"SetEvent", {{"hEvent", K_H}}, {{"", K_BOOL}}},
    {"ResetEvent", {{"hEvent", K_H}}, {{"", K_BOOL}}},
    {"ReleaseMutex", {{"hMutex", K_H}}, {{"", K_BOOL}}},
    {"ReleaseSemaphore", {{"hSemaphore", K_H}, {"lReleaseCount", K_U}}, {{"", K_BOOL}, {"PreviousCount", K_U}}},
    {"GetLastError", {{NULL, 0}}, {{"", K_ERR}}},
    {"SetLastError", {{"dwErrCode", K_ERR}}, {{NULL, 0}}},
};

/* ---- a growing string ---- */

typedef struct sbuf {
    char *p;
    size_t n, cap;
    bool bad;
} sbuf;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
put(sbuf *b, const char *fmt, ...) {
    if (b->bad) return;
    va_list ap;
    va_start(ap, fmt);
    char tmp[256];
    int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (k < 0) return;
    size_t len = (size_t)k < sizeof tmp ? (size_t)k : sizeof tmp - 1;
    if (b->n + len + 1 > b->cap) {
        size_t nc = b->cap ? b->cap : 128;
        while (nc < b->n + len + 1) nc *= 2;
        char *a = realloc(b->p, nc);
        if (!a) {
            b->bad = true;
            return;
        }
        b->p = a;
        b->cap = nc;
    }
    memcpy(b->p + b->n, tmp, len + 1);
    b->n += len;
}

static void put_json(sbuf *b, const json_t *v) {
    char *s = rep_compact(v);
    if (!s) {
        b->bad = true;
        return;
    }
    /* long values (a 16-element HwCounters array, a byte string) are cut: the JSON has them whole */
    size_t n = strlen(s);
    if (n > 160) memcpy(s + 157, "...", 4);
    put(b, "%s", s);
    free(s);
}

/* ---- values ---- */

static void put_wait_bits(sbuf *b, uint64_t bits) {
    put(b, "0x%" PRIX64, bits);
    if (!bits) return;
    put(b, " (");
    bool first = true;
    for (int i = 0; i < 64; i++)
        if (bits >> i & 1) {
            const char *n = i < SIM_WAIT_REASONS ? sim_wait_reason_name(i) : NULL;
            if (n)
                put(b, "%s%s", first ? "" : " | ", n);
            else
                put(b, "%sbit %d", first ? "" : " | ", i);
            first = false;
        }
    put(b, ")");
}

static void put_pd(sbuf *b, const json_t *pd) {
    if (!json_is_object(pd)) {
        put_json(b, pd);
        return;
    }
    static const char *const order[] = {"Size",      "Version",    "WaitReasonBitMap", "ContextSwitchCount",
                                        "CycleTime", "RetryCount", "HwCountersCount"};
    put(b, "{");
    for (size_t i = 0; i < sizeof order / sizeof *order; i++) {
        const json_t *v = json_object_get(pd, order[i]);
        if (!json_is_integer(v)) continue;
        put(b, "%s%s=", i ? ", " : "", order[i]);
        uint64_t u = (uint64_t)json_integer_value(v);
        if (strcmp(order[i], "WaitReasonBitMap") == 0)
            put_wait_bits(b, u);
        else
            put(b, "%s", rep_g(u));
    }
    const json_t *hw = json_object_get(pd, "HwCounters"), *cnt = json_object_get(pd, "HwCountersCount");
    size_t n = json_is_integer(cnt) ? (size_t)json_integer_value(cnt) : 0;
    if (json_is_array(hw) && n) {
        put(b, ", HwCounters=[");
        for (size_t i = 0; i < n && i < json_array_size(hw); i++) {
            const json_t *val = json_object_get(json_array_get(hw, i), "Value");
            put(b, "%s%s", i ? ", " : "", json_is_integer(val) ? rep_g((uint64_t)json_integer_value(val)) : "?");
        }
        put(b, "]");
    }
    put(b, "}");
}

static void put_value(sbuf *b, int kind, const json_t *v) {
    if (kind == K_PD) {
        put_pd(b, v);
        return;
    }
    if (kind == K_BOOL && json_is_boolean(v)) {
        put(b, "%s", json_is_true(v) ? "TRUE" : "FALSE");
        return;
    }
    if (!json_is_integer(v) || kind == K_ANY) {
        put_json(b, v);
        return;
    }
    uint64_t u = (uint64_t)json_integer_value(v);
    uint32_t d = (uint32_t)u; /* a DWORD, from a raw 64-bit slot too */
    const char *n;
    switch (kind) {
    case K_H:
    case K_PTR: put(b, "0x%" PRIX64, u); break;
    case K_X: put(b, "0x%" PRIX64, u); break;
    case K_U: put(b, "%s", rep_g(u)); break;
    case K_MS:
        if (d == 0xFFFFFFFFu)
            put(b, "INFINITE");
        else
            put(b, "%s ms", rep_g(d));
        break;
    case K_ERR:
        n = hcp_error_name(d);
        if (n)
            put(b, "%s", n);
        else
            put(b, "%" PRIu32, d);
        break;
    case K_NT:
        n = hcp_status_name(d);
        if (n)
            put(b, "%s", n);
        else
            put(b, "0x%08" PRIX32, d);
        break;
    case K_WAIT:
        if (d < 64)
            put(b, d ? "WAIT_OBJECT_0+%" PRIu32 : "WAIT_OBJECT_0", d);
        else if (d >= 0x80 && d < 0x80 + 64)
            put(b, d > 0x80 ? "WAIT_ABANDONED_0+%" PRIu32 : "WAIT_ABANDONED_0", d - 0x80);
        else if (d == 0x102)
            put(b, "WAIT_TIMEOUT");
        else if (d == 0xFFFFFFFFu)
            put(b, "WAIT_FAILED");
        else
            put(b, "%" PRIu32, d);
        break;
    case K_BOOL: put(b, "%s", d ? "TRUE" : "FALSE"); break;
    case K_I: put(b, "%" PRId64, (int64_t)u); break;
    case K_STR: put(b, "0x%" PRIX64, u); break; /* a string that was not readable: its pointer */
    case K_PF:
        if (d == 1)
            put(b, "THREAD_PROFILING_FLAG_DISPATCH");
        else if (d & 1)
            put(b, "THREAD_PROFILING_FLAG_DISPATCH | 0x%" PRIX32, d & ~1u);
        else
            put(b, d ? "0x%" PRIX32 : "0", d);
        break;
    case K_RF:
        if (!d) {
            put(b, "0");
            break;
        }
        if (d & 1) put(b, "READ_THREAD_PROFILING_FLAG_DISPATCHING%s", d & ~1u ? " | " : "");
        if (d & 2) put(b, "READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS%s", d & ~3u ? " | " : "");
        if (d & ~3u) put(b, "0x%" PRIX32, d & ~3u);
        break;
    default: put(b, "%" PRId64, (int64_t)u);
    }
}

/* A guest call's argument as the report keeps it (reports/SCHEMA.md "api"): by its spec type, an
 * input string as its text (or its pointer when unreadable), a floating-point value as "%.17g",
 * a signed type as its signed value, anything else as the normalised integer. */
json_t *rep_guest_arg(sim_machine *m, hcp_type type, uint64_t v) {
    char buf[264];
    if (type == HCP_T_STR || type == HCP_T_WSTR) {
        if (v && m && hcp_guest_string(m, v, type == HCP_T_WSTR, buf, sizeof buf) >= 0) return json_string(buf);
        return json_integer((json_int_t)v);
    }
    if (type == HCP_T_F64 || type == HCP_T_F32) {
        double d;
        if (type == HCP_T_F64) {
            memcpy(&d, &v, sizeof d);
        } else {
            uint32_t b = (uint32_t)v;
            float f;
            memcpy(&f, &b, sizeof f);
            d = f;
        }
        snprintf(buf, sizeof buf, "%.17g", d);
        return json_string(buf);
    }
    if (type == HCP_T_INT) return json_integer((json_int_t)(int32_t)(uint32_t)v);
    return json_integer((json_int_t)v);
}

/* How a parameter or result of an export's type is shown (api/exports.h). */
static int kind_of(hcp_type t) {
    switch (t) {
    case HCP_T_HANDLE: return K_H;
    case HCP_T_PTR:
    case HCP_T_VALIST: return K_PTR;
    case HCP_T_DWORD:
    case HCP_T_SIZE:
    case HCP_T_U64: return K_U;
    case HCP_T_MASK:
    case HCP_T_MASK64: return K_X;
    case HCP_T_TIMEOUT: return K_MS;
    case HCP_T_INT:
    case HCP_T_SSIZE:
    case HCP_T_I64: return K_I;
    case HCP_T_BOOL: return K_BOOL;
    case HCP_T_STR:
    case HCP_T_WSTR: return K_STR;
    case HCP_T_ERRCODE: return K_ERR;
    case HCP_T_NTSTATUS: return K_NT;
    case HCP_T_WAITRES: return K_WAIT;
    case HCP_T_PFLAGS: return K_PF;
    case HCP_T_RFLAGS: return K_RF;
    case HCP_T_F64:
    case HCP_T_F32:
    case HCP_T_VOID:
    case HCP_T_VARARGS: break;
    }
    return K_ANY;
}

static const fnspec *spec_of(const char *fn) {
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++)
        if (strcmp(specs[i].fn, fn) == 0) return &specs[i];
    return NULL;
}

char *rep_call_text(const char *fn, bool guest, const json_t *args, const json_t *results, bool done) {
    sbuf b = {0};
    /* a guest call is read by its export's spec row; a Lua call by the binding's own table */
    const hcp_export *ex = guest ? hcp_export_named(fn) : NULL;
    const fnspec *sp = guest ? NULL : spec_of(fn);
    put(&b, "%s(", fn);
    for (size_t i = 0; json_is_array(args) && i < json_array_size(args); i++) {
        const char *name = NULL;
        int kind = K_ANY;
        if (ex && i < (size_t)ex->nparams) {
            name = ex->params[i].name;
            kind = kind_of(ex->params[i].type);
        } else if (sp && i < MAXP && sp->lua[i].name) {
            name = sp->lua[i].name;
            kind = sp->lua[i].kind;
        }
        if (i) put(&b, ", ");
        if (name) put(&b, "%s=", name);
        put_value(&b, kind, json_array_get(args, i));
    }
    put(&b, ")");
    if (!done) {
        put(&b, " did not return");
    } else if (json_is_array(results) && json_array_size(results) && !(ex && ex->ret == HCP_T_VOID)) {
        put(&b, " → ");
        for (size_t i = 0; i < json_array_size(results); i++) {
            const param *p = sp && i < MAXP && sp->res[i].name ? &sp->res[i] : NULL;
            int kind = ex && !i ? kind_of(ex->ret) : p ? p->kind : K_ANY;
            if (i) put(&b, ", ");
            if (p && *p->name) put(&b, "%s=", p->name);
            put_value(&b, kind, json_array_get(results, i));
        }
    }
    if (b.bad) {
        free(b.p);
        return NULL;
    }
    return b.p ? b.p : rep_dup_str("");
}
