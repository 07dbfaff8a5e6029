/* scenarios/fuzz/fz_api.c — target `api`: the input bytes choose a sequence
 * of calls of every hcp function and every Machine, Thread and TraceSession
 * method (and field), with arguments of every Lua type: plausible ones shaped
 * like each method's parameters (handles, DWORDs, guest addresses near the
 * ends of the regions the scenario made, option tables with valid and
 * unknown keys) and arbitrary ones.  Calls are made as a scenario makes them:
 * from the main chunk before and after m:run, and from thread bodies during
 * it (the bodies draw their calls from the same input), each in pcall.
 * Integers and objects that calls return go to pools later arguments draw
 * from, so handles, profiling blocks and code addresses flow between calls.
 * The oracle is the absence of crashes, hangs, leaks and sanitizer reports. */
#include <math.h>
#include <string.h>

#include "scenarios/fuzz/fuzz.h"

#define API_MAX_OPS 160 /* calls per input */
#define POOL_INTS 64
#define POOL_OBJS 12
#define KEY_POOL "hcpsim.fuzz.pool"

typedef struct api_ctx {
    hcpfz_in in;
    int ops;
    unsigned next_int; /* ring position in pool.ints */
} api_ctx;

/* Harness helpers, in Lua: how a scenario would call what the bytes chose. */
static const char helpers[] =
    "local step, record = ...\n"
    "local unpack, pcall = table.unpack, pcall\n"
    "local function invoke(recv, name, self, ...) return recv[name](self, ...) end\n"
    "local function getf(recv, name) return recv[name] end\n"
    "local function meta(recv, name, self, ...) return getmetatable(recv)[name](self, ...) end\n"
    "local function closeit(v) local c <close> = v end\n"
    "local function body(t)\n"
    "  while true do\n"
    "    local a = step(t)\n"
    "    if a == nil then return end\n"
    "    record(pcall(unpack(a, 1, a.n)))\n"
    "  end\n"
    "end\n"
    "local function sink(ev)\n"
    "  local a = step(false)\n"
    "  if a then record(pcall(unpack(a, 1, a.n))) end\n"
    "end\n"
    "return { invoke = invoke, getf = getf, meta = meta, closeit = closeit, body = body,\n"
    "         sink = sink, noop = function() end, fail = function() error('boom') end,\n"
    "         ints = {}, m = {}, t = {}, s = {}, x = {} }\n";

static api_ctx *ctx_of(lua_State *L) { return lua_touserdata(L, lua_upvalueindex(1)); }

static void push_pool(lua_State *L) { lua_getfield(L, LUA_REGISTRYINDEX, KEY_POOL); }

/* ---- pools ------------------------------------------------------------------------------ */

static void pool_add_int(lua_State *L, api_ctx *c, lua_Integer v) {
    push_pool(L);
    lua_getfield(L, -1, "ints");
    lua_pushinteger(L, v);
    lua_rawseti(L, -2, (lua_Integer)(c->next_int++ % POOL_INTS) + 1);
    lua_pop(L, 2);
}

/* Pushes a random pooled integer, or returns false when the pool is empty. */
static bool pool_int(lua_State *L, api_ctx *c, lua_Integer *out) {
    push_pool(L);
    lua_getfield(L, -1, "ints");
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    bool ok = false;
    if (n > 0) {
        lua_rawgeti(L, -1, hcpfz_u8(&c->in) % n + 1);
        *out = lua_tointeger(L, -1);
        lua_pop(L, 1);
        ok = true;
    }
    lua_pop(L, 2);
    return ok;
}

static void pool_add_obj(lua_State *L, const char *list, int idx) {
    idx = lua_absindex(L, idx);
    push_pool(L);
    lua_getfield(L, -1, list);
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, -1, i);
        bool same = lua_rawequal(L, -1, idx);
        lua_pop(L, 1);
        if (same) {
            lua_pop(L, 2);
            return;
        }
    }
    if (n < POOL_OBJS) {
        lua_pushvalue(L, idx);
        lua_rawseti(L, -2, n + 1);
    }
    lua_pop(L, 2);
}

/* Pushes an object of the list (nil when empty). */
static void pool_obj(lua_State *L, api_ctx *c, const char *list) {
    push_pool(L);
    lua_getfield(L, -1, list);
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    if (n > 0)
        lua_rawgeti(L, -1, hcpfz_u8(&c->in) % n + 1);
    else
        lua_pushnil(L);
    lua_replace(L, -3);
    lua_pop(L, 1);
}

static void pool_helper(lua_State *L, const char *name) {
    push_pool(L);
    lua_getfield(L, -1, name);
    lua_remove(L, -2);
}

static void record_value(lua_State *L, api_ctx *c, int idx, int depth) {
    idx = lua_absindex(L, idx);
    switch (lua_type(L, idx)) {
    case LUA_TNUMBER:
        if (lua_isinteger(L, idx)) pool_add_int(L, c, lua_tointeger(L, idx));
        break;
    case LUA_TUSERDATA:
        if (luaL_testudata(L, idx, LHCP_MACHINE))
            pool_add_obj(L, "m", idx);
        else if (luaL_testudata(L, idx, LHCP_THREAD))
            pool_add_obj(L, "t", idx);
        else if (luaL_testudata(L, idx, "hcpsim.TraceSession"))
            pool_add_obj(L, "s", idx);
        break;
    case LUA_TTABLE:
        if (depth < 2) { /* in key order, not lua_next's: that varies with the process's hash seed */
            lhcp_push_sorted_keys(L, idx);
            lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
            for (lua_Integer k = 1; k <= n && k <= 48; k++) {
                lua_rawgeti(L, -1, k);
                lua_rawget(L, idx);
                record_value(L, c, -1, depth + 1);
                lua_pop(L, 1);
            }
            lua_pop(L, 1);
        }
        break;
    default: break;
    }
}

/* record(ok, ...): keeps what a call returned. */
static int api_record(lua_State *L) {
    api_ctx *c = ctx_of(L);
    int n = lua_gettop(L);
    for (int i = 2; i <= n && i < 10; i++) record_value(L, c, i, 0);
    return 0;
}

/* ---- values -------------------------------------------------------------------------------- */

/* Edges of every range the API checks, and the guest address map (sim/README.md). */
/* clang-format off */
static const lua_Integer interesting[] = {
    0, 1, -1, 2, -2, 3, 4, 7, 8, 15, 16, 17, 31, 32, 63, 64, 65, 255, 256, 259, 287, 288, 289, 447, 448, 449,
    1000, 1004, 1008, 4095, 4096, 4097, 0x7FFF, 0xFFFF, 0x10000, 0x7FFFFFFF, (lua_Integer)0x80000000u,
    (lua_Integer)0xFFFFFFFFu, (lua_Integer)0x100000000, -(lua_Integer)0x80000000 - 1, LUA_MAXINTEGER, LUA_MININTEGER,
    0x10000000, 0x10000FF0, 0x70000000, (lua_Integer)0x140000000, (lua_Integer)0x7FF000000000,
    (lua_Integer)0x7FFFFFFD0000, (lua_Integer)0x7FFFFFFD0F00, (lua_Integer)0x7FFFFFFE0000,
    (lua_Integer)0xDEADBEEFDEADBEEFu, 0x1FFFFF, 0x20, 0x40, 0x800, 0x2000000, 0x100000, 0x12, 0x812};
/* clang-format on */
#define N_INTERESTING (sizeof interesting / sizeof interesting[0])

static const char *const dict[] = {
    /* machine options and their values */
    "platform", "semantics", "cpus", "frequency", "tick", "quantum", "interrupt_cycles", "slice", "pmc", "seed",
    "max_cycles", "stack_size", "precise_faults", "cost", "predictor", "cache", "boot_time", "win10-x64", "win7-x64",
    "documented", "observed", "default", "unit", "table", "mispredict", "l2_hit", "llc_hit", "memory", "api_call",
    "classes", "alu", "mov", "history", "index", "pc_shift", "ras", "btb", "l1d", "l2", "llc", "size", "ways", "line",
    /* events */
    "instructions", "cycles", "branches", "ref-cycles", "cond-branches", "branch-misses", "loads", "stores",
    "l1d-misses", "l2-misses", "llc-references", "llc-misses", "cycles:k", "instructions:uk", "loads:x",
    /* structures and specs */
    "Type", "Reserved", "Index", "Size", "Version", "HwCountersCount", "ContextSwitchCount", "WaitReasonBitMap",
    "CycleTime", "RetryCount", "HwCounters", "Value", "name", "priority", "affinity", "ideal", "body", "manual",
    "initial", "owned", "max", "flags", "on_event", "creation", "exit", "kernel", "user", "kernels",
    /* members */
    "id", "handle", "state", "switches", "exit_code", "wait_reason", "stop", "active", "code", "alloc", "read", "write",
    "thread", "threads", "run", "clock", "load", "imports", "__index", "__gc", "__close", "__tostring", "methods", "",
    "\0", "x\0y"};
#define N_DICT (sizeof dict / sizeof dict[0])

static void gen_value(lua_State *L, api_ctx *c, int depth);

static void gen_string(lua_State *L, api_ctx *c, size_t max) {
    size_t got;
    const uint8_t *p = hcpfz_take(&c->in, hcpfz_u8(&c->in) % (max + 1), &got);
    lua_pushlstring(L, (const char *)p, got);
}

static void gen_int(lua_State *L, api_ctx *c) {
    lua_Integer v;
    switch (hcpfz_u8(&c->in) % 6) {
    case 0: lua_pushinteger(L, (int8_t)hcpfz_u8(&c->in)); break;
    case 1: lua_pushinteger(L, (lua_Integer)hcpfz_u32(&c->in)); break;
    case 2: lua_pushinteger(L, (lua_Integer)hcpfz_u64(&c->in)); break;
    case 3:
        if (pool_int(L, c, &v)) {
            lua_pushinteger(L, (lua_Integer)((uint64_t)v + (uint64_t)(int8_t)hcpfz_u8(&c->in)));
            break;
        }
        /* fall through */
    default: lua_pushinteger(L, interesting[hcpfz_u8(&c->in) % N_INTERESTING]); break;
    }
}

static void gen_table(lua_State *L, api_ctx *c, int depth, bool array) {
    int n = hcpfz_u8(&c->in) % 6;
    lua_createtable(L, n, 0);
    for (int i = 1; i <= n; i++) {
        if (array)
            lua_pushinteger(L, i);
        else if (hcpfz_u8(&c->in) % 8)
            lua_pushstring(L, dict[hcpfz_u8(&c->in) % N_DICT]);
        else
            gen_value(L, c, depth + 1);
        gen_value(L, c, depth + 1);
        if (lua_isnil(L, -2) || (lua_type(L, -2) == LUA_TNUMBER && lua_tonumber(L, -2) != lua_tonumber(L, -2)))
            lua_pop(L, 2); /* nil and NaN are not keys */
        else
            lua_rawset(L, -3);
    }
}

static void gen_function(lua_State *L, api_ctx *c) {
    static const char *const fns[] = {"body", "noop", "fail", "sink", "invoke"};
    switch (hcpfz_u8(&c->in) % 7) {
    case 5:
        lua_getglobal(L, "coroutine");
        lua_getfield(L, -1, "yield");
        lua_remove(L, -2);
        break;
    case 6: lua_getglobal(L, "error"); break;
    default: pool_helper(L, fns[hcpfz_u8(&c->in) % 5]); break;
    }
}

static void gen_value(lua_State *L, api_ctx *c, int depth) {
    const double floats[] = {0.5,    -0.0,     1e300,    9.2233720368547758e18, -9.2233720368547758e18,
                             4096.0, HUGE_VAL, -HUGE_VAL};
    int tag = hcpfz_u8(&c->in) % 18;
    if (depth > 3 && (tag == 10 || tag == 11)) tag = 2;
    switch (tag) {
    case 0: lua_pushnil(L); break;
    case 1: lua_pushboolean(L, hcpfz_u8(&c->in) & 1); break;
    case 2:
    case 3:
    case 4:
    case 5: gen_int(L, c); break;
    case 6: {
        uint8_t k = hcpfz_u8(&c->in);
        if (k < 8)
            lua_pushnumber(L, floats[k]);
        else if (k == 8)
            lua_pushnumber(L, (double)NAN);
        else
            lua_pushnumber(L, (double)(int16_t)hcpfz_u16(&c->in) / 4.0);
        break;
    }
    case 7: gen_string(L, c, 40); break;
    case 8:
    case 9: lua_pushstring(L, dict[hcpfz_u8(&c->in) % N_DICT]); break;
    case 10: gen_table(L, c, depth, true); break;
    case 11: gen_table(L, c, depth, false); break;
    case 12: pool_obj(L, c, "m"); break;
    case 13: pool_obj(L, c, "t"); break;
    case 14: pool_obj(L, c, "s"); break;
    case 15: gen_function(L, c); break;
    case 16: {
        lua_State *co = lua_newthread(L);
        (void)co;
        break;
    }
    default: {
        static const char *const globals[] = {"_G", "string", "math", "table"};
        lua_getglobal(L, globals[hcpfz_u8(&c->in) % 4]);
        break;
    }
    }
}

/* ---- arguments shaped like a parameter ------------------------------------------------------ */

static void gen_handle(lua_State *L, api_ctx *c) {
    lua_Integer v;
    switch (hcpfz_u8(&c->in) % 9) {
    case 0: lua_pushinteger(L, -2); break; /* GetCurrentThread() */
    case 1: lua_pushinteger(L, -1); break;
    case 2:
    case 3:
        if (pool_int(L, c, &v)) {
            lua_pushinteger(L, v);
            break;
        }
        /* fall through */
    case 4: lua_pushinteger(L, (lua_Integer)(hcpfz_u8(&c->in) % 16) << 2); break;
    case 5: pool_obj(L, c, "t"); break; /* a Thread object stands for its handle in some calls */
    case 6:
        pool_obj(L, c, "t");
        if (lua_isuserdata(L, -1)) {
            lua_getfield(L, -1, "handle");
            lua_remove(L, -2);
        }
        break;
    default: gen_value(L, c, 2); break;
    }
}

static void gen_dword(lua_State *L, api_ctx *c) {
    switch (hcpfz_u8(&c->in) % 5) {
    case 0: lua_pushinteger(L, hcpfz_u8(&c->in) % 4); break;
    case 1: lua_pushinteger(L, (lua_Integer)hcpfz_u32(&c->in)); break;
    case 2: gen_value(L, c, 2); break;
    default: lua_pushinteger(L, interesting[hcpfz_u8(&c->in) % N_INTERESTING]); break;
    }
}

/* A guest address: mostly a pooled one (an m:alloc, m:code or profiling block
 * address) moved a little, so buffers straddle the ends of their regions. */
static void gen_address(lua_State *L, api_ctx *c) {
    static const int64_t deltas[] = {0, 1, 4, 8, -8, -1, 4096 - 288, 4096 - 287, 4096 - 8, 4096 - 4, 4096, 448, -448};
    lua_Integer v;
    switch (hcpfz_u8(&c->in) % 6) {
    case 0:
    case 1:
    case 2:
        if (pool_int(L, c, &v)) {
            lua_pushinteger(L, (lua_Integer)((uint64_t)v + (uint64_t)deltas[hcpfz_u8(&c->in) % 13]));
            break;
        }
        /* fall through */
    case 3: lua_pushinteger(L, interesting[hcpfz_u8(&c->in) % N_INTERESTING]); break;
    case 4: lua_pushinteger(L, (lua_Integer)hcpfz_u64(&c->in)); break;
    default: gen_value(L, c, 2); break;
    }
}

static void gen_size(lua_State *L, api_ctx *c) {
    static const lua_Integer sizes[] = {0, 1, 8, 16, 255, 256, 288, 448, 4096, 4097, 65536, 268435456, 268435457, -1};
    uint8_t k = hcpfz_u8(&c->in);
    if (k % 4 == 3)
        gen_value(L, c, 2);
    else if (k % 4 == 2)
        lua_pushinteger(L, sizes[hcpfz_u8(&c->in) % 14]);
    else
        lua_pushinteger(L, hcpfz_u8(&c->in) % 40);
}

static void gen_code(lua_State *L, api_ctx *c) {
    static const char *const snippets[] = {
        "\xC3",                                         /* ret */
        "\xEB\xFE",                                     /* jmp $ */
        "\x48\x89\xC8\xC3",                             /* mov rax, rcx; ret */
        "\x0F\x31\xC3",                                 /* rdtsc; ret */
        "\x31\xC9\x0F\x33\xC3",                         /* xor ecx, ecx; rdpmc; ret */
        "\xCC",                                         /* int3 */
        "\xF4",                                         /* hlt */
        "\x48\x8B\x01\xC3",                             /* mov rax, [rcx]; ret */
        "\xFF\xE1",                                     /* jmp rcx */
        "\xFF\xD1\xC3",                                 /* call rcx; ret */
        "\x0F\x05\xC3",                                 /* syscall; ret */
        "\x48\x83\xEC\x28\xFF\xD1\x48\x83\xC4\x28\xC3", /* sub rsp, 40; call rcx; add rsp, 40; ret */
    };
    uint8_t k = hcpfz_u8(&c->in);
    if (k % 3)
        lua_pushstring(L, snippets[hcpfz_u8(&c->in) % (sizeof snippets / sizeof snippets[0])]);
    else
        gen_string(L, c, 64);
}

static void set_field_from(lua_State *L, api_ctx *c, const char *k, void (*gen)(lua_State *, api_ctx *)) {
    gen(L, c);
    lua_setfield(L, -2, k);
}

static void gen_any(lua_State *L, api_ctx *c) { gen_value(L, c, 2); }

/* An occasional unknown or mistyped field, so the option checks run. */
static void maybe_stray(lua_State *L, api_ctx *c) {
    if (hcpfz_u8(&c->in) % 8 == 0) {
        lua_pushstring(L, dict[hcpfz_u8(&c->in) % N_DICT]);
        gen_value(L, c, 2);
        if (lua_isnil(L, -2))
            lua_pop(L, 2);
        else
            lua_rawset(L, -3);
    }
}

static void gen_events(lua_State *L, api_ctx *c) {
    static const char *const ev[] = {"instructions",  "cycles",          "branches",       "ref-cycles",
                                     "cond-branches", "branch-misses",   "loads",          "stores",
                                     "l1d-misses",    "l2-misses",       "llc-references", "llc-misses",
                                     "cycles:k",      "instructions:uk", "loads:z",        "x"};
    int n = hcpfz_u8(&c->in) % 10;
    lua_createtable(L, n, 0);
    for (int i = 1; i <= n; i++) {
        lua_pushstring(L, ev[hcpfz_u8(&c->in) % 16]);
        lua_rawseti(L, -2, i);
    }
}

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static const char *const machine_keys[] = {"platform",   "semantics",        "cpus",           "frequency", "tick",
                                           "quantum",    "interrupt_cycles", "slice",          "pmc",       "seed",
                                           "max_cycles", "stack_size",       "precise_faults", "cost",      "predictor",
                                           "cache",      "boot_time"};

static void gen_machine_opts(lua_State *L, api_ctx *c) {
    uint16_t want = hcpfz_u16(&c->in);
    if (want == 0xFFFF) {
        gen_value(L, c, 1);
        return;
    }
    lua_newtable(L);
    if (want & 1) {
        lua_pushinteger(L, 1 + hcpfz_u8(&c->in) % 4);
        lua_setfield(L, -2, "cpus");
    }
    if (want & 2) {
        lua_pushstring(L, hcpfz_u8(&c->in) & 1 ? "observed" : "documented");
        lua_setfield(L, -2, "semantics");
    }
    if (want & 4) {
        gen_events(L, c);
        lua_setfield(L, -2, "pmc");
    }
    if (want & 8) {
        lua_pushstring(L, hcpfz_u8(&c->in) & 1 ? "unit" : "default");
        lua_setfield(L, -2, "cost");
    }
    if (want & 16) {
        lua_pushboolean(L, hcpfz_u8(&c->in) & 1);
        lua_setfield(L, -2, "cache");
    }
    if (want & 32) {
        lua_pushboolean(L, hcpfz_u8(&c->in) & 1);
        lua_setfield(L, -2, "predictor");
    }
    if (want & 64) {
        lua_pushboolean(L, hcpfz_u8(&c->in) & 1);
        lua_setfield(L, -2, "precise_faults");
    }
    if (want & 128) {
        lua_pushinteger(L, 1 + hcpfz_u8(&c->in) % 8);
        lua_setfield(L, -2, "quantum");
    }
    if (want & 256) {
        lua_pushinteger(L, 1 + hcpfz_u16(&c->in));
        lua_setfield(L, -2, "tick");
    }
    if (want & 512) {
        lua_pushinteger(L, 1000 + (lua_Integer)hcpfz_u32(&c->in));
        lua_setfield(L, -2, "max_cycles");
    }
    if (want & 1024) {
        lua_pushinteger(L, 4096 * (1 + hcpfz_u8(&c->in) % 16));
        lua_setfield(L, -2, "stack_size");
    }
    if (want & 2048) set_field_from(L, c, machine_keys[hcpfz_u8(&c->in) % NELEM(machine_keys)], gen_any);
    maybe_stray(L, c);
}

static void gen_thread_spec(lua_State *L, api_ctx *c) {
    uint8_t want = hcpfz_u8(&c->in);
    if (want == 0xFF) {
        gen_value(L, c, 1);
        return;
    }
    lua_newtable(L);
    if (want & 1) {
        pool_helper(L, "body");
    } else {
        gen_function(L, c);
    }
    lua_setfield(L, -2, "body");
    if (want & 2) set_field_from(L, c, "name", gen_any);
    if (want & 4) {
        lua_pushinteger(L, hcpfz_u8(&c->in) % 34 - 1);
        lua_setfield(L, -2, "priority");
    }
    if (want & 8) set_field_from(L, c, "affinity", gen_dword);
    if (want & 16) {
        lua_pushinteger(L, hcpfz_u8(&c->in) % 6 - 1);
        lua_setfield(L, -2, "ideal");
    }
    maybe_stray(L, c);
}

static void gen_pd(lua_State *L, api_ctx *c) {
    uint8_t want = hcpfz_u8(&c->in);
    if (want % 3 == 0) {
        lua_pushnil(L);
        return;
    }
    if (want == 0xFF) {
        gen_value(L, c, 1);
        return;
    }
    lua_newtable(L);
    lua_pushinteger(L, want & 4 ? 288 : (lua_Integer)hcpfz_u16(&c->in));
    lua_setfield(L, -2, "Size");
    lua_pushinteger(L, want & 8 ? 1 : hcpfz_u8(&c->in));
    lua_setfield(L, -2, "Version");
    static const char *const pd_fields[] = {"HwCountersCount", "ContextSwitchCount", "WaitReasonBitMap",
                                            "CycleTime",       "RetryCount",         "Reserved"};
    static const char *const hc_fields[] = {"Type", "Reserved", "Value"};
    if (want & 16) set_field_from(L, c, pd_fields[hcpfz_u8(&c->in) % 6], gen_int);
    if (want & 32) {
        lua_newtable(L);
        int n = hcpfz_u8(&c->in) % 4;
        for (int i = 0; i < n; i++) {
            lua_newtable(L);
            set_field_from(L, c, hc_fields[hcpfz_u8(&c->in) % 3], gen_int);
            lua_rawseti(L, -2, hcpfz_u8(&c->in) % 18 - 1);
        }
        lua_setfield(L, -2, "HwCounters");
    }
    maybe_stray(L, c);
}

static void gen_times_opts(lua_State *L, api_ctx *c) {
    static const char *const k[] = {"creation", "exit", "kernel", "user"};
    uint8_t want = hcpfz_u8(&c->in);
    if (want % 3 == 0) {
        lua_pushnil(L);
        return;
    }
    lua_newtable(L);
    for (int i = 0; i < 4; i++) {
        if (!(want >> (i + 2) & 1)) continue;
        if (hcpfz_u8(&c->in) & 1)
            lua_pushboolean(L, 0);
        else
            gen_address(L, c);
        lua_setfield(L, -2, k[i]);
    }
    maybe_stray(L, c);
}

static void gen_handle_list(lua_State *L, api_ctx *c) {
    uint8_t k = hcpfz_u8(&c->in);
    int n = k == 0xFF ? 65 : k % 5;
    lua_createtable(L, n, 0);
    for (int i = 1; i <= n; i++) {
        gen_handle(L, c);
        lua_rawseti(L, -2, i);
    }
}

static void gen_counter_list(lua_State *L, api_ctx *c) {
    uint8_t k = hcpfz_u8(&c->in);
    int n = k == 0xFF ? 17 : k % 6;
    lua_createtable(L, n, 0);
    for (int i = 1; i <= n; i++) {
        if (hcpfz_u8(&c->in) % 16 == 0) {
            gen_value(L, c, 2);
        } else {
            lua_newtable(L);
            lua_pushinteger(L, hcpfz_u8(&c->in) % 4 == 0 ? (lua_Integer)hcpfz_u32(&c->in) : 0);
            lua_setfield(L, -2, "Type");
            lua_pushinteger(L, hcpfz_u8(&c->in) % 4 == 0 ? (lua_Integer)hcpfz_u64(&c->in) : hcpfz_u8(&c->in) % 8);
            lua_setfield(L, -2, "Index");
            maybe_stray(L, c);
        }
        if (lua_isnil(L, -1))
            lua_pop(L, 1);
        else
            lua_rawseti(L, -2, i);
    }
}

static void gen_imports(lua_State *L, api_ctx *c) {
    int n = hcpfz_u8(&c->in) % 5;
    lua_createtable(L, n, 0);
    for (int i = 1; i <= n; i++) {
        uint8_t k = hcpfz_u8(&c->in);
        const char *name = hcp_import_name(k % 40);
        if (name)
            lua_pushstring(L, name);
        else
            gen_value(L, c, 2);
        if (lua_isnil(L, -1))
            lua_pop(L, 1);
        else
            lua_rawseti(L, -2, i);
    }
}

static void gen_trace_opts(lua_State *L, api_ctx *c) {
    static const lua_Integer flags[] = {0x2, 0x10, 0x800, 0x812, 0x12, 0x1, 0x0, 0x80000000};
    lua_newtable(L);
    lua_pushinteger(L, flags[hcpfz_u8(&c->in) % 8]);
    lua_setfield(L, -2, "flags");
    gen_function(L, c);
    lua_setfield(L, -2, "on_event");
    maybe_stray(L, c);
}

static void gen_run_opts(lua_State *L, api_ctx *c) {
    uint8_t k = hcpfz_u8(&c->in);
    if (k % 2) {
        lua_pushnil(L);
    } else {
        lua_newtable(L);
        lua_pushinteger(L, k % 4 ? (lua_Integer)hcpfz_u32(&c->in) : (lua_Integer)hcpfz_u64(&c->in));
        lua_setfield(L, -2, "max_cycles");
        maybe_stray(L, c);
    }
}

static void gen_object_opts(lua_State *L, api_ctx *c) {
    static const char *const k[] = {"manual", "initial", "owned", "max"};
    uint8_t want = hcpfz_u8(&c->in);
    if (want % 4 == 0) {
        lua_pushnil(L);
        return;
    }
    lua_newtable(L);
    for (int i = 0; i < 4; i++) {
        if (!(want >> (i + 2) & 1)) continue;
        if (hcpfz_u8(&c->in) & 1)
            lua_pushboolean(L, hcpfz_u8(&c->in) & 1);
        else
            lua_pushinteger(L, hcpfz_u8(&c->in) % 5 - 1);
        lua_setfield(L, -2, k[i]);
    }
}

/* Pushes the arguments of a signature; returns how many. */
static int gen_args(lua_State *L, api_ctx *c, const char *sig) {
    int n = 0;
    bool arbitrary = hcpfz_u8(&c->in) % 10 == 0; /* one call in ten: any values at all */
    if (arbitrary) {
        n = hcpfz_u8(&c->in) % 5;
        for (int i = 0; i < n; i++) gen_value(L, c, 1);
        return n;
    }
    for (const char *s = sig; *s; s++, n++) {
        luaL_checkstack(L, 4, "fuzz");
        switch (*s) {
        case 'H': gen_handle(L, c); break;
        case 'D': gen_dword(L, c); break;
        case 'Q': gen_int(L, c); break;
        case 'A': gen_address(L, c); break;
        case 'N': gen_size(L, c); break;
        case 'S': gen_string(L, c, 200); break;
        case 'C': gen_code(L, c); break;
        case 'P': gen_pd(L, c); break;
        case 'O': gen_times_opts(L, c); break;
        case 'R': gen_thread_spec(L, c); break;
        case 'U': gen_run_opts(L, c); break;
        case 'M': gen_machine_opts(L, c); break;
        case 'L': gen_handle_list(L, c); break;
        case 'K': gen_counter_list(L, c); break;
        case 'J': gen_imports(L, c); break;
        case 'X': gen_trace_opts(L, c); break;
        case 'B': lua_pushboolean(L, hcpfz_u8(&c->in) & 1); break;
        case 'Y': gen_object_opts(L, c); break;
        case 'F':
            if (hcpfz_u8(&c->in) % 8)
                lua_pushliteral(L, "kernels");
            else
                gen_value(L, c, 2);
            break;
        case 'E': /* an entry point: code the scenario placed, a thunk, or anything */
            if (hcpfz_u8(&c->in) % 4 == 0) {
                const char *imp = hcp_import_name(hcpfz_u8(&c->in) % 24);
                lua_pushinteger(L, (lua_Integer)hcp_import_address(NULL, imp ? imp : "GetLastError"));
            } else
                gen_address(L, c);
            break;
        case '*': { /* up to 17 more integers (16 is the most t:run passes) */
            int k = hcpfz_u8(&c->in) % 18;
            luaL_checkstack(L, k, "fuzz");
            for (int i = 0; i < k; i++) gen_int(L, c);
            n += k - 1;
            break;
        }
        case '?': /* optional: nothing or any value */
            if (hcpfz_u8(&c->in) & 1)
                gen_dword(L, c);
            else
                n--;
            break;
        default: lua_pushnil(L); break;
        }
    }
    return n;
}

/* ---- calls ---------------------------------------------------------------------------------- */

typedef struct method {
    const char *name, *sig;
} method;

static const method thread_methods[] = {
    {"run", "E*"},
    {"counters", ""},
    {"GetCurrentThread", ""},
    {"GetCurrentThreadId", ""},
    {"GetLastError", ""},
    {"SetLastError", "D"},
    {"OpenThread", "DBD"},
    {"CloseHandle", "H"},
    {"EnableThreadProfiling", "HDQ"},
    {"EnableThreadProfiling", "HDQ"},
    {"DisableThreadProfiling", "H"},
    {"QueryThreadProfiling", "H"},
    {"ReadThreadProfilingData", "HDP"},
    {"ReadThreadProfilingData", "HDP"},
    {"GetThreadTimes", "HO"},
    {"QueryThreadCycleTime", "HA"},
    {"Sleep", "D"},
    {"SwitchToThread", ""},
    {"WaitForSingleObject", "HD"},
    {"WaitForMultipleObjects", "LBD"},
    {"SetEvent", "H"},
    {"ResetEvent", "H"},
    {"ReleaseMutex", "H"},
    {"ReleaseSemaphore", "H?"},
    {"exit", "?"},
    {"frobnicate", ""},
};
static const char *const thread_fields[] = {"id",  "handle", "name",     "state",     "switches",    "priority",
                                            "cpu", "ideal",  "affinity", "exit_code", "wait_reason", "nope"};

static const method machine_methods[] = {
    {"code", "C"},
    {"alloc", "N"},
    {"read", "AN"},
    {"write", "AS"},
    {"thread", "R"},
    {"threads", ""},
    {"run", "U"},
    {"clock", ""},
    {"cpus", ""},
    {"event", "Y"},
    {"mutex", "Y"},
    {"semaphore", "Y"},
    {"load", "F"},
    {"imports", ""},
    {"import_table", "J"},
    {"KeSetHardwareCounterConfiguration", "K?"},
    {"KeQueryHardwareCounterConfiguration", "N"},
    {"trace", "X"},
    {"frobnicate", ""},
};

static const method hcp_functions[] = {
    {"machine", "M"}, {"status_name", "Q"}, {"error_name", "Q"}, {"wait_reason_name", "Q"}, {"hex", "QQ"}, {"nope", ""},
};

static const char *const meta_fields[] = {"__gc", "__index", "__close", "__tostring", "methods"};

/* Pushes { n =, f, args... } for one call; `cur` is the index of the calling
 * body's Thread (0 in the main chunk or an on_event callback). */
static void gen_call(lua_State *L, api_ctx *c, int cur) {
    luaL_checkstack(L, 40, "fuzz");
    int base = lua_gettop(L);
    uint8_t kind = hcpfz_u8(&c->in) % 20;
    const method *mt;
    if (kind < 8) { /* a Thread method, on the calling thread mostly */
        mt = &thread_methods[hcpfz_u8(&c->in) % NELEM(thread_methods)];
        pool_helper(L, "invoke");
        if (cur && hcpfz_u8(&c->in) % 8)
            lua_pushvalue(L, cur);
        else
            pool_obj(L, c, "t");
        lua_pushstring(L, mt->name);
        lua_pushvalue(L, -2);
        if (hcpfz_u8(&c->in) % 32 == 0) { /* a wrong self */
            lua_pop(L, 1);
            gen_value(L, c, 2);
        }
        gen_args(L, c, mt->sig);
    } else if (kind < 15) { /* a Machine method */
        mt = &machine_methods[hcpfz_u8(&c->in) % NELEM(machine_methods)];
        pool_helper(L, "invoke");
        pool_obj(L, c, "m");
        lua_pushstring(L, mt->name);
        lua_pushvalue(L, -2);
        if (hcpfz_u8(&c->in) % 32 == 0) {
            lua_pop(L, 1);
            gen_value(L, c, 2);
        }
        gen_args(L, c, mt->sig);
    } else if (kind == 15) { /* an hcp function */
        mt = &hcp_functions[hcpfz_u8(&c->in) % NELEM(hcp_functions)];
        lua_getfield(L, LUA_REGISTRYINDEX, "hcpsim.loaded");
        lua_getfield(L, -1, "hcpsim");
        lua_pushstring(L, mt->name);
        lua_rawget(L, -2); /* the function ("nope": nil, and calling it fails) */
        lua_replace(L, -3);
        lua_pop(L, 1);
        gen_args(L, c, mt->sig);
    } else if (kind == 16) { /* a field */
        pool_helper(L, "getf");
        uint8_t k = hcpfz_u8(&c->in);
        if (k % 4 == 0) {
            pool_obj(L, c, "s");
            lua_pushstring(L, (const char *[]){"stop", "flags", "active", "nope"}[k / 4 % 4]);
        } else {
            if (cur && k % 4 == 1)
                lua_pushvalue(L, cur);
            else
                pool_obj(L, c, "t");
            lua_pushstring(L, thread_fields[hcpfz_u8(&c->in) % NELEM(thread_fields)]);
        }
    } else if (kind == 17) { /* a session: stop, close, tostring */
        uint8_t k = hcpfz_u8(&c->in) % 3;
        if (k == 0) {
            pool_helper(L, "invoke");
            pool_obj(L, c, "s");
            lua_pushliteral(L, "stop");
            lua_pushvalue(L, -2);
        } else if (k == 1) {
            pool_helper(L, "closeit");
            if (hcpfz_u8(&c->in) % 4)
                pool_obj(L, c, "s");
            else
                gen_value(L, c, 2);
        } else {
            lua_getglobal(L, "tostring");
            gen_value(L, c, 1);
        }
    } else { /* what a scenario can reach through the metatables */
        pool_helper(L, "meta");
        gen_value(L, c, 1);
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            pool_obj(L, c, hcpfz_u8(&c->in) & 1 ? "m" : "t");
        }
        lua_pushstring(L, meta_fields[hcpfz_u8(&c->in) % NELEM(meta_fields)]);
        lua_pushvalue(L, -2);
        gen_args(L, c, hcpfz_u8(&c->in) & 1 ? "" : "S");
    }
    int n = lua_gettop(L) - base;
    lua_createtable(L, n, 1);
    lua_insert(L, base + 1);
    for (int i = n; i >= 1; i--) lua_rawseti(L, base + 1, i);
    lua_pushinteger(L, n);
    lua_setfield(L, base + 1, "n");
}

/* step(t) --> the next call for body t (false: an on_event callback), or nil when the input is used up. */
static int api_step(lua_State *L) {
    api_ctx *c = ctx_of(L);
    if (c->ops <= 0 || c->in.n == 0) return 0;
    c->ops--;
    int cur = luaL_testudata(L, 1, LHCP_THREAD) ? 1 : 0;
    lua_settop(L, 1);
    gen_call(L, c, cur);
    return 1;
}

/* One call from the main chunk. */
static void main_call(lua_State *L, api_ctx *c) {
    if (c->ops <= 0) return;
    c->ops--;
    pool_helper(L, "record");
    lua_getglobal(L, "pcall");
    gen_call(L, c, 0);
    int t = lua_gettop(L);
    lua_getfield(L, t, "n");
    int n = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
    for (int i = 1; i <= n; i++) lua_rawgeti(L, t, i);
    lua_remove(L, t);
    lua_call(L, n, LUA_MULTRET); /* pcall: never raises */
    int nres = lua_gettop(L) - (t - 2);
    lua_call(L, nres, 0); /* record */
}

static int api_main(lua_State *L) {
    api_ctx *c = lua_touserdata(L, 1);
    lua_settop(L, 0);
    if (luaL_loadbufferx(L, helpers, sizeof helpers - 1, "=fuzz-api", "t") != LUA_OK) return lua_error(L);
    lua_pushlightuserdata(L, c);
    lua_pushcclosure(L, api_step, 1);
    lua_pushlightuserdata(L, c);
    lua_pushcclosure(L, api_record, 1);
    lua_pushvalue(L, -1);
    lua_insert(L, 1); /* record stays at index 1 */
    lua_call(L, 2, 1);
    lua_insert(L, 1);
    lua_setfield(L, 1, "record");
    lua_setfield(L, LUA_REGISTRYINDEX, KEY_POOL);
    lhcp_strict_globals(L);

    /* a machine first (mostly with plausible options), then calls from the main chunk */
    pool_helper(L, "record");
    lua_getglobal(L, "pcall");
    lua_getglobal(L, "require");
    lua_pushliteral(L, "hcpsim");
    lua_call(L, 1, 1);
    lua_getfield(L, -1, "machine");
    lua_remove(L, -2);
    gen_machine_opts(L, c);
    lua_call(L, 2, 2);
    lua_call(L, 2, 0);
    int pre = hcpfz_u8(&c->in) % 12;
    for (int i = 0; i < pre; i++) main_call(L, c);
    /* every machine gets a body, then runs; bodies draw the rest of the calls */
    for (int k = 1; k <= POOL_OBJS; k++) {
        push_pool(L);
        lua_getfield(L, -1, "m");
        if (lua_rawgeti(L, -1, k) != LUA_TUSERDATA) {
            lua_pop(L, 3);
            break;
        }
        int m = lua_gettop(L);
        pool_helper(L, "record");
        lua_getglobal(L, "pcall");
        lua_getfield(L, m, "thread");
        lua_pushvalue(L, m);
        lua_createtable(L, 0, 1);
        pool_helper(L, "body");
        lua_setfield(L, -2, "body");
        lua_call(L, 3, LUA_MULTRET);
        lua_call(L, lua_gettop(L) - m - 1, 0);
        pool_helper(L, "record");
        lua_getglobal(L, "pcall");
        lua_getfield(L, m, "run");
        lua_pushvalue(L, m);
        lua_call(L, 2, LUA_MULTRET);
        lua_call(L, lua_gettop(L) - m - 1, 0);
        lua_pop(L, 3);
    }
    c->ops += 8; /* a few calls after the runs, on what they left */
    for (int i = 0; i < 8 && c->in.n; i++) main_call(L, c);
    return 0;
}

int hcpfz_api(const uint8_t *data, size_t size) {
    api_ctx c = {{data, size}, API_MAX_OPS, 0};
    lua_State *L = hcpfz_lua_open();
    if (!L) return 0;
    lua_pushcfunction(L, api_main);
    lua_pushlightuserdata(L, &c);
    (void)lua_pcall(L, 1, 0, 0); /* an error here is the Lua limit or memory: the input ends */
    lua_close(L);
    return 0;
}

HCPFZ_ENTRY(hcpfz_api)
