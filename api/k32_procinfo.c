/* api/k32_procinfo.c — the process and its processors (api/README.md "Processes and
 * processors"): priority classes, process handles, processor counts and topology (one group;
 * caches as the cost model configures them), group affinity, fiber-local storage with its
 * callbacks, thread descriptions, WOW64 queries, and LocalAlloc/LocalFree (which
 * GetThreadDescription's caller frees with). */
#include <stdlib.h>

#include "api/sync_int.h"

/* ---- priority classes ---- */

#define IDLE_PRIORITY_CLASS 0x00000040u
#define BELOW_NORMAL_PRIORITY_CLASS 0x00004000u
#define NORMAL_PRIORITY_CLASS 0x00000020u
#define ABOVE_NORMAL_PRIORITY_CLASS 0x00008000u
#define HIGH_PRIORITY_CLASS 0x00000080u
#define REALTIME_PRIORITY_CLASS 0x00000100u
#define PROCESS_MODE_BACKGROUND_BEGIN 0x00100000u
#define PROCESS_MODE_BACKGROUND_END 0x00200000u
#define ERROR_PROCESS_MODE_ALREADY_BACKGROUND 402u
#define ERROR_PROCESS_MODE_NOT_BACKGROUND 403u
#define THREAD_PRIORITY_TIME_CRITICAL 15
#define THREAD_PRIORITY_IDLE (-15)

/* The base priority of each class (Windows' "Scheduling Priorities" table): idle 4, below
 * normal 6, normal 8, above normal 10, high 13, realtime 24. */
static int class_base(uint32_t cls) {
    switch (cls) {
    case IDLE_PRIORITY_CLASS: return 4;
    case BELOW_NORMAL_PRIORITY_CLASS: return 6;
    case ABOVE_NORMAL_PRIORITY_CLASS: return 10;
    case HIGH_PRIORITY_CLASS: return 13;
    case REALTIME_PRIORITY_CLASS: return 24;
    default: return 8;
    }
}

/* The table's cells: base + rel for -2..2 (and -7..6 in the realtime class); time critical 15
 * (realtime 31); idle 1 (realtime 16). */
int hcp_class_priority(hcp_ctx *c, int rel) {
    hcp_xproc *x = hcp_xproc_of(c);
    uint32_t cls = x ? x->priority_class : NORMAL_PRIORITY_CLASS;
    int base = class_base(cls);
    bool rt = cls == REALTIME_PRIORITY_CLASS;
    if (rel == THREAD_PRIORITY_TIME_CRITICAL) return rt ? 31 : 15;
    if (rel == THREAD_PRIORITY_IDLE) return rt ? 16 : 1;
    return base + rel;
}

/* A handle to this process with `access` (the pseudo handle has all). */
static uint32_t ref_process(hcp_ctx *c, uint64_t h, uint32_t access) {
    obj_type type;
    sim_object *o;
    return hcp_ref_object(c->os, h, OBJ_PROCESS, access, &type, &o);
}

/* Every thread of the process takes the new class's priority for its relative priority; the
 * realtime class is granted (the simulated process holds SeIncreaseBasePriorityPrivilege). */
uint64_t hcp_k32_SetPriorityClass(hcp_ctx *c, const hcp_k32_SetPriorityClass_args *a) {
    uint32_t st = ref_process(c, a->hProcess, PROCESS_SET_INFORMATION);
    if (st != STATUS_SUCCESS) return hcp_nt_fail(c, st);
    hcp_xproc *x = hcp_xproc_of(c);
    if (!x) return hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    uint32_t cls = a->dwPriorityClass;
    if (cls == PROCESS_MODE_BACKGROUND_BEGIN || cls == PROCESS_MODE_BACKGROUND_END) {
        if (hcp_handle_arg(c->os, a->hProcess) != HCP_CURRENT_PROCESS) return hcp_fail(c, ERROR_INVALID_HANDLE);
        bool begin = cls == PROCESS_MODE_BACKGROUND_BEGIN;
        if (begin == x->background)
            return hcp_fail(c, begin ? ERROR_PROCESS_MODE_ALREADY_BACKGROUND : ERROR_PROCESS_MODE_NOT_BACKGROUND);
        x->background = begin; /* I/O and memory priorities only: no scheduling effect */
        return 1;
    }
    if (cls != IDLE_PRIORITY_CLASS && cls != BELOW_NORMAL_PRIORITY_CLASS && cls != NORMAL_PRIORITY_CLASS &&
        cls != ABOVE_NORMAL_PRIORITY_CLASS && cls != HIGH_PRIORITY_CLASS && cls != REALTIME_PRIORITY_CLASS)
        return hcp_fail(c, ERROR_INVALID_PARAMETER);
    x->priority_class = cls;
    for (int i = 0; i < c->p->nthr; i++) {
        sim_thread *t = c->p->thr[i].t;
        if (sim_thread_state_of(t) == SIM_TS_TERMINATED) continue;
        hcp_xthread *xt = hcp_xthread_of(c->os, t);
        int rel = xt ? xt->rel_priority : 0;
        if (cls != REALTIME_PRIORITY_CLASS && rel != THREAD_PRIORITY_TIME_CRITICAL && rel != THREAD_PRIORITY_IDLE) {
            if (rel < -2) rel = -2; /* the realtime-only values leave with the class */
            if (rel > 2) rel = 2;
            if (xt) xt->rel_priority = rel;
        }
        sim_thread_set_priority(t, hcp_class_priority(c, rel));
    }
    sim_sched_preempt_pending(c->t);
    return 1;
}

uint64_t hcp_k32_GetPriorityClass(hcp_ctx *c, const hcp_k32_GetPriorityClass_args *a) {
    uint32_t st = ref_process(c, a->hProcess, PROCESS_QUERY_LIMITED_INFORMATION);
    if (st != STATUS_SUCCESS) return hcp_nt_fail(c, st);
    hcp_xproc *x = hcp_xproc_of(c);
    return x ? x->priority_class : NORMAL_PRIORITY_CLASS;
}

/* ---- process handles ---- */

uint64_t hcp_k32_OpenProcess(hcp_ctx *c, const hcp_k32_OpenProcess_args *a) {
    if (a->dwProcessId != HCP_ETW_PROCESS_ID) return hcp_fail(c, ERROR_INVALID_PARAMETER);
    sim_object *o = hcp_process_object(c->os);
    if (!o) return hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    uint64_t h = hcp_handle_new(c->os, OBJ_PROCESS, NULL, o, hcp_map_access(OBJ_PROCESS, a->dwDesiredAccess));
    if (!h) return hcp_fail(c, hcp_handle_error(c->os));
    if (a->bInheritHandle) hcp_handle_slot(c->os, h)->flags |= HANDLE_FLAG_INHERIT;
    return h;
}

uint64_t hcp_k32_GetProcessId(hcp_ctx *c, const hcp_k32_GetProcessId_args *a) {
    uint32_t st = ref_process(c, a->Process, PROCESS_QUERY_LIMITED_INFORMATION);
    return st == STATUS_SUCCESS ? HCP_ETW_PROCESS_ID : hcp_nt_fail(c, st);
}

uint64_t hcp_k32_GetExitCodeProcess(hcp_ctx *c, const hcp_k32_GetExitCodeProcess_args *a) {
    uint32_t st = ref_process(c, a->hProcess, PROCESS_QUERY_LIMITED_INFORMATION);
    if (st != STATUS_SUCCESS) return hcp_nt_fail(c, st);
    return hcp_wr32(c, a->lpExitCode, c->p->exited ? c->p->exit_code : STILL_ACTIVE);
}

uint64_t hcp_k32_GetThreadId(hcp_ctx *c, const hcp_k32_GetThreadId_args *a) {
    sim_thread *t;
    uint32_t st = hcp_ref_thread(c->os, a->Thread, THREAD_QUERY_LIMITED_INFORMATION, &t);
    return st == STATUS_SUCCESS ? sim_thread_id(t) : hcp_nt_fail(c, st);
}

/* ---- processors: one group of the machine's CPUs ---- */

#define ALL_PROCESSOR_GROUPS 0xFFFFu

static uint64_t cpu_mask(hcp_ctx *c) {
    int n = sim_cpu_count(c->m);
    return n >= 64 ? UINT64_MAX : (UINT64_C(1) << n) - 1;
}

uint64_t hcp_k32_GetActiveProcessorCount(hcp_ctx *c, const hcp_k32_GetActiveProcessorCount_args *a) {
    uint32_t g = a->GroupNumber & 0xFFFFu;
    if (g != 0 && g != ALL_PROCESSOR_GROUPS) return hcp_fail(c, ERROR_INVALID_PARAMETER);
    return (uint32_t)sim_cpu_count(c->m);
}
uint64_t hcp_k32_GetActiveProcessorGroupCount(hcp_ctx *c) {
    (void)c;
    return 1;
}

uint64_t hcp_k32_GetCurrentProcessorNumberEx(hcp_ctx *c, const hcp_k32_GetCurrentProcessorNumberEx_args *a) {
    uint8_t b[4] = {0, 0, (uint8_t)sim_thread_cpu(c->t), 0}; /* PROCESSOR_NUMBER: Group, Number, Reserved */
    hcp_wr(c, a->ProcNumber, b, 4);
    return 0;
}

/* GROUP_AFFINITY: Mask (KAFFINITY), Group (WORD), Reserved[3] (WORD): 16 bytes on x64, 12 on x86. */
static unsigned group_affinity_size(const hcp_ctx *c) { return c->w == 8 ? 16 : 12; }

static bool put_group_affinity(hcp_ctx *c, uint8_t *b, uint64_t mask) {
    memset(b, 0, group_affinity_size(c));
    if (c->w == 8)
        hcp_put64(b, mask);
    else
        hcp_put32(b, (uint32_t)mask);
    return true;
}

uint64_t hcp_k32_GetThreadGroupAffinity(hcp_ctx *c, const hcp_k32_GetThreadGroupAffinity_args *a) {
    sim_thread *t;
    uint32_t st = hcp_ref_thread(c->os, a->hThread, THREAD_QUERY_LIMITED_INFORMATION, &t);
    if (st != STATUS_SUCCESS) return hcp_nt_fail(c, st);
    uint8_t b[16];
    put_group_affinity(c, b, sim_thread_affinity(t));
    return hcp_wr(c, a->GroupAffinity, b, group_affinity_size(c)) ? 1 : 0;
}

uint64_t hcp_k32_SetThreadGroupAffinity(hcp_ctx *c, const hcp_k32_SetThreadGroupAffinity_args *a) {
    sim_thread *t;
    uint32_t st = hcp_ref_thread(c->os, a->hThread, THREAD_SET_LIMITED_INFORMATION, &t);
    if (st != STATUS_SUCCESS) return hcp_nt_fail(c, st);
    uint8_t b[16];
    if (!hcp_rd(c, a->GroupAffinity, b, group_affinity_size(c))) return 0;
    uint64_t mask = c->w == 8 ? hcp_get64(b) : hcp_get32(b);
    uint16_t group = hcp_get16(b + c->w);
    bool reserved = hcp_get16(b + c->w + 2) || hcp_get16(b + c->w + 4) || hcp_get16(b + c->w + 6);
    if (group != 0 || reserved || !mask || (mask & ~cpu_mask(c))) return hcp_fail(c, ERROR_INVALID_PARAMETER);
    uint64_t old;
    uint8_t prev[16];
    put_group_affinity(c, prev, sim_thread_affinity(t));
    if (a->PreviousGroupAffinity && !hcp_wr(c, a->PreviousGroupAffinity, prev, group_affinity_size(c))) return 0;
    if (sim_thread_set_affinity(t, mask, &old) != SIM_OK) return hcp_fail(c, ERROR_INVALID_PARAMETER);
    return 1;
}

uint64_t hcp_k32_GetProcessGroupAffinity(hcp_ctx *c, const hcp_k32_GetProcessGroupAffinity_args *a) {
    uint32_t st = ref_process(c, a->hProcess, PROCESS_QUERY_LIMITED_INFORMATION);
    if (st != STATUS_SUCCESS) return hcp_nt_fail(c, st);
    uint8_t b[2];
    if (!hcp_rd(c, a->GroupCount, b, 2)) return 0;
    uint16_t n = hcp_get16(b);
    if (!hcp_wr16(c, a->GroupCount, 1)) return 0;
    if (n < 1) return hcp_fail(c, ERROR_INSUFFICIENT_BUFFER);
    return hcp_wr16(c, a->GroupArray, 0) ? 1 : 0;
}

/* ---- topology ----
 * One package of sim_cpu_count cores of one logical processor each, one NUMA node, one group; per
 * core the caches of the cost model (each CPU has its own L1D, L2 and LLC in this model:
 * pmu_model/README.md), described whether or not the cache model is on.  The order is the one
 * Windows 10 gives: each core, then its caches (level 1, 2, 3), then the package, then the node
 * (GetLogicalProcessorInformationEx: per relation, cores, caches, package, node, group). */

enum { REL_CORE = 0, REL_NUMA = 1, REL_CACHE = 2, REL_PACKAGE = 3, REL_GROUP = 4, REL_ALL = 0xFFFF };
enum { CACHE_UNIFIED = 0, CACHE_INSTRUCTION = 1, CACHE_DATA = 2 };

typedef struct topo_entry {
    int rel;
    uint64_t mask;
    int level, type; /* caches */
    const pmu_cache_level *geo;
} topo_entry;

/* The machine's entries in Windows' order for `filter` (REL_ALL: all); n at most cap. */
static int topology(hcp_ctx *c, int filter, topo_entry *out, int cap, bool ex) {
    const pmu_cache_params *cp = &sim_machine_config(c->m)->cost.cache;
    const pmu_cache_level *lv[3] = {&cp->l1d, &cp->l2, &cp->llc};
    int ncpu = sim_cpu_count(c->m), n = 0;
#define ADD(...)                                                                                                       \
    do {                                                                                                               \
        if (n < cap) out[n] = (topo_entry){__VA_ARGS__};                                                               \
        n++;                                                                                                           \
    } while (0)
    if (!ex) { /* the flat list: per core its record and its caches, then package and node */
        for (int i = 0; i < ncpu; i++) {
            ADD(REL_CORE, UINT64_C(1) << i, 0, 0, NULL);
            for (int l = 0; l < 3; l++) ADD(REL_CACHE, UINT64_C(1) << i, l + 1, l ? CACHE_UNIFIED : CACHE_DATA, lv[l]);
        }
        ADD(REL_PACKAGE, cpu_mask(c), 0, 0, NULL);
        ADD(REL_NUMA, cpu_mask(c), 0, 0, NULL);
        return n;
    }
    if (filter == REL_ALL || filter == REL_CORE)
        for (int i = 0; i < ncpu; i++) ADD(REL_CORE, UINT64_C(1) << i, 0, 0, NULL);
    if (filter == REL_ALL || filter == REL_CACHE)
        for (int i = 0; i < ncpu; i++)
            for (int l = 0; l < 3; l++) ADD(REL_CACHE, UINT64_C(1) << i, l + 1, l ? CACHE_UNIFIED : CACHE_DATA, lv[l]);
    if (filter == REL_ALL || filter == REL_PACKAGE) ADD(REL_PACKAGE, cpu_mask(c), 0, 0, NULL);
    if (filter == REL_ALL || filter == REL_NUMA) ADD(REL_NUMA, cpu_mask(c), 0, 0, NULL);
    if (filter == REL_ALL || filter == REL_GROUP) ADD(REL_GROUP, cpu_mask(c), 0, 0, NULL);
#undef ADD
    return n;
}

/* A CACHE_DESCRIPTOR's associativity: ways, or 0xFF (CACHE_FULLY_ASSOCIATIVE) for a cache of one
 * set or more than 254 ways. */
static uint8_t assoc(const pmu_cache_level *g) {
    return g->ways >= 255 || (uint64_t)g->ways * g->line >= g->size ? 0xFF : (uint8_t)g->ways;
}

#define MAX_TOPO (4 * 64 + 3)

uint64_t hcp_k32_GetLogicalProcessorInformation(hcp_ctx *c, const hcp_k32_GetLogicalProcessorInformation_args *a) {
    topo_entry e[MAX_TOPO];
    int n = topology(c, REL_ALL, e, MAX_TOPO, false);
    unsigned rec = c->w == 8 ? 32 : 24; /* ProcessorMask, Relationship, a 16-byte union */
    uint8_t lb[4];
    if (!hcp_rd(c, a->ReturnedLength, lb, 4)) return 0;
    uint32_t have = hcp_get32(lb), need = (uint32_t)n * rec;
    if (!hcp_wr32(c, a->ReturnedLength, need)) return 0;
    if (have < need) return hcp_fail(c, ERROR_INSUFFICIENT_BUFFER);
    uint8_t b[32];
    for (int i = 0; i < n; i++) {
        memset(b, 0, sizeof b);
        unsigned u = c->w == 8 ? 16 : 8;
        if (c->w == 8)
            hcp_put64(b, e[i].mask);
        else
            hcp_put32(b, (uint32_t)e[i].mask);
        hcp_put32(b + c->w, (uint32_t)e[i].rel);
        if (e[i].rel == REL_CACHE) { /* CACHE_DESCRIPTOR: Level, Associativity, LineSize, Size, Type */
            b[u] = (uint8_t)e[i].level;
            b[u + 1] = assoc(e[i].geo);
            hcp_put16(b + u + 2, (uint16_t)e[i].geo->line);
            hcp_put32(b + u + 4, e[i].geo->size);
            hcp_put32(b + u + 8, (uint32_t)e[i].type);
        }
        if (!hcp_wr(c, a->Buffer + (uint64_t)i * rec, b, rec)) return 0;
    }
    return 1;
}

/* SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX: Relationship, Size, then the relation's record, each a
 * GROUP_AFFINITY (or the group's PROCESSOR_GROUP_INFO) at its end. */
static unsigned ex_size(const hcp_ctx *c, int rel) {
    unsigned ga = group_affinity_size(c);
    switch (rel) {
    case REL_CORE:
    case REL_PACKAGE: return 8 + 24 + ga;
    case REL_NUMA: return 8 + 24 + ga;
    case REL_CACHE: return 8 + 32 + ga;
    default: return 8 + 24 + (c->w == 8 ? 48 : 44); /* GROUP_RELATIONSHIP with one PROCESSOR_GROUP_INFO */
    }
}

uint64_t hcp_k32_GetLogicalProcessorInformationEx(hcp_ctx *c, const hcp_k32_GetLogicalProcessorInformationEx_args *a) {
    int filter = (int)a->RelationshipType;
    if (filter != REL_ALL && (filter < 0 || filter > REL_GROUP)) return hcp_fail(c, ERROR_INVALID_PARAMETER);
    topo_entry e[MAX_TOPO];
    int n = topology(c, filter, e, MAX_TOPO, true);
    uint32_t need = 0;
    for (int i = 0; i < n; i++) need += ex_size(c, e[i].rel);
    uint8_t lb[4];
    if (!hcp_rd(c, a->ReturnedLength, lb, 4)) return 0;
    uint32_t have = hcp_get32(lb);
    if (!hcp_wr32(c, a->ReturnedLength, need)) return 0;
    if (have < need) return hcp_fail(c, ERROR_INSUFFICIENT_BUFFER);
    uint64_t at = a->Buffer;
    for (int i = 0; i < n; i++) {
        uint8_t b[96] = {0};
        unsigned sz = ex_size(c, e[i].rel);
        hcp_put32(b, (uint32_t)e[i].rel);
        hcp_put32(b + 4, sz);
        uint8_t *r = b + 8;
        switch (e[i].rel) {
        case REL_CORE:
        case REL_PACKAGE: /* Flags 0 (no SMT), EfficiencyClass 0, Reserved, GroupCount 1, GroupMask */
            hcp_put16(r + 22, 1);
            put_group_affinity(c, r + 24, e[i].mask);
            break;
        case REL_NUMA: /* NodeNumber 0, Reserved, GroupCount 1, GroupMask */
            hcp_put16(r + 22, 1);
            put_group_affinity(c, r + 24, e[i].mask);
            break;
        case REL_CACHE: /* Level, Associativity, LineSize, CacheSize, Type, Reserved, GroupCount, GroupMask */
            r[0] = (uint8_t)e[i].level;
            r[1] = assoc(e[i].geo);
            hcp_put16(r + 2, (uint16_t)e[i].geo->line);
            hcp_put32(r + 4, e[i].geo->size);
            hcp_put32(r + 8, (uint32_t)e[i].type);
            hcp_put16(r + 30, 1);
            put_group_affinity(c, r + 32, e[i].mask);
            break;
        default: /* MaximumGroupCount 1, ActiveGroupCount 1, Reserved, GroupInfo[0] */
            hcp_put16(r, 1);
            hcp_put16(r + 2, 1);
            r[24] = (uint8_t)sim_cpu_count(c->m); /* MaximumProcessorCount */
            r[25] = (uint8_t)sim_cpu_count(c->m); /* ActiveProcessorCount */
            if (c->w == 8)
                hcp_put64(r + 24 + 40, e[i].mask); /* ActiveProcessorMask, after 38 reserved bytes, aligned */
            else
                hcp_put32(r + 24 + 40, (uint32_t)e[i].mask);
            break;
        }
        if (!hcp_wr(c, at, b, sz)) return 0;
        at += sz;
    }
    return 1;
}

/* ---- WOW64 ---- */

#define IMAGE_FILE_MACHINE_UNKNOWN 0u
#define IMAGE_FILE_MACHINE_I386 0x014Cu
#define IMAGE_FILE_MACHINE_AMD64 0x8664u

/* Never WOW64: an x64 program on x64 Windows, an i386 one on 32-bit Windows (win7-x86). */
uint64_t hcp_k32_IsWow64Process(hcp_ctx *c, const hcp_k32_IsWow64Process_args *a) {
    uint32_t st = ref_process(c, a->hProcess, PROCESS_QUERY_LIMITED_INFORMATION);
    if (st != STATUS_SUCCESS) return hcp_nt_fail(c, st);
    return hcp_wr32(c, a->Wow64Process, 0) ? 1 : 0;
}
uint64_t hcp_k32_IsWow64Process2(hcp_ctx *c, const hcp_k32_IsWow64Process2_args *a) {
    uint32_t st = ref_process(c, a->hProcess, PROCESS_QUERY_LIMITED_INFORMATION);
    if (st != STATUS_SUCCESS) return hcp_nt_fail(c, st);
    if (!hcp_wr16(c, a->pProcessMachine, IMAGE_FILE_MACHINE_UNKNOWN)) return 0;
    if (a->pNativeMachine &&
        !hcp_wr16(c, a->pNativeMachine, c->w == 8 ? IMAGE_FILE_MACHINE_AMD64 : IMAGE_FILE_MACHINE_I386))
        return 0;
    return 1;
}

/* ---- LocalAlloc, LocalFree: the C runtime's heap (crt_heap.c), fixed blocks ---- */

#define LMEM_ZEROINIT 0x40u
#define LMEM_MOVEABLE 0x2u

uint64_t hcp_k32_LocalAlloc(hcp_ctx *c, const hcp_k32_LocalAlloc_args *a) {
    if (a->uFlags & LMEM_MOVEABLE) return hcp_fail(c, ERROR_INVALID_PARAMETER); /* fixed memory only */
    uint64_t p = hcp_heap_alloc(c, a->uBytes ? a->uBytes : 1);
    if (!p) return hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    if ((a->uFlags & LMEM_ZEROINIT) && !hcp_zero(c, p, a->uBytes)) return 0;
    return p;
}
uint64_t hcp_k32_LocalFree(hcp_ctx *c, const hcp_k32_LocalFree_args *a) {
    if (!a->hMem) return 0;
    if (hcp_heap_find(c->p, a->hMem) < 0) {
        hcp_SetLastError(c->os, ERROR_INVALID_HANDLE);
        return a->hMem;
    }
    hcp_heap_free(c, a->hMem);
    return 0;
}

/* ---- thread descriptions ---- */

#define E_OUTOFMEMORY 0x8007000Eu
static uint32_t hresult_from_nt(uint32_t st) { return st | 0x10000000u; }

uint64_t hcp_k32_SetThreadDescription(hcp_ctx *c, const hcp_k32_SetThreadDescription_args *a) {
    sim_thread *t;
    uint32_t st = hcp_ref_thread(c->os, a->hThread, THREAD_SET_LIMITED_INFORMATION, &t);
    if (st != STATUS_SUCCESS) return hresult_from_nt(st);
    hcp_xthread *x = hcp_xthread_of(c->os, t);
    if (!x) return E_OUTOFMEMORY;
    int n = 0;
    uint8_t b[2];
    for (;; n++) { /* a UNICODE_STRING holds at most 32767 characters */
        if (n >= 32767) return hresult_from_nt(STATUS_INVALID_PARAMETER);
        if (!hcp_rd(c, a->lpThreadDescription + 2u * (unsigned)n, b, 2)) return 0;
        if (!hcp_get16(b)) break;
    }
    uint16_t *d = malloc(2u * (unsigned)(n + 1));
    if (!d) return E_OUTOFMEMORY;
    for (int i = 0; i <= n; i++) {
        hcp_rd(c, a->lpThreadDescription + 2u * (unsigned)i, b, 2);
        d[i] = hcp_get16(b);
    }
    free(x->desc);
    x->desc = d;
    x->ndesc = n;
    return 0; /* S_OK */
}

/* The description in a LocalAlloc block the caller frees ("" when none was set). */
uint64_t hcp_k32_GetThreadDescription(hcp_ctx *c, const hcp_k32_GetThreadDescription_args *a) {
    sim_thread *t;
    uint32_t st = hcp_ref_thread(c->os, a->hThread, THREAD_QUERY_LIMITED_INFORMATION, &t);
    if (st != STATUS_SUCCESS) return hresult_from_nt(st);
    hcp_xthread *x = hcp_xthread_of(c->os, t);
    int n = x && x->desc ? x->ndesc : 0;
    uint64_t p = hcp_heap_alloc(c, 2u * (unsigned)(n + 1));
    if (!p) return E_OUTOFMEMORY;
    for (int i = 0; i < n; i++)
        if (!hcp_wr16(c, p + 2u * (unsigned)i, x->desc[i])) return 0;
    if (!hcp_wr16(c, p + 2u * (unsigned)n, 0) || !hcp_wrp(c, a->ppszThreadDescription, p)) return 0;
    return 0;
}

/* ---- fiber-local storage ----
 * Indices 1 .. FLS_MAXIMUM_AVAILABLE-1 (index 0 is never handed out, as on Windows): 4080 on
 * Windows 8 and later profiles, 128 on Windows 7's.  A value is per thread (one fiber per
 * thread: fibers are not simulated).  The callback of an index runs for a thread's non-NULL
 * value when the thread exits (ExitThread or the return of its start routine), when the process
 * exits (the thread calling ExitProcess only), and for every thread's value at FlsFree (on the
 * calling thread), each as the program's own code (ucb.c); the value is NULL afterwards. */

#define FLS_OUT_OF_INDEXES 0xFFFFFFFFu

static int fls_max(const hcp_ctx *c) { return c->os->plat->win8 ? 4080 : 128; }

static bool fls_init(hcp_ctx *c, hcp_xproc *x) {
    if (x->fls_used) return true;
    int max = fls_max(c);
    x->fls_used = calloc((size_t)max, 1);
    x->fls_cb = calloc((size_t)max, sizeof *x->fls_cb);
    if (!x->fls_used || !x->fls_cb) return false;
    x->nfls = max;
    return true;
}

uint64_t hcp_k32_FlsAlloc(hcp_ctx *c, const hcp_k32_FlsAlloc_args *a) {
    hcp_xproc *x = hcp_xproc_of(c);
    if (!x || !fls_init(c, x)) return hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY), FLS_OUT_OF_INDEXES;
    for (int i = 1; i < x->nfls; i++)
        if (!x->fls_used[i]) {
            x->fls_used[i] = 1;
            x->fls_cb[i] = a->lpCallback;
            for (int k = 0; k < c->p->nthr; k++) { /* the new index reads NULL in every thread */
                hcp_xthread *xt = hcp_xthread_of(c->os, c->p->thr[k].t);
                if (xt && i < xt->nfls) xt->fls[i] = 0;
            }
            return (uint32_t)i;
        }
    hcp_fail(c, ERROR_NO_MORE_ITEMS);
    return FLS_OUT_OF_INDEXES;
}

/* FlsGetValue and FlsSetValue check the index's bounds only (Windows reads and writes an index
 * that is not allocated: Wine's tests record it); FlsFree checks that it is allocated. */
static bool fls_in_bounds(hcp_ctx *c, uint32_t i) { return i > 0 && (int)i < fls_max(c); }

uint64_t hcp_k32_FlsGetValue(hcp_ctx *c, const hcp_k32_FlsGetValue_args *a) {
    if (!fls_in_bounds(c, a->dwFlsIndex)) return hcp_fail(c, ERROR_INVALID_PARAMETER);
    hcp_xthread *xt = hcp_xthread_of(c->os, c->t);
    hcp_SetLastError(c->os, ERROR_SUCCESS);
    return xt && (int)a->dwFlsIndex < xt->nfls ? xt->fls[a->dwFlsIndex] : 0;
}

uint64_t hcp_k32_FlsSetValue(hcp_ctx *c, const hcp_k32_FlsSetValue_args *a) {
    if (!fls_in_bounds(c, a->dwFlsIndex)) return hcp_fail(c, ERROR_INVALID_PARAMETER);
    hcp_xthread *xt = hcp_xthread_of(c->os, c->t);
    hcp_xproc *x = hcp_xproc_of(c);
    if (!xt || !x || !fls_init(c, x)) return hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
    if (!xt->fls) {
        if (!(xt->fls = calloc((size_t)x->nfls, sizeof *xt->fls))) return hcp_fail(c, ERROR_NOT_ENOUGH_MEMORY);
        xt->nfls = x->nfls;
    }
    xt->fls[a->dwFlsIndex] = a->lpFlsData;
    return 1;
}

static bool fls_valid(hcp_ctx *c, uint32_t i) {
    hcp_xproc *x = hcp_xproc_of(c);
    return x && x->fls_used && i > 0 && (int)i < x->nfls && x->fls_used[i];
}

uint64_t hcp_k32_FlsFree(hcp_ctx *c, const hcp_k32_FlsFree_args *a) {
    if (!fls_valid(c, a->dwFlsIndex)) return hcp_fail(c, ERROR_INVALID_PARAMETER);
    hcp_ucb_frame *f = hcp_ucb_start(c, UCB_FLSFREE, 1);
    if (f) f->u[0] = a->dwFlsIndex; /* u[1]: the next thread to look at */
    return 1;
}

/* The next FLS callback of a frame: FlsFree's (every thread's value of one index, then the index
 * is free), or an exiting thread's (each index with a value, lowest first, then the thread or the
 * process ends with the code in u[0]). */
bool hcp_fls_next(hcp_ctx *c, hcp_ucb_frame *f, uint64_t prev, uint64_t *fn, uint64_t a[4]) {
    (void)prev;
    hcp_xproc *x = hcp_xproc_of(c);
    if (f->kind == UCB_FLSFREE) {
        uint32_t i = (uint32_t)f->u[0];
        for (; x && (int)f->u[1] < c->p->nthr; f->u[1]++) {
            hcp_xthread *xt = hcp_xthread_of(c->os, c->p->thr[f->u[1]].t);
            if (!xt || (int)i >= xt->nfls || !xt->fls[i]) continue;
            uint64_t v = xt->fls[i];
            xt->fls[i] = 0;
            if (!x->fls_cb[i]) continue;
            *fn = x->fls_cb[i];
            a[0] = v;
            f->u[1]++;
            return true;
        }
        if (x && (int)i < x->nfls) {
            x->fls_used[i] = 0;
            x->fls_cb[i] = 0;
        }
        return false;
    }
    hcp_xthread *xt = hcp_xthread_of(c->os, c->t);
    for (; x && xt && (int)f->u[1] < xt->nfls; f->u[1]++) {
        uint32_t i = (uint32_t)f->u[1];
        if (!xt->fls[i] || !x->fls_used[i]) continue;
        uint64_t v = xt->fls[i];
        xt->fls[i] = 0;
        if (!x->fls_cb[i]) continue;
        *fn = x->fls_cb[i];
        a[0] = v;
        f->u[1]++;
        return true;
    }
    uint32_t code = (uint32_t)f->u[0];
    if (xt) xt->nucb = 0; /* the thread ends: no frame outlives it */
    if (f->kind == UCB_PROCESS_EXIT)
        hcp_end_process(c, code);
    else
        hcp_end_thread(c, code);
    return false;
}

/* Whether t has FLS values with callbacks to run when it exits. */
bool hcp_fls_pending(hcp_os *os, hcp_process *p, sim_thread *t) {
    hcp_xproc *x = p ? p->sx : NULL;
    hcp_xthread *xt = hcp_xthread_of(os, t);
    for (int i = 1; x && x->fls_used && xt && i < xt->nfls; i++)
        if (xt->fls[i] && x->fls_used[i] && x->fls_cb[i]) return true;
    return false;
}
