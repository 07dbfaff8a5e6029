/* scenarios/fuzz/fz_common.c — what the fuzz targets share: reading input
 * bytes, a scenario Lua state with small limits, and failure reports. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/platform.h"
#include "scenarios/fuzz/fuzz.h"

uint8_t hcpfz_u8(hcpfz_in *in) {
    if (!in->n) return 0;
    in->n--;
    return *in->p++;
}

uint16_t hcpfz_u16(hcpfz_in *in) {
    uint16_t lo = hcpfz_u8(in); /* two statements: the operands of | are unsequenced (gcc and clang differ) */
    return (uint16_t)(lo | hcpfz_u8(in) << 8);
}

uint32_t hcpfz_u32(hcpfz_in *in) {
    uint32_t lo = hcpfz_u16(in);
    return lo | (uint32_t)hcpfz_u16(in) << 16;
}

uint64_t hcpfz_u64(hcpfz_in *in) {
    uint64_t lo = hcpfz_u32(in);
    return lo | (uint64_t)hcpfz_u32(in) << 32;
}

const uint8_t *hcpfz_take(hcpfz_in *in, size_t n, size_t *got) {
    const uint8_t *p = in->p;
    *got = n < in->n ? n : in->n;
    in->p += *got;
    in->n -= *got;
    return p;
}

void hcpfz_fail(const char *target, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "hcpsim fuzz: %s: ", target);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

/* print: converts each argument as print would (running __tostring), writes nothing. */
static int fz_print(lua_State *L) {
    int n = lua_gettop(L);
    for (int i = 1; i <= n; i++) {
        luaL_tolstring(L, i, NULL);
        lua_pop(L, 1);
    }
    return 0;
}

/* The field t[name] of the table at index t: its type, and *v its integer value (0 when it has none). */
static int int_field(lua_State *L, int t, const char *name, lua_Integer *v, int *isint) {
    lua_pushstring(L, name);
    int ty = lua_rawget(L, t);
    *v = lua_tointegerx(L, -1, isint);
    lua_pop(L, 1);
    return ty;
}

static void set_int_field(lua_State *L, int t, const char *name, lua_Integer v) {
    lua_pushstring(L, name);
    lua_pushinteger(L, v);
    lua_rawset(L, t);
}

/* hcp.machine{...} with max_cycles capped (absent, at most 0 or larger: the cap; 0 would mean the
 * default, 2e10), max_mappings capped (absent, or larger but still valid: the cap; n mappings
 * cost n^3, sim/README.md) and max_trap_points capped the same way (each costs time on every
 * guest call).  Refused values stay, so that the machine's error is still reached. */
static int fz_machine(lua_State *L) {
    if (lua_isnoneornil(L, 1)) {
        lua_settop(L, 0);
        lua_newtable(L);
    }
    if (lua_type(L, 1) == LUA_TTABLE) {
        int isint;
        lua_Integer v;
        int ty = int_field(L, 1, "max_cycles", &v, &isint);
        if (ty == LUA_TNIL || (isint && (v > HCPFZ_MAX_CYCLES || v <= 0))) /* 0: the default, 2e10 */
            set_int_field(L, 1, "max_cycles", HCPFZ_MAX_CYCLES);
        ty = int_field(L, 1, "max_mappings", &v, &isint);
        if (ty == LUA_TNIL || (isint && v > HCPFZ_MAX_MAPPINGS && v <= SIM_MAX_MAPPINGS_LIMIT))
            set_int_field(L, 1, "max_mappings", HCPFZ_MAX_MAPPINGS);
        ty = int_field(L, 1, "max_trap_points", &v, &isint);
        if (ty == LUA_TNIL || (isint && v > HCPFZ_MAX_TRAPS && v <= SIM_MAX_TRAPS_LIMIT))
            set_int_field(L, 1, "max_trap_points", HCPFZ_MAX_TRAPS);
    }
    return lhcp_machine_new(L);
}

/* m:run{max_cycles = N} with N capped; upvalue 1 is the real m:run. */
static int fz_run(lua_State *L) {
    if (lua_type(L, 2) == LUA_TTABLE) {
        int isint;
        lua_Integer v;
        (void)int_field(L, 2, "max_cycles", &v, &isint);
        if (isint && v > HCPFZ_MAX_CYCLES) set_int_field(L, 2, "max_cycles", HCPFZ_MAX_CYCLES);
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

static int fz_setup(lua_State *L) {
    lua_pushinteger(L, HCPFZ_LUA_LIMIT);
    lua_setfield(L, LUA_REGISTRYINDEX, "hcpsim.lua_limit");
    lua_pushinteger(L, HCPFZ_MEMORY_LIMIT);
    lua_setfield(L, LUA_REGISTRYINDEX, "hcpsim.memory_limit");
    lhcp_open_runtime(L, "fuzz", 1, false);
    lua_pushcfunction(L, fz_print);
    lua_setglobal(L, "print");
    lua_newtable(L);
    lua_setglobal(L, "arg");
    /* The module and the Machine methods are patched before the scenario sees them. */
    lua_getglobal(L, "require");
    lua_pushliteral(L, "hcpsim");
    lua_call(L, 1, 1);
    lua_pushcfunction(L, fz_machine);
    lua_setfield(L, -2, "machine");
    luaL_getmetatable(L, LHCP_MACHINE);
    lua_getfield(L, -1, "methods");
    lua_getfield(L, -1, "run");
    lua_pushcclosure(L, fz_run, 1);
    lua_setfield(L, -2, "run");
    return 0;
}

lua_State *hcpfz_lua_open(void) {
    lua_State *L = luaL_newstate();
    if (!L) return NULL;
    lua_setwarnf(L, NULL, NULL);
    lua_pushcfunction(L, fz_setup);
    if (lua_pcall(L, 0, 0, 0) != LUA_OK) {
        lua_close(L);
        return NULL;
    }
    return L;
}

static int fz_msgh(lua_State *L) {
    if (!lua_isstring(L, 1)) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) return 1;
        lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    return 1;
}

void hcpfz_lua_main(lua_State *L) {
    int base = lua_gettop(L); /* the chunk */
    lua_pushcfunction(L, fz_msgh);
    lua_insert(L, base);
    lhcp_strict_globals(L);
    if (lua_pcall(L, 0, 0, base) == LUA_OK) (void)lhcp_tap_status(L);
    lua_settop(L, base - 1);
}

const hcp_platform *hcpfz_platform(unsigned k) {
    static const char *const names[4] = {"win10-x64", "win11-arm64", "win7-x86", "ce2.12-arm"};
    const hcp_platform *p = hcp_platform_find(names[k % 4]);
    if (!p) hcpfz_fail("common", "no platform %s", names[k % 4]);
    return p;
}

#ifdef HCPFZ_LIBFUZZER
/* Machines take a recycled Unicorn engine (sim/engine.c): most of a fresh
 * machine's cost under ASan is opening Unicorn.  HCPFZ_FRESH_ENGINES=1 in the
 * environment turns it off (to replay an input exactly as regress_test does first). */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    const char *fresh = getenv("HCPFZ_FRESH_ENGINES");
    sim_engine_recycle(!(fresh && *fresh == '1'));
    return 0;
}
#endif
