/* api/system.c — platform + options -> machine, OS and gate (system.h), and
 * the table of machine options. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "api/system.h"

#define F(field) offsetof(hcp_system_opts, field), (unsigned)sizeof(((hcp_system_opts *)0)->field)
#define INT(name, lo, hi, unit, doc, field)                                                                            \
    { name, HCP_OPTK_INT, lo, hi, unit, NULL, doc, F(field) }
#define STRUCTURED(name, kind, syntax, doc)                                                                            \
    { name, kind, 0, 0, "", syntax, doc, 0, 0 }

/* In the order hcp.machine{} lists and checks them. */
static const hcp_option options[] = {
    STRUCTURED("platform", HCP_OPTK_NAME, NULL, /* the names: hcp_platform_names() */
               "the simulated Windows: guest ISA, calling convention, which functions exist"),
    STRUCTURED("semantics", HCP_OPTK_NAME, "documented | observed",
               "where Microsoft's documentation and Windows differ, which one the API follows"),
    INT("cpus", 1, 64, "", "logical processors", sim.cpus),
    INT("frequency", 1000, INT64_C(1000000000000), "cycles/s", "cycles per simulated second", sim.frequency),
    INT("tick", 1, 10000000, "x 100 ns", "clock interrupt interval", sim.tick),
    INT("quantum", 1, 1000, "ticks", "a thread's time slice, in ticks of its own cycles", sim.quantum),
    INT("interrupt_cycles", 0, 100000000, "cycles", "cost of one clock interrupt (not charged to the thread)",
        sim.interrupt_cycles),
    INT("slice", 100, INT64_C(1000000000000), "cycles", "length of a lock-step round when cpus > 1", sim.slice),
    STRUCTURED("pmc", HCP_OPTK_EVENTS, "{ EVENT[:u|:k|:uk], ... }",
               "events of PMC0, PMC1, ... (at most 16; hcpsim describe lists the events)"),
    INT("seed", INT64_MIN, INT64_MAX, "", "the scenario seed (math.random); the machine itself draws nothing", seed),
    INT("max_cycles", 0, INT64_MAX, "cycles", "bound on every CPU clock (0: 2x10^10)", sim.max_cycles),
    INT("stack_size", 4096, 64 * 1024 * 1024, "bytes", "guest stack of a thread inside a guest call", sim.stack_size),
    {"precise_faults", HCP_OPTK_BOOL, 0, 1, "", NULL,
     "a guest fault reports the exact faulting instruction and counts up to it", F(sim.precise_faults)},
    STRUCTURED("cost", HCP_OPTK_MODEL,
               "\"default\" | \"unit\" | { table, mispredict, l2_hit, llc_hit, memory, api_call, classes = {...} }",
               "the cycle cost tables (pmu_model/README.md)"),
    STRUCTURED("predictor", HCP_OPTK_MODEL, "true | false | { history, index, pc_shift, ras, btb }",
               "the branch predictor (default on)"),
    STRUCTURED("cache", HCP_OPTK_MODEL, "true | false | { l1d, l2, llc = { size, ways, line } }",
               "the data cache model (default off; on by itself when a PMC counts a cache event)"),
    INT("boot_time", 0, INT64_MAX, "FILETIME", "wall-clock time of virtual time 0 (100 ns since 1601-01-01 UTC)",
        sim.boot_time),
    INT("etw_thread_version", 0, 3, "", "Class.Version of the kernel logger's Thread events (default: the platform's)",
        etw_thread_version),
    INT("max_threads", 1, 1000000, "threads", "threads created over the machine's life", max_threads),
    INT("max_memory", 4096, INT64_C(1) << 40, "bytes", "guest memory placed by m:alloc, m:code, m:import_table",
        max_memory),
    INT("max_handles", 1, HCP_MAX_HANDLES, "handles", "handles open at once (a full table is visible as on Windows)",
        max_handles),
    INT("os_heap", 0, 64 * 1024 * 1024, "bytes", "of the 64 MiB OS heap profiling blocks come from (0: all of it)",
        sim.os_heap),
    INT("max_mappings", 16, SIM_MAX_MAPPINGS_LIMIT, "mappings", "separate guest memory mappings (n cost n^3 host time)",
        sim.max_mappings),
    INT("max_trap_points", 1, SIM_MAX_TRAPS_LIMIT, "places",
        "places in placed code where an instruction the engine must not translate may start", sim.max_trap_points),
};
#define NOPTIONS (int)(sizeof options / sizeof options[0])

const hcp_option *hcp_option_at(int i) { return i >= 0 && i < NOPTIONS ? &options[i] : NULL; }

const hcp_option *hcp_option_find(const char *name) {
    for (int i = 0; i < NOPTIONS; i++)
        if (strcmp(options[i].name, name) == 0) return &options[i];
    return NULL;
}

/* Edit distance (insertions, deletions, substitutions, adjacent swaps) of two short names. */
static size_t distance(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    if (la > 31 || lb > 31) return 99;
    size_t d[32][32];
    for (size_t i = 0; i <= la; i++) d[i][0] = i;
    for (size_t j = 0; j <= lb; j++) d[0][j] = j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[la][lb];
}

const char *hcp_suggest(const char *name, const char *const *names, int n) {
    const char *best = NULL;
    size_t bestd = strlen(name) < 5 ? 1 : 2; /* at most this many edits away */
    for (int i = 0; i < n; i++) {
        size_t d = distance(name, names[i]);
        if (d < bestd || (d == bestd && (!best || strcmp(names[i], best) < 0))) {
            best = names[i];
            bestd = d;
        }
    }
    return best;
}

const char *hcp_option_suggest(const char *name) {
    const char *names[NOPTIONS];
    for (int i = 0; i < NOPTIONS; i++) names[i] = options[i].name;
    return hcp_suggest(name, names, NOPTIONS);
}

void hcp_system_opts_init(hcp_system_opts *o, const hcp_platform *p) {
    memset(o, 0, sizeof *o);
    o->platform = p ? p : hcp_platform_at(0);
    o->semantics = HCP_DOCUMENTED;
    sim_config_default(&o->sim);
    o->sim.arch = o->platform->arch;
    pmu_cost_defaults(&o->sim.cost, o->platform->cost_profile);
    o->sim.max_mappings = SIM_MAX_MAPPINGS_DEFAULT;
    o->sim.max_trap_points = SIM_MAX_TRAPS_DEFAULT;
    o->etw_thread_version = o->platform->etw_thread_version;
    o->max_handles = HCP_DEFAULT_MAX_HANDLES;
    o->max_threads = HCP_DEFAULT_MAX_THREADS;
    o->max_memory = HCP_DEFAULT_MAX_MEMORY;
    o->seed = HCP_DEFAULT_SEED;
}

int64_t hcp_option_get(const hcp_system_opts *o, const hcp_option *opt) {
    const char *at = (const char *)o + opt->offset;
    switch (opt->size) {
    case 1: return *(const bool *)(const void *)at;
    case 4: {
        uint32_t v;
        memcpy(&v, at, 4);
        return opt->lo < 0 ? (int64_t)(int32_t)v : (int64_t)v;
    }
    case 8: {
        int64_t v;
        memcpy(&v, at, 8);
        return v;
    }
    default: return 0;
    }
}

int hcp_option_set(hcp_system_opts *o, const hcp_option *opt, int64_t v, char *msg, size_t msglen) {
    if (opt->kind != HCP_OPTK_INT && opt->kind != HCP_OPTK_BOOL) {
        snprintf(msg, msglen, "'%s' is not a number", opt->name);
        return -1;
    }
    if (v < opt->lo || v > opt->hi) {
        snprintf(msg, msglen, "'%s' = %" PRId64 " is out of range (%" PRId64 "..%" PRId64 ")", opt->name, v, opt->lo,
                 opt->hi);
        return -1;
    }
    char *at = (char *)o + opt->offset;
    if (opt->size == 1) {
        bool b = v != 0;
        memcpy(at, &b, 1);
    } else if (opt->size == 4) {
        uint32_t w = (uint32_t)v;
        memcpy(at, &w, 4);
    } else {
        memcpy(at, &v, 8);
    }
    return 0;
}

int hcp_system_set_pmc(hcp_system_opts *o, const char *const *names, int n, char *msg, size_t msglen) {
    if (n > PMU_MAX_PMC) {
        snprintf(msg, msglen, "'pmc' lists %d events; at most %d", n, PMU_MAX_PMC);
        return -1;
    }
    int bad = 0;
    pmu_err pe = pmu_config_set(&o->sim.pmc, names, n, &bad);
    if (pe == PMU_ERR_BAD_MODIFIER) {
        snprintf(msg, msglen, "pmc[%d] '%s': the part after ':' must be u, k or uk", bad + 1, names[bad]);
        return -1;
    }
    if (pe != PMU_OK) {
        size_t len = (size_t)snprintf(msg, msglen, "unknown PMU event '%s' in pmc[%d] (valid: ", names[bad], bad + 1);
        for (int e = 0; e < PMU_EV__COUNT && len < msglen; e++)
            len += (size_t)snprintf(msg + len, msglen - len, "%s%s", e ? ", " : "", pmu_event_name((pmu_event)e));
        if (len < msglen) snprintf(msg + len, msglen - len, ")");
        return -1;
    }
    return 0;
}

void hcp_system_set_cache(hcp_system_opts *o, bool on) {
    o->sim.cache = on;
    o->cache_set = true;
}

static bool is_cache_event(pmu_event e) {
    return e == PMU_EV_L1D_MISSES || e == PMU_EV_L2_MISSES || e == PMU_EV_LLC_REFERENCES || e == PMU_EV_LLC_MISSES;
}

int hcp_system_new(const hcp_system_opts *o, hcp_system *out, char *msg, size_t msglen) {
    memset(out, 0, sizeof *out);
    const hcp_platform *p = o->platform ? o->platform : hcp_platform_at(0);
    sim_config c = o->sim;
    int cache_pmc = -1;
    for (int i = 0; i < c.pmc.npmc; i++)
        if (cache_pmc < 0 && is_cache_event(c.pmc.pmc[i])) cache_pmc = i;
    if (o->cache_set && !c.cache && cache_pmc >= 0) {
        snprintf(msg, msglen, "pmc[%d] counts '%s', which needs the cache model (cache = false)", cache_pmc + 1,
                 pmu_event_name(c.pmc.pmc[cache_pmc]));
        return -1;
    }
    if (!o->cache_set) c.cache = cache_pmc >= 0;
    sim_err e = sim_machine_new(&c, &out->m);
    if (e == SIM_ERR_ARCH) {
        snprintf(msg, msglen, "platform '%s' needs the %s guest CPU, which is not available in this version", p->name,
                 sim_arch_name(p->arch));
        return -1;
    }
    if (e != SIM_OK) {
        snprintf(msg, msglen, "%s", sim_strerror(e));
        return -1;
    }
    out->platform = p;
    out->max_threads = o->max_threads;
    out->max_memory = o->max_memory;
    if (o->observe && o->observe(o->observe_ud, out->m, msg, msglen) != 0) return -1;
    out->os = hcp_os_new(out->m, o->semantics);
    if (!out->os) {
        snprintf(msg, msglen, "out of host memory");
        return -1;
    }
    hcp_os_set_platform(out->os, p);
    hcp_etw_set_thread_version(out->os, o->etw_thread_version);
    hcp_os_set_max_handles(out->os, o->max_handles);
    hcp_gate_attach(out->os); /* guest code calls the API through the import thunks */
    return 0;
}

void hcp_system_free(hcp_system *s) {
    if (!s) return;
    if (s->os) {
        hcp_etw_stop(s->os, false); /* a trace session still running ends without events */
        hcp_gate_detach(s->os);
        hcp_os_free(s->os);
    }
    sim_machine_free(s->m);
    memset(s, 0, sizeof *s);
}
