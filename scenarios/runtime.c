/* scenarios/runtime.c — the Lua runtime a scenario runs in.
 *
 * A sandbox on purpose: the base library without dofile/loadfile (and load
 * only for text chunks), table, string, math (random reseeded from the
 * scenario seed; randomseed needs an argument), coroutine, utf8, and
 * `require` for the embedded modules "hcpsim" and "hcpsim.tap" only.  No io,
 * os, debug, package or collectgarbage (the CLI's --unsafe-io opens io,
 * without popen); no string.dump, getmetatable refuses hcpsim objects and
 * strings, and setmetatable refuses __gc and __mode; pairs, next, tostring,
 * print and string.format show no host order or address (lorder.c).  Reading
 * an undeclared global or writing one outside the main chunk (rawset too) is
 * an error (a typo would otherwise read nil silently).  A count hook bounds
 * the Lua instructions a scenario may run, so a runaway loop ends with a
 * message, and the allocator bounds its Lua heap. */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lualib.h>

#include "scenarios/lhcp.h"

#define COUNT_STEP 10000
#define DEFAULT_LUA_LIMIT LHCP_DEFAULT_LUA_INSTRUCTIONS
#define DEFAULT_LUA_MEMORY ((size_t)LHCP_DEFAULT_LUA_MEMORY)

/* The limits, the instruction count and the heap the allocator counts.  A
 * host embedding the runtime (a test driver, the fuzzers) may lower the
 * limits by setting the registry integers "hcpsim.lua_limit" (instructions)
 * and "hcpsim.memory_limit" (bytes) before lhcp_open_runtime (the CLI sets
 * them from --lua-instructions and --lua-memory). */
typedef struct runtime {
    uint64_t count, limit;
    size_t mem_used, mem_limit;
    bool mem_refused; /* an allocation was refused at mem_limit */
    lua_Alloc alloc;  /* the state's own allocator, which does the work */
    void *alloc_ud;
    /* Births: every live table, closure, full userdata and coroutine the
     * allocator made, by block address (open addressing, linear probing). */
    struct birth {
        uintptr_t at; /* 0: empty slot */
        size_t size;
        uint64_t serial;
    } * births;
    size_t births_cap, births_used;
    uint64_t next_birth;
    lhcp_step step; /* what the count hook also checks (lhcp_set_step) */
    /* how the run ended, as the place that raised its error recorded it (lhcp_set_end) */
    lhcp_end end_kind;
    const char *end_limit;
    char end_msg[1024];
} runtime;

static runtime *rt_of(lua_State *L) { return *(runtime **)lua_getextraspace(L); }

/* Pushes "FILE:LINE:" of the innermost Lua function with a line (C functions have none). */
static void push_where(lua_State *L) {
    lua_Debug ar;
    int level = 1;
    while (lua_getstack(L, level, &ar) && lua_getinfo(L, "Sl", &ar) && ar.currentline <= 0) level++;
    luaL_where(L, level);
}

volatile sig_atomic_t lhcp_signal;
static lhcp_host_clock host_clock; /* NULL: no progress */
static uint64_t host_start, host_last;

void lhcp_set_progress(lhcp_host_clock clock) {
    host_clock = clock;
    host_start = host_last = clock ? clock() : 0;
}

static const char *signal_name(int sig) { return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal"; }

void lhcp_check_interrupt(lua_State *L, int level) {
    if (!lhcp_signal) return;
    if (level < 0)
        push_where(L);
    else
        luaL_where(L, level);
    lua_pushfstring(L, "interrupted by %s", signal_name(lhcp_signal));
    lua_concat(L, 2);
    lua_error(L);
}

bool lhcp_poll(sim_machine *m) {
    if (lhcp_signal) return true;
    if (!host_clock) return false;
    uint64_t now = host_clock();
    if (now - host_start < LHCP_PROGRESS_AFTER_NS || now - host_last < LHCP_PROGRESS_AFTER_NS) return false;
    /* Host time decides only whether a line is printed, never what the run computes. */
    uint64_t insns = 0;
    int alive = 0, n = sim_thread_count(m);
    for (int i = 0; i < n; i++) {
        sim_thread *t = sim_thread_at(m, i);
        insns += sim_thread_bank(t)->ev[PMU_EV_INSTRUCTIONS];
        alive += sim_thread_state_of(t) != SIM_TS_TERMINATED;
    }
    static uint64_t last_insns;
    static const sim_machine *last_m;
    if (last_m != m) last_insns = 0, last_m = m;
    const sim_config *c = sim_machine_config(m);
    uint64_t clk = sim_clock(m), f = c->frequency ? c->frequency : 1, lim = sim_max_cycles(m);
    double mips = (double)(insns - last_insns) * 1e3 / (double)(now - host_last);
    sim_thread *cur = sim_sched_current(m);
    fflush(stdout);
    fprintf(stderr,
            "hcpsim: %.0f s: simulated %.3f s of at most %.3f s (max_cycles), %.1f guest MIPS, %d of %d "
            "threads alive%s%s%s\n",
            (double)(now - host_start) / 1e9, (double)clk / (double)f, (double)lim / (double)f, mips, alive, n,
            cur ? ", running '" : "", cur ? sim_thread_name(cur) : "", cur ? "'" : "");
    fflush(stderr);
    host_last = now;
    last_insns = insns;
    return false;
}

static void count_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    lhcp_check_interrupt(L, 0);
    runtime *rt = rt_of(L);
    rt->count += COUNT_STEP;
    if (rt->count > rt->limit) {
        luaL_where(L, 0); /* level 0 in a hook: the Lua function that runs away */
        lua_pushfstring(L, "limit reached: %I Lua instructions (hcpsim run --lua-instructions N; default %I)",
                        (lua_Integer)rt->limit, (lua_Integer)DEFAULT_LUA_LIMIT); /* %I, not %llu */
        lhcp_set_end(L, LHCP_END_LIMIT, "lua_instructions", lua_tostring(L, -1));
        lua_concat(L, 2);
        lua_error(L);
    }
    if (rt->step.fn) rt->step.fn(L, rt->step.ud);
}

void lhcp_limit_hook(lua_State *L) { lua_sethook(L, count_hook, LUA_MASKCOUNT, COUNT_STEP); }

lhcp_step lhcp_set_step(lua_State *L, lhcp_step step) {
    runtime *rt = rt_of(L);
    lhcp_step old = rt->step;
    rt->step = step;
    return old;
}

/* ---- how the run ended (reports/SCHEMA.md "run.status") ----------------------------------------- */

void lhcp_set_end(lua_State *L, lhcp_end kind, const char *limit, const char *msg) {
    runtime *rt = rt_of(L);
    if (!rt) return;
    rt->end_kind = kind;
    rt->end_limit = limit;
    snprintf(rt->end_msg, sizeof rt->end_msg, "%s", msg ? msg : "");
}

int lhcp_end_error(lua_State *L, lhcp_end kind, const char *limit, const char *fmt, ...) {
    luaL_where(L, 1);
    va_list ap;
    va_start(ap, fmt);
    const char *msg = lua_pushvfstring(L, fmt, ap);
    va_end(ap);
    lhcp_set_end(L, kind, limit, msg);
    lua_concat(L, 2);
    return lua_error(L);
}

lhcp_end lhcp_end_of(lua_State *L, const char *final, const char **limit) {
    runtime *rt = rt_of(L);
    *limit = NULL;
    if (!rt || !final || rt->end_kind == LHCP_END_ERROR) return LHCP_END_ERROR;
    size_t n = strlen(final), k = strlen(rt->end_msg);
    /* the recorded error is the run's own when the final message ends with it (a position, or the
     * name of the function that raised it, may come first) */
    if (k == 0 || k > n || strcmp(final + n - k, rt->end_msg) != 0) return LHCP_END_ERROR;
    *limit = rt->end_limit;
    return rt->end_kind;
}

/* ---- warnings: what the documentation forbids but Windows lets pass ----------------------------- */

void lhcp_warn(lua_State *L, const char *where, const char *fmt, ...) {
    if (where)
        lua_pushstring(L, where);
    else
        push_where(L);
    lua_pushliteral(L, "warning: ");
    va_list ap;
    va_start(ap, fmt);
    lua_pushvfstring(L, fmt, ap);
    va_end(ap);
    lua_concat(L, 3);
    int msg = lua_gettop(L);
    if (lua_getfield(L, LUA_REGISTRYINDEX, "hcpsim.on_warning") == LUA_TFUNCTION) {
        lua_pushvalue(L, msg); /* the scenario expects it: its handler decides */
        lua_call(L, 1, 0);
        lua_pop(L, 1);
        return;
    }
    lua_pop(L, 1);
    lua_getfield(L, LUA_REGISTRYINDEX, "hcpsim.werror");
    bool werror = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (werror) { /* the message is on top */
        lhcp_set_end(L, LHCP_END_WARNING, NULL, lua_tostring(L, msg));
        lua_error(L);
    }
    fflush(stdout);
    fprintf(stderr, "%s\n", lua_tostring(L, msg));
    fflush(stderr);
    lua_pop(L, 1);
}

/* hcp.on_warning(fn | nil) --> the previous handler: warnings go to fn(message) instead of stderr. */
int lhcp_on_warning(lua_State *L) {
    if (!lua_isnoneornil(L, 1)) luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_settop(L, 1);
    lua_getfield(L, LUA_REGISTRYINDEX, "hcpsim.on_warning");
    lua_pushvalue(L, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, "hcpsim.on_warning");
    return 1;
}

/* Work a C function does for the scenario (a table scan) counts as n instructions; the hook
 * raises the limit at its next step. */
void lhcp_charge_instructions(lua_State *L, uint64_t n) { rt_of(L)->count += n; }

/* ---- births: the order objects were made in ------------------------------------------------
 * Objects that first meet as keys of one traversal are numbered in the order
 * they were made (lorder.c): the scenario alone decides that order, while
 * their addresses, and so Lua's raw order over them, change from run to run.
 * Lua 5.4 tells the allocator the type of each new object (osize is the type
 * tag when ptr is NULL); the allocator gives every table, closure, full
 * userdata and coroutine a serial, kept by block address until the block is
 * freed. */

static size_t birth_slot(const runtime *rt, uintptr_t at) {
    uint64_t h = (uint64_t)(at >> 3) * UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(h >> 32) & (rt->births_cap - 1);
}

static bool births_grow(runtime *rt) {
    size_t cap = rt->births_cap ? rt->births_cap * 2 : 1024;
    struct birth *b = calloc(cap, sizeof *b), *old = rt->births;
    if (!b) return false;
    size_t oldcap = rt->births_cap;
    rt->births = b;
    rt->births_cap = cap;
    for (size_t i = 0; i < oldcap; i++) {
        if (!old[i].at) continue;
        size_t j = birth_slot(rt, old[i].at);
        while (b[j].at) j = (j + 1) & (cap - 1);
        b[j] = old[i];
    }
    free(old);
    return true;
}

static bool birth_add(runtime *rt, void *p, size_t size) {
    if (2 * (rt->births_used + 1) > rt->births_cap && !births_grow(rt)) return false;
    size_t j = birth_slot(rt, (uintptr_t)p);
    while (rt->births[j].at) j = (j + 1) & (rt->births_cap - 1);
    rt->births[j] = (struct birth){(uintptr_t)p, size, ++rt->next_birth};
    rt->births_used++;
    return true;
}

static struct birth *birth_find(const runtime *rt, uintptr_t at) {
    if (!rt->births_used) return NULL;
    for (size_t j = birth_slot(rt, at), n = 0; n < rt->births_cap; j = (j + 1) & (rt->births_cap - 1), n++) {
        if (rt->births[j].at == at) return &rt->births[j];
        if (!rt->births[j].at) return NULL;
    }
    return NULL;
}

/* Removes a block's entry, if it has one (backward-shift deletion keeps probe chains whole). */
static void birth_remove(runtime *rt, void *p) {
    struct birth *e = birth_find(rt, (uintptr_t)p);
    if (!e) return;
    size_t mask = rt->births_cap - 1, hole = (size_t)(e - rt->births);
    for (size_t j = (hole + 1) & mask; rt->births[j].at; j = (j + 1) & mask) {
        size_t home = birth_slot(rt, rt->births[j].at);
        if (((j - home) & mask) >= ((j - hole) & mask)) { /* home is at or before the hole */
            rt->births[hole] = rt->births[j];
            hole = j;
        }
    }
    rt->births[hole].at = 0;
    rt->births_used--;
}

static bool is_object_tag(size_t tag) {
    return tag == LUA_TTABLE || tag == LUA_TFUNCTION || tag == LUA_TUSERDATA || tag == LUA_TTHREAD;
}

/* The serial of the object at idx, 0 for a value no allocation made (a light C
 * function) or one made before the runtime opened.  lua_topointer gives an
 * address inside the object's block (past a header for a coroutine or a
 * userdata), so the search goes down a few words to the block's start. */
uint64_t lhcp_birth(lua_State *L, int idx) {
    const runtime *rt = rt_of(L);
    uintptr_t p =
        (uintptr_t)(lua_type(L, idx) == LUA_TTHREAD ? lua_getextraspace(lua_tothread(L, idx)) : lua_topointer(L, idx));
    if (!rt || !p) return 0;
    for (uintptr_t back = 0; back <= 256 && back <= p; back += sizeof(void *)) {
        const struct birth *e = birth_find(rt, p - back);
        if (e) return p < e->at + e->size ? e->serial : 0;
    }
    return 0;
}

/* The memory limit: an allocation that would take the heap past it fails, and
 * Lua raises "not enough memory" (after an emergency collection). */
static void *limited_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    runtime *rt = ud;
    size_t old = ptr ? osize : 0; /* for a new block, osize is its type */
    if (nsize > old && (rt->mem_used > rt->mem_limit || nsize - old > rt->mem_limit - rt->mem_used)) {
        rt->mem_refused = true;
        return NULL;
    }
    if (ptr && nsize == 0) birth_remove(rt, ptr);
    void *p = rt->alloc(rt->alloc_ud, ptr, osize, nsize);
    if (p && !ptr && is_object_tag(osize) && !birth_add(rt, p, nsize)) {
        rt->alloc(rt->alloc_ud, p, nsize, 0); /* no room to record it: as if the host were out of memory */
        return NULL;
    }
    if (p || nsize == 0) rt->mem_used = rt->mem_used - old + nsize;
    return p;
}

/* The runtime block is finalized before anything is freed by lua_close: from
 * here on the state's own allocator serves it directly. */
static int runtime_gc(lua_State *L) {
    runtime *rt = lua_touserdata(L, 1);
    if (rt && rt->alloc) lua_setallocf(L, rt->alloc, rt->alloc_ud);
    if (rt) {
        free(rt->births);
        rt->births = NULL;
        rt->births_cap = rt->births_used = 0;
    }
    return 0;
}

static uint64_t registry_limit(lua_State *L, const char *key, uint64_t def) {
    int isint;
    lua_getfield(L, LUA_REGISTRYINDEX, key);
    lua_Integer v = lua_tointegerx(L, -1, &isint);
    lua_pop(L, 1);
    return isint && v > 0 ? (uint64_t)v : def;
}

/* ---- the clause catalogue ------------------------------------------------------------- */
/* The ids of the clause catalogue (conformance/clauses.tsv, format in
 * conformance/README.md) for hcpsim.tap, which rejects unknown clause ids.
 * Where it is: $HCPSIM_CLAUSES (the test runner sets it), else clauses.tsv
 * next to the scenario file, else conformance/clauses.tsv under the current
 * directory.  Returns a table id -> true and the path, or nil and a message.
 * Only the embedded modules receive this function (l_require), so the sandbox
 * keeps its rule: a scenario reads no host file. */
/* tap_line(line): a line hcpsim.tap printed, for the --report's TAP results. */
static int l_tap_line(lua_State *L) {
    rep_report_tap_line(lhcp_report(L), luaL_checkstring(L, 1));
    return 0;
}

static int l_clause_catalogue(lua_State *L) {
    const char *env = getenv("HCPSIM_CLAUSES");
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    if (env && *env)
        luaL_addstring(&b, env);
    else {
        lua_getfield(L, LUA_REGISTRYINDEX, "hcpsim.script");
        const char *script = lua_tostring(L, -1);
        const char *slash = script ? strrchr(script, '/') : NULL;
        lua_pop(L, 1);
        if (slash) luaL_addlstring(&b, script, (size_t)(slash - script) + 1);
        luaL_addstring(&b, "clauses.tsv");
    }
    luaL_pushresult(&b);
    const char *path = lua_tostring(L, -1);
    FILE *f = fopen(path, "rb");
    if (!f && !(env && *env)) {
        lua_pop(L, 1);
        lua_pushliteral(L, "conformance/clauses.tsv");
        path = lua_tostring(L, -1);
        f = fopen(path, "rb");
    }
    if (!f) {
        lua_pushnil(L);
        lua_pushfstring(L, "cannot open the clause catalogue %s (set HCPSIM_CLAUSES to its path)", path);
        return 2;
    }
    lua_newtable(L);
    char line[4096];
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (lineno == 1 || line[0] == '#' || line[0] == '\n' || line[0] == '\r') continue; /* header, comments */
        size_t n = strcspn(line, "\t\r\n");
        if (n == 0) continue;
        lua_pushlstring(L, line, n);
        lua_pushboolean(L, 1);
        lua_settable(L, -3);
        if (!strchr(line, '\n') && !feof(f)) { /* a line longer than the buffer: skip its rest */
            int c;
            while ((c = fgetc(f)) != EOF && c != '\n') {
            }
        }
    }
    fclose(f);
    lua_pushvalue(L, -2);
    return 2;
}

const char *lhcp_limit_message(lua_State *L, const char *err) {
    runtime *rt = rt_of(L);
    if (!rt || !rt->mem_refused || !err || strcmp(err, "not enough memory") != 0) return NULL;
    return lua_pushfstring(L, "limit reached: %I bytes of Lua memory (hcpsim run --lua-memory N; default %I)",
                           (lua_Integer)rt->mem_limit, (lua_Integer)DEFAULT_LUA_MEMORY);
}

/* ---- require -------------------------------------------------------------------------- */
static int l_require(lua_State *L) {
    const char *name = luaL_checkstring(L, 1);
    lua_getfield(L, LUA_REGISTRYINDEX, "hcpsim.loaded");
    if (lua_getfield(L, -1, name) != LUA_TNIL) return 1;
    lua_pop(L, 1);
    if (strcmp(name, "hcpsim") == 0) {
        lua_pushcfunction(L, luaopen_hcpsim);
        lua_call(L, 0, 1);
    } else {
        const lhcp_luasrc *s = lhcp_luasrcs;
        while (s->name && strcmp(s->name, name) != 0) s++;
        if (!s->name)
            return luaL_error(L, "module '%s' not found (available: hcpsim, hcpsim.tap, hcpsim.testlib)", name);
        if (luaL_loadbufferx(L, s->text, s->len, s->chunkname, "t") != LUA_OK) return lua_error(L);
        lua_pushstring(L, name);
        lua_createtable(L, 0, 2); /* private functions for the embedded modules */
        lua_pushcfunction(L, l_clause_catalogue);
        lua_setfield(L, -2, "clause_catalogue");
        lua_pushcfunction(L, l_tap_line);
        lua_setfield(L, -2, "tap_line");
        lua_call(L, 2, 1);
    }
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, name);
    return 1;
}

/* load(chunk [, chunkname [, mode [, env]]]): strings only, text mode only
 * (binary chunks can break the VM's invariants). */
static int l_load(lua_State *L) {
    size_t len;
    const char *s = lua_tolstring(L, 1, &len);
    if (!s) return luaL_error(L, "load: only string chunks are accepted in the sandbox");
    const char *chunkname = luaL_optstring(L, 2, s);
    bool has_env = !lua_isnone(L, 4);
    if (luaL_loadbufferx(L, s, len, chunkname, "t") != LUA_OK) {
        lua_pushnil(L);
        lua_insert(L, -2);
        return 2;
    }
    if (has_env) {
        lua_pushvalue(L, 4);
        if (!lua_setupvalue(L, -2, 1)) lua_pop(L, 1);
    }
    return 1;
}

/* getmetatable(v), except for hcpsim objects and strings: a Machine's or
 * Thread's metatable would hand out __gc (freeing a machine its threads or
 * a running m:run still use), the string metatable is shared by every
 * string the embedded modules use.  Upvalue 1: the base library's. */
static int l_getmetatable(lua_State *L) {
    luaL_checkany(L, 1);
    if (lua_type(L, 1) == LUA_TUSERDATA)
        return luaL_error(L, "getmetatable: the metatables of hcpsim objects are not available in the sandbox");
    if (lua_type(L, 1) == LUA_TSTRING)
        return luaL_error(L, "getmetatable: the string metatable is not available in the sandbox");
    lua_settop(L, 1);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, 1, 1);
    return 1;
}

/* setmetatable(t, mt), except that mt may not hold __gc or __mode: a
 * finalizer runs, and a weak entry disappears, when the collector decides,
 * which depends on the Lua version's collector and not on the scenario.
 * (Lua marks an object for finalization only if __gc is present when the
 * metatable is set; a __mode added to mt later is not caught.)  Upvalue 1:
 * the base library's setmetatable. */
static int l_setmetatable(lua_State *L) {
    if (lua_type(L, 2) == LUA_TTABLE) {
        lua_pushliteral(L, "__gc");
        if (lua_rawget(L, 2) != LUA_TNIL) /* raw, as the collector looks */
            return luaL_error(L, "setmetatable: __gc is not available in the sandbox (a finalizer runs when the "
                                 "garbage collector decides, so results would depend on it)");
        lua_pushliteral(L, "__mode");
        if (lua_rawget(L, 2) != LUA_TNIL)
            return luaL_error(L, "setmetatable: __mode is not available in the sandbox (weak entries vanish when "
                                 "the garbage collector decides, so results would depend on it)");
        lua_pop(L, 2);
    }
    lua_settop(L, 2);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, 2, 1);
    return 1;
}

static int l_randomseed(lua_State *L) {
    luaL_checkinteger(L, 1); /* no argument would seed from the host clock */
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/* ---- strict globals ---------------------------------------------------------------------- */
static bool in_main_chunk(lua_State *L) {
    lua_Debug ar;
    if (!lua_getstack(L, 1, &ar)) return true;
    lua_getinfo(L, "S", &ar);
    return strcmp(ar.what, "main") == 0 || strcmp(ar.what, "C") == 0;
}

/* rawset(t, k, v), except that a new global cannot be declared with it
 * outside the main chunk (the nearest Lua caller decides), so it does not
 * bypass the strict-globals rule.  Upvalue 1: the base library's rawset. */
static int l_rawset(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checkany(L, 3);
    lua_pushglobaltable(L);
    bool globals = lua_rawequal(L, 1, -1);
    lua_pop(L, 1);
    if (globals) {
        lua_Debug ar;
        bool main = true;
        for (int level = 1; lua_getstack(L, level, &ar); level++) {
            lua_getinfo(L, "S", &ar);
            if (strcmp(ar.what, "C") != 0) {
                main = strcmp(ar.what, "main") == 0;
                break;
            }
        }
        lua_pushvalue(L, 2);
        if (!main && lua_rawget(L, 1) == LUA_TNIL) {
            const char *k = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : NULL;
            return luaL_error(
                L, "rawset: assignment to undeclared global '%s' (declare it in the main chunk or use local)",
                k ? k : "?");
        }
        lua_pop(L, 1);
    }
    lua_settop(L, 3);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, 3, 1);
    return 1;
}

static int l_no_dump(lua_State *L) {
    return luaL_error(L, "string.dump is not available in the sandbox (binary chunks cannot be loaded)");
}

static int strict_newindex(lua_State *L) {
    if (!in_main_chunk(L)) {
        const char *k = lua_tostring(L, 2);
        return luaL_error(L, "assignment to undeclared global '%s' (declare it in the main chunk or use local)",
                          k ? k : "?");
    }
    lua_rawset(L, 1);
    return 0;
}

static int strict_index(lua_State *L) {
    const char *k = lua_tostring(L, 2);
    if (k && strcmp(k, "io") == 0)
        return luaL_error(L, "variable 'io' is not declared (the io library needs hcpsim run --unsafe-io)");
    static const char *const absent[] = {"os", "debug", "package", "dofile", "loadfile", "collectgarbage", NULL};
    for (int i = 0; k && absent[i]; i++)
        if (strcmp(k, absent[i]) == 0)
            return luaL_error(L, "variable '%s' is not declared (not available in the sandbox)", k);
    return luaL_error(L, "variable '%s' is not declared", k ? k : "?");
}

static void open_lib(lua_State *L, const char *name, lua_CFunction f) {
    luaL_requiref(L, name, f, 1);
    lua_pop(L, 1);
}

int lhcp_open_runtime(lua_State *L, const char *script, uint64_t seed, bool allow_io) {
    lua_pushstring(L, script);
    lua_setfield(L, LUA_REGISTRYINDEX, "hcpsim.script");
    runtime *rt = lua_newuserdatauv(L, sizeof *rt, 0);
    memset(rt, 0, sizeof *rt);
    rt->limit = registry_limit(L, "hcpsim.lua_limit", DEFAULT_LUA_LIMIT);
    rt->mem_limit = (size_t)registry_limit(L, "hcpsim.memory_limit", DEFAULT_LUA_MEMORY);
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, runtime_gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, "hcpsim.runtime");
    *(runtime **)lua_getextraspace(L) = rt;
    lhcp_limit_hook(L);
    rt->alloc = lua_getallocf(L, &rt->alloc_ud);
    rt->mem_used = (size_t)lua_gc(L, LUA_GCCOUNT) * 1024 + (size_t)lua_gc(L, LUA_GCCOUNTB);
    lua_setallocf(L, limited_alloc, rt);

    open_lib(L, LUA_GNAME, luaopen_base);
    open_lib(L, LUA_TABLIBNAME, luaopen_table);
    open_lib(L, LUA_STRLIBNAME, luaopen_string);
    open_lib(L, LUA_MATHLIBNAME, luaopen_math);
    open_lib(L, LUA_COLIBNAME, luaopen_coroutine);
    open_lib(L, LUA_UTF8LIBNAME, luaopen_utf8);
    lua_pushboolean(L, allow_io); /* m:process{cwd = ...} asks (scenarios/lprocess.c) */
    lua_setfield(L, LUA_REGISTRYINDEX, "hcpsim.unsafe_io");
    if (allow_io) { /* --unsafe-io: files, but no processes */
        open_lib(L, LUA_IOLIBNAME, luaopen_io);
        lua_getglobal(L, LUA_IOLIBNAME);
        lua_pushnil(L);
        lua_setfield(L, -2, "popen");
        lua_pop(L, 1);
    }

    static const char *const removed[] = {"dofile", "loadfile", "collectgarbage", NULL};
    for (int i = 0; removed[i]; i++) {
        lua_pushnil(L);
        lua_setglobal(L, removed[i]);
    }
    lua_pushcfunction(L, l_load);
    lua_setglobal(L, "load");
    lua_getglobal(L, "getmetatable");
    lua_pushcclosure(L, l_getmetatable, 1);
    lua_setglobal(L, "getmetatable");
    lua_getglobal(L, "rawset");
    lua_pushcclosure(L, l_rawset, 1);
    lua_setglobal(L, "rawset");
    lua_getglobal(L, "setmetatable");
    lua_pushcclosure(L, l_setmetatable, 1);
    lua_setglobal(L, "setmetatable");
    lua_getglobal(L, "string");
    lua_pushcfunction(L, l_no_dump);
    lua_setfield(L, -2, "dump");
    lua_pop(L, 1);
    lhcp_open_order(L); /* pairs, next, tostring, print, string.format: no host order or address */
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, "hcpsim.loaded");
    lua_pushcfunction(L, l_require);
    lua_setglobal(L, "require");

    /* math.random from the scenario seed */
    lua_getglobal(L, "math");
    lua_getfield(L, -1, "randomseed");
    lua_pushvalue(L, -1);
    lua_pushinteger(L, (lua_Integer)seed);
    lua_call(L, 1, 0);
    lua_pushcclosure(L, l_randomseed, 1);
    lua_setfield(L, -2, "randomseed");
    lua_pop(L, 1);

    lua_pushinteger(L, (lua_Integer)seed);
    lua_setfield(L, LUA_REGISTRYINDEX, "hcpsim.seed");
    return 0;
}

#define TRACE_KEY "hcpsim.trace"

void lhcp_set_trace(lua_State *L, rep_trace *tr) {
    if (tr)
        lua_pushlightuserdata(L, tr);
    else
        lua_pushnil(L);
    lua_setfield(L, LUA_REGISTRYINDEX, TRACE_KEY);
}

rep_trace *lhcp_trace(lua_State *L) {
    lua_getfield(L, LUA_REGISTRYINDEX, TRACE_KEY);
    rep_trace *tr = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return tr;
}

/* ---- --report: the run's report writer and the recording of API calls ----------------------- */

#define REPORT_KEY "hcpsim.report"

void lhcp_set_report(lua_State *L, rep_report *r) {
    if (r)
        lua_pushlightuserdata(L, r);
    else
        lua_pushnil(L);
    lua_setfield(L, LUA_REGISTRYINDEX, REPORT_KEY);
}

rep_report *lhcp_report(lua_State *L) {
    lua_getfield(L, LUA_REGISTRYINDEX, REPORT_KEY);
    rep_report *r = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return r;
}

/* A Lua value as a report value (reports/SCHEMA.md "API calls"): a table whose
 * keys are the integers 0..n-1 or 1..n is a list in key order, any other
 * table an object (integer keys in decimal; other key types left out);
 * floats and other types become strings, never addresses. */
static rep_value *report_value(lua_State *L, int idx, int depth) {
    idx = lua_absindex(L, idx);
    char buf[64];
    switch (lua_type(L, idx)) {
    case LUA_TBOOLEAN: return rep_value_bool(lua_toboolean(L, idx));
    case LUA_TNUMBER:
        if (lua_isinteger(L, idx)) return rep_value_int((int64_t)lua_tointeger(L, idx));
        snprintf(buf, sizeof buf, "%.17g", (double)lua_tonumber(L, idx));
        return rep_value_str(buf);
    case LUA_TSTRING: return rep_value_str(lua_tostring(L, idx));
    case LUA_TTABLE: break;
    case LUA_TUSERDATA:
        if (luaL_getmetafield(L, idx, "__tostring") != LUA_TNIL) {
            lua_pop(L, 1);
            rep_value *v = rep_value_str(luaL_tolstring(L, idx, NULL));
            lua_pop(L, 1);
            return v;
        }
        return rep_value_str("userdata");
    case LUA_TNIL:
    case LUA_TNONE: return rep_value_null();
    default: return rep_value_str(luaL_typename(L, idx));
    }
    if (depth >= 4) return rep_value_str("table");
    lua_Integer n = 0, lo = LUA_MAXINTEGER, hi = LUA_MININTEGER;
    bool ints = true;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        n++;
        if (!lua_isinteger(L, -1)) {
            ints = false;
            continue;
        }
        lua_Integer k = lua_tointeger(L, -1);
        if (k < lo) lo = k;
        if (k > hi) hi = k;
    }
    if (n && ints && (lo == 0 || lo == 1) && hi - lo + 1 == n) {
        rep_value *list = rep_value_list();
        for (lua_Integer k = lo; k <= hi; k++) {
            lua_geti(L, idx, k);
            rep_value_append(list, report_value(L, -1, depth + 1));
            lua_pop(L, 1);
        }
        return list;
    }
    rep_value *obj = rep_value_object();
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        const char *key = NULL;
        if (lua_type(L, -2) == LUA_TSTRING) {
            key = lua_tostring(L, -2);
        } else if (lua_isinteger(L, -2)) {
            snprintf(buf, sizeof buf, "%lld", (long long)lua_tointeger(L, -2));
            key = buf;
        }
        if (key) rep_value_set(obj, key, report_value(L, -1, depth + 1));
        lua_pop(L, 1);
    }
    return obj;
}

/* The binding raised an error while called from report_call.  Lua names the
 * culprit from the calling frame, which is now report_call, a C function: the
 * message lacks the caller's FILE:LINE and a bad argument names '?' and counts
 * `t` as argument 1.  Both are put back as they read without --report (the
 * wrapper stands where the binding stood, so its name and caller are the
 * binding's).  The call stays in the report as not completed. */
static int report_error(lua_State *L) {
    if (lua_type(L, -1) != LUA_TSTRING) return lua_error(L);
    const char *msg = lua_tostring(L, -1), *name = "?";
    bool method = false;
    lua_Debug ar;
    if (lua_getstack(L, 0, &ar) && lua_getinfo(L, "n", &ar)) {
        if (ar.name) name = ar.name;
        method = ar.namewhat && strcmp(ar.namewhat, "method") == 0;
    }
    luaL_where(L, 1);
    size_t wlen;
    const char *where = lua_tolstring(L, -1, &wlen);
    if (strncmp(msg, where, wlen) == 0) { /* it names its line already (a warning under --werror) */
        lua_pop(L, 1);
        return lua_error(L);
    }
    int argn = 0, off = 0;
    if (sscanf(msg, "bad argument #%d to '?' (%n", &argn, &off) == 1 && off > 0) {
        if (method) argn--;
        if (method && argn == 0)
            lua_pushfstring(L, "calling '%s' on bad self (%s", name, msg + off);
        else
            lua_pushfstring(L, "bad argument #%d to '%s' (%s", argn, name, msg + off);
    } else {
        lua_pushvalue(L, -2);
    }
    lua_concat(L, 2);
    return lua_error(L);
}

static int report_done(lua_State *L, int status, lua_KContext ctx) {
    if (status != LUA_OK && status != LUA_YIELD) return report_error(L);
    int n = lua_gettop(L);
    rep_value *res = rep_value_list();
    for (int i = 1; i <= n; i++) rep_value_append(res, report_value(L, i, 0));
    rep_call_end(lhcp_report(L), (long)ctx, res);
    return n;
}

/* upvalues: the function, its name, whether it is a Machine method */
static int report_call(lua_State *L) {
    lua_CFunction fn = lua_tocfunction(L, lua_upvalueindex(1));
    rep_report *r = NULL;
    sim_machine *m = NULL;
    const sim_thread *t = NULL;
    if (lua_toboolean(L, lua_upvalueindex(3))) {
        lmachine *lm = luaL_testudata(L, 1, LHCP_MACHINE);
        if (lm) r = lm->report, m = lm->m;
    } else {
        lthread *lt = luaL_testudata(L, 1, LHCP_THREAD);
        if (lt && lt->lm) r = lt->lm->report, m = lt->lm->m, t = lt->t;
    }
    if (!r || !m) return fn(L); /* not recorded: exactly the function itself */
    int n = lua_gettop(L);
    rep_value *args = rep_value_list();
    for (int i = 2; i <= n; i++) rep_value_append(args, report_value(L, i, 0));
    long id = rep_call_begin(r, m, t, lua_tostring(L, lua_upvalueindex(2)), args);
    lua_pushcfunction(L, fn);
    lua_insert(L, 1);
    /* the function may yield to the driver: report_done continues then */
    int st = lua_pcallk(L, n, LUA_MULTRET, 0, (lua_KContext)id, report_done);
    return report_done(L, st, (lua_KContext)id);
}

void lhcp_report_wrap(lua_State *L, int idx, bool machine) {
    idx = lua_absindex(L, idx);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
        if (k && k[0] >= 'A' && k[0] <= 'Z' && lua_iscfunction(L, -1)) {
            lua_pushvalue(L, -2);
            lua_pushboolean(L, machine);
            lua_pushcclosure(L, report_call, 3); /* upvalues: function, name, machine; leaves key, closure */
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_rawset(L, idx); /* replacing an existing key's value during lua_next is allowed; leaves key */
        } else {
            lua_pop(L, 1);
        }
    }
}

void lhcp_strict_globals(lua_State *L) {
    lua_pushglobaltable(L);
    lua_newtable(L);
    lua_pushcfunction(L, strict_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_pushcfunction(L, strict_index);
    lua_setfield(L, -2, "__index");
    lua_pushliteral(L, "strict globals"); /* setmetatable(_G, ...) cannot undo them */
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
    lua_pop(L, 1);
}

/* 0 when every TAP test passed (or none ran), 1 otherwise; asks hcpsim.tap if loaded. */
int lhcp_tap_status(lua_State *L) {
    lua_getfield(L, LUA_REGISTRYINDEX, "hcpsim.loaded");
    int status = 0;
    if (lua_getfield(L, -1, "hcpsim.tap") == LUA_TTABLE) {
        if (lua_getfield(L, -1, "_finish") == LUA_TFUNCTION) {
            if (lua_pcall(L, 0, 1, 0) == LUA_OK)
                status = lua_toboolean(L, -1) ? 0 : 1;
            else {
                fprintf(stderr, "%s\n", lua_tostring(L, -1));
                status = 1;
            }
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 2);
    return status;
}
