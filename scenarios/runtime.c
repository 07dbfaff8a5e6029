/* scenarios/runtime.c — the Lua runtime a scenario runs in.
 *
 * A sandbox on purpose: the base library without dofile/loadfile (and load
 * only for text chunks), table, string, math (random reseeded from the
 * scenario seed; randomseed needs an argument), coroutine, utf8, and
 * `require` for the embedded modules "hcpsim" and "hcpsim.tap" only.  No io,
 * os, debug, package or collectgarbage unless the CLI opens io.  Reading an
 * undeclared global or writing one outside the main chunk is an error (a
 * typo would otherwise read nil silently).  A count hook bounds the Lua
 * instructions a scenario may run, so a runaway loop ends with a message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lualib.h>

#include "scenarios/lhcp.h"

#define COUNT_STEP 10000
#define DEFAULT_LUA_LIMIT UINT64_C(5000000000) /* Lua VM instructions per scenario */

typedef struct runtime {
    uint64_t count, limit;
} runtime;

static runtime *rt_of(lua_State *L) { return *(runtime **)lua_getextraspace(L); }

static void count_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    runtime *rt = rt_of(L);
    rt->count += COUNT_STEP;
    if (rt->count > rt->limit)
        luaL_error(L, "Lua instruction limit reached (%I instructions); the scenario runs away",
                   (lua_Integer)rt->limit); /* lua_pushfstring knows %I, not %llu */
}

void lhcp_limit_hook(lua_State *L) { lua_sethook(L, count_hook, LUA_MASKCOUNT, COUNT_STEP); }

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
        if (!s->name) return luaL_error(L, "module '%s' not found (available: hcpsim, hcpsim.tap)", name);
        if (luaL_loadbufferx(L, s->text, s->len, s->chunkname, "t") != LUA_OK) return lua_error(L);
        lua_pushstring(L, name);
        lua_call(L, 1, 1);
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
    return luaL_error(L, "variable '%s' is not declared", k ? k : "?");
}

static void open_lib(lua_State *L, const char *name, lua_CFunction f) {
    luaL_requiref(L, name, f, 1);
    lua_pop(L, 1);
}

int lhcp_open_runtime(lua_State *L, const char *script, uint64_t seed, bool allow_io) {
    (void)script;
    runtime *rt = lua_newuserdatauv(L, sizeof *rt, 0);
    rt->count = 0;
    rt->limit = DEFAULT_LUA_LIMIT;
    lua_setfield(L, LUA_REGISTRYINDEX, "hcpsim.runtime");
    *(runtime **)lua_getextraspace(L) = rt;
    lhcp_limit_hook(L);

    open_lib(L, LUA_GNAME, luaopen_base);
    open_lib(L, LUA_TABLIBNAME, luaopen_table);
    open_lib(L, LUA_STRLIBNAME, luaopen_string);
    open_lib(L, LUA_MATHLIBNAME, luaopen_math);
    open_lib(L, LUA_COLIBNAME, luaopen_coroutine);
    open_lib(L, LUA_UTF8LIBNAME, luaopen_utf8);
    if (allow_io) open_lib(L, LUA_IOLIBNAME, luaopen_io);

    static const char *const removed[] = {"dofile", "loadfile", "collectgarbage", NULL};
    for (int i = 0; removed[i]; i++) {
        lua_pushnil(L);
        lua_setglobal(L, removed[i]);
    }
    lua_pushcfunction(L, l_load);
    lua_setglobal(L, "load");
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

void lhcp_strict_globals(lua_State *L) {
    lua_pushglobaltable(L);
    lua_newtable(L);
    lua_pushcfunction(L, strict_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_pushcfunction(L, strict_index);
    lua_setfield(L, -2, "__index");
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
