/* scenarios/lorder.c — what a scenario prints does not depend on the host.
 *
 * Stock Lua 5.4 leaks two host facts into output.  Its string hash is seeded
 * per process from the time and from addresses, so `pairs` and `next` visit a
 * table's hash keys in an order that changes from run to run; and `tostring`
 * of a table, function or coroutine (also through `print` and
 * `string.format("%s")`, and `string.format("%p")` of anything) shows a host
 * address.  The runtime replaces those functions:
 *
 * - Key order: integers and floats by value, then strings byte by byte
 *   (shorter first on a common prefix), then false, then true, then every
 *   other key (tables, functions, coroutines, userdata) by its object number
 *   (below).  `pairs` takes a sorted snapshot of the keys and visits those
 *   still present; `next(t, k)` returns the least key after k, whether or not
 *   k is still in t.  A table's `__pairs` is honoured.
 * - Object numbers: an object without `__tostring` is named "table: #N",
 *   "function: #N", "thread: #N", N counting from 1 in the order objects are
 *   first named or first met as keys.  When several objects first meet as
 *   keys of one traversal, they are numbered in the order they were made
 *   (the allocator's births, runtime.c).  The runtime's own C functions are
 *   values no allocation makes: before such a function is numbered as a key,
 *   every function reachable from the globals and the registry by string keys
 *   is numbered in the order of that walk.
 * - `string.format("%p")` is refused: it prints an address of every type.
 *
 * The key scan costs as many Lua instructions as the table has keys, so the
 * instruction limit bounds traversals too. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "scenarios/lhcp.h"

#define IDS_KEY "hcpsim.object_ids" /* weak-keyed: object -> number; [0] = the last number given */

/* The number of the object at idx, given now when it has none. */
static lua_Integer object_number(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    lua_getfield(L, LUA_REGISTRYINDEX, IDS_KEY);
    lua_pushvalue(L, idx);
    lua_Integer n;
    if (lua_rawget(L, -2) == LUA_TNUMBER) {
        n = lua_tointeger(L, -1);
    } else {
        lua_rawgeti(L, -2, 0);
        n = lua_tointeger(L, -1) + 1;
        lua_pop(L, 1);
        lua_pushinteger(L, n);
        lua_rawseti(L, -3, 0);
        lua_pushvalue(L, idx);
        lua_pushinteger(L, n);
        lua_rawset(L, -4);
    }
    lua_pop(L, 2);
    return n;
}

static bool is_object(int type) {
    return type == LUA_TTABLE || type == LUA_TFUNCTION || type == LUA_TTHREAD || type == LUA_TUSERDATA ||
           type == LUA_TLIGHTUSERDATA;
}

/* Pushes the text of the value at idx, as tostring does, with an object number for an address. */
static const char *value_text(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    if (!is_object(lua_type(L, idx))) return luaL_tolstring(L, idx, NULL);
    if (luaL_getmetafield(L, idx, "__tostring") != LUA_TNIL) {
        lua_pop(L, 1);
        return luaL_tolstring(L, idx, NULL);
    }
    lua_Integer n = object_number(L, idx);
    int name = luaL_getmetafield(L, idx, "__name"); /* pushed unless nil */
    const char *s = lua_pushfstring(L, "%s: #%I", name == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, idx), n);
    if (name != LUA_TNIL) lua_remove(L, -2);
    return s;
}

static int l_tostring(lua_State *L) {
    luaL_checkany(L, 1);
    value_text(L, 1);
    return 1;
}

static int l_print(lua_State *L) {
    int n = lua_gettop(L);
    for (int i = 1; i <= n; i++) {
        size_t len;
        value_text(L, i);
        const char *s = lua_tolstring(L, -1, &len);
        if (i > 1) lua_writestring("\t", 1);
        lua_writestring(s, len);
        lua_pop(L, 1);
    }
    lua_writeline();
    return 0;
}

/* string.format with "%s" of an object by its number and "%p" refused; upvalue 1 is the original.
 * Specifications are read as Lua reads them: '%', flags, width, precision, a letter. */
static int l_format(lua_State *L) {
    size_t len;
    const char *f = luaL_checklstring(L, 1, &len);
    int top = lua_gettop(L), arg = 1;
    for (size_t i = 0; i < len; i++) {
        if (f[i] != '%') continue;
        if (++i < len && f[i] == '%') continue;
        while (i < len && strchr("-+ #0123456789.", f[i])) i++;
        if (i >= len) break; /* the original names the bad format */
        arg++;
        if (f[i] == 'p') return luaL_argerror(L, arg, "'%p' prints a host address, which differs from run to run");
        if (f[i] == 's' && arg <= top && is_object(lua_type(L, arg))) {
            value_text(L, arg);
            lua_replace(L, arg);
        }
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, top, 1);
    return 1;
}

/* ---- key order ----------------------------------------------------------------------------- */

typedef struct key {
    int rank; /* 0 number, 1 string, 2 boolean, 3 object */
    bool isint;
    lua_Integer i; /* integer, boolean, object number */
    double d;
    const char *s;
    size_t len;
} key;

/* The key at idx; an object gets its number. */
static key key_at(lua_State *L, int idx) {
    key k = {0};
    switch (lua_type(L, idx)) {
    case LUA_TNUMBER:
        k.isint = lua_isinteger(L, idx);
        if (k.isint)
            k.i = lua_tointeger(L, idx);
        else
            k.d = lua_tonumber(L, idx);
        break;
    case LUA_TSTRING:
        k.rank = 1;
        k.s = lua_tolstring(L, idx, &k.len);
        break;
    case LUA_TBOOLEAN:
        k.rank = 2;
        k.i = lua_toboolean(L, idx);
        break;
    default:
        k.rank = 3;
        k.i = object_number(L, idx);
        break;
    }
    return k;
}

/* An integer against a float that is not integral (Lua stores integral float keys as integers). */
static int cmp_int_float(lua_Integer i, double d) {
    if (d < -9.2e18) return 1;
    if (d > 9.2e18) return -1;
    return (lua_Integer)floor(d) >= i ? -1 : 1;
}

static int cmp_key(const key *a, const key *b) {
    if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
    switch (a->rank) {
    case 0:
        if (a->isint && b->isint) return a->i < b->i ? -1 : a->i > b->i;
        if (a->isint) return cmp_int_float(a->i, b->d);
        if (b->isint) return -cmp_int_float(b->i, a->d);
        return a->d < b->d ? -1 : a->d > b->d;
    case 1: {
        int c = memcmp(a->s, b->s, a->len < b->len ? a->len : b->len);
        if (c) return c < 0 ? -1 : 1;
        return a->len < b->len ? -1 : a->len > b->len;
    }
    default: return a->i < b->i ? -1 : a->i > b->i;
    }
}

typedef struct entry {
    key k;
    int slot; /* index of the key in the snapshot table */
} entry;

static int cmp_entry(const void *a, const void *b) { return cmp_key(&((const entry *)a)->k, &((const entry *)b)->k); }

/* ---- numbering objects that first meet as keys ---------------------------------------------- */

static bool has_number(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    lua_getfield(L, LUA_REGISTRYINDEX, IDS_KEY);
    lua_pushvalue(L, idx);
    bool has = lua_rawget(L, -2) != LUA_TNIL;
    lua_pop(L, 2);
    return has;
}

/* Every function reachable from the globals and the registry through string
 * keys (and metatables), breadth first, keys sorted, gets its number: the
 * runtime's C functions have no birth, but each has a fixed place there. */
static void number_reachable_functions(lua_State *L) {
    int top = lua_gettop(L);
    lua_newtable(L); /* seen: table -> true */
    int seen = lua_gettop(L);
    lua_newtable(L); /* queue */
    int queue = lua_gettop(L), head = 0, tail = 0;
    lua_pushglobaltable(L);
    lua_rawseti(L, queue, ++tail);
    lua_pushvalue(L, LUA_REGISTRYINDEX);
    lua_rawseti(L, queue, ++tail);
    while (head < tail && tail < 100000) {
        lua_rawgeti(L, queue, ++head);
        int tbl = lua_gettop(L);
        lua_pushvalue(L, tbl);
        if (lua_rawget(L, seen) != LUA_TNIL) {
            lua_settop(L, tbl - 1);
            continue;
        }
        lua_pop(L, 1);
        lua_pushvalue(L, tbl);
        lua_pushboolean(L, 1);
        lua_rawset(L, seen);
        if (lua_getmetatable(L, tbl)) lua_rawseti(L, queue, ++tail);
        lua_newtable(L); /* the string keys of tbl, as keys */
        int names = lua_gettop(L);
        lua_pushnil(L);
        while (lua_next(L, tbl)) {
            lua_pop(L, 1);
            if (lua_type(L, -1) == LUA_TSTRING) {
                lua_pushvalue(L, -1);
                lua_pushboolean(L, 1);
                lua_rawset(L, names);
            }
        }
        lhcp_push_sorted_keys(L, names); /* strings only: numbers no object */
        int sorted = lua_gettop(L), n = (int)lua_rawlen(L, sorted);
        for (int i = 1; i <= n; i++) {
            lua_rawgeti(L, sorted, i);
            lua_rawget(L, tbl);
            int type = lua_type(L, -1);
            if (type == LUA_TFUNCTION) {
                if (!has_number(L, -1)) object_number(L, -1);
            } else if (type == LUA_TTABLE) {
                lua_pushvalue(L, -1);
                lua_rawseti(L, queue, ++tail);
            }
            lua_pop(L, 1);
        }
        lua_settop(L, tbl - 1);
    }
    lua_settop(L, top);
}

typedef struct newkey {
    uint64_t birth;  /* 0: none (numbered by the walk, or else ordered by place) */
    uintptr_t place; /* for one with neither: its address */
    int slot;
} newkey;

/* Born objects in birth order, then the rest by address: a C function no walk
 * reaches (the iterators ipairs and utf8.codes return) lies in the Lua
 * library, whose functions keep their relative places in every process. */
static int cmp_newkey(const void *a, const void *b) {
    const newkey *x = a, *y = b;
    if (x->birth != y->birth) {
        if (!x->birth) return 1;
        if (!y->birth) return -1;
        return x->birth < y->birth ? -1 : 1;
    }
    return x->place < y->place ? -1 : x->place > y->place;
}

/* Numbers the object keys of the table at t that have none, in the order they were made. */
static void number_new_keys(lua_State *L, int t) {
    t = lua_absindex(L, t);
    int top = lua_gettop(L);
    lua_newtable(L);
    int fresh = lua_gettop(L), n = 0;
    bool unborn = false;
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pop(L, 1);
        if (is_object(lua_type(L, -1)) && !has_number(L, -1)) {
            lua_pushvalue(L, -1);
            lua_rawseti(L, fresh, ++n);
            unborn = unborn || !lhcp_birth(L, -1);
        }
    }
    if (n == 0) {
        lua_settop(L, top);
        return;
    }
    if (unborn) number_reachable_functions(L);
    if ((size_t)n > INT32_MAX / sizeof(newkey)) luaL_error(L, "pairs: a table of %d keys is too large", n);
    newkey *k = lua_newuserdatauv(L, (size_t)n * sizeof *k, 0);
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, fresh, i + 1);
        k[i] = (newkey){lhcp_birth(L, -1), (uintptr_t)lua_topointer(L, -1), i + 1};
        lua_pop(L, 1);
    }
    qsort(k, (size_t)n, sizeof *k, cmp_newkey);
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, fresh, k[i].slot);
        if (!has_number(L, -1)) object_number(L, -1);
        lua_pop(L, 1);
    }
    lua_settop(L, top);
}

/* Pushes a sequence of the keys of the table at t, sorted; charges the scan to the instruction count. */
void lhcp_push_sorted_keys(lua_State *L, int t) {
    t = lua_absindex(L, t);
    number_new_keys(L, t);
    lua_newtable(L); /* raw: the keys as found, which keep the strings alive */
    int raw = lua_gettop(L), n = 0;
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pop(L, 1);
        lua_pushvalue(L, -1);
        lua_rawseti(L, raw, ++n);
    }
    lhcp_charge_instructions(L, (uint64_t)n);
    if ((size_t)n > INT32_MAX / sizeof(entry)) luaL_error(L, "pairs: a table of %d keys is too large", n);
    entry *e = lua_newuserdatauv(L, (size_t)(n ? n : 1) * sizeof *e, 0);
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, raw, i + 1);
        e[i].slot = i + 1;
        e[i].k = key_at(L, -1); /* a string stays alive in raw */
        lua_pop(L, 1);
    }
    qsort(e, (size_t)n, sizeof *e, cmp_entry);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, raw, e[i].slot);
        lua_rawseti(L, -2, i + 1);
    }
    lua_replace(L, raw);
    lua_settop(L, raw);
}

/* The iterator pairs returns: upvalues are the sorted keys and the position. */
static int pairs_step(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer pos = lua_tointeger(L, lua_upvalueindex(2));
    lua_Integer n = (lua_Integer)lua_rawlen(L, lua_upvalueindex(1));
    while (pos < n) {
        lua_rawgeti(L, lua_upvalueindex(1), ++pos);
        lua_pushvalue(L, -1);
        if (lua_rawget(L, 1) != LUA_TNIL) { /* a key cleared during the traversal is passed over */
            lua_pushinteger(L, pos);
            lua_replace(L, lua_upvalueindex(2));
            return 2;
        }
        lua_pop(L, 2);
    }
    lua_pushinteger(L, pos);
    lua_replace(L, lua_upvalueindex(2));
    lua_pushnil(L);
    return 1;
}

static int l_pairs(lua_State *L) {
    luaL_checkany(L, 1);
    if (luaL_getmetafield(L, 1, "__pairs") != LUA_TNIL) {
        lua_pushvalue(L, 1);
        lua_call(L, 1, 3);
        return 3;
    }
    luaL_checktype(L, 1, LUA_TTABLE);
    lhcp_push_sorted_keys(L, 1);
    lua_pushinteger(L, 0);
    lua_pushcclosure(L, pairs_step, 2);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

/* next(t, k): the least key of t after k (the least key for nil), with its value. */
static int l_next(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 2);
    bool first = lua_isnil(L, 2);
    number_new_keys(L, 1);
    key after = {0}, best = {0};
    if (!first) after = key_at(L, 2);
    uint64_t n = 0;
    lua_pushnil(L); /* 3: the best key so far */
    lua_pushnil(L);
    while (lua_next(L, 1)) {
        lua_pop(L, 1);
        n++;
        key k = key_at(L, -1);
        if ((first || cmp_key(&k, &after) > 0) && (lua_isnil(L, 3) || cmp_key(&k, &best) < 0)) {
            best = k;
            lua_pushvalue(L, -1);
            lua_replace(L, 3);
        }
    }
    lhcp_charge_instructions(L, n);
    if (lua_isnil(L, 3)) return 1; /* no key after k: nil */
    lua_pushvalue(L, 3);
    lua_rawget(L, 1);
    return 2;
}

void lhcp_open_order(lua_State *L) {
    lua_newtable(L);
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, IDS_KEY);
    static const luaL_Reg base[] = {
        {"tostring", l_tostring}, {"print", l_print}, {"pairs", l_pairs}, {"next", l_next}, {NULL, NULL}};
    lua_pushglobaltable(L);
    luaL_setfuncs(L, base, 0);
    lua_pop(L, 1);
    lua_getglobal(L, "string");
    lua_getfield(L, -1, "format");
    lua_pushcclosure(L, l_format, 1);
    lua_setfield(L, -2, "format");
    lua_pop(L, 1);
}
