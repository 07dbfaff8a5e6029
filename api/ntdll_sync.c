/* api/ntdll_sync.c — ntdll's keyed events and thread information (api/README.md
 * "Synchronisation", "Processes and processors").
 *
 * A keyed event pairs a waiter and a releaser of the same key: NtWaitForKeyedEvent returns when
 * a release of its key comes (or at once when a releaser already waits), NtReleaseKeyedEvent
 * when a waiter of its key takes it (or at once when one already waits); both wait with
 * WrKeyedEvent (21), FIFO per key.  A NULL handle is the system's keyed event
 * (\KernelObjects\CritSecOutOfMemoryEvent), which NtOpenKeyedEvent also opens by that name. */
#include <stdlib.h>

#include "api/sync_int.h"

#define KEYED_NAME "\\KernelObjects\\CritSecOutOfMemoryEvent"
#define STATUS_INSUFFICIENT_RESOURCES 0xC000009Au

/* A handle that could not be made: a full table, or host memory. */
static uint32_t no_handle(hcp_ctx *c) {
    return hcp_handle_error(c->os) == ERROR_NO_SYSTEM_RESOURCES ? STATUS_INSUFFICIENT_RESOURCES : STATUS_NO_MEMORY;
}

/* The keyed event of handle h (0: the system's) with `access`: its identity object. */
static uint32_t ref_keyed(hcp_ctx *c, uint64_t h, uint32_t access, sim_object **o) {
    if (!h) {
        hcp_xproc *x = hcp_xproc_of(c);
        if (!x) return STATUS_NO_MEMORY;
        if (!x->global_keyed && !(x->global_keyed = sim_event_new(c->m, true, false))) return STATUS_NO_MEMORY;
        *o = x->global_keyed;
        return STATUS_SUCCESS;
    }
    obj_type type;
    return hcp_ref_object(c->os, h, OBJ_KEYEDEVENT, access, &type, o);
}

/* The UNICODE_STRING of an OBJECT_ATTRIBUTES' ObjectName as ASCII ('?' above 255); "" for none. */
static bool attr_name(hcp_ctx *c, uint64_t attr, char *out, size_t cap) {
    out[0] = '\0';
    uint64_t us = 0;
    if (!attr || !hcp_rdp(c, attr + 2u * c->w, &us) || !us) return !c->failed;
    uint8_t b[2];
    uint64_t buf;
    if (!hcp_rd(c, us, b, 2) || !hcp_rdp(c, us + c->w, &buf)) return false;
    size_t n = hcp_get16(b) / 2u;
    if (n >= cap) n = cap - 1;
    for (size_t i = 0; i < n; i++) {
        uint8_t ch[2];
        if (!hcp_rd(c, buf + 2 * i, ch, 2)) return false;
        uint16_t u = hcp_get16(ch);
        out[i] = (char)(u < 256 ? u : '?');
    }
    out[n] = '\0';
    return true;
}

uint64_t hcp_nt_NtCreateKeyedEvent(hcp_ctx *c, const hcp_nt_NtCreateKeyedEvent_args *a) {
    if (a->Flags) return STATUS_INVALID_PARAMETER_4;
    char name[160];
    if (!attr_name(c, a->ObjectAttributes, name, sizeof name)) return STATUS_ACCESS_VIOLATION;
    if (name[0]) return STATUS_NOT_SUPPORTED; /* named keyed events are not simulated */
    if (sim_mem_probe(c->m, a->KeyedEventHandle, c->w, true) != SIM_OK) return STATUS_ACCESS_VIOLATION;
    sim_object *o = sim_event_new(c->m, true, false); /* its identity: never waited on */
    uint64_t h =
        o ? hcp_handle_new(c->os, OBJ_KEYEDEVENT, NULL, o, hcp_map_access(OBJ_KEYEDEVENT, a->DesiredAccess)) : 0;
    if (!h) return no_handle(c);
    hcp_wrp(c, a->KeyedEventHandle, h);
    return STATUS_SUCCESS;
}

uint64_t hcp_nt_NtOpenKeyedEvent(hcp_ctx *c, const hcp_nt_NtOpenKeyedEvent_args *a) {
    char name[160];
    if (!attr_name(c, a->ObjectAttributes, name, sizeof name)) return STATUS_ACCESS_VIOLATION;
    if (strcmp(name, KEYED_NAME) != 0) return STATUS_OBJECT_NAME_NOT_FOUND;
    sim_object *o;
    uint32_t st = ref_keyed(c, 0, 0, &o);
    if (st != STATUS_SUCCESS) return st;
    if (sim_mem_probe(c->m, a->KeyedEventHandle, c->w, true) != SIM_OK) return STATUS_ACCESS_VIOLATION;
    uint64_t h = hcp_handle_new(c->os, OBJ_KEYEDEVENT, NULL, o, hcp_map_access(OBJ_KEYEDEVENT, a->DesiredAccess));
    if (!h) return no_handle(c);
    hcp_wrp(c, a->KeyedEventHandle, h);
    return STATUS_SUCCESS;
}

static uint64_t keyed_resumed(hcp_ctx *c) {
    uint32_t st;
    bool paired = hcp_park_end(c, &st);
    if (paired) return STATUS_SUCCESS;
    if (st == STATUS_USER_APC) {
        hcp_apc_deliver(c, STATUS_USER_APC);
        return STATUS_USER_APC;
    }
    return STATUS_TIMEOUT;
}

/* One side of the rendezvous: `mine` is the caller's queue kind, `other` the partner's. */
static uint64_t keyed(hcp_ctx *c, uint64_t h, uint64_t key, uint32_t alertable, uint64_t tmo, bool wait) {
    sim_object *o;
    uint32_t st = ref_keyed(c, h, wait ? KEYEDEVENT_WAIT : KEYEDEVENT_WAKE, &o);
    if (st != STATUS_SUCCESS) return st;
    if (key & 1) return STATUS_INVALID_PARAMETER_1;
    uint64_t t;
    if (!hcp_nt_timeout(c, tmo, &t)) return 0;
    int id = (int)sim_object_id(o) << 8;
    int mine = (wait ? PQ_KEYED_WAIT : PQ_KEYED_REL) | id, other = (wait ? PQ_KEYED_REL : PQ_KEYED_WAIT) | id;
    sim_thread *p = hcp_parked_first(c, other, key, NULL);
    if (p) {
        hcp_unpark(c, p, true);
        sim_sched_preempt_pending(c->t);
        return STATUS_SUCCESS;
    }
    uint32_t r = hcp_park(c, mine, key, 0, t, SIM_WR_KEYED_EVENT, (alertable & 0xFF) != 0, keyed_resumed);
    if (r == HCP_PENDING || c->failed) return 0;
    if (r == STATUS_USER_APC) {
        uint32_t s2;
        hcp_park_end(c, &s2);
        hcp_apc_deliver(c, STATUS_USER_APC);
        return STATUS_USER_APC;
    }
    return keyed_resumed(c);
}

uint64_t hcp_nt_NtWaitForKeyedEvent(hcp_ctx *c, const hcp_nt_NtWaitForKeyedEvent_args *a) {
    return keyed(c, a->KeyedEventHandle, a->Key, a->Alertable, a->Timeout, true);
}
uint64_t hcp_nt_NtReleaseKeyedEvent(hcp_ctx *c, const hcp_nt_NtReleaseKeyedEvent_args *a) {
    return keyed(c, a->KeyedEventHandle, a->Key, a->Alertable, a->Timeout, false);
}

/* ---- NtQueryInformationThread / NtSetInformationThread ---- */

enum {
    ThreadBasicInformation = 0,
    ThreadTimes = 1,
    ThreadPriority = 2,
    ThreadBasePriority = 3,
    ThreadAffinityMask = 4,
    ThreadAmILastThread = 12,
    ThreadIdealProcessor = 13,
    ThreadPriorityBoost = 14,
    ThreadHideFromDebugger = 17,
    ThreadIsTerminated = 20,
    ThreadCycleTime = 23,
    ThreadGroupInformation = 30,
    ThreadIdealProcessorEx = 33,
    ThreadNameInformation = 38,
};

uint64_t hcp_k32_SetThreadDescription(hcp_ctx *c, const hcp_k32_SetThreadDescription_args *a);
uint64_t hcp_k32_SetThreadPriority(hcp_ctx *c, const hcp_k32_SetThreadPriority_args *a);
uint64_t hcp_k32_SetThreadGroupAffinity(hcp_ctx *c, const hcp_k32_SetThreadGroupAffinity_args *a);

static uint32_t out(hcp_ctx *c, uint64_t buf, uint32_t len, uint64_t retlen, const uint8_t *b, uint32_t n, bool exact) {
    if (exact ? len != n : len < n) {
        if (retlen) hcp_wr32(c, retlen, n);
        return exact ? STATUS_INFO_LENGTH_MISMATCH : STATUS_BUFFER_TOO_SMALL;
    }
    if (!hcp_wr(c, buf, b, n)) return STATUS_ACCESS_VIOLATION;
    if (retlen && !hcp_wr32(c, retlen, n)) return STATUS_ACCESS_VIOLATION;
    return STATUS_SUCCESS;
}

uint64_t hcp_nt_NtQueryInformationThread(hcp_ctx *c, const hcp_nt_NtQueryInformationThread_args *a) {
    sim_thread *t;
    uint32_t st = hcp_ref_thread(c->os, a->ThreadHandle, THREAD_QUERY_LIMITED_INFORMATION, &t);
    if (st != STATUS_SUCCESS) return st;
    unsigned w = c->w;
    uint8_t b[64] = {0};
    hcp_xthread *x = hcp_xthread_of(c->os, t);
    switch (a->ThreadInformationClass) {
    case ThreadBasicInformation: { /* ExitStatus, TebBaseAddress, ClientId, AffinityMask, Priority, BasePriority */
        hcp_pthread *r = hcp_process_thread(c->p, t);
        uint32_t n = w == 8 ? 48 : 28;
        hcp_put32(b, sim_thread_state_of(t) == SIM_TS_TERMINATED ? sim_thread_exit_code(t) : STATUS_PENDING);
        unsigned o = w == 8 ? 8 : 4;
        uint64_t v[4] = {r ? r->teb : 0, HCP_ETW_PROCESS_ID, sim_thread_id(t), sim_thread_affinity(t)};
        for (int i = 0; i < 4; i++, o += w) {
            if (w == 8)
                hcp_put64(b + o, v[i]);
            else
                hcp_put32(b + o, (uint32_t)v[i]);
        }
        hcp_put32(b + o, (uint32_t)sim_thread_priority(t));
        hcp_put32(b + o + 4, (uint32_t)sim_thread_priority(t));
        return out(c, a->ThreadInformation, a->ThreadInformationLength, a->ReturnLength, b, n, true);
    }
    case ThreadTimes: {
        if (a->ThreadInformationLength != 32) return STATUS_INFO_LENGTH_MISMATCH;
        uint64_t p = a->ThreadInformation;
        if (!hcp_GetThreadTimes(c->os, a->ThreadHandle, p, p + 8, p + 16, p + 24))
            return hcp_GetLastError(c->os) == ERROR_ACCESS_DENIED ? STATUS_ACCESS_DENIED : STATUS_ACCESS_VIOLATION;
        if (a->ReturnLength && !hcp_wr32(c, a->ReturnLength, 32)) return STATUS_ACCESS_VIOLATION;
        return STATUS_SUCCESS;
    }
    case ThreadAmILastThread: {
        hcp_put32(b, t == c->t && c->p && hcp_process_live_threads(c->p) == 1);
        return out(c, a->ThreadInformation, a->ThreadInformationLength, a->ReturnLength, b, 4, true);
    }
    case ThreadPriorityBoost:
        hcp_put32(b, x && x->boost_off);
        return out(c, a->ThreadInformation, a->ThreadInformationLength, a->ReturnLength, b, 4, true);
    case ThreadIsTerminated:
        hcp_put32(b, sim_thread_state_of(t) == SIM_TS_TERMINATED);
        return out(c, a->ThreadInformation, a->ThreadInformationLength, a->ReturnLength, b, 4, true);
    case ThreadHideFromDebugger:
        b[0] = x && x->hide_debugger;
        return out(c, a->ThreadInformation, a->ThreadInformationLength, a->ReturnLength, b, 1, true);
    case ThreadCycleTime: /* AccumulatedCycles, CurrentCycleCount (0: not running now) */
        hcp_put64(b, sim_thread_cycle_time(t));
        return out(c, a->ThreadInformation, a->ThreadInformationLength, a->ReturnLength, b, 16, true);
    case ThreadGroupInformation:
        if (w == 8)
            hcp_put64(b, sim_thread_affinity(t));
        else
            hcp_put32(b, (uint32_t)sim_thread_affinity(t));
        return out(c, a->ThreadInformation, a->ThreadInformationLength, a->ReturnLength, b, w == 8 ? 16 : 12, true);
    case ThreadIdealProcessorEx:
        b[2] = (uint8_t)sim_thread_ideal(t);
        return out(c, a->ThreadInformation, a->ThreadInformationLength, a->ReturnLength, b, 4, true);
    case ThreadNameInformation: { /* a UNICODE_STRING, its characters right after it */
        uint32_t us = w == 8 ? 16 : 8, len = x && x->desc ? 2u * (uint32_t)x->ndesc : 0, n = us + len;
        if (a->ThreadInformationLength < n) {
            if (a->ReturnLength) hcp_wr32(c, a->ReturnLength, n);
            return STATUS_BUFFER_TOO_SMALL;
        }
        hcp_put16(b, (uint16_t)len);
        hcp_put16(b + 2, (uint16_t)len);
        uint64_t at = len ? a->ThreadInformation + us : 0;
        if (w == 8)
            hcp_put64(b + 8, at);
        else
            hcp_put32(b + 4, (uint32_t)at);
        if (!hcp_wr(c, a->ThreadInformation, b, us)) return STATUS_ACCESS_VIOLATION;
        for (uint32_t i = 0; i < len / 2; i++)
            if (!hcp_wr16(c, a->ThreadInformation + us + 2 * i, x->desc[i])) return STATUS_ACCESS_VIOLATION;
        if (a->ReturnLength && !hcp_wr32(c, a->ReturnLength, n)) return STATUS_ACCESS_VIOLATION;
        return STATUS_SUCCESS;
    }
    default: return STATUS_INVALID_INFO_CLASS;
    }
}

uint64_t hcp_nt_NtSetInformationThread(hcp_ctx *c, const hcp_nt_NtSetInformationThread_args *a) {
    uint32_t len = a->ThreadInformationLength;
    uint32_t need = 0;
    switch (a->ThreadInformationClass) {
    case ThreadPriority:
    case ThreadBasePriority:
    case ThreadIdealProcessor:
    case ThreadPriorityBoost: need = 4; break;
    case ThreadAffinityMask: need = c->w; break;
    case ThreadHideFromDebugger: need = 0; break;
    case ThreadGroupInformation: need = c->w == 8 ? 16 : 12; break;
    case ThreadNameInformation: need = c->w == 8 ? 16 : 8; break;
    default: return STATUS_INVALID_INFO_CLASS;
    }
    if (len != need) return STATUS_INFO_LENGTH_MISMATCH;
    uint32_t access =
        a->ThreadInformationClass == ThreadNameInformation || a->ThreadInformationClass == ThreadPriority ||
                a->ThreadInformationClass == ThreadBasePriority || a->ThreadInformationClass == ThreadPriorityBoost
            ? THREAD_SET_LIMITED_INFORMATION
            : THREAD_SET_INFORMATION;
    sim_thread *t;
    uint32_t st = hcp_ref_thread(c->os, a->ThreadHandle, access, &t);
    if (st != STATUS_SUCCESS) return st;
    uint8_t b[16] = {0};
    if (need && !hcp_rd(c, a->ThreadInformation, b, need)) return STATUS_ACCESS_VIOLATION;
    hcp_xthread *x = hcp_xthread_of(c->os, t);
    switch (a->ThreadInformationClass) {
    case ThreadPriority: { /* an absolute priority, 1..31 */
        int32_t p = (int32_t)hcp_get32(b);
        if (p < 1 || p > 31) return STATUS_INVALID_PARAMETER;
        sim_thread_set_priority(t, p);
        sim_sched_preempt_pending(c->t);
        return STATUS_SUCCESS;
    }
    case ThreadBasePriority: { /* an increment over the class's base, as SetThreadPriority's */
        hcp_k32_SetThreadPriority_args sa = {a->ThreadHandle, (int32_t)hcp_get32(b)};
        uint32_t saved = hcp_GetLastError(c->os);
        uint64_t ok = hcp_k32_SetThreadPriority(c, &sa);
        hcp_SetLastError(c->os, saved);
        return ok ? STATUS_SUCCESS : STATUS_INVALID_PARAMETER;
    }
    case ThreadAffinityMask: {
        uint64_t mask = c->w == 8 ? hcp_get64(b) : hcp_get32(b), old;
        return sim_thread_set_affinity(t, mask, &old) == SIM_OK ? STATUS_SUCCESS : STATUS_INVALID_PARAMETER;
    }
    case ThreadIdealProcessor: { /* the previous ideal processor is the call's result */
        int prev = sim_thread_set_ideal(t, (int)hcp_get32(b));
        return prev < 0 ? STATUS_INVALID_PARAMETER : (uint32_t)prev;
    }
    case ThreadPriorityBoost:
        if (x) x->boost_off = hcp_get32(b) != 0;
        return STATUS_SUCCESS;
    case ThreadHideFromDebugger:
        if (x) x->hide_debugger = true;
        return STATUS_SUCCESS;
    case ThreadGroupInformation: {
        hcp_k32_SetThreadGroupAffinity_args ga = {a->ThreadHandle, a->ThreadInformation, 0};
        uint32_t saved = hcp_GetLastError(c->os);
        uint64_t ok = hcp_k32_SetThreadGroupAffinity(c, &ga);
        hcp_SetLastError(c->os, saved);
        return ok ? STATUS_SUCCESS : STATUS_INVALID_PARAMETER;
    }
    case ThreadNameInformation: { /* a UNICODE_STRING: its characters, not NUL-terminated */
        uint16_t n = hcp_get16(b);
        uint64_t buf = c->w == 8 ? hcp_get64(b + 8) : hcp_get32(b + 4);
        if (n & 1) return STATUS_INVALID_PARAMETER;
        uint16_t *d = malloc((size_t)n + 2);
        if (!d) return STATUS_NO_MEMORY;
        for (uint16_t i = 0; i < n / 2; i++) {
            uint8_t ch[2];
            if (!hcp_rd(c, buf + 2u * i, ch, 2)) {
                free(d);
                return STATUS_ACCESS_VIOLATION;
            }
            d[i] = hcp_get16(ch);
        }
        d[n / 2] = 0;
        if (!x) {
            free(d);
            return STATUS_NO_MEMORY;
        }
        free(x->desc);
        x->desc = d;
        x->ndesc = n / 2;
        return STATUS_SUCCESS;
    }
    default: return STATUS_INVALID_INFO_CLASS;
    }
}

uint64_t hcp_nt_NtGetCurrentProcessorNumber(hcp_ctx *c) { return (uint32_t)sim_thread_cpu(c->t); }
