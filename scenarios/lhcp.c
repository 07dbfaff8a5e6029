/* scenarios/lhcp.c — the `hcpsim` Lua module: constants with their Windows
 * names and values, hcp.machine{...}, and the argument helpers every method
 * uses.  The module table is strict: reading a name it does not have is an
 * error, so a misspelt constant never silently reads nil. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenarios/lhcp.h"

#include "scenarios/version.h"

typedef struct {
    const char *name;
    lua_Integer value;
} constant;

#define C(x)                                                                                                           \
    { #x, (lua_Integer)(x) }
static const constant constants[] = {
    /* Win32 errors */
    C(ERROR_SUCCESS),
    C(ERROR_INVALID_FUNCTION),
    C(ERROR_ACCESS_DENIED),
    C(ERROR_INVALID_HANDLE),
    C(ERROR_NOT_ENOUGH_MEMORY),
    C(ERROR_BAD_LENGTH),
    C(ERROR_NOT_SUPPORTED),
    C(ERROR_INVALID_PARAMETER),
    C(ERROR_CALL_NOT_IMPLEMENTED),
    C(ERROR_INSUFFICIENT_BUFFER),
    C(ERROR_MR_MID_NOT_FOUND),
    C(ERROR_NOACCESS),
    C(ERROR_INVALID_USER_BUFFER),
    C(ERROR_WMI_ALREADY_DISABLED),
    C(ERROR_WMI_ALREADY_ENABLED),
    /* NTSTATUS */
    C(STATUS_SUCCESS),
    C(STATUS_DATATYPE_MISALIGNMENT),
    C(STATUS_NOT_IMPLEMENTED),
    C(STATUS_INFO_LENGTH_MISMATCH),
    C(STATUS_ACCESS_VIOLATION),
    C(STATUS_INVALID_HANDLE),
    C(STATUS_INVALID_PARAMETER),
    C(STATUS_NO_MEMORY),
    C(STATUS_ACCESS_DENIED),
    C(STATUS_BUFFER_TOO_SMALL),
    C(STATUS_OBJECT_TYPE_MISMATCH),
    C(STATUS_NOT_SUPPORTED),
    C(STATUS_INVALID_PARAMETER_1),
    C(STATUS_INVALID_PARAMETER_2),
    C(STATUS_INVALID_PARAMETER_3),
    C(STATUS_INVALID_BUFFER_SIZE),
    C(STATUS_WMI_ALREADY_DISABLED),
    C(STATUS_WMI_ALREADY_ENABLED),
    C(STATUS_ILLEGAL_INSTRUCTION),
    C(STATUS_PRIVILEGED_INSTRUCTION),
    C(STATUS_STACK_OVERFLOW),
    C(STATUS_INTEGER_DIVIDE_BY_ZERO),
    C(STATUS_BREAKPOINT),
    /* HCP */
    C(MAX_HW_COUNTERS),
    C(THREAD_PROFILING_FLAG_DISPATCH),
    C(PERFORMANCE_DATA_VERSION),
    C(READ_THREAD_PROFILING_FLAG_DISPATCHING),
    C(READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS),
    C(PMCCounter),
    C(MaxHardwareCounterType),
    /* thread access rights */
    C(THREAD_TERMINATE),
    C(THREAD_SUSPEND_RESUME),
    C(THREAD_GET_CONTEXT),
    C(THREAD_SET_CONTEXT),
    C(THREAD_SET_INFORMATION),
    C(THREAD_QUERY_INFORMATION),
    C(THREAD_SET_THREAD_TOKEN),
    C(THREAD_IMPERSONATE),
    C(THREAD_DIRECT_IMPERSONATION),
    C(THREAD_SET_LIMITED_INFORMATION),
    C(THREAD_QUERY_LIMITED_INFORMATION),
    C(THREAD_ALL_ACCESS),
    C(SYNCHRONIZE),
    C(EVENT_MODIFY_STATE),
    C(EVENT_ALL_ACCESS),
    C(MUTEX_ALL_ACCESS),
    C(SEMAPHORE_MODIFY_STATE),
    C(SEMAPHORE_ALL_ACCESS),
    C(INFINITE),
    C(WAIT_OBJECT_0),
    C(WAIT_ABANDONED_0),
    C(WAIT_TIMEOUT),
    C(WAIT_FAILED),
    C(MAXIMUM_WAIT_OBJECTS),
    C(STILL_ACTIVE),
    C(ERROR_NOT_OWNER),
    C(ERROR_TOO_MANY_POSTS),
    C(MAXIMUM_ALLOWED),
    /* ETW (HCP-SPEC §7) */
    C(EVENT_TRACE_FLAG_PROCESS),
    C(EVENT_TRACE_FLAG_THREAD),
    C(EVENT_TRACE_FLAG_CSWITCH),
    C(EVENT_TRACE_FLAG_DISPATCHER),
    C(EVENT_TRACE_TYPE_INFO),
    C(EVENT_TRACE_TYPE_START),
    C(EVENT_TRACE_TYPE_END),
    C(EVENT_TRACE_TYPE_DC_START),
    C(EVENT_TRACE_TYPE_DC_END),
    C(EVENT_TRACE_TYPE_CSWITCH),
    C(EVENT_TRACE_TYPE_READYTHREAD),
    C(ERROR_ALREADY_EXISTS),
    C(ERROR_NO_SYSTEM_RESOURCES),
    C(ERROR_WMI_INSTANCE_NOT_FOUND),
};
#undef C

/* ---- argument helpers -------------------------------------------------------------------- */

lua_Integer lhcp_check_integer(lua_State *L, int arg) {
    int isint = 0;
    lua_Integer v = lua_type(L, arg) == LUA_TNUMBER ? lua_tointegerx(L, arg, &isint) : 0;
    if (!isint) {
        if (lua_type(L, arg) == LUA_TNUMBER) luaL_argerror(L, arg, "number has no integer representation");
        luaL_typeerror(L, arg, "integer");
    }
    return v;
}

uint32_t lhcp_check_dword(lua_State *L, int arg) {
    lua_Integer v = lhcp_check_integer(L, arg);
    if (v < -(lua_Integer)0x80000000 || v > (lua_Integer)0xFFFFFFFF)
        luaL_argerror(L, arg, lua_pushfstring(L, "DWORD out of range (got %I)", v));
    return (uint32_t)v;
}

uint64_t lhcp_check_u64(lua_State *L, int arg) { return (uint64_t)lhcp_check_integer(L, arg); }

/* An m:trace on_event callback runs while the simulator is mid-step: it may
 * read its event, never use the machine or its threads. */
static void check_not_in_sink(lua_State *L, const lmachine *lm) {
    if (lm->os && hcp_etw_in_sink(lm->os))
        luaL_error(L, "m:trace: on_event may only read its event (ev): machine and thread objects cannot be used from "
                      "it (collect the events and check them after m:run or s:stop())");
}

lmachine *lhcp_check_machine(lua_State *L, int arg) {
    lmachine *lm = luaL_checkudata(L, arg, LHCP_MACHINE);
    if (!lm->m) luaL_argerror(L, arg, "machine is closed");
    check_not_in_sink(L, lm);
    return lm;
}

lthread *lhcp_check_thread(lua_State *L, int arg) {
    lthread *lt = luaL_checkudata(L, arg, LHCP_THREAD);
    /* A finalizer run by lua_close may still hold a Thread whose machine is freed. */
    if (!lt->lm->m) luaL_argerror(L, arg, "the thread's machine is closed");
    check_not_in_sink(L, lt->lm);
    return lt;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* Rejects keys of table `arg` not in `valid` (NULL-terminated); the first
 * unknown key in sorted order is named, so the message is deterministic. */
void lhcp_check_keys(lua_State *L, int arg, const char *what, const char *const *valid) {
    arg = lua_absindex(L, arg);
    const char *bad[64];
    int nbad = 0;
    lua_pushnil(L);
    while (lua_next(L, arg)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING) {
            luaL_error(L, "%s: keys must be names (got a %s key)", what, luaL_typename(L, -1));
        }
        const char *k = lua_tostring(L, -1);
        bool ok = false;
        for (int i = 0; valid[i]; i++)
            if (strcmp(valid[i], k) == 0) ok = true;
        if (!ok && nbad < 64) bad[nbad++] = k;
    }
    if (!nbad) return;
    qsort(bad, (size_t)nbad, sizeof bad[0], cmp_str);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = 0; valid[i]; i++) {
        if (i) luaL_addstring(&b, ", ");
        luaL_addstring(&b, valid[i]);
    }
    luaL_pushresult(&b);
    int nvalid = 0;
    while (valid[nvalid]) nvalid++;
    const char *near = hcp_suggest(bad[0], valid, nvalid);
    luaL_error(L, "%s: unknown field '%s'%s%s%s (valid: %s)", what, bad[0], near ? " (did you mean '" : "",
               near ? near : "", near ? "'?)" : "", lua_tostring(L, -1));
}

const char *lhcp_sim_strerror(lua_State *L, sim_machine *m, sim_err e) {
    if (!m || (e != SIM_ERR_MAPPINGS && e != SIM_ERR_TRAPS)) return sim_machine_strerror(m, e);
    hcp_system_opts def;
    hcp_system_opts_init(&def, NULL);
    const sim_config *c = sim_machine_config(m);
    const char *msg;
    if (e == SIM_ERR_TRAPS)
        msg = lua_pushfstring(
            L,
            "limit reached: %d trap points in guest code (machine option max_trap_points, at most %d; "
            "default %d: each costs host time on every guest call; data belongs in m:alloc, not m:code)",
            (int)c->max_trap_points, (int)hcp_option_find("max_trap_points")->hi, (int)def.sim.max_trap_points);
    else
        msg =
            lua_pushfstring(L,
                            "limit reached: %d guest memory mappings (machine option max_mappings, at most %d: "
                            "Unicorn 2.0.1's limit; default %d; fewer m:code/m:alloc calls, or fewer threads inside "
                            "guest calls at once)",
                            (int)c->max_mappings, (int)hcp_option_find("max_mappings")->hi, (int)def.sim.max_mappings);
    lhcp_set_end(L, LHCP_END_LIMIT, e == SIM_ERR_TRAPS ? "max_trap_points" : "max_mappings", msg);
    return msg;
}

_Noreturn void lhcp_no_member(lua_State *L, const char *type, const char *k, int names) {
    names = lua_absindex(L, names);
    const char *list[256];
    int n = 0;
    lua_pushnil(L);
    while (n < 256 && lua_next(L, names)) { /* the suggestion does not depend on the order of this scan */
        lua_pop(L, 1);
        if (lua_type(L, -1) == LUA_TSTRING) list[n++] = lua_tostring(L, -1); /* alive as keys of names */
    }
    const char *near = k ? hcp_suggest(k, list, n) : NULL;
    if (near)
        luaL_error(L, "%s has no member '%s' (did you mean '%s'?)", type, k, near);
    else
        luaL_error(L, "%s has no member '%s'", type, k ? k : "?");
    abort(); /* not reached: luaL_error does not return */
}

/* ---- module functions ---------------------------------------------------------------------- */

static int l_status_name(lua_State *L) {
    const char *n = hcp_status_name((uint32_t)luaL_checkinteger(L, 1));
    if (n)
        lua_pushstring(L, n);
    else
        lua_pushnil(L);
    return 1;
}

static int l_error_name(lua_State *L) {
    const char *n = hcp_error_name((uint32_t)luaL_checkinteger(L, 1));
    if (n)
        lua_pushstring(L, n);
    else
        lua_pushnil(L);
    return 1;
}

static int l_wait_reason_name(lua_State *L) {
    lua_Integer r = luaL_checkinteger(L, 1);
    const char *n = r >= 0 && r < SIM_WAIT_REASONS ? sim_wait_reason_name((int)r) : NULL;
    if (n)
        lua_pushstring(L, n);
    else
        lua_pushnil(L);
    return 1;
}

/* hcp.hex(v [, width]): "0x..." of a 64-bit value as unsigned. */
static int l_hex(lua_State *L) {
    uint64_t v = (uint64_t)luaL_checkinteger(L, 1);
    int w = (int)luaL_optinteger(L, 2, 0);
    if (w < 0 || w > 16) luaL_argerror(L, 2, "width must be 0..16");
    char buf[32];
    snprintf(buf, sizeof buf, "0x%0*llX", w, (unsigned long long)v);
    lua_pushstring(L, buf);
    return 1;
}

static int strict_module_index(lua_State *L) {
    lhcp_no_member(L, "hcpsim", lua_tostring(L, 2), 1);
    return 0;
}

int luaopen_hcpsim(lua_State *L) {
    lhcp_machine_register(L);
    lhcp_thread_register(L);
    lhcp_process_register(L);
    lua_newtable(L);
    for (size_t i = 0; i < sizeof constants / sizeof constants[0]; i++) {
        lua_pushinteger(L, constants[i].value);
        lua_setfield(L, -2, constants[i].name);
    }
    for (int i = 0; i < SIM_WAIT_REASONS; i++) {
        lua_pushinteger(L, (lua_Integer)i);
        lua_setfield(L, -2, sim_wait_reason_name(i));
    }
    for (int i = 0; i < SIM_THREAD_STATES; i++) { /* KTHREAD_STATE */
        lua_pushinteger(L, (lua_Integer)i);
        lua_setfield(L, -2, sim_thread_state_name(i));
    }
    static const luaL_Reg fns[] = {
        {"machine", lhcp_machine_new},
        {"status_name", l_status_name},
        {"error_name", l_error_name},
        {"wait_reason_name", l_wait_reason_name},
        {"hex", l_hex},
        {"on_warning", lhcp_on_warning},
        {"check", lhcp_check},
        {NULL, NULL},
    };
    luaL_setfuncs(L, fns, 0);
    lua_pushstring(L, HCPSIM_RELEASE);
    lua_setfield(L, -2, "version");
    /* ETW names (HCP-SPEC §7.1) */
    lua_pushstring(L, "{3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c}");
    lua_setfield(L, -2, "ThreadGuid");
    lua_pushstring(L, "{9e814aad-3204-11d2-9a82-006008a86939}");
    lua_setfield(L, -2, "SystemTraceControlGuid");
    lua_pushstring(L, "NT Kernel Logger");
    lua_setfield(L, -2, "KERNEL_LOGGER_NAME");
    lua_newtable(L);
    lua_pushcfunction(L, strict_module_index);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
    return 1;
}
