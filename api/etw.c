/* api/etw.c — the NT Kernel Logger's thread events (HCP-SPEC §7).
 *
 * A session observes the scheduler's records and turns them into ETW events,
 * byte-exact: a 48-byte EVENT_TRACE_HEADER (§7.4) then the MOF payload in
 * declaration order (§7.3) — Thread_TypeGroup1 V3 for Start, End, DCStart and
 * DCEnd, CSwitch and ReadyThread (class Thread_V2).  Events are handed to the
 * sink as the simulator records them.  api/README.md "ETW" states every
 * value; the rules in short:
 *   context   the thread the event is logged in: a Start in its creator's,
 *             an End in the exiting thread's, a CSwitch in the outgoing
 *             thread's, a ReadyThread in the readying thread's; 0/0 for none
 *             (before m:run, an idle CPU)
 *   TimeStamp boot_time + the event's virtual time in 100 ns (a FILETIME)
 *   Kernel/UserTime  the context thread's, in clock ticks (TimerResolution = tick) */
#include <string.h>

#include "api/api_int.h"

#define HUNDRED_NS_PER_S 10000000u
#define P 8 /* pointer-sized MOF fields: the 64-bit logger (win10-x64) */
#define SUPPORTED_FLAGS (EVENT_TRACE_FLAG_THREAD | EVENT_TRACE_FLAG_CSWITCH | EVENT_TRACE_FLAG_DISPATCHER)
#define THREAD_VERSION 3 /* class Thread, EventVersion(3) (SEED3) */
#define V2_VERSION 2     /* class Thread_V2: CSwitch, ReadyThread */
#define PAGE_PRIORITY 5  /* MEMORY_PRIORITY_NORMAL, Windows' default page priority */
#define IO_PRIORITY 2    /* IoPriorityNormal */
#define READY_FROM_DPC 0x1

/* ThreadGuid {3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c}: Data1..Data3 little-endian, Data4 as is. */
static const uint8_t thread_guid[16] = {0xd1, 0xa8, 0x6f, 0x3d, 0x05, 0xfe, 0xd0, 0x11,
                                        0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c};

/* Thread_TypeGroup1 (E1): 72 bytes for the 64-bit logger. */
static const hcp_etw_field thread_fields[] = {
    {"ProcessId", 0, 4, false},      {"TThreadId", 4, 4, false},       {"StackBase", 8, P, false},
    {"StackLimit", 16, P, false},    {"UserStackBase", 24, P, false},  {"UserStackLimit", 32, P, false},
    {"Affinity", 40, P, false},      {"Win32StartAddr", 48, P, false}, {"TebBase", 56, P, false},
    {"SubProcessTag", 64, 4, false}, {"BasePriority", 68, 1, false},   {"PagePriority", 69, 1, false},
    {"IoPriority", 70, 1, false},    {"ThreadFlags", 71, 1, false},
};
enum { TF_N = sizeof thread_fields / sizeof thread_fields[0] };

/* CSwitch (E5): 24 bytes. */
static const hcp_etw_field cswitch_fields[] = {
    {"NewThreadId", 0, 4, false},         {"OldThreadId", 4, 4, false},
    {"NewThreadPriority", 8, 1, true},    {"OldThreadPriority", 9, 1, true},
    {"PreviousCState", 10, 1, false},     {"SpareByte", 11, 1, true},
    {"OldThreadWaitReason", 12, 1, true}, {"OldThreadWaitMode", 13, 1, true},
    {"OldThreadState", 14, 1, true},      {"OldThreadWaitIdealProcessor", 15, 1, true},
    {"NewThreadWaitTime", 16, 4, false},  {"Reserved", 20, 4, false},
};
enum { CF_N = sizeof cswitch_fields / sizeof cswitch_fields[0] };

/* ReadyThread (E6): 8 bytes. */
static const hcp_etw_field ready_fields[] = {
    {"TThreadId", 0, 4, false}, {"AdjustReason", 4, 1, true}, {"AdjustIncrement", 5, 1, true},
    {"Flag", 6, 1, true},       {"Reserved", 7, 1, true},
};
enum { RF_N = sizeof ready_fields / sizeof ready_fields[0] };

const hcp_etw_field *hcp_etw_payload_fields(uint8_t type, int *n, const char **name) {
    static const char *const thread_names[] = {"Start", "End", "DCStart", "DCEnd"};
    if (type >= EVENT_TRACE_TYPE_START && type <= EVENT_TRACE_TYPE_DC_END) {
        if (name) *name = thread_names[type - 1];
        *n = TF_N;
        return thread_fields;
    }
    if (type == EVENT_TRACE_TYPE_CSWITCH) {
        if (name) *name = "CSwitch";
        *n = CF_N;
        return cswitch_fields;
    }
    if (type == EVENT_TRACE_TYPE_READYTHREAD) {
        if (name) *name = "ReadyThread";
        *n = RF_N;
        return ready_fields;
    }
    if (name) *name = NULL;
    *n = 0;
    return NULL;
}

/* Writes the values in field order; returns the payload size. */
static size_t pack(uint8_t *p, const hcp_etw_field *f, int n, const uint64_t *v) {
    for (int i = 0; i < n; i++) {
        if (f[i].size == 8)
            hcp_put64(p + f[i].offset, v[i]);
        else if (f[i].size == 4)
            hcp_put32(p + f[i].offset, (uint32_t)v[i]);
        else
            p[f[i].offset] = (uint8_t)v[i];
    }
    return (size_t)f[n - 1].offset + f[n - 1].size;
}

/* ---- logging --------------------------------------------------------------------------------- */

typedef struct ctx {
    const sim_thread *t; /* the thread the event is logged in, NULL = system/idle (0/0) */
    uint64_t time;       /* virtual time, cycles */
    int cpu;
} ctx;

static void emit(hcp_os *os, const ctx *c, uint8_t type, uint16_t version, const hcp_etw_field *f, int n,
                 const uint64_t *v) {
    const sim_config *cfg = sim_machine_config(os->m);
    uint8_t ev[HCP_ETW_HEADER_SIZE + 72];
    size_t size = HCP_ETW_HEADER_SIZE + pack(ev + HCP_ETW_HEADER_SIZE, f, n, v);
    uint32_t kt = 0, ut = 0;
    if (c->t) {
        const pmu_bank *b = sim_thread_bank(c->t);
        kt = (uint32_t)(sim_mul_div(b->kev[PMU_EV_CYCLES] - b->intr_cycles, HUNDRED_NS_PER_S, cfg->frequency) /
                        cfg->tick);
        ut = (uint32_t)sim_thread_ticks(c->t);
    }
    hcp_put16(ev, (uint16_t)size);
    hcp_put16(ev + 2, 0); /* FieldTypeFlags: HeaderType, MarkerFlags */
    ev[4] = type;         /* Class.Type */
    ev[5] = 0;            /* Class.Level */
    hcp_put16(ev + 6, version);
    hcp_put32(ev + 8, c->t ? sim_thread_id(c->t) : 0);
    hcp_put32(ev + 12, c->t ? HCP_ETW_PROCESS_ID : 0);
    hcp_put64(ev + 16, cfg->boot_time + sim_mul_div(c->time, HUNDRED_NS_PER_S, cfg->frequency));
    memcpy(ev + 24, thread_guid, sizeof thread_guid);
    hcp_put32(ev + 40, kt);
    hcp_put32(ev + 44, ut);
    hcp_etw_event e = {ev, size, c->cpu < 0 ? 0 : c->cpu};
    os->etw.in_sink = true;
    os->etw.sink(os->etw.ud, &e);
    os->etw.in_sink = false;
}

/* Start, End, DCStart or DCEnd of thread t (Thread_TypeGroup1 V3). */
static void log_thread(hcp_os *os, const ctx *c, uint8_t type, const sim_thread *t) {
    uint64_t lo, hi;
    sim_thread_stack(t, &lo, &hi); /* the one guest stack is the thread's stack and its user-mode stack */
    const uint64_t v[TF_N] = {
        HCP_ETW_PROCESS_ID,
        sim_thread_id(t),
        hi,
        lo,
        hi,
        lo,
        sim_thread_affinity(t),
        0, /* Win32StartAddr: Lua bodies have no guest start address */
        0, /* TebBase: no TEB is modelled */
        0, /* SubProcessTag: not a service thread */
        (uint64_t)sim_thread_priority(t),
        PAGE_PRIORITY,
        IO_PRIORITY,
        0,
    };
    emit(os, c, type, THREAD_VERSION, thread_fields, TF_N, v);
}

static void log_cswitch(hcp_os *os, const sim_record *r) {
    const uint64_t v[CF_N] = {
        r->thread ? sim_thread_id(r->thread) : 0,
        r->old ? sim_thread_id(r->old) : 0,
        (uint64_t)r->new_priority,
        (uint64_t)r->old_priority,
        0, /* PreviousCState: C-states are not modelled */
        0,
        (uint64_t)r->old_wait_reason,
        (uint64_t)r->old_wait_mode,
        (uint64_t)r->old_state,
        r->old ? (uint64_t)sim_thread_ideal(r->old) : 0,
        0, /* NewThreadWaitTime: unit undocumented (HCP-SPEC open question 12) */
        0,
    };
    ctx c = {r->old, r->time, r->cpu};
    emit(os, &c, EVENT_TRACE_TYPE_CSWITCH, V2_VERSION, cswitch_fields, CF_N, v);
}

/* The live threads, in creation order, as DCStart or DCEnd in the caller's context. */
static void rundown(hcp_os *os, uint8_t type) {
    sim_machine *m = os->m;
    const sim_thread *cur = sim_sched_current(m);
    ctx c = {cur, sim_clock(m), cur ? sim_thread_cpu(cur) : 0};
    for (int i = 0; i < sim_thread_count(m); i++) {
        const sim_thread *t = sim_thread_at(m, i);
        if (sim_thread_state_of(t) != SIM_TS_TERMINATED) log_thread(os, &c, type, t);
    }
}

/* ---- the observer ------------------------------------------------------------------------------ */

static void on_record(void *ud, const sim_record *r) {
    hcp_os *os = ud;
    hcp_etw *e = &os->etw;
    if (!e->active) return;
    if (r->type == SIM_REC_READY) {
        const sim_thread *by = e->exiting ? e->exiting : sim_sched_current(os->m);
        ctx c = {by, r->time, r->cpu};
        if (r->reason == SIM_READY_NEW && (e->flags & EVENT_TRACE_FLAG_THREAD))
            log_thread(os, &c, EVENT_TRACE_TYPE_START, r->thread);
        /* A thread leaving Waiting or Initialized is readied; one that goes back
         * to its queue from Running (quantum end, preemption, yield) is not: its
         * CSwitch says so (OldThreadState Ready). */
        bool readied = r->reason == SIM_READY_NEW || r->reason == SIM_READY_WAKE || r->reason == SIM_READY_TIMEOUT;
        if (readied && (e->flags & EVENT_TRACE_FLAG_DISPATCHER)) {
            const uint64_t v[RF_N] = {sim_thread_id(r->thread), 0, 0, /* no priority boosts in this model */
                                      r->reason == SIM_READY_TIMEOUT ? READY_FROM_DPC : 0, 0};
            emit(os, &c, EVENT_TRACE_TYPE_READYTHREAD, V2_VERSION, ready_fields, RF_N, v);
        }
    } else if (r->type == SIM_REC_SWITCH) {
        /* A thread that ends logs its End in its own context, before its last switch. */
        if (r->old && r->old_state == SIM_TS_TERMINATED) {
            e->exiting = r->old;
            if (e->flags & EVENT_TRACE_FLAG_THREAD) {
                ctx c = {r->old, r->time, r->cpu};
                log_thread(os, &c, EVENT_TRACE_TYPE_END, r->old);
            }
        }
        if (e->flags & EVENT_TRACE_FLAG_CSWITCH) log_cswitch(os, r);
    }
}

static void on_thread_exit(void *ud, sim_thread *t) {
    hcp_os *os = ud;
    hcp_etw *e = &os->etw;
    if (!e->active) return;
    if (e->exiting == t) {
        e->exiting = NULL;
        return;
    }
    /* it ended without leaving a CPU (not running) */
    if (e->flags & EVENT_TRACE_FLAG_THREAD) {
        ctx c = {t, sim_thread_exit_time(t), sim_thread_cpu(t)};
        log_thread(os, &c, EVENT_TRACE_TYPE_END, t);
    }
}

/* ---- sessions -------------------------------------------------------------------------------- */

uint32_t hcp_etw_start(hcp_os *os, uint32_t EnableFlags, hcp_etw_sink sink, void *ud) {
    hcp_etw *e = &os->etw;
    if (e->active) return ERROR_ALREADY_EXISTS;
    if (!sink || (EnableFlags & ~SUPPORTED_FLAGS)) return ERROR_INVALID_PARAMETER;
    sim_observer o = {NULL, on_thread_exit, on_record, os};
    int slot = sim_add_observer(os->m, &o);
    if (slot < 0) return ERROR_NO_SYSTEM_RESOURCES;
    *e = (hcp_etw){.active = true, .flags = EnableFlags, .observer = slot, .sink = sink, .ud = ud};
    if (EnableFlags & EVENT_TRACE_FLAG_THREAD) rundown(os, EVENT_TRACE_TYPE_DC_START);
    return ERROR_SUCCESS;
}

uint32_t hcp_etw_stop(hcp_os *os, bool rundown_events) {
    hcp_etw *e = &os->etw;
    if (!e->active) return ERROR_WMI_INSTANCE_NOT_FOUND;
    if (rundown_events && (e->flags & EVENT_TRACE_FLAG_THREAD)) rundown(os, EVENT_TRACE_TYPE_DC_END);
    sim_remove_observer(os->m, e->observer);
    *e = (hcp_etw){.observer = -1};
    return ERROR_SUCCESS;
}

bool hcp_etw_active(const hcp_os *os) { return os->etw.active; }
bool hcp_etw_in_sink(const hcp_os *os) { return os->etw.in_sink; }
