/* api/etw.c — the NT Kernel Logger's thread events (HCP-SPEC §7).
 *
 * A session observes the scheduler's records and turns them into ETW events,
 * byte-exact: a 48-byte EVENT_TRACE_HEADER (§7.4) then the MOF payload in
 * declaration order (§7.3) — for Start, End, DCStart and DCEnd the payload of
 * the session's Thread class version (V3 Thread_TypeGroup1 by default; V2, V1
 * and V0 by the machine option etw_thread_version), CSwitch and ReadyThread
 * (class Thread_V2); pointer-sized fields are the platform's pointer size (a
 * 32-bit logger on win7-x86).  Events are handed to the
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
#define SUPPORTED_FLAGS (EVENT_TRACE_FLAG_THREAD | EVENT_TRACE_FLAG_CSWITCH | EVENT_TRACE_FLAG_DISPATCHER)
#define V2_VERSION 2    /* class Thread_V2: CSwitch, ReadyThread */
#define PAGE_PRIORITY 5 /* MEMORY_PRIORITY_NORMAL, Windows' default page priority */
#define IO_PRIORITY 2   /* IoPriorityNormal */
#define READY_FROM_DPC 0x1

/* ThreadGuid {3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c}: Data1..Data3 little-endian, Data4 as is. */
static const uint8_t thread_guid[16] = {0xd1, 0xa8, 0x6f, 0x3d, 0x05, 0xfe, 0xd0, 0x11,
                                        0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c};

/* A MOF property as the class declares it: its size (PTR = pointer-sized:
 * 4 bytes in a 32-bit logger, 8 in a 64-bit one; HCP-SPEC §7.3) and where
 * its value comes from.  Offsets are computed by packing the properties back
 * to back in declaration order (hcp_etw_layout). */
enum { PTR = 0 };
typedef enum src {
    S_PID,       /* ProcessId: HCP_ETW_PROCESS_ID */
    S_TID,       /* TThreadId */
    S_STACK_HI,  /* StackBase, UserStackBase: the guest stack's high end inside t:run, else 0 */
    S_STACK_LO,  /* StackLimit, UserStackLimit: its low end */
    S_AFFINITY,  /* the thread's CPU mask */
    S_PRIORITY,  /* BasePriority */
    S_PAGE_PRIO, /* PagePriority */
    S_IO_PRIO,   /* IoPriority */
    S_ZERO,      /* StartAddr, Win32StartAddr (Lua bodies have no guest start address), TebBase (no TEB),
                    SubProcessTag (not a service thread), ThreadFlags, WaitMode ("not used") */
    S_FIXED,     /* CSwitch and ReadyThread: the value the caller passes in order */
} src;
typedef struct prop {
    const char *name;
    uint8_t size; /* 1, 4 or PTR */
    bool is_signed;
    src from;
} prop;

/* Thread_TypeGroup1, class Thread V3 (E1): 72 / 44 bytes. */
static const prop v3_group1[] = {
    {"ProcessId", 4, false, S_PID},
    {"TThreadId", 4, false, S_TID},
    {"StackBase", PTR, false, S_STACK_HI},
    {"StackLimit", PTR, false, S_STACK_LO},
    {"UserStackBase", PTR, false, S_STACK_HI},
    {"UserStackLimit", PTR, false, S_STACK_LO},
    {"Affinity", PTR, false, S_AFFINITY},
    {"Win32StartAddr", PTR, false, S_ZERO},
    {"TebBase", PTR, false, S_ZERO},
    {"SubProcessTag", 4, false, S_ZERO},
    {"BasePriority", 1, false, S_PRIORITY},
    {"PagePriority", 1, false, S_PAGE_PRIO},
    {"IoPriority", 1, false, S_IO_PRIO},
    {"ThreadFlags", 1, false, S_ZERO},
};
/* Thread_V2_TypeGroup1 (E2): 68 / 40 bytes. */
static const prop v2_group1[] = {
    {"ProcessId", 4, false, S_PID},
    {"TThreadId", 4, false, S_TID},
    {"StackBase", PTR, false, S_STACK_HI},
    {"StackLimit", PTR, false, S_STACK_LO},
    {"UserStackBase", PTR, false, S_STACK_HI},
    {"UserStackLimit", PTR, false, S_STACK_LO},
    {"StartAddr", PTR, false, S_ZERO},
    {"Win32StartAddr", PTR, false, S_ZERO},
    {"TebBase", PTR, false, S_ZERO},
    {"SubProcessTag", 4, false, S_ZERO},
};
/* Thread_V1_TypeGroup1 (E3; Start, DCStart): 57 / 33 bytes. */
static const prop v1_group1[] = {
    {"ProcessId", 4, false, S_PID},
    {"TThreadId", 4, false, S_TID},
    {"StackBase", PTR, false, S_STACK_HI},
    {"StackLimit", PTR, false, S_STACK_LO},
    {"UserStackBase", PTR, false, S_STACK_HI},
    {"UserStackLimit", PTR, false, S_STACK_LO},
    {"StartAddr", PTR, false, S_ZERO},
    {"Win32StartAddr", PTR, false, S_ZERO},
    {"WaitMode", 1, true, S_ZERO},
};
/* Thread_V1_TypeGroup2 (E3; End, DCEnd): 8 bytes. */
static const prop v1_group2[] = {{"ProcessId", 4, false, S_PID}, {"TThreadId", 4, false, S_TID}};
/* Thread_V0_TypeGroup1 (E4; all four types): 8 bytes, TThreadId first. */
static const prop v0_group1[] = {{"TThreadId", 4, false, S_TID}, {"ProcessId", 4, false, S_PID}};

/* CSwitch (E5): 24 bytes. */
static const prop cswitch_props[] = {
    {"NewThreadId", 4, false, S_FIXED},        {"OldThreadId", 4, false, S_FIXED},
    {"NewThreadPriority", 1, true, S_FIXED},   {"OldThreadPriority", 1, true, S_FIXED},
    {"PreviousCState", 1, false, S_FIXED},     {"SpareByte", 1, true, S_FIXED},
    {"OldThreadWaitReason", 1, true, S_FIXED}, {"OldThreadWaitMode", 1, true, S_FIXED},
    {"OldThreadState", 1, true, S_FIXED},      {"OldThreadWaitIdealProcessor", 1, true, S_FIXED},
    {"NewThreadWaitTime", 4, false, S_FIXED},  {"Reserved", 4, false, S_FIXED},
};
enum { CF_N = sizeof cswitch_props / sizeof cswitch_props[0] };

/* ReadyThread (E6): 8 bytes. */
static const prop ready_props[] = {
    {"TThreadId", 4, false, S_FIXED}, {"AdjustReason", 1, true, S_FIXED}, {"AdjustIncrement", 1, true, S_FIXED},
    {"Flag", 1, true, S_FIXED},       {"Reserved", 1, true, S_FIXED},
};
enum { RF_N = sizeof ready_props / sizeof ready_props[0] };

#define N(a) ((int)(sizeof a / sizeof a[0]))

/* The declared properties of event `type` logged with Thread class `version`. */
static const prop *props_of(int version, uint8_t type, int *n) {
    bool end = type == EVENT_TRACE_TYPE_END || type == EVENT_TRACE_TYPE_DC_END;
    if (type == EVENT_TRACE_TYPE_CSWITCH) return *n = CF_N, cswitch_props;
    if (type == EVENT_TRACE_TYPE_READYTHREAD) return *n = RF_N, ready_props;
    if (type < EVENT_TRACE_TYPE_START || type > EVENT_TRACE_TYPE_DC_END) return *n = 0, NULL;
    switch (version) {
    case 0: return *n = N(v0_group1), v0_group1;
    case 1: return end ? (*n = N(v1_group2), v1_group2) : (*n = N(v1_group1), v1_group1);
    case 2: return *n = N(v2_group1), v2_group1;
    default: return *n = N(v3_group1), v3_group1;
    }
}

int hcp_etw_layout(int version, unsigned ptr, uint8_t type, hcp_etw_field *out, const char **name) {
    static const char *const thread_names[] = {"Start", "End", "DCStart", "DCEnd"};
    int n;
    const prop *p = props_of(version, type, &n);
    if (name)
        *name = type >= EVENT_TRACE_TYPE_START && type <= EVENT_TRACE_TYPE_DC_END ? thread_names[type - 1]
                : type == EVENT_TRACE_TYPE_CSWITCH                                ? "CSwitch"
                : type == EVENT_TRACE_TYPE_READYTHREAD                            ? "ReadyThread"
                                                                                  : NULL;
    unsigned off = 0;
    for (int i = 0; i < n; i++) {
        uint8_t size = p[i].size == PTR ? (uint8_t)ptr : p[i].size;
        out[i] = (hcp_etw_field){p[i].name, (uint16_t)off, size, p[i].is_signed};
        off += size;
    }
    return n;
}

const char *hcp_etw_payload_class(int version, uint8_t type) {
    if (type == EVENT_TRACE_TYPE_CSWITCH) return "CSwitch";
    if (type == EVENT_TRACE_TYPE_READYTHREAD) return "ReadyThread";
    if (type < EVENT_TRACE_TYPE_START || type > EVENT_TRACE_TYPE_DC_END) return NULL;
    bool end = type == EVENT_TRACE_TYPE_END || type == EVENT_TRACE_TYPE_DC_END;
    switch (version) {
    case 0: return "Thread_V0_TypeGroup1";
    case 1: return end ? "Thread_V1_TypeGroup2" : "Thread_V1_TypeGroup1";
    case 2: return "Thread_V2_TypeGroup1";
    default: return "Thread_TypeGroup1";
    }
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

/* The session's layout slot of event `type`: 0-3 the Thread types 1-4, 4 CSwitch, 5 ReadyThread. */
static int slot_of(uint8_t type) {
    return type == EVENT_TRACE_TYPE_CSWITCH ? 4 : type == EVENT_TRACE_TYPE_READYTHREAD ? 5 : type - 1;
}

static void emit(hcp_os *os, const ctx *c, uint8_t type, const uint64_t *v) {
    const sim_config *cfg = sim_machine_config(os->m);
    const hcp_etw *e = &os->etw;
    int k = slot_of(type);
    const hcp_etw_field *f = e->layout[k];
    uint16_t version = type == EVENT_TRACE_TYPE_CSWITCH || type == EVENT_TRACE_TYPE_READYTHREAD
                           ? V2_VERSION
                           : (uint16_t)e->version; /* the Thread class's EventVersion (HCP-SPEC §7.2) */
    uint8_t ev[HCP_ETW_HEADER_SIZE + 72];
    size_t size = HCP_ETW_HEADER_SIZE + pack(ev + HCP_ETW_HEADER_SIZE, f, e->nfields[k], v);
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
    hcp_etw_event out = {ev, size, c->cpu < 0 ? 0 : c->cpu, f, e->nfields[k], e->names[k]};
    os->etw.in_sink = true;
    os->etw.sink(os->etw.ud, &out);
    os->etw.in_sink = false;
}

/* Start, End, DCStart or DCEnd of thread t, in the session's Thread class version. */
static void log_thread(hcp_os *os, const ctx *c, uint8_t type, const sim_thread *t) {
    uint64_t lo, hi;
    sim_thread_stack(t, &lo, &hi); /* the one guest stack is the thread's stack and its user-mode stack */
    int n;
    const prop *p = props_of(os->etw.version, type, &n);
    uint64_t v[16];
    for (int i = 0; i < n; i++) {
        switch (p[i].from) {
        case S_PID: v[i] = HCP_ETW_PROCESS_ID; break;
        case S_TID: v[i] = sim_thread_id(t); break;
        case S_STACK_HI: v[i] = hi; break;
        case S_STACK_LO: v[i] = lo; break;
        case S_AFFINITY: v[i] = sim_thread_affinity(t); break;
        case S_PRIORITY: v[i] = (uint64_t)sim_thread_priority(t); break;
        case S_PAGE_PRIO: v[i] = PAGE_PRIORITY; break;
        case S_IO_PRIO: v[i] = IO_PRIORITY; break;
        case S_ZERO:
        case S_FIXED: v[i] = 0; break;
        }
    }
    emit(os, c, type, v);
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
    emit(os, &c, EVENT_TRACE_TYPE_CSWITCH, v);
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
        bool readied = r->reason == SIM_READY_NEW || r->reason == SIM_READY_WAKE || r->reason == SIM_READY_TIMEOUT ||
                       r->reason == SIM_READY_TIMER;
        if (readied && (e->flags & EVENT_TRACE_FLAG_DISPATCHER)) {
            bool dpc = r->reason == SIM_READY_TIMEOUT || r->reason == SIM_READY_TIMER; /* in a clock interrupt */
            const uint64_t v[RF_N] = {sim_thread_id(r->thread), 0, 0, /* no priority boosts in this model */
                                      dpc ? READY_FROM_DPC : 0, 0};
            emit(os, &c, EVENT_TRACE_TYPE_READYTHREAD, v);
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
    if (!os->plat->etw) return ERROR_NOT_SUPPORTED; /* the platform has no NT Kernel Logger */
    if (e->active) return ERROR_ALREADY_EXISTS;
    if (!sink || (EnableFlags & ~SUPPORTED_FLAGS)) return ERROR_INVALID_PARAMETER;
    sim_observer o = {NULL, on_thread_exit, on_record, os};
    int slot = sim_add_observer(os->m, &o);
    if (slot < 0) return ERROR_NO_SYSTEM_RESOURCES;
    *e = (hcp_etw){.active = true, .flags = EnableFlags, .observer = slot, .sink = sink, .ud = ud};
    e->version = hcp_etw_thread_version(os);
    static const uint8_t types[6] = {EVENT_TRACE_TYPE_START,  EVENT_TRACE_TYPE_END,     EVENT_TRACE_TYPE_DC_START,
                                     EVENT_TRACE_TYPE_DC_END, EVENT_TRACE_TYPE_CSWITCH, EVENT_TRACE_TYPE_READYTHREAD};
    for (int k = 0; k < 6; k++)
        e->nfields[k] = hcp_etw_layout(e->version, hcp_ptr_size(os), types[k], e->layout[k], &e->names[k]);
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

int hcp_etw_thread_version(const hcp_os *os) {
    return os->etw_version >= 0 ? os->etw_version : os->plat->etw_thread_version;
}

void hcp_etw_set_thread_version(hcp_os *os, int version) {
    os->etw_version = version >= 0 && version <= 3 ? version : -1;
}
bool hcp_etw_in_sink(const hcp_os *os) { return os->etw.in_sink; }
