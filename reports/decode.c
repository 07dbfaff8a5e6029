/* reports/decode.c — an API call as a person reads it, for the Markdown and HTML reports:
 * the function's parameter names (as Microsoft's documentation names them), handles and
 * masks in hex, flags as their constant names, DWORD timeouts as INFINITE or milliseconds,
 * Win32 errors and NTSTATUS values by name, wait results as WAIT_*, and a
 * PERFORMANCE_DATA with its WaitReasonBitMap decoded to KWAIT_REASON names.
 * Functions the table does not know are shown with their raw values.
 * reports/SCHEMA.md "API calls in Markdown and HTML" lists the rules. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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
};

typedef struct param {
    const char *name;
    int kind;
} param;

#define MAXP 6
typedef struct fnspec {
    const char *fn;
    param lua[MAXP];   /* the Lua binding's arguments */
    param guest[MAXP]; /* the raw slots of a guest call, when they differ from lua (name NULL: same) */
    param res[MAXP];   /* the Lua results; a guest call's rax is res[0] */
} fnspec;

static const fnspec specs[] = {
    {"EnableThreadProfiling",
     {{"ThreadHandle", K_H}, {"Flags", K_PF}, {"HardwareCounters", K_X}},
     {{"ThreadHandle", K_H}, {"Flags", K_PF}, {"HardwareCounters", K_X}, {"PerformanceDataHandle", K_PTR}},
     {{"", K_ERR}, {"PerformanceDataHandle", K_H}}},
    {"DisableThreadProfiling", {{"PerformanceDataHandle", K_H}}, {{NULL, 0}}, {{"", K_ERR}}},
    {"QueryThreadProfiling",
     {{"ThreadHandle", K_H}},
     {{"ThreadHandle", K_H}, {"Enabled", K_PTR}},
     {{"", K_ERR}, {"Enabled", K_BOOL}}},
    {"ReadThreadProfilingData",
     {{"PerformanceDataHandle", K_H}, {"Flags", K_RF}, {"PerformanceData", K_ANY}},
     {{"PerformanceDataHandle", K_H}, {"Flags", K_RF}, {"PerformanceData", K_PTR}},
     {{"", K_ERR}, {"PerformanceData", K_PD}}},
    {"KeSetHardwareCounterConfiguration",
     {{"CounterArray", K_ANY}},
     {{"CounterArray", K_PTR}, {"Count", K_U}},
     {{"", K_NT}}},
    {"KeQueryHardwareCounterConfiguration",
     {{"MaximumCount", K_U}},
     {{"CounterArray", K_PTR}, {"MaximumCount", K_U}, {"Count", K_PTR}},
     {{"", K_NT}, {"CounterArray", K_ANY}, {"Count", K_U}, {"bytes", K_ANY}}},
    {"QueryThreadCycleTime",
     {{"ThreadHandle", K_H}},
     {{"ThreadHandle", K_H}, {"CycleTime", K_PTR}},
     {{"", K_BOOL}, {"CycleTime", K_U}}},
    {"GetThreadTimes",
     {{"hThread", K_H}},
     {{"hThread", K_H},
      {"lpCreationTime", K_PTR},
      {"lpExitTime", K_PTR},
      {"lpKernelTime", K_PTR},
      {"lpUserTime", K_PTR}},
     {{"", K_BOOL}, {"CreationTime", K_U}, {"ExitTime", K_U}, {"KernelTime", K_U}, {"UserTime", K_U}}},
    {"GetCurrentThread", {{NULL, 0}}, {{NULL, 0}}, {{"", K_H}}},
    {"GetCurrentThreadId", {{NULL, 0}}, {{NULL, 0}}, {{"", K_U}}},
    {"Sleep", {{"dwMilliseconds", K_MS}}, {{NULL, 0}}, {{NULL, 0}}},
    {"SwitchToThread", {{NULL, 0}}, {{NULL, 0}}, {{"", K_BOOL}}},
    {"WaitForSingleObject", {{"hHandle", K_H}, {"dwMilliseconds", K_MS}}, {{NULL, 0}}, {{"", K_WAIT}}},
    {"WaitForMultipleObjects",
     {{"lpHandles", K_ANY}, {"bWaitAll", K_BOOL}, {"dwMilliseconds", K_MS}},
     {{"nCount", K_U}, {"lpHandles", K_PTR}, {"bWaitAll", K_BOOL}, {"dwMilliseconds", K_MS}},
     {{"", K_WAIT}}},
    {"OpenThread",
     {{"dwDesiredAccess", K_X}, {"bInheritHandle", K_BOOL}, {"dwThreadId", K_U}},
     {{NULL, 0}},
     {{"", K_H}}},
    {"CloseHandle", {{"hObject", K_H}}, {{NULL, 0}}, {{"", K_BOOL}}},
    {"SetEvent", {{"hEvent", K_H}}, {{NULL, 0}}, {{"", K_BOOL}}},
    {"ResetEvent", {{"hEvent", K_H}}, {{NULL, 0}}, {{"", K_BOOL}}},
    {"ReleaseMutex", {{"hMutex", K_H}}, {{NULL, 0}}, {{"", K_BOOL}}},
    {"ReleaseSemaphore",
     {{"hSemaphore", K_H}, {"lReleaseCount", K_U}},
     {{"hSemaphore", K_H}, {"lReleaseCount", K_U}, {"lpPreviousCount", K_PTR}},
     {{"", K_BOOL}, {"PreviousCount", K_U}}},
    {"GetLastError", {{NULL, 0}}, {{NULL, 0}}, {{"", K_ERR}}},
    {"SetLastError", {{"dwErrCode", K_ERR}}, {{NULL, 0}}, {{NULL, 0}}},
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

static void put_value(sbuf *b, int kind, const json_t *v, bool guest) {
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
    case K_X: put(b, "0x%" PRIX64, guest ? (uint64_t)d : u); break;
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

static const fnspec *spec_of(const char *fn) {
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++)
        if (strcmp(specs[i].fn, fn) == 0) return &specs[i];
    return NULL;
}

char *rep_call_text(const char *fn, bool guest, const json_t *args, const json_t *results, bool done) {
    sbuf b = {0};
    const fnspec *sp = spec_of(fn);
    const param *ps = sp ? (guest && sp->guest[0].name ? sp->guest : sp->lua) : NULL;
    put(&b, "%s(", fn);
    for (size_t i = 0; json_is_array(args) && i < json_array_size(args); i++) {
        const param *p = ps && i < MAXP && ps[i].name ? &ps[i] : NULL;
        if (i) put(&b, ", ");
        if (p) put(&b, "%s=", p->name);
        put_value(&b, p ? p->kind : K_ANY, json_array_get(args, i), guest);
    }
    put(&b, ")");
    if (!done) {
        put(&b, " did not return");
    } else if (json_is_array(results) && json_array_size(results)) {
        put(&b, " → ");
        for (size_t i = 0; i < json_array_size(results); i++) {
            const param *p = sp && i < MAXP && sp->res[i].name ? &sp->res[i] : NULL;
            if (i) put(&b, ", ");
            if (p && *p->name) put(&b, "%s=", p->name);
            put_value(&b, p ? p->kind : K_ANY, json_array_get(results, i), guest);
        }
    }
    if (b.bad) {
        free(b.p);
        return NULL;
    }
    return b.p ? b.p : rep_dup_str("");
}
