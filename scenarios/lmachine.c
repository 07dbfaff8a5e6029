/* scenarios/lmachine.c — the Machine object: hcp.machine{...}, guest memory,
 * threads, m:run (the loop that resumes thread bodies as the scheduler
 * dispatches them) and the kernel-side Ke* calls. */
#include <stdio.h>
#include <string.h>

#include "api/platform.h"
#include "api/system.h"
#include "scenarios/lhcp.h"

/* user values of a Machine userdata */
#define UV_THREADS 1 /* array of Thread userdata, by thread index + 1 */
#define UV_TRACE 2   /* the running m:trace session's userdata, or nil */

static const char *opt_str(lua_State *L, int t, const char *k, const char *def) {
    const char *v = def;
    int ty = lua_getfield(L, t, k);
    if (ty != LUA_TNIL) {
        if (ty != LUA_TSTRING) luaL_error(L, "hcp.machine: '%s' must be a string (got %s)", k, luaL_typename(L, -1));
        v = lua_tostring(L, -1);
    }
    lua_pop(L, 1); /* the string stays alive: it is still in the options table */
    return v;
}

static int machine_gc(lua_State *L) {
    lmachine *lm = luaL_checkudata(L, 1, LHCP_MACHINE);
    rep_trace_detach(lm->trace, lm->m); /* closes its open spans while the machine still exists */
    lm->trace = NULL;
    rep_report_detach(lm->report, lm->m); /* takes the final totals while the machine still exists */
    lm->report = NULL;
    hcp_system sys = {.m = lm->m, .os = lm->os};
    hcp_system_free(&sys); /* an m:trace session still running ends without events */
    lm->os = NULL;
    lm->m = NULL;
    return 0;
}

/* An integer field `k` of the table at index t (nested options: the message
 * names "what.k"). */
static uint32_t opt_field(lua_State *L, int t, const char *what, const char *k, uint32_t def, uint32_t lo,
                          uint32_t hi) {
    lua_Integer v = def;
    if (lua_getfield(L, t, k) != LUA_TNIL) {
        int isint;
        v = lua_tointegerx(L, -1, &isint);
        if (!isint) luaL_error(L, "hcp.machine: '%s.%s' must be an integer (got %s)", what, k, luaL_typename(L, -1));
        if (v < lo || v > hi)
            luaL_error(L, "hcp.machine: '%s.%s' = %I is out of range (%I..%I)", what, k, v, (lua_Integer)lo,
                       (lua_Integer)hi);
    }
    lua_pop(L, 1);
    return (uint32_t)v;
}

/* cost = "default" | "unit" | { table =, mispredict =, l2_hit =, llc_hit =,
 * memory =, api_call =, classes = { alu =, ... } } */
static void opt_cost(lua_State *L, int t, pmu_cost_params *p) {
    int ty = lua_getfield(L, t, "cost");
    int top = lua_gettop(L);
    const char *table = NULL;
    if (ty == LUA_TSTRING) {
        table = lua_tostring(L, -1);
    } else if (ty == LUA_TTABLE) {
        static const char *const keys[] = {"table",  "mispredict", "l2_hit",  "llc_hit",
                                           "memory", "api_call",   "classes", NULL};
        lhcp_check_keys(L, top, "hcp.machine cost", keys);
        if (lua_getfield(L, top, "table") != LUA_TNIL) {
            if (lua_type(L, -1) != LUA_TSTRING) luaL_error(L, "hcp.machine: 'cost.table' must be a string");
            table = lua_tostring(L, -1);
        }
        lua_pop(L, 1);
    } else if (ty != LUA_TNIL) {
        luaL_error(L, "hcp.machine: 'cost' must be \"default\", \"unit\" or a table (got %s)", luaL_typename(L, -1));
    }
    if (table && pmu_cost_table(p, table) != PMU_OK)
        luaL_error(L, "hcp.machine: unknown cost table '%s' (valid: default, unit)", table);
    if (ty == LUA_TTABLE) {
        const uint32_t big = PMU_COST_CYCLES_MAX;
        p->mispredict_cycles = opt_field(L, top, "cost", "mispredict", p->mispredict_cycles, 0, big);
        p->l2_hit_cycles = opt_field(L, top, "cost", "l2_hit", p->l2_hit_cycles, 0, big);
        p->llc_hit_cycles = opt_field(L, top, "cost", "llc_hit", p->llc_hit_cycles, 0, big);
        p->mem_cycles = opt_field(L, top, "cost", "memory", p->mem_cycles, 0, big);
        p->api_call_cycles = opt_field(L, top, "cost", "api_call", p->api_call_cycles, 0, big);
        if (lua_getfield(L, top, "classes") != LUA_TNIL) {
            if (!lua_istable(L, -1)) luaL_error(L, "hcp.machine: 'cost.classes' must be a table");
            const char *names[PMU_CL__COUNT + 1];
            for (int i = 0; i < PMU_CL__COUNT; i++) names[i] = pmu_class_name((pmu_class)i);
            names[PMU_CL__COUNT] = NULL;
            lhcp_check_keys(L, lua_gettop(L), "hcp.machine cost.classes", names);
            for (int i = 0; i < PMU_CL__COUNT; i++)
                p->class_cycles[i] = opt_field(L, lua_gettop(L), "cost.classes", names[i], p->class_cycles[i], 0, big);
        }
        lua_pop(L, 1);
    }
    lua_settop(L, top - 1);
}

/* predictor = true | false | { history =, index =, pc_shift =, ras =, btb = } */
static bool opt_predictor(lua_State *L, int t, pmu_bp_params *bp) {
    int ty = lua_getfield(L, t, "predictor");
    bool on = true;
    if (ty == LUA_TBOOLEAN) {
        on = lua_toboolean(L, -1);
    } else if (ty == LUA_TTABLE) {
        static const char *const keys[] = {"history", "index", "pc_shift", "ras", "btb", NULL};
        int top = lua_gettop(L);
        lhcp_check_keys(L, top, "hcp.machine predictor", keys);
        bp->index_bits = opt_field(L, top, "predictor", "index", bp->index_bits, PMU_BP_INDEX_MIN, PMU_BP_INDEX_MAX);
        bp->hist_bits = opt_field(L, top, "predictor", "history", bp->hist_bits, 0, bp->index_bits);
        bp->pc_shift = opt_field(L, top, "predictor", "pc_shift", bp->pc_shift, 0, PMU_BP_PC_SHIFT_MAX);
        bp->ras_depth = opt_field(L, top, "predictor", "ras", bp->ras_depth, 0, PMU_BP_RAS_MAX);
        bp->btb_entries = opt_field(L, top, "predictor", "btb", bp->btb_entries, 0, PMU_BP_BTB_MAX);
    } else if (ty != LUA_TNIL) {
        luaL_error(L, "hcp.machine: 'predictor' must be a boolean or a table (got %s)", luaL_typename(L, -1));
    }
    lua_pop(L, 1);
    return on;
}

/* cache = true | false | { l1d = { size =, ways =, line = }, l2 = ..., llc = ... };
 * returns 1 on, 0 off, -1 not given. */
static int opt_cache(lua_State *L, int t, pmu_cache_params *cp) {
    int ty = lua_getfield(L, t, "cache");
    int on = -1;
    if (ty == LUA_TBOOLEAN) {
        on = lua_toboolean(L, -1);
    } else if (ty == LUA_TTABLE) {
        static const char *const keys[] = {"l1d", "l2", "llc", NULL};
        static const char *const lkeys[] = {"size", "ways", "line", NULL};
        int top = lua_gettop(L);
        lhcp_check_keys(L, top, "hcp.machine cache", keys);
        pmu_cache_level *lv[3] = {&cp->l1d, &cp->l2, &cp->llc};
        static const char *const what[3] = {"cache.l1d", "cache.l2", "cache.llc"};
        for (int i = 0; i < 3; i++) {
            if (lua_getfield(L, top, keys[i]) != LUA_TNIL) {
                if (!lua_istable(L, -1)) luaL_error(L, "hcp.machine: '%s' must be a table", what[i]);
                lhcp_check_keys(L, lua_gettop(L), what[i], lkeys);
                lv[i]->size = opt_field(L, lua_gettop(L), what[i], "size", lv[i]->size, 1, PMU_CACHE_SIZE_MAX);
                lv[i]->ways = opt_field(L, lua_gettop(L), what[i], "ways", lv[i]->ways, 1, PMU_CACHE_WAYS_MAX);
                lv[i]->line =
                    opt_field(L, lua_gettop(L), what[i], "line", lv[i]->line, PMU_CACHE_LINE_MIN, PMU_CACHE_LINE_MAX);
            }
            lua_pop(L, 1);
        }
        if (pmu_cache_params_check(cp) != PMU_OK)
            luaL_error(L, "hcp.machine: cache geometry: each level needs a power-of-two line of 4..4096 bytes and a "
                          "size that is a whole number of sets (ways x line)");
        on = 1;
    } else if (ty != LUA_TNIL) {
        luaL_error(L, "hcp.machine: 'cache' must be a boolean or a table (got %s)", luaL_typename(L, -1));
    }
    lua_pop(L, 1);
    return on;
}

/* pmc = { "instructions", "branches:u", ... } */
static void opt_pmc(lua_State *L, int t, hcp_system_opts *o) {
    if (lua_getfield(L, t, "pmc") != LUA_TNIL) {
        if (!lua_istable(L, -1)) luaL_error(L, "hcp.machine: 'pmc' must be a list of event names");
        const char *names[PMU_MAX_PMC];
        lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
        if (n > PMU_MAX_PMC) luaL_error(L, "hcp.machine: 'pmc' lists %I events; at most %d", n, PMU_MAX_PMC);
        for (lua_Integer i = 1; i <= n; i++) {
            if (lua_rawgeti(L, -1, i) != LUA_TSTRING) luaL_error(L, "hcp.machine: pmc[%I] must be an event name", i);
            names[i - 1] = lua_tostring(L, -1); /* alive in the pmc table */
            lua_pop(L, 1);
        }
        char msg[512];
        if (hcp_system_set_pmc(o, names, (int)n, msg, sizeof msg) != 0) luaL_error(L, "hcp.machine: %s", msg);
    }
    lua_pop(L, 1);
}

/* An integer or boolean machine option, checked against the option table. */
static void opt_value(lua_State *L, int t, const hcp_option *opt, hcp_system_opts *o) {
    int ty = lua_getfield(L, t, opt->name);
    if (ty != LUA_TNIL) {
        lua_Integer v;
        if (opt->kind == HCP_OPTK_BOOL) {
            if (ty != LUA_TBOOLEAN) luaL_error(L, "hcp.machine: '%s' must be a boolean", opt->name);
            v = lua_toboolean(L, -1);
        } else {
            int isint;
            v = lua_tointegerx(L, -1, &isint);
            if (!isint) luaL_error(L, "hcp.machine: '%s' must be an integer (got %s)", opt->name, luaL_typename(L, -1));
        }
        char msg[256];
        if (hcp_option_set(o, opt, v, msg, sizeof msg) != 0) luaL_error(L, "hcp.machine: %s", msg);
    }
    lua_pop(L, 1);
}

static bool machine_poll(void *ud) { return lhcp_poll(ud); }

/* hcp_system_new's observe: the --trace writer sees the machine before any thread exists. */
typedef struct observe_ctx {
    lmachine *lm;
    rep_trace *trace;
} observe_ctx;

static int observe_trace(void *ud, sim_machine *m, char *msg, size_t msglen) {
    observe_ctx *ctx = ud;
    if (rep_trace_attach(ctx->trace, m) != 0) {
        snprintf(msg, msglen, "--trace: cannot observe the machine (no observer slot or memory)");
        return -1;
    }
    ctx->lm->trace = ctx->trace;
    return 0;
}

int lhcp_machine_new(lua_State *L) {
    static const char *keys[64];
    if (!keys[0])
        for (int i = 0; hcp_option_at(i) && i < 63; i++) keys[i] = hcp_option_at(i)->name;
    if (lua_isnoneornil(L, 1)) {
        lua_settop(L, 0);
        lua_newtable(L);
    }
    luaL_checktype(L, 1, LUA_TTABLE);
    lhcp_check_keys(L, 1, "hcp.machine", keys);

    const char *platform = opt_str(L, 1, "platform", "win10-x64");
    const hcp_platform *plat = hcp_platform_find(platform);
    if (!plat) return luaL_error(L, "hcp.machine: unknown platform '%s' (valid: %s)", platform, hcp_platform_names());
    hcp_system_opts o;
    hcp_system_opts_init(&o, plat);
    const char *sem = opt_str(L, 1, "semantics", "documented");
    if (strcmp(sem, "documented") == 0)
        o.semantics = HCP_DOCUMENTED;
    else if (strcmp(sem, "observed") == 0)
        o.semantics = HCP_OBSERVED;
    else
        return luaL_error(L, "hcp.machine: unknown semantics '%s' (valid: documented, observed)", sem);
    for (int i = 0; hcp_option_at(i); i++) {
        const hcp_option *opt = hcp_option_at(i);
        if (opt->kind == HCP_OPTK_INT || opt->kind == HCP_OPTK_BOOL)
            opt_value(L, 1, opt, &o);
        else if (strcmp(opt->name, "pmc") == 0)
            opt_pmc(L, 1, &o);
        else if (strcmp(opt->name, "cost") == 0)
            opt_cost(L, 1, &o.sim.cost);
        else if (strcmp(opt->name, "predictor") == 0)
            o.sim.predictor = opt_predictor(L, 1, &o.sim.cost.bp);
        else if (strcmp(opt->name, "cache") == 0) {
            int cache = opt_cache(L, 1, &o.sim.cost.cache);
            if (cache >= 0) hcp_system_set_cache(&o, cache == 1);
        }
    }

    lmachine *lm = lua_newuserdatauv(L, sizeof *lm, 2);
    memset(lm, 0, sizeof *lm);
    luaL_setmetatable(L, LHCP_MACHINE);
    lua_newtable(L);
    lua_setiuservalue(L, -2, UV_THREADS);
    snprintf(lm->platform, sizeof lm->platform, "%s", platform);
    observe_ctx ctx = {lm, lhcp_trace(L)};
    if (ctx.trace) { /* before any thread exists, so the trace sees each from its creation */
        o.observe = observe_trace;
        o.observe_ud = &ctx;
    }
    hcp_system sys;
    char msg[512];
    int rc = hcp_system_new(&o, &sys, msg, sizeof msg);
    lm->m = sys.m; /* freed by machine_gc, also after a failure */
    lm->os = sys.os;
    if (rc != 0) return luaL_error(L, "hcp.machine: %s", msg);
    lm->max_threads = sys.max_threads;
    lm->max_memory = sys.max_memory;
    if (ctx.trace && rep_trace_attach_calls(ctx.trace, lm->m, lm->os) != 0)
        return luaL_error(L, "hcp.machine: --trace: cannot observe the machine's API calls (no observer slot)");
    rep_report *rr = lhcp_report(L);
    if (rr) { /* before any thread exists, so the report sees each from its creation */
        if (rep_report_attach(rr, lm->m, lm->os, lm->platform) != 0)
            return luaL_error(L, "hcp.machine: --report: cannot observe the machine (no observer slot or memory)");
        lm->report = rr;
    }
    if (sim_alloc(lm->m, 4096, &lm->scratch) != SIM_OK) return luaL_error(L, "hcp.machine: out of guest memory");
    sim_set_poll(lm->m, machine_poll, lm->m); /* signals and progress inside long guest calls */
    return 1;
}

/* ---- memory --------------------------------------------------------------------------------- */

/* The bytes (whole pages) n bytes of scenario guest memory take of
 * max_memory; past it, the limit error (scenarios/README.md "Limits").  The
 * caller adds them to memory_used once the memory is placed: a request the
 * machine refuses costs none. */
uint64_t lhcp_memory_pages(lua_State *L, lmachine *lm, uint64_t n) {
    uint64_t pages = (n + 4095) / 4096 * 4096;
    if (pages > lm->max_memory || lm->memory_used > lm->max_memory - pages)
        lhcp_end_error(L, LHCP_END_LIMIT, "max_memory",
                       "limit reached: %I bytes of guest memory (machine option max_memory; default %I)",
                       (lua_Integer)lm->max_memory, (lua_Integer)HCP_DEFAULT_MAX_MEMORY);
    return pages;
}

/* Seconds of simulated time, exactly: "1", "0.25". */
static void seconds_text(char *buf, size_t n, uint64_t ns) {
    int len =
        snprintf(buf, n, "%llu.%09llu", (unsigned long long)(ns / 1000000000u), (unsigned long long)(ns % 1000000000u));
    while (len > 0 && buf[len - 1] == '0') buf[--len] = '\0';
    if (len > 0 && buf[len - 1] == '.') buf[--len] = '\0';
}

const char *lhcp_cycle_limit(lua_State *L, lmachine *lm, int cpu) {
    char where[32] = "";
    if (cpu >= 0) snprintf(where, sizeof where, " on CPU %d", cpu);
    const char *msg;
    if (lm->timeout_ns) {
        char s[48];
        seconds_text(s, sizeof s, lm->timeout_ns);
        msg = lua_pushfstring(L,
                              "limit reached: %s s of simulated time%s (hcpsim run --timeout SECONDS; default %d for a "
                              "program)",
                              s, where, LHCP_PROGRAM_TIMEOUT_S);
    } else {
        msg = lua_pushfstring(L,
                              "limit reached: %I cycles%s (machine option max_cycles or m:run{max_cycles = N}; "
                              "default %I)",
                              (lua_Integer)sim_max_cycles(lm->m), where, (lua_Integer)SIM_DEFAULT_MAX_CYCLES);
    }
    lhcp_set_end(L, LHCP_END_LIMIT, lm->timeout_ns ? "timeout" : "max_cycles", msg);
    return msg;
}

static int m_code(lua_State *L) {
    lmachine *lm = lhcp_check_machine(L, 1);
    size_t n;
    const char *s = luaL_checklstring(L, 2, &n);
    if (n == 0) return luaL_argerror(L, 2, "empty code");
    uint64_t pages = lhcp_memory_pages(L, lm, n);
    uint64_t a;
    sim_err e = sim_code(lm->m, s, n, &a);
    if (e != SIM_OK) return luaL_error(L, "m:code: %s", lhcp_sim_strerror(L, lm->m, e));
    lm->memory_used += pages;
    lua_pushinteger(L, (lua_Integer)a);
    return 1;
}

static int m_alloc(lua_State *L) {
    lmachine *lm = lhcp_check_machine(L, 1);
    lua_Integer n = luaL_checkinteger(L, 2);
    if (n < 1 || n > 256 * 1024 * 1024) return luaL_argerror(L, 2, "size must be 1..268435456 bytes");
    uint64_t pages = lhcp_memory_pages(L, lm, (uint64_t)n);
    uint64_t a;
    sim_err e = sim_alloc(lm->m, (size_t)n, &a);
    if (e != SIM_OK) return luaL_error(L, "m:alloc: %s", lhcp_sim_strerror(L, lm->m, e));
    lm->memory_used += pages;
    lua_pushinteger(L, (lua_Integer)a);
    return 1;
}

static int m_read(lua_State *L) {
    lmachine *lm = lhcp_check_machine(L, 1);
    uint64_t a = lhcp_check_u64(L, 2);
    lua_Integer n = luaL_checkinteger(L, 3);
    if (n < 0 || n > 64 * 1024 * 1024) return luaL_argerror(L, 3, "length must be 0..67108864");
    luaL_Buffer b;
    char *p = luaL_buffinitsize(L, &b, (size_t)n);
    sim_err e = sim_mem_read(lm->m, a, p, (size_t)n);
    if (e != SIM_OK) {
        char hex[24];
        snprintf(hex, sizeof hex, "0x%llX", (unsigned long long)a);
        return luaL_error(L, "m:read(%s, %I): %s", hex, n, sim_strerror(e));
    }
    luaL_pushresultsize(&b, (size_t)n);
    return 1;
}

static int m_write(lua_State *L) {
    lmachine *lm = lhcp_check_machine(L, 1);
    uint64_t a = lhcp_check_u64(L, 2);
    size_t n;
    const char *s = luaL_checklstring(L, 3, &n);
    sim_err e = sim_mem_write(lm->m, a, s, n);
    if (e != SIM_OK) {
        char hex[24];
        snprintf(hex, sizeof hex, "0x%llX", (unsigned long long)a);
        return luaL_error(L, "m:write(%s, %d bytes): %s", hex, (int)n, sim_strerror(e));
    }
    return 0;
}

/* ---- m:trace: an NT Kernel Logger session (api/etw.c, HCP-SPEC §7) --------------------------- */

#define LHCP_TRACE "hcpsim.TraceSession"
#define TUV_MACHINE 1 /* user values of a TraceSession: its machine */
#define TUV_CO 2      /* the thread on_event runs on: [1] the delivery closure, then on_event's error */
#define TRACE_FLAGS (EVENT_TRACE_FLAG_THREAD | EVENT_TRACE_FLAG_CSWITCH | EVENT_TRACE_FLAG_DISPATCHER)

typedef struct ltrace {
    lmachine *lm;
    lua_State *co;
    uint32_t flags;
    bool active; /* the machine's running session */
    bool failed; /* on_event raised: later events are dropped, the error waits on co for a safe point */
} ltrace;

static void set_int(lua_State *L, const char *k, lua_Integer v) {
    lua_pushinteger(L, v);
    lua_setfield(L, -2, k);
}

/* The delivery closure (upvalue: on_event), called with the event as a light
 * userdata: ev = { header =, data =, raw =, type =, name =, cpu = }. */
static int trace_deliver(lua_State *L) {
    const hcp_etw_event *ev = lua_touserdata(L, 1);
    const uint8_t *p = ev->data;
    int n = ev->nfields;
    const char *name = ev->name;
    const hcp_etw_field *f = ev->fields; /* the session's layout: Thread class version, pointer size */
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_createtable(L, 0, 6);
    lua_createtable(L, 0, 14);
    set_int(L, "Size", hcp_get16(p));
    set_int(L, "FieldTypeFlags", hcp_get16(p + 2));
    set_int(L, "HeaderType", p[2]);
    set_int(L, "MarkerFlags", p[3]);
    set_int(L, "Version", hcp_get32(p + 4)); /* the ULONG union over Class */
    lua_createtable(L, 0, 3);
    set_int(L, "Type", p[4]);
    set_int(L, "Level", p[5]);
    set_int(L, "Version", hcp_get16(p + 6));
    lua_setfield(L, -2, "Class");
    set_int(L, "ThreadId", hcp_get32(p + 8));
    set_int(L, "ProcessId", hcp_get32(p + 12));
    set_int(L, "TimeStamp", (lua_Integer)hcp_get64(p + 16));
    char guid[40];
    snprintf(guid, sizeof guid, "{%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x}", (unsigned)hcp_get32(p + 24),
             (unsigned)hcp_get16(p + 28), (unsigned)hcp_get16(p + 30), p[32], p[33], p[34], p[35], p[36], p[37], p[38],
             p[39]);
    lua_pushstring(L, guid);
    lua_setfield(L, -2, "Guid");
    set_int(L, "KernelTime", hcp_get32(p + 40));
    set_int(L, "UserTime", hcp_get32(p + 44));
    set_int(L, "ProcessorTime", (lua_Integer)hcp_get64(p + 40));
    lua_setfield(L, -2, "header");
    lua_createtable(L, 0, n);
    const uint8_t *d = p + HCP_ETW_HEADER_SIZE;
    for (int i = 0; i < n; i++) {
        const uint8_t *q = d + f[i].offset;
        lua_Integer v = f[i].size == 8   ? (lua_Integer)hcp_get64(q)
                        : f[i].size == 4 ? (f[i].is_signed ? (int32_t)hcp_get32(q) : (lua_Integer)hcp_get32(q))
                                         : (f[i].is_signed ? (int8_t)q[0] : q[0]);
        set_int(L, f[i].name, v);
    }
    lua_setfield(L, -2, "data");
    lua_pushlstring(L, (const char *)p, ev->size);
    lua_setfield(L, -2, "raw");
    set_int(L, "type", p[4]);
    lua_pushstring(L, name ? name : "?");
    lua_setfield(L, -2, "name");
    set_int(L, "cpu", ev->cpu);
    lua_call(L, 1, 0);
    return 0;
}

/* The api's sink: runs on_event on the session's own thread, protected (the
 * simulator is mid-step here and must not be unwound). */
static void trace_sink(void *ud, const hcp_etw_event *ev) {
    ltrace *tr = ud;
    if (tr->failed) return;
    lua_pushvalue(tr->co, 1);
    lua_pushlightuserdata(tr->co, (void *)(uintptr_t)ev);
    if (lua_pcall(tr->co, 1, 0, 0) != LUA_OK) tr->failed = true; /* the error stays on co */
}

/* The machine's running session, its userdata pushed (nil and NULL when none). */
static ltrace *trace_of(lua_State *L, int midx) {
    lua_getiuservalue(L, midx, UV_TRACE);
    return luaL_testudata(L, -1, LHCP_TRACE);
}

/* Ends the running session of the machine at midx, if any: DCEnd events with
 * `rundown`, none otherwise.  Raises on_event's error when `raise` and it
 * raised one (a scenario error at the caller's safe point). */
static void trace_end(lua_State *L, int midx, bool rundown, bool raise) {
    lmachine *lm = lua_touserdata(L, midx);
    ltrace *tr = trace_of(L, midx);
    if (tr && tr->active) {
        hcp_etw_stop(lm->os, rundown && !tr->failed);
        tr->active = false;
        lua_pushnil(L);
        lua_setiuservalue(L, midx, UV_TRACE);
        if (tr->failed && raise) {
            tr->failed = false;
            lua_xmove(tr->co, L, 1);
            if (!lua_isstring(L, -1))
                luaL_error(L, "m:trace: on_event raised a non-string error (%s)", luaL_typename(L, -1));
            lua_error(L);
        }
    }
    lua_pop(L, 1);
}

/* True when on_event has raised and its error waits to be raised. */
static bool trace_failed(lua_State *L, lmachine *lm, int midx) {
    if (!hcp_etw_active(lm->os)) return false;
    ltrace *tr = trace_of(L, midx);
    bool f = tr && tr->failed;
    lua_pop(L, 1);
    return f;
}

/* m:trace{ flags = EVENT_TRACE_FLAG_*, on_event = function(ev) ... end } --> session */
static int m_trace(lua_State *L) {
    lmachine *lm = lhcp_check_machine(L, 1);
    static const char *const keys[] = {"flags", "on_event", NULL};
    luaL_checktype(L, 2, LUA_TTABLE);
    lhcp_check_keys(L, 2, "m:trace", keys);
    lua_getfield(L, 2, "flags");
    int isint;
    lua_Integer flags = lua_tointegerx(L, -1, &isint);
    if (!isint) return luaL_error(L, "m:trace: 'flags' must be an integer of EVENT_TRACE_FLAG_* bits");
    if (flags & ~(lua_Integer)TRACE_FLAGS) {
        char hex[24];
        snprintf(hex, sizeof hex, "0x%llX", (unsigned long long)(flags & ~(lua_Integer)TRACE_FLAGS));
        return luaL_error(L,
                          "m:trace: flags %s are not simulated (valid: EVENT_TRACE_FLAG_THREAD 0x2, "
                          "EVENT_TRACE_FLAG_CSWITCH 0x10, EVENT_TRACE_FLAG_DISPATCHER 0x800)",
                          hex);
    }
    if (lua_getfield(L, 2, "on_event") != LUA_TFUNCTION)
        return luaL_error(L, "m:trace: 'on_event' must be a function (got %s)", luaL_typename(L, -1));
    if (hcp_etw_active(lm->os))
        return luaL_error(L, "m:trace: the NT Kernel Logger already runs on this machine (ERROR_ALREADY_EXISTS); "
                             "stop its session first");
    lua_pushcclosure(L, trace_deliver, 1);
    ltrace *tr = lua_newuserdatauv(L, sizeof *tr, 2);
    memset(tr, 0, sizeof *tr);
    luaL_setmetatable(L, LHCP_TRACE);
    tr->lm = lm;
    tr->flags = (uint32_t)flags;
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, -2, TUV_MACHINE);
    tr->co = lua_newthread(L);
    lhcp_limit_hook(tr->co);
    lua_setiuservalue(L, -2, TUV_CO);
    lua_rotate(L, -2, 1); /* the closure to the top, then to co's index 1 */
    lua_xmove(L, tr->co, 1);
    lua_pushvalue(L, -1);
    lua_setiuservalue(L, 1, UV_TRACE); /* the machine keeps its running session alive */
    tr->active = true;
    uint32_t rc = hcp_etw_start(lm->os, tr->flags, trace_sink, tr);
    if (rc != ERROR_SUCCESS) {
        tr->active = false;
        lua_pushnil(L);
        lua_setiuservalue(L, 1, UV_TRACE);
        if (rc == ERROR_NOT_SUPPORTED)
            return luaL_error(L, "m:trace: platform '%s' has no NT Kernel Logger (StartTrace: ERROR_NOT_SUPPORTED)",
                              lm->platform);
        return luaL_error(L, "m:trace: no observer slot left on this machine");
    }
    if (tr->failed) trace_end(L, 1, false, true); /* on_event raised on a DCStart event */
    return 1;
}

/* s:stop() --> true when it stopped the running session (DCEnd events first), false when already stopped */
static int ts_stop(lua_State *L) {
    ltrace *tr = luaL_checkudata(L, 1, LHCP_TRACE);
    lua_getiuservalue(L, 1, TUV_MACHINE);
    lhcp_check_machine(L, -1);
    bool was = tr->active;
    trace_end(L, lua_gettop(L), true, true);
    lua_pushboolean(L, was);
    return 1;
}

/* `local s <close> = m:trace{...}`: stops it at the end of the block. */
static int ts_close(lua_State *L) {
    ltrace *tr = luaL_checkudata(L, 1, LHCP_TRACE);
    if (!tr->active) return 0;
    lua_settop(L, 1);
    return ts_stop(L);
}

static int ts_index(lua_State *L) {
    ltrace *tr = luaL_checkudata(L, 1, LHCP_TRACE);
    const char *k = luaL_checkstring(L, 2);
    if (strcmp(k, "stop") == 0)
        lua_pushcfunction(L, ts_stop);
    else if (strcmp(k, "flags") == 0)
        lua_pushinteger(L, (lua_Integer)tr->flags);
    else if (strcmp(k, "active") == 0)
        lua_pushboolean(L, tr->active);
    else
        return luaL_error(L, "hcpsim.TraceSession has no member '%s' (valid: stop, flags, active)", k);
    return 1;
}

static int ts_tostring(lua_State *L) {
    ltrace *tr = luaL_checkudata(L, 1, LHCP_TRACE);
    char buf[80];
    snprintf(buf, sizeof buf, "hcpsim.TraceSession(NT Kernel Logger, flags 0x%X, %s)", (unsigned)tr->flags,
             tr->active ? "running" : "stopped");
    lua_pushstring(L, buf);
    return 1;
}

static void trace_register(lua_State *L) {
    if (!luaL_newmetatable(L, LHCP_TRACE)) {
        lua_pop(L, 1);
        return;
    }
    lua_pushcfunction(L, ts_index);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, ts_close);
    lua_setfield(L, -2, "__close");
    lua_pushcfunction(L, ts_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pop(L, 1);
}

/* ---- threads ---------------------------------------------------------------------------------- */

static int m_thread(lua_State *L) {
    lmachine *lm = lhcp_check_machine(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    lhcp_thread_new(L, lm, 1, 2);
    if (trace_failed(L, lm, 1)) trace_end(L, 1, false, true); /* on_event raised on its Start */
    return 1;
}

static int m_threads(lua_State *L) {
    lhcp_check_machine(L, 1);
    lua_getiuservalue(L, 1, UV_THREADS);
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    lua_createtable(L, (int)n, 0);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, -2, i);
        lua_rawseti(L, -2, i);
    }
    return 1;
}

static int m_clock(lua_State *L) {
    lmachine *lm = lhcp_check_machine(L, 1);
    lua_pushinteger(L, (lua_Integer)sim_clock(lm->m));
    return 1;
}

static lthread *thread_at(lua_State *L, int machine_idx, int index) {
    lua_getiuservalue(L, machine_idx, UV_THREADS);
    lua_rawgeti(L, -1, index + 1);
    lthread *lt = lua_touserdata(L, -1);
    lua_pop(L, 2);
    return lt;
}

/* --trace-limit: the trace dropped a record, so the run ends here (the file keeps what came before). */
static void check_trace_full(lua_State *L, lmachine *lm) {
    if (!lm->trace || !rep_trace_full(lm->trace)) return;
    lm->running = false;
    trace_end(L, 1, false, false);
    lhcp_end_error(L, LHCP_END_LIMIT, "trace_limit", REP_TRACE_LIMIT_MESSAGE, (lua_Integer)rep_trace_limit(lm->trace),
                   (lua_Integer)REP_TRACE_DEFAULT_LIMIT);
}

/* A thread that ends with profiling enabled: Windows frees the kernel's state, the documentation
 * says the thread must disable it first (HCP-SPEC §2.2). */
static void warn_exit_profiling(lua_State *L, lmachine *lm, lthread *lt) {
    if (!hcp_thread_profiling(lm->os, lt->t)) return;
    char where[192];
    snprintf(where, sizeof where, "%s", lt->body_end);
    if (lt->exiting) { /* t:exit: the line of the call, where the body is suspended */
        lua_Debug ar;
        for (int level = 0; lua_getstack(lt->co, level, &ar); level++)
            if (lua_getinfo(lt->co, "Sl", &ar) && ar.currentline > 0) {
                snprintf(where, sizeof where, "%s:%d: ", ar.short_src, ar.currentline);
                break;
            }
    }
    lhcp_warn(L, where[0] ? where : NULL,
              "thread '%s' (id %d) exited with profiling enabled (the documentation: a thread must call "
              "DisableThreadProfiling before it exits)",
              sim_thread_name(lt->t), (int)sim_thread_id(lt->t));
}

/* m:run{max_cycles=}: resumes thread bodies as the scheduler dispatches them,
 * until every thread has exited.  Deadlock and the cycle limit are errors. */
/* While a body runs (lhcp_set_step): a body whose own Lua code keeps its CPU past max_cycles,
 * through API calls that never block (each a kernel entry that moves the clock), ends the run
 * there, as guest code does at its next block boundary; without this only the Lua instruction
 * limit would stop it.  Checked in the body's own coroutine only (a coroutine the body started
 * runs on under the Lua instruction limit), at the count hook's steps: the stop point is the
 * body's, the same on every run. */
static void body_step(lua_State *L, void *ud) {
    lthread *lt = ud;
    sim_machine *m = lt->lm->m;
    if (L != lt->co || sim_sched_current(m) != lt->t || sim_clock(m) < sim_max_cycles(m)) return;
    luaL_where(L, 0); /* level 0 in a hook: the body's line */
    lhcp_cycle_limit(L, lt->lm, sim_thread_cpu(lt->t));
    lua_concat(L, 2);
    lua_error(L);
}

static int m_run(lua_State *L) {
    lmachine *lm = lhcp_check_machine(L, 1);
    if (!lua_isnoneornil(L, 2)) {
        static const char *const keys[] = {"max_cycles", NULL};
        luaL_checktype(L, 2, LUA_TTABLE);
        lhcp_check_keys(L, 2, "m:run", keys);
        if (lua_getfield(L, 2, "max_cycles") != LUA_TNIL) {
            int isint;
            lua_Integer v = lua_tointegerx(L, -1, &isint);
            if (!isint || v < 1) return luaL_error(L, "m:run: max_cycles must be a positive integer");
            sim_set_max_cycles(lm->m, (uint64_t)v);
        }
        lua_pop(L, 1);
    }
    if (lm->running) return luaL_error(L, "m:run: the machine is already running (m:run called from a thread body?)");
    lm->running = true;
    /* Every pass resumes one body, which yields only after the scheduler moved
     * time on or switched threads; max_cycles and the Lua instruction limit
     * bound the loop. */
    for (;;) {
        sim_thread *t;
        if (lhcp_poll(lm->m)) { /* a signal: stop at this scheduling step */
            lm->running = false;
            trace_end(L, 1, false, false);
            lhcp_check_interrupt(L, 1);
        }
        sim_run_status rs = sim_sched_next(lm->m, &t);
        if (trace_failed(L, lm, 1)) { /* on_event raised: the error surfaces here, at a safe point */
            lm->running = false;
            trace_end(L, 1, false, true);
        }
        if (rs == SIM_RUN_DONE) break;
        check_trace_full(L, lm);
        if (rs == SIM_RUN_DEADLOCK) {
            lm->running = false;
            trace_end(L, 1, false, false);
            char buf[2048];
            sim_deadlock_report(lm->m, buf, sizeof buf);
            return lhcp_end_error(L, LHCP_END_DEADLOCK, NULL, "m:run: deadlock: %s", buf);
        }
        if (rs == SIM_RUN_LIMIT) {
            lm->running = false;
            trace_end(L, 1, false, false);
            luaL_where(L, 1);
            lhcp_cycle_limit(L, lm, -1);
            lua_concat(L, 2);
            return lua_error(L);
        }
        lthread *lt = thread_at(L, 1, sim_thread_index(t));
        int nargs = 0, nres = 0;
        if (!lt->started) {
            lt->started = true;
            lua_getiuservalue(L, 1, UV_THREADS);
            lua_rawgeti(L, -1, sim_thread_index(t) + 1);
            lua_xmove(L, lt->co, 1);
            lua_pop(L, 1);
            nargs = 1;
        }
        lt->yielding = false;
        lhcp_step outer = lhcp_set_step(L, (lhcp_step){body_step, lt});
        int st = lua_resume(lt->co, L, nargs, &nres);
        lhcp_set_step(L, outer);
        if (trace_failed(L, lm, 1)) {
            lm->running = false;
            trace_end(L, 1, false, true);
        }
        if (st == LUA_YIELD && lt->yielding) {
            check_trace_full(L, lm);
            lua_pop(lt->co, nres);
            if (lt->exiting) {
                warn_exit_profiling(L, lm, lt);
                sim_thread_exit(t, lt->exit_code);
            }
            continue;
        }
        if (st == LUA_OK) {
            uint32_t code = 0;
            if (nres > 0 && lua_isinteger(lt->co, -nres)) code = (uint32_t)lua_tointeger(lt->co, -nres);
            lua_pop(lt->co, nres);
            warn_exit_profiling(L, lm, lt);
            sim_thread_exit(t, code);
            continue;
        }
        lm->running = false;
        trace_end(L, 1, false, false); /* a failed run's session ends without DCEnd events */
        if (st == LUA_YIELD)
            return luaL_error(L,
                              "thread '%s': coroutine.yield() from a thread body is not supported "
                              "(the scheduler owns the body's coroutine)",
                              sim_thread_name(t));
        int isint = 0;
        lua_Integer code = lua_tointegerx(lt->co, -1, &isint);
        bool fault = isint && lt->fault_code && code == (lua_Integer)lt->fault_code;
        if (!lua_isstring(lt->co, -1) || fault) {
            /* the body's stack is kept after the error: name the line that raised it */
            lua_Debug ar;
            int level = 0;
            while (lua_getstack(lt->co, level, &ar) && lua_getinfo(lt->co, "Sl", &ar) && ar.currentline <= 0) level++;
            luaL_where(lt->co, level);
            lua_xmove(lt->co, L, 1);
            if (fault) /* assert(t:pcall_run(...)) raises the exception code: say what it was */
                lua_pushstring(L, lt->fault_msg);
            else
                lua_pushfstring(L, "thread '%s' raised a non-string error (%s)", sim_thread_name(t),
                                luaL_typename(lt->co, -1));
            lua_concat(L, 2);
        } else {
            lua_xmove(lt->co, L, 1);
        }
        return lua_error(L);
    }
    lm->running = false;
    trace_end(L, 1, true, true); /* the session ends with the run: DCEnd for threads still alive (none) */
    return 0;
}

/* m:cpus() --> { {time=, busy=, idle=, interrupt=, ticks=, switches=}, ... } (1-based) */
static int m_cpus(lua_State *L) {
    lmachine *lm = lhcp_check_machine(L, 1);
    int n = sim_cpu_count(lm->m);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        sim_cpu_stats s;
        sim_cpu_stats_of(lm->m, i, &s);
        lua_createtable(L, 0, 6);
        const struct {
            const char *k;
            uint64_t v;
        } f[] = {{"time", s.time},           {"busy", s.busy},   {"idle", s.idle},
                 {"interrupt", s.interrupt}, {"ticks", s.ticks}, {"switches", s.switches}};
        for (size_t j = 0; j < sizeof f / sizeof f[0]; j++) {
            lua_pushinteger(L, (lua_Integer)f[j].v);
            lua_setfield(L, -2, f[j].k);
        }
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static bool opt_bool(lua_State *L, int t, const char *k, bool def) {
    bool v = def;
    if (lua_getfield(L, t, k) != LUA_TNIL) {
        if (!lua_isboolean(L, -1)) luaL_error(L, "'%s' must be a boolean", k);
        v = lua_toboolean(L, -1);
    }
    lua_pop(L, 1);
    return v;
}

static int push_handle(lua_State *L, lmachine *lm, uint64_t h, const char *what) {
    /* the error of a failed creation; outside a body there is no thread to hold it as its last error */
    if (!h && hcp_handle_error(lm->os) == ERROR_NO_SYSTEM_RESOURCES)
        return luaL_error(L,
                          "%s: ERROR_NO_SYSTEM_RESOURCES: the handle table is full (%d handles open; machine option "
                          "max_handles, default %d)",
                          what, hcp_os_max_handles(lm->os), HCP_DEFAULT_MAX_HANDLES);
    if (!h) return luaL_error(L, "%s: %s", what, hcp_error_name(hcp_handle_error(lm->os)));
    lua_pushinteger(L, (lua_Integer)h);
    return 1;
}

/* m:event{manual=false, initial=false} --> handle */
static int m_event(lua_State *L) {
    lmachine *lm = lhcp_check_machine(L, 1);
    static const char *const keys[] = {"manual", "initial", NULL};
    if (lua_isnoneornil(L, 2)) { /* the options go to index 2, even for m:event(nil, x) */
        lua_settop(L, 1);
        lua_newtable(L);
    } else {
        luaL_checktype(L, 2, LUA_TTABLE);
    }
    lhcp_check_keys(L, 2, "m:event", keys);
    return push_handle(
        L, lm, hcp_create_event(lm->os, opt_bool(L, 2, "manual", false), opt_bool(L, 2, "initial", false)), "m:event");
}

/* m:mutex{owned=false} --> handle; owned: by the thread whose body calls it */
static int m_mutex(lua_State *L) {
    lmachine *lm = lhcp_check_machine(L, 1);
    static const char *const keys[] = {"owned", NULL};
    if (lua_isnoneornil(L, 2)) { /* the options go to index 2, even for m:mutex(nil, x) */
        lua_settop(L, 1);
        lua_newtable(L);
    } else {
        luaL_checktype(L, 2, LUA_TTABLE);
    }
    lhcp_check_keys(L, 2, "m:mutex", keys);
    bool owned = opt_bool(L, 2, "owned", false);
    if (owned && !sim_sched_current(lm->m)) return luaL_error(L, "m:mutex: 'owned' needs a running thread body");
    return push_handle(L, lm, hcp_create_mutex(lm->os, owned), "m:mutex");
}

/* m:semaphore{initial=0, max=1} --> handle */
static int m_semaphore(lua_State *L) {
    lmachine *lm = lhcp_check_machine(L, 1);
    static const char *const keys[] = {"initial", "max", NULL};
    if (lua_isnoneornil(L, 2)) { /* the options go to index 2, even for m:semaphore(nil, x) */
        lua_settop(L, 1);
        lua_newtable(L);
    } else {
        luaL_checktype(L, 2, LUA_TTABLE);
    }
    lhcp_check_keys(L, 2, "m:semaphore", keys);
    lua_getfield(L, 2, "initial");
    lua_Integer ini = luaL_optinteger(L, -1, 0);
    lua_getfield(L, 2, "max");
    lua_Integer max = luaL_optinteger(L, -1, 1);
    if (ini < 0 || max < 1 || ini > max || max > INT32_MAX)
        return luaL_error(L, "m:semaphore: need 0 <= initial <= max, 1 <= max <= 2147483647 (got %I, %I)", ini, max);
    return push_handle(L, lm, hcp_create_semaphore(lm->os, (int32_t)ini, (int32_t)max), "m:semaphore");
}

/* ---- kernel configuration --------------------------------------------------------------------- */

#define KE_ARRAY_MAX 255 /* elements that fit in the marshalling page (16 bytes each) */

static int m_keset(lua_State *L) {
    lmachine *lm = lhcp_check_machine(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Integer n = (lua_Integer)lua_rawlen(L, 2);
    if (n > KE_ARRAY_MAX) return luaL_argerror(L, 2, "more than 255 elements cannot be marshalled");
    uint32_t count = lua_isnoneornil(L, 3) ? (uint32_t)n : lhcp_check_dword(L, 3);
    uint8_t buf[16 * KE_ARRAY_MAX];
    memset(buf, 0, sizeof buf);
    for (lua_Integer i = 1; i <= n; i++) {
        static const char *const keys[] = {"Type", "Reserved", "Index", NULL};
        if (lua_rawgeti(L, 2, i) != LUA_TTABLE)
            return luaL_error(L, "KeSetHardwareCounterConfiguration: element %I must be a table {Type=, Index=}", i);
        lhcp_check_keys(L, -1, "HARDWARE_COUNTER", keys);
        uint8_t *e = buf + 16 * (i - 1);
        lua_getfield(L, -1, "Type");
        hcp_put32(e, (uint32_t)luaL_optinteger(L, -1, PMCCounter));
        lua_getfield(L, -2, "Reserved");
        hcp_put32(e + 4, (uint32_t)luaL_optinteger(L, -1, 0));
        lua_getfield(L, -3, "Index");
        hcp_put64(e + 8, (uint64_t)luaL_optinteger(L, -1, 0));
        lua_pop(L, 4);
    }
    uint64_t arr = lm->scratch;
    sim_mem_write(lm->m, arr, buf, (size_t)(16 * (n ? n : 1)));
    sim_thread *prof = NULL; /* a thread that profiles, before the call */
    for (int i = 0; !prof && i < sim_thread_count(lm->m); i++)
        if (hcp_thread_profiling(lm->os, sim_thread_at(lm->m, i))) prof = sim_thread_at(lm->m, i);
    uint32_t st = hcp_KeSetHardwareCounterConfiguration(lm->os, n ? arr : 0, count);
    lua_pushinteger(L, (lua_Integer)st);
    /* What the documentation forbids and Windows lets pass (scenarios/README.md "Warnings") */
    if (prof)
        lhcp_warn(L, NULL,
                  "KeSetHardwareCounterConfiguration while thread '%s' (id %d) profiles (the documentation: call "
                  "it only while thread profiling is disabled)",
                  sim_thread_name(prof), (int)sim_thread_id(prof));
    if (st == STATUS_SUCCESS) {
        int npmc = sim_machine_config(lm->m)->pmc.npmc;
        for (uint32_t i = 0; i < count && i < (uint32_t)n; i++) {
            uint32_t type = hcp_get32(buf + 16 * i);
            uint64_t index = hcp_get64(buf + 16 * i + 8);
            if (type != PMCCounter)
                lhcp_warn(L, NULL,
                          "KeSetHardwareCounterConfiguration: CounterArray[%d].Type %I is not a counter type "
                          "(valid: PMCCounter = 0); Windows does not check it",
                          (int)i, (lua_Integer)type);
            if ((uint32_t)index >= (uint32_t)npmc)
                lhcp_warn(L, NULL,
                          "KeSetHardwareCounterConfiguration: CounterArray[%d].Index %I names no PMC of this machine "
                          "(it has %d: machine option pmc); the counter reads 0",
                          (int)i, (lua_Integer)(uint32_t)index, npmc);
        }
    }
    return 1;
}

/* m:KeQueryHardwareCounterConfiguration(max) --> status, list, count, raw
 * The array is poisoned with 0xA5 before the call; `raw` is its
 * max * 16 bytes after the call, so a test can see that nothing was written. */
static int m_kequery(lua_State *L) {
    lmachine *lm = lhcp_check_machine(L, 1);
    lua_Integer max = lhcp_check_integer(L, 2);
    if (max < 0 || max > KE_ARRAY_MAX) return luaL_argerror(L, 2, "MaximumCount must be 0..255 here");
    uint8_t buf[16 * KE_ARRAY_MAX + 8];
    memset(buf, 0xA5, sizeof buf);
    uint64_t arr = lm->scratch, cnt = lm->scratch + 16 * KE_ARRAY_MAX;
    sim_mem_write(lm->m, arr, buf, sizeof buf);
    uint32_t st = hcp_KeQueryHardwareCounterConfiguration(lm->os, max ? arr : 0, (uint32_t)max, cnt);
    sim_mem_read(lm->m, arr, buf, sizeof buf);
    uint32_t count = hcp_get32(buf + 16 * KE_ARRAY_MAX);
    lua_pushinteger(L, (lua_Integer)st);
    lua_newtable(L);
    if (st == STATUS_SUCCESS) {
        for (uint32_t i = 0; i < count && i < (uint32_t)max; i++) {
            lua_createtable(L, 0, 3);
            lua_pushinteger(L, (lua_Integer)hcp_get32(buf + 16 * i));
            lua_setfield(L, -2, "Type");
            lua_pushinteger(L, (lua_Integer)hcp_get32(buf + 16 * i + 4));
            lua_setfield(L, -2, "Reserved");
            lua_pushinteger(L, (lua_Integer)hcp_get64(buf + 16 * i + 8));
            lua_setfield(L, -2, "Index");
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
    }
    lua_pushinteger(L, (lua_Integer)count);
    lua_pushlstring(L, (const char *)buf, (size_t)(16 * max));
    return 4;
}

/* m:load "kernels": the built-in kernels of the machine's ISA (hcpsim.kernels
 * for x64, hcpsim.kernels_x86, _arm64, _arm; scenarios/kernels/README.md). */
static int m_load(lua_State *L) {
    lmachine *lm = lhcp_check_machine(L, 1);
    const char *name = luaL_checkstring(L, 2);
    if (strcmp(name, "kernels") != 0) return luaL_error(L, "m:load: unknown library '%s' (valid: kernels)", name);
    sim_arch arch = sim_machine_config(lm->m)->arch;
    lua_getglobal(L, "require");
    if (arch == SIM_ARCH_X64)
        lua_pushstring(L, "hcpsim.kernels");
    else
        lua_pushfstring(L, "hcpsim.kernels_%s", sim_arch_name(arch));
    lua_call(L, 1, 1);
    lua_pushvalue(L, 1);
    lua_call(L, 1, 1); /* the module is a function(machine) returning the placed kernels */
    return 1;
}

/* ---- the call gate: import thunks for guest code (api/README.md "Call gate") ---------------- */

/* m:imports() --> { EnableThreadProfiling = thunk address, ... } */
static int m_imports(lua_State *L) {
    lmachine *lm = lhcp_check_machine(L, 1);
    lua_newtable(L);
    for (int i = 0; hcp_import_name(i); i++) {
        lua_pushinteger(L, (lua_Integer)hcp_import_address(lm->m, hcp_import_name(i)));
        lua_setfield(L, -2, hcp_import_name(i));
    }
    return 1;
}

/* m:import_table{name, ...} --> guest address of the thunk addresses of the
 * named imports, one guest pointer each (8 bytes; 4 on 32-bit guests), in
 * the order given (fresh m:alloc memory). */
static int m_import_table(lua_State *L) {
    lmachine *lm = lhcp_check_machine(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Integer n = (lua_Integer)lua_rawlen(L, 2);
    if (n < 1 || n > 512) return luaL_argerror(L, 2, "a list of 1..512 import names");
    uint8_t table[8 * 512];
    unsigned ps = sim_arch_ptr_size(sim_machine_config(lm->m)->arch); /* a pointer per entry: 4 or 8 bytes */
    for (lua_Integer i = 1; i <= n; i++) {
        if (lua_rawgeti(L, 2, i) != LUA_TSTRING) return luaL_error(L, "m:import_table: element %I must be a name", i);
        uint64_t a = hcp_import_address(lm->m, lua_tostring(L, -1));
        if (!a)
            return luaL_error(L, "m:import_table: unknown import '%s' (m:imports() lists them)", lua_tostring(L, -1));
        lua_pop(L, 1);
        if (ps == 4)
            hcp_put32(table + 4 * (i - 1), (uint32_t)a);
        else
            hcp_put64(table + 8 * (i - 1), a);
    }
    uint64_t addr;
    uint64_t pages = lhcp_memory_pages(L, lm, (uint64_t)(ps * (unsigned)n));
    sim_err e = sim_alloc(lm->m, (size_t)(ps * (unsigned)n), &addr);
    if (e == SIM_OK) lm->memory_used += pages;
    if (e == SIM_OK) e = sim_mem_write(lm->m, addr, table, (size_t)(ps * (unsigned)n));
    if (e != SIM_OK) return luaL_error(L, "m:import_table: %s", lhcp_sim_strerror(L, lm->m, e));
    lua_pushinteger(L, (lua_Integer)addr);
    return 1;
}

static int m_tostring(lua_State *L) {
    lmachine *lm = luaL_checkudata(L, 1, LHCP_MACHINE);
    lua_pushfstring(L, "hcpsim.Machine(%s)", lm->platform);
    return 1;
}

static int m_index(lua_State *L) {
    luaL_getmetatable(L, LHCP_MACHINE);
    lua_getfield(L, -1, "methods");
    lua_pushvalue(L, 2);
    if (lua_rawget(L, -2) != LUA_TNIL) return 1;
    lua_pop(L, 1);
    lhcp_no_member(L, "hcpsim.Machine", lua_tostring(L, 2), -1);
}

void lhcp_machine_register(lua_State *L) {
    static const luaL_Reg methods[] = {
        {"code", m_code},
        {"alloc", m_alloc},
        {"read", m_read},
        {"write", m_write},
        {"thread", m_thread},
        {"threads", m_threads},
        {"run", m_run},
        {"clock", m_clock},
        {"cpus", m_cpus},
        {"event", m_event},
        {"mutex", m_mutex},
        {"semaphore", m_semaphore},
        {"load", m_load},
        {"imports", m_imports},
        {"import_table", m_import_table},
        {"KeSetHardwareCounterConfiguration", m_keset},
        {"KeQueryHardwareCounterConfiguration", m_kequery},
        {"trace", m_trace},
        {"process", lhcp_m_process}, /* scenarios/lprocess.c */
        {NULL, NULL},
    };
    trace_register(L);
    if (!luaL_newmetatable(L, LHCP_MACHINE)) {
        lua_pop(L, 1);
        return;
    }
    luaL_newlib(L, methods);
    lhcp_report_wrap(L, -1, true); /* --report records the Ke* calls */
    lua_setfield(L, -2, "methods");
    lua_pushcfunction(L, m_index);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, machine_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, m_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pop(L, 1);
}
