/* scenarios/lthread.c — the Thread object.  Inside a body, `t` acts as the
 * current thread: t:run executes guest code (yielding to m:run when the
 * scheduler preempts it) and the Windows functions marshal their arguments
 * through the thread's scratch page in guest memory, so Lua bodies and guest
 * code reach the same api/ functions through the same bytes. */
#include <stdio.h>
#include <string.h>

#include "api/platform.h"
#include "scenarios/lhcp.h"

#define UV_MACHINE 1
#define UV_CORO 2

/* Scratch page layout (guest memory owned by the thread). */
#define SCR_PD 0x000      /* PERFORMANCE_DATA, 288 bytes */
#define SCR_HANDLE 0x200  /* HANDLE out-parameter */
#define SCR_BOOLEAN 0x240 /* BOOLEAN out-parameter */
#define POISON_HANDLE UINT64_C(0xDEADBEEFDEADBEEF)
#define POISON_BYTE 0xEE

int lhcp_thread_new(lua_State *L, lmachine *lm, int machine_idx, int spec_idx) {
    static const char *const keys[] = {"name", "priority", "affinity", "ideal", "body", NULL};
    machine_idx = lua_absindex(L, machine_idx);
    spec_idx = lua_absindex(L, spec_idx);
    lhcp_check_keys(L, spec_idx, "m:thread", keys);
    if (lua_getfield(L, spec_idx, "body") != LUA_TFUNCTION)
        return luaL_error(L, "m:thread: 'body' must be a function (got %s)", luaL_typename(L, -1));
    lua_pop(L, 1);
    const char *name = "";
    if (lua_getfield(L, spec_idx, "name") != LUA_TNIL) {
        if (!lua_isstring(L, -1)) return luaL_error(L, "m:thread: 'name' must be a string");
        name = lua_tostring(L, -1);
    }
    lua_Integer prio = 8, aff = -1, ideal = -1;
    if (lua_getfield(L, spec_idx, "priority") != LUA_TNIL) {
        int ok;
        prio = lua_tointegerx(L, -1, &ok);
        if (!ok || prio < 0 || prio > 31) return luaL_error(L, "m:thread: 'priority' must be an integer 0..31");
    }
    if (lua_getfield(L, spec_idx, "affinity") != LUA_TNIL) {
        int ok;
        aff = lua_tointegerx(L, -1, &ok);
        if (!ok || aff == 0) return luaL_error(L, "m:thread: 'affinity' must be a non-zero integer mask");
    }
    if (lua_getfield(L, spec_idx, "ideal") != LUA_TNIL) {
        int ok;
        ideal = lua_tointegerx(L, -1, &ok);
        if (!ok || ideal < 0 || ideal >= sim_cpu_count(lm->m))
            return luaL_error(L, "m:thread: 'ideal' must be a CPU number 0..%d", sim_cpu_count(lm->m) - 1);
    }
    if (sim_thread_count(lm->m) >= lm->max_threads)
        return lhcp_end_error(L, LHCP_END_LIMIT, "max_threads",
                              "limit reached: %d threads (machine option max_threads; default %d)", lm->max_threads,
                              HCP_DEFAULT_MAX_THREADS);
    lthread *lt = lua_newuserdatauv(L, sizeof *lt, 2);
    memset(lt, 0, sizeof *lt);
    luaL_setmetatable(L, LHCP_THREAD);
    lt->lm = lm;
    sim_err e = sim_thread_new(lm->m, name, (int)prio, (uint64_t)aff, (int)ideal, &lt->t);
    if (e == SIM_ERR_ARG) return luaL_error(L, "m:thread: 'affinity' names no CPU of this machine");
    if (e != SIM_OK) return luaL_error(L, "m:thread: %s", lhcp_sim_strerror(L, lm->m, e));
    lt->handle = hcp_thread_handle(lm->os, lt->t, THREAD_ALL_ACCESS);
    if (!lt->handle && hcp_handle_error(lm->os) == ERROR_NO_SYSTEM_RESOURCES)
        return luaL_error(L,
                          "m:thread: ERROR_NO_SYSTEM_RESOURCES: the handle table is full (%d handles open; machine "
                          "option max_handles, default %d)",
                          hcp_os_max_handles(lm->os), HCP_DEFAULT_MAX_HANDLES);
    lua_pushvalue(L, machine_idx);
    lua_setiuservalue(L, -2, UV_MACHINE);
    lt->co = lua_newthread(L);
    lhcp_limit_hook(lt->co);
    lua_getfield(L, spec_idx, "body");
    lua_Debug ar;
    lua_pushvalue(L, -1);
    if (lua_getinfo(L, ">S", &ar) && ar.lastlinedefined > 0)
        snprintf(lt->body_end, sizeof lt->body_end, "%s:%d: ", ar.short_src, ar.lastlinedefined);
    lua_xmove(L, lt->co, 1);
    lua_setiuservalue(L, -2, UV_CORO);
    /* register with the machine, then make it Ready */
    lua_getiuservalue(L, machine_idx, 1);
    lua_pushvalue(L, -2);
    lua_rawseti(L, -2, sim_thread_index(lt->t) + 1);
    lua_pop(L, 1);
    return 1; /* the Thread userdata is on top; the thread is Ready */
}

/* The thread object at `arg`, which must be the running thread. */
static lthread *check_current(lua_State *L, int arg, const char *fn) {
    lthread *lt = lhcp_check_thread(L, arg);
    if (!lt->lm->m) luaL_error(L, "%s: the machine is closed", fn);
    if (sim_sched_current(lt->lm->m) != lt->t)
        luaL_error(L, "%s: thread '%s' is not the running thread (call it on the body's own `t` during m:run)", fn,
                   sim_thread_name(lt->t));
    return lt;
}

/* ---- t:run ------------------------------------------------------------------------------------ */

static const char *access_name(int a) { return a == 1 ? "write" : a == 8 ? "execute" : "read"; }

static int push_fault(lua_State *L, lthread *lt) {
    const sim_fault *f = sim_call_fault(lt->t);
    uint32_t code = hcp_fault_status(f->kind);
    const char *name = hcp_status_name(code);
    char bytes[16 * 3 + 1] = "", insn_bytes[16 * 3 + 1] = "", insn[160];
    for (int i = 0, k = 0; i < f->nbytes; i++)
        k += snprintf(bytes + k, sizeof bytes - (size_t)k, i ? " %02X" : "%02X", f->bytes[i]);
    /* the message shows the faulting instruction alone: its bytes and, when they decode, its text */
    int len = sim_fault_insn(lt->lm->m, f, insn, sizeof insn);
    snprintf(insn_bytes, sizeof insn_bytes, "%.*s", len ? 3 * len - 1 : (int)strlen(bytes), bytes);
    lua_pushnil(L);
    lua_pushinteger(L, (lua_Integer)code);
    lua_createtable(L, 0, 9);
    lua_pushinteger(L, (lua_Integer)code);
    lua_setfield(L, -2, "code");
    lua_pushstring(L, name ? name : "STATUS_UNKNOWN");
    lua_setfield(L, -2, "name");
    lua_pushinteger(L, (lua_Integer)f->address);
    lua_setfield(L, -2, "address");
    lua_pushstring(L, bytes);
    lua_setfield(L, -2, "bytes");
    lua_pushstring(L, insn);
    lua_setfield(L, -2, "instruction");
    char where[224];
    if (len)
        snprintf(where, sizeof where, "0x%llX: %s [%s]", (unsigned long long)f->address, insn, insn_bytes);
    else
        snprintf(where, sizeof where, "0x%llX [%s]", (unsigned long long)f->address,
                 insn_bytes[0] ? insn_bytes : "not readable");
    char msg[512];
    if (code == STATUS_ACCESS_VIOLATION || code == STATUS_STACK_OVERFLOW) {
        lua_pushinteger(L, (lua_Integer)f->data);
        lua_setfield(L, -2, "data");
        lua_pushstring(L, access_name(f->access));
        lua_setfield(L, -2, "access");
        snprintf(msg, sizeof msg, "%s (0x%08X) in thread '%s' (id %u): %s of 0x%llX at %s", name ? name : "?", code,
                 sim_thread_name(lt->t), (unsigned)sim_thread_id(lt->t), access_name(f->access),
                 (unsigned long long)f->data, where);
    } else {
        snprintf(msg, sizeof msg, "%s (0x%08X) in thread '%s' (id %u) at %s", name ? name : "?", code,
                 sim_thread_name(lt->t), (unsigned)sim_thread_id(lt->t), where);
    }
    lua_pushstring(L, msg);
    lua_setfield(L, -2, "message");
    lt->fault_code = code; /* a body that raises the code (assert(t:pcall_run(...))) gets this message */
    snprintf(lt->fault_msg, sizeof lt->fault_msg, "%s", msg);
    /* t:run: an exception the body does not handle ends the run, as Windows ends the process */
    if (!lt->catch_fault) {
        /* at the body's line, also when t.run is called through pcall (a C function has no line) */
        lua_Debug ar;
        int level = 1;
        while (lua_getstack(L, level, &ar) && lua_getinfo(L, "Sl", &ar) && ar.currentline <= 0) level++;
        luaL_where(L, level);
        lua_pushstring(L, msg);
        lhcp_set_end(L, LHCP_END_EXCEPTION, NULL, msg);
        lua_concat(L, 2);
        return lua_error(L);
    }
    return 3;
}

static int run_continue(lua_State *L, int status, lua_KContext ctx) {
    (void)status;
    lthread *lt = (lthread *)ctx;
    switch (sim_call_continue(lt->t)) {
    case SIM_CALL_RETURNED: lua_pushinteger(L, (lua_Integer)sim_call_result(lt->t)); return 1;
    case SIM_CALL_YIELD: /* switched out: quantum end, preemption, or a guest import call that blocked */
        lt->yielding = true;
        return lua_yieldk(L, 0, ctx, run_continue);
    case SIM_CALL_FAULTED: return push_fault(L, lt);
    case SIM_CALL_LIMIT:
        luaL_where(L, 1);
        lhcp_cycle_limit(L, lt->lm, sim_thread_cpu(lt->t));
        lua_concat(L, 2);
        return lua_error(L);
    case SIM_CALL_ERROR:
        lhcp_check_interrupt(L, -1); /* the poll stopped the call: a signal */
        return luaL_error(L, "t:run: %s", sim_call_error(lt->t));
    }
    return luaL_error(L, "t:run: unexpected state");
}

/* t:run (catch = false) and t:pcall_run (catch = true): only a guest exception differs. */
static int run_call(lua_State *L, const char *fn, bool catch) {
    lthread *lt = check_current(L, 1, fn);
    lua_getiuservalue(L, 1, UV_CORO);
    bool own = lua_tothread(L, -1) == L;
    lua_pop(L, 1);
    if (!own) return luaL_error(L, "%s must be called from the thread body itself, not from a nested coroutine", fn);
    uint64_t entry = lhcp_check_u64(L, 2);
    sim_arch arch = sim_machine_config(lt->lm->m)->arch;
    char hex[24];
    snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)entry);
    if (sim_arch_ptr_size(arch) == 4 && entry > 0xFFFFFFFFu)
        return luaL_error(L, "%s: entry %s is not a 32-bit address (this machine's guest is %s)", fn, hex,
                          sim_arch_name(arch));
    if (arch == SIM_ARCH_ARM && (entry & 1))
        return luaL_error(L, "%s: entry %s is odd: Thumb code is not supported (ARM state only)", fn, hex);
    int nargs = lua_gettop(L) - 2;
    if (nargs > SIM_MAX_ARGS) return luaL_error(L, "%s: at most %d arguments", fn, SIM_MAX_ARGS);
    uint64_t args[SIM_MAX_ARGS];
    for (int i = 0; i < nargs; i++) args[i] = lhcp_check_u64(L, 3 + i);
    sim_err e = sim_call_begin(lt->t, entry, args, nargs);
    if (e != SIM_OK) return luaL_error(L, "%s: %s", fn, lhcp_sim_strerror(L, lt->lm->m, e));
    lt->catch_fault = catch;
    return run_continue(L, LUA_OK, (lua_KContext)lt);
}

static int t_run(lua_State *L) { return run_call(L, "t:run", false); }
static int t_pcall_run(lua_State *L) { return run_call(L, "t:pcall_run", true); }

/* ---- small thread functions ------------------------------------------------------------------------ */

static int t_GetCurrentThread(lua_State *L) {
    lthread *lt = check_current(L, 1, "GetCurrentThread");
    lua_pushinteger(L, (lua_Integer)hcp_GetCurrentThread(lt->lm->os));
    return 1;
}

static int t_GetCurrentThreadId(lua_State *L) {
    lthread *lt = check_current(L, 1, "GetCurrentThreadId");
    lua_pushinteger(L, (lua_Integer)hcp_GetCurrentThreadId(lt->lm->os));
    return 1;
}

static int t_GetLastError(lua_State *L) {
    lthread *lt = check_current(L, 1, "GetLastError");
    lua_pushinteger(L, (lua_Integer)hcp_GetLastError(lt->lm->os));
    return 1;
}

static int t_SetLastError(lua_State *L) {
    lthread *lt = check_current(L, 1, "SetLastError");
    hcp_SetLastError(lt->lm->os, lhcp_check_dword(L, 2));
    return 0;
}

static int t_OpenThread(lua_State *L) {
    lthread *lt = check_current(L, 1, "OpenThread");
    uint32_t access = lhcp_check_dword(L, 2);
    int inherit = lua_toboolean(L, 3);
    if (lua_isinteger(L, 3)) inherit = lua_tointeger(L, 3) != 0;
    uint32_t tid = lhcp_check_dword(L, 4);
    uint64_t h = hcp_OpenThread(lt->lm->os, access, inherit, tid);
    if (!h) {
        lua_pushnil(L);
        lua_pushinteger(L, (lua_Integer)hcp_GetLastError(lt->lm->os));
        return 2;
    }
    lua_pushinteger(L, (lua_Integer)h);
    return 1;
}

static int t_CloseHandle(lua_State *L) {
    lthread *lt = check_current(L, 1, "CloseHandle");
    int ok = hcp_CloseHandle(lt->lm->os, lhcp_check_u64(L, 2));
    lua_pushboolean(L, ok);
    if (ok) return 1;
    lua_pushinteger(L, (lua_Integer)hcp_GetLastError(lt->lm->os));
    return 2;
}

/* ---- HCP ------------------------------------------------------------------------------------------ */

static int t_EnableThreadProfiling(lua_State *L) {
    lthread *lt = check_current(L, 1, "EnableThreadProfiling");
    uint64_t h = lhcp_check_u64(L, 2);
    uint32_t flags = lhcp_check_dword(L, 3);
    uint64_t mask = lhcp_check_u64(L, 4);
    sim_machine *m = lt->lm->m;
    uint64_t slot = sim_thread_scratch(lt->t) + SCR_HANDLE;
    uint8_t b[8];
    hcp_put64(b, POISON_HANDLE);
    sim_mem_write(m, slot, b, 8);
    uint32_t rc = hcp_EnableThreadProfiling(lt->lm->os, h, flags, mask, slot);
    sim_mem_read(m, slot, b, 8);
    lua_pushinteger(L, (lua_Integer)rc);
    /* a HANDLE is pointer-sized: 4 bytes on a 32-bit platform, over the poison's low half */
    bool narrow = hcp_platform_ptr_size(hcp_os_platform(lt->lm->os)) == 4;
    uint64_t v = narrow ? hcp_get32(b) : hcp_get64(b);
    if (v == (narrow ? (uint32_t)POISON_HANDLE : POISON_HANDLE))
        lua_pushnil(L); /* not written */
    else
        lua_pushinteger(L, (lua_Integer)v);
    return 2;
}

static int t_DisableThreadProfiling(lua_State *L) {
    lthread *lt = check_current(L, 1, "DisableThreadProfiling");
    lua_pushinteger(L, (lua_Integer)hcp_DisableThreadProfiling(lt->lm->os, lhcp_check_u64(L, 2)));
    return 1;
}

static int t_QueryThreadProfiling(lua_State *L) {
    lthread *lt = check_current(L, 1, "QueryThreadProfiling");
    uint64_t h = lhcp_check_u64(L, 2);
    sim_machine *m = lt->lm->m;
    uint64_t slot = sim_thread_scratch(lt->t) + SCR_BOOLEAN;
    uint8_t b = POISON_BYTE;
    sim_mem_write(m, slot, &b, 1);
    uint32_t rc = hcp_QueryThreadProfiling(lt->lm->os, h, slot);
    sim_mem_read(m, slot, &b, 1);
    lua_pushinteger(L, (lua_Integer)rc);
    if (rc == ERROR_SUCCESS)
        lua_pushboolean(L, b != 0);
    else
        lua_pushnil(L);
    return 2;
}

static lua_Integer field_int(lua_State *L, int t, const char *k) {
    int ty = lua_getfield(L, t, k);
    lua_Integer v = 0;
    if (ty != LUA_TNIL) {
        int ok;
        v = lua_tointegerx(L, -1, &ok);
        if (!ok) luaL_error(L, "PERFORMANCE_DATA.%s must be an integer (got %s)", k, luaL_typename(L, -1));
    }
    lua_pop(L, 1);
    return v;
}

/* A Lua table -> PERFORMANCE_DATA bytes (omitted fields are 0). */
static void pd_from_table(lua_State *L, int t, uint8_t *pd) {
    static const char *const keys[] = {
        "Size",      "Version",    "HwCountersCount", "ContextSwitchCount", "WaitReasonBitMap",
        "CycleTime", "RetryCount", "Reserved",        "HwCounters",         NULL};
    lhcp_check_keys(L, t, "PERFORMANCE_DATA", keys);
    memset(pd, 0, HCP_PERFORMANCE_DATA_SIZE);
    hcp_put16(pd + 0, (uint16_t)field_int(L, t, "Size"));
    pd[2] = (uint8_t)field_int(L, t, "Version");
    pd[3] = (uint8_t)field_int(L, t, "HwCountersCount");
    hcp_put32(pd + 4, (uint32_t)field_int(L, t, "ContextSwitchCount"));
    hcp_put64(pd + 8, (uint64_t)field_int(L, t, "WaitReasonBitMap"));
    hcp_put64(pd + 16, (uint64_t)field_int(L, t, "CycleTime"));
    hcp_put32(pd + 24, (uint32_t)field_int(L, t, "RetryCount"));
    hcp_put32(pd + 28, (uint32_t)field_int(L, t, "Reserved"));
    if (lua_getfield(L, t, "HwCounters") == LUA_TTABLE) {
        int hc = lua_gettop(L);
        for (int i = 0; i < MAX_HW_COUNTERS; i++) {
            if (lua_rawgeti(L, hc, i) == LUA_TTABLE) {
                int e = lua_gettop(L);
                uint8_t *p = pd + 32 + 16 * i;
                hcp_put32(p, (uint32_t)field_int(L, e, "Type"));
                hcp_put32(p + 4, (uint32_t)field_int(L, e, "Reserved"));
                hcp_put64(p + 8, (uint64_t)field_int(L, e, "Value"));
            }
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
}

static void set_int(lua_State *L, const char *k, lua_Integer v) {
    lua_pushinteger(L, v);
    lua_setfield(L, -2, k);
}

static void pd_to_table(lua_State *L, const uint8_t *pd) {
    lua_createtable(L, 0, 9);
    set_int(L, "Size", hcp_get16(pd));
    set_int(L, "Version", pd[2]);
    set_int(L, "HwCountersCount", pd[3]);
    set_int(L, "ContextSwitchCount", hcp_get32(pd + 4));
    set_int(L, "WaitReasonBitMap", (lua_Integer)hcp_get64(pd + 8));
    set_int(L, "CycleTime", (lua_Integer)hcp_get64(pd + 16));
    set_int(L, "RetryCount", hcp_get32(pd + 24));
    set_int(L, "Reserved", hcp_get32(pd + 28));
    lua_createtable(L, MAX_HW_COUNTERS - 1, 1);
    for (int i = 0; i < MAX_HW_COUNTERS; i++) {
        const uint8_t *p = pd + 32 + 16 * i;
        lua_createtable(L, 0, 3);
        set_int(L, "Type", hcp_get32(p));
        set_int(L, "Reserved", hcp_get32(p + 4));
        set_int(L, "Value", (lua_Integer)hcp_get64(p + 8));
        lua_rawseti(L, -2, i);
    }
    lua_setfield(L, -2, "HwCounters");
}

static int t_ReadThreadProfilingData(lua_State *L) {
    lthread *lt = check_current(L, 1, "ReadThreadProfilingData");
    uint64_t h = lhcp_check_u64(L, 2);
    uint32_t flags = lhcp_check_dword(L, 3);
    uint8_t pd[HCP_PERFORMANCE_DATA_SIZE];
    if (lua_isnoneornil(L, 4)) {
        memset(pd, 0, sizeof pd);
        hcp_put16(pd, HCP_PERFORMANCE_DATA_SIZE);
        pd[2] = PERFORMANCE_DATA_VERSION;
    } else {
        luaL_checktype(L, 4, LUA_TTABLE);
        pd_from_table(L, 4, pd);
    }
    sim_machine *m = lt->lm->m;
    uint64_t addr = sim_thread_scratch(lt->t) + SCR_PD;
    sim_mem_write(m, addr, pd, sizeof pd);
    uint32_t rc = hcp_ReadThreadProfilingData(lt->lm->os, h, flags, addr);
    sim_mem_read(m, addr, pd, sizeof pd);
    lua_pushinteger(L, (lua_Integer)rc);
    pd_to_table(L, pd);
    return 2;
}

/* ---- waits and synchronisation -------------------------------------------------------------------- */

/* Continuations: after the driver resumes a thread that gave up its CPU. */
static int k_results(lua_State *L, int status, lua_KContext ctx) {
    (void)L, (void)status;
    return (int)ctx; /* the results pushed before the yield are still on the stack */
}

static int k_wait(lua_State *L, int status, lua_KContext ctx) {
    (void)status;
    lthread *lt = (lthread *)ctx;
    lua_pushinteger(L, (lua_Integer)hcp_wait_result(lt->lm->os));
    return 1;
}

/* Returns `nres` results already pushed; first yields to the driver when the
 * call left the thread off its CPU (a higher-priority thread took it). */
static int finish(lua_State *L, lthread *lt, int nres) {
    if (sim_sched_current(lt->lm->m) == lt->t) return nres;
    if (!lua_isyieldable(L)) return luaL_error(L, "a thread switch is needed here, but this call cannot yield");
    lt->yielding = true;
    return lua_yieldk(L, 0, (lua_KContext)nres, k_results);
}

static int wait_result(lua_State *L, lthread *lt, uint32_t r) {
    if (r == HCP_PENDING) {
        if (!lua_isyieldable(L)) return luaL_error(L, "a wait cannot block here (not yieldable)");
        lt->yielding = true;
        return lua_yieldk(L, 0, (lua_KContext)lt, k_wait);
    }
    lua_pushinteger(L, (lua_Integer)r);
    if (r == WAIT_FAILED) {
        lua_pushinteger(L, (lua_Integer)hcp_GetLastError(lt->lm->os));
        return finish(L, lt, 2);
    }
    return finish(L, lt, 1);
}

static uint32_t check_ms(lua_State *L, int arg) {
    if (lua_isnoneornil(L, arg)) return INFINITE;
    return lhcp_check_dword(L, arg);
}

static int t_Sleep(lua_State *L) {
    lthread *lt = check_current(L, 1, "Sleep");
    uint32_t r = hcp_Sleep(lt->lm->os, lhcp_check_dword(L, 2));
    if (r == HCP_PENDING) {
        lt->yielding = true;
        return lua_yieldk(L, 0, 0, k_results);
    }
    return finish(L, lt, 0);
}

static int t_SwitchToThread(lua_State *L) {
    lthread *lt = check_current(L, 1, "SwitchToThread");
    lua_pushboolean(L, hcp_SwitchToThread(lt->lm->os));
    return finish(L, lt, 1);
}

static uint64_t check_handle(lua_State *L, int arg) {
    lthread *other = luaL_testudata(L, arg, LHCP_THREAD);
    if (other) return other->handle; /* a Thread object stands for its handle */
    return lhcp_check_u64(L, arg);
}

static int t_WaitForSingleObject(lua_State *L) {
    lthread *lt = check_current(L, 1, "WaitForSingleObject");
    uint64_t h = check_handle(L, 2);
    return wait_result(L, lt, hcp_WaitForSingleObject(lt->lm->os, h, check_ms(L, 3)));
}

#define SCR_HANDLES 0x400 /* up to 64 handles */

static int t_WaitForMultipleObjects(lua_State *L) {
    lthread *lt = check_current(L, 1, "WaitForMultipleObjects");
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Integer n = (lua_Integer)lua_rawlen(L, 2);
    if (n > MAXIMUM_WAIT_OBJECTS) n = MAXIMUM_WAIT_OBJECTS + 1; /* let the API refuse it */
    uint8_t raw[8 * (MAXIMUM_WAIT_OBJECTS + 1)];
    unsigned hs = hcp_platform_ptr_size(hcp_os_platform(lt->lm->os)); /* a HANDLE array: 4 or 8 bytes each */
    for (lua_Integer i = 1; i <= n && i <= MAXIMUM_WAIT_OBJECTS; i++) {
        lua_rawgeti(L, 2, i);
        int isint = 0;
        if (!luaL_testudata(L, -1, LHCP_THREAD) && lua_type(L, -1) == LUA_TNUMBER) lua_tointegerx(L, -1, &isint);
        if (!isint && !luaL_testudata(L, -1, LHCP_THREAD))
            return luaL_error(L, "bad argument #1 to 'WaitForMultipleObjects' (element %I: handle expected, got %s)", i,
                              luaL_typename(L, -1));
        uint64_t h = check_handle(L, lua_gettop(L));
        if (hs == 4)
            hcp_put32(raw + 4 * (i - 1), (uint32_t)h);
        else
            hcp_put64(raw + 8 * (i - 1), h);
        lua_pop(L, 1);
    }
    int all = lua_toboolean(L, 3);
    uint64_t addr = sim_thread_scratch(lt->t) + SCR_HANDLES;
    size_t len = hs * (size_t)(n < MAXIMUM_WAIT_OBJECTS ? n : MAXIMUM_WAIT_OBJECTS);
    if (len) sim_mem_write(lt->lm->m, addr, raw, len);
    return wait_result(L, lt, hcp_WaitForMultipleObjects(lt->lm->os, (uint32_t)n, addr, all, check_ms(L, 4)));
}

static int bool_result(lua_State *L, lthread *lt, int ok) {
    lua_pushboolean(L, ok);
    if (ok) return finish(L, lt, 1);
    lua_pushinteger(L, (lua_Integer)hcp_GetLastError(lt->lm->os));
    return finish(L, lt, 2);
}

static int t_SetEvent(lua_State *L) {
    lthread *lt = check_current(L, 1, "SetEvent");
    return bool_result(L, lt, hcp_SetEvent(lt->lm->os, lhcp_check_u64(L, 2)));
}

static int t_ResetEvent(lua_State *L) {
    lthread *lt = check_current(L, 1, "ResetEvent");
    return bool_result(L, lt, hcp_ResetEvent(lt->lm->os, lhcp_check_u64(L, 2)));
}

static int t_ReleaseMutex(lua_State *L) {
    lthread *lt = check_current(L, 1, "ReleaseMutex");
    return bool_result(L, lt, hcp_ReleaseMutex(lt->lm->os, lhcp_check_u64(L, 2)));
}

#define SCR_PREV 0x260

static int t_ReleaseSemaphore(lua_State *L) {
    lthread *lt = check_current(L, 1, "ReleaseSemaphore");
    uint64_t h = lhcp_check_u64(L, 2);
    lua_Integer n = lua_isnoneornil(L, 3) ? 1 : lhcp_check_integer(L, 3);
    if (n < INT32_MIN || n > INT32_MAX) return luaL_argerror(L, 3, "lReleaseCount: LONG out of range");
    uint64_t prev = sim_thread_scratch(lt->t) + SCR_PREV;
    int ok = hcp_ReleaseSemaphore(lt->lm->os, h, (int32_t)n, prev);
    if (!ok) return bool_result(L, lt, 0);
    uint8_t b[4];
    sim_mem_read(lt->lm->m, prev, b, 4);
    lua_pushboolean(L, 1);
    lua_pushinteger(L, (lua_Integer)(int32_t)hcp_get32(b));
    return finish(L, lt, 2);
}

/* ---- thread times ------------------------------------------------------------------------------------ */

#define SCR_TIMES 0x280  /* 4 FILETIMEs: creation, exit, kernel, user */
#define SCR_CYCLES 0x2A0 /* ULONG64 */
#define POISON_QWORD UINT64_C(0xEEEEEEEEEEEEEEEE)

/* An output pointer: the scratch slot (poisoned first) when the option is
 * absent, NULL for `false`, else the guest address given. */
static uint64_t out_pointer(lua_State *L, int opts, const char *k, uint64_t slot, sim_machine *m) {
    int ty = opts ? lua_getfield(L, opts, k) : LUA_TNIL;
    uint64_t p = slot;
    if (ty == LUA_TBOOLEAN && !lua_toboolean(L, -1))
        p = 0;
    else if (ty != LUA_TNIL)
        p = lhcp_check_u64(L, lua_gettop(L));
    if (opts) lua_pop(L, 1);
    if (p == slot) {
        uint8_t b[8];
        hcp_put64(b, POISON_QWORD);
        sim_mem_write(m, slot, b, 8);
    }
    return p;
}

/* Pushes the 64-bit value at guest address p, or nil when p is NULL or unreadable. */
static void push_qword(lua_State *L, sim_machine *m, uint64_t p) {
    uint8_t b[8];
    if (p && sim_mem_read(m, p, b, 8) == SIM_OK)
        lua_pushinteger(L, (lua_Integer)hcp_get64(b));
    else
        lua_pushnil(L);
}

/* t:GetThreadTimes(h [, {creation=, exit=, kernel=, user=}]) --> true, creation, exit, kernel, user | false, err
 * Each option is false (pass NULL) or a guest address to pass instead of the scratch slot. */
static int t_GetThreadTimes(lua_State *L) {
    lthread *lt = check_current(L, 1, "GetThreadTimes");
    uint64_t h = check_handle(L, 2);
    int opts = 0;
    if (!lua_isnoneornil(L, 3)) {
        static const char *const keys[] = {"creation", "exit", "kernel", "user", NULL};
        luaL_checktype(L, 3, LUA_TTABLE);
        lhcp_check_keys(L, 3, "GetThreadTimes", keys);
        opts = 3;
    }
    sim_machine *m = lt->lm->m;
    uint64_t base = sim_thread_scratch(lt->t) + SCR_TIMES;
    static const char *const names[4] = {"creation", "exit", "kernel", "user"};
    uint64_t p[4];
    for (int i = 0; i < 4; i++) p[i] = out_pointer(L, opts, names[i], base + 8u * (uint64_t)i, m);
    if (!hcp_GetThreadTimes(lt->lm->os, h, p[0], p[1], p[2], p[3])) return bool_result(L, lt, 0);
    lua_pushboolean(L, 1);
    for (int i = 0; i < 4; i++) push_qword(L, m, p[i]);
    return 5;
}

/* t:QueryThreadCycleTime(h [, ptr]) --> true, cycles | false, err; ptr: false (NULL) or a guest address. */
static int t_QueryThreadCycleTime(lua_State *L) {
    lthread *lt = check_current(L, 1, "QueryThreadCycleTime");
    uint64_t h = check_handle(L, 2);
    sim_machine *m = lt->lm->m;
    uint64_t slot = sim_thread_scratch(lt->t) + SCR_CYCLES, p = slot;
    if (lua_isboolean(L, 3) && !lua_toboolean(L, 3))
        p = 0;
    else if (!lua_isnoneornil(L, 3))
        p = lhcp_check_u64(L, 3);
    if (p == slot) {
        uint8_t b[8];
        hcp_put64(b, POISON_QWORD);
        sim_mem_write(m, slot, b, 8);
    }
    if (!hcp_QueryThreadCycleTime(lt->lm->os, h, p)) return bool_result(L, lt, 0);
    lua_pushboolean(L, 1);
    push_qword(L, m, p);
    return 2;
}

/* t:exit(code): the thread ends here (ExitThread). */
static int t_exit(lua_State *L) {
    lthread *lt = check_current(L, 1, "exit");
    lt->exit_code = lua_isnoneornil(L, 2) ? 0 : lhcp_check_dword(L, 2);
    lt->exiting = true;
    lt->yielding = true;
    return lua_yield(L, 0);
}

/* ---- fields and introspection ----------------------------------------------------------------------- */

static int t_counters(lua_State *L) {
    lthread *lt = lhcp_check_thread(L, 1);
    const pmu_bank *b = sim_thread_bank(lt->t);
    lua_createtable(L, 0, PMU_EV__COUNT);
    for (int e = 0; e < PMU_EV__COUNT; e++) {
        lua_pushinteger(L, (lua_Integer)b->ev[e]);
        lua_setfield(L, -2, pmu_event_name((pmu_event)e));
    }
    return 1;
}

/* t:inject_kernel_updates(n): the next read of t's profiling data meets n
 * concurrent kernel updates (RetryCount = n; edge case 31, simulator-defined). */
static int t_inject_kernel_updates(lua_State *L) {
    lthread *lt = lhcp_check_thread(L, 1);
    uint32_t n = lhcp_check_dword(L, 2);
    if (hcp_inject_kernel_updates(lt->lm->os, lt->t, n) != ERROR_SUCCESS)
        return luaL_error(L,
                          "t:inject_kernel_updates: thread %d is not profiling (call it after EnableThreadProfiling)",
                          (int)sim_thread_id(lt->t));
    return 0;
}

static int t_index(lua_State *L) {
    lthread *lt = lhcp_check_thread(L, 1);
    const char *k = luaL_checkstring(L, 2);
    if (strcmp(k, "id") == 0)
        lua_pushinteger(L, (lua_Integer)sim_thread_id(lt->t));
    else if (strcmp(k, "handle") == 0)
        lua_pushinteger(L, (lua_Integer)lt->handle);
    else if (strcmp(k, "name") == 0)
        lua_pushstring(L, sim_thread_name(lt->t));
    else if (strcmp(k, "state") == 0)
        lua_pushstring(L, sim_thread_state_name((int)sim_thread_state_of(lt->t)));
    else if (strcmp(k, "switches") == 0)
        lua_pushinteger(L, (lua_Integer)sim_thread_switches(lt->t));
    else if (strcmp(k, "priority") == 0)
        lua_pushinteger(L, sim_thread_priority(lt->t));
    else if (strcmp(k, "cpu") == 0)
        lua_pushinteger(L, sim_thread_cpu(lt->t));
    else if (strcmp(k, "ideal") == 0)
        lua_pushinteger(L, sim_thread_ideal(lt->t));
    else if (strcmp(k, "affinity") == 0)
        lua_pushinteger(L, (lua_Integer)sim_thread_affinity(lt->t));
    else if (strcmp(k, "exit_code") == 0)
        lua_pushinteger(L, (lua_Integer)sim_thread_exit_code(lt->t));
    else if (strcmp(k, "wait_reason") == 0)
        lua_pushinteger(L, sim_thread_wait_reason(lt->t));
    else {
        luaL_getmetatable(L, LHCP_THREAD);
        lua_getfield(L, -1, "methods");
        if (lua_getfield(L, -1, k) == LUA_TNIL) {
            lua_pop(L, 1);
            lhcp_no_member(L, "hcpsim.Thread", k, -1);
        }
    }
    return 1;
}

static int t_tostring(lua_State *L) {
    lthread *lt = lhcp_check_thread(L, 1);
    lua_pushfstring(L, "hcpsim.Thread(%d, '%s')", (int)sim_thread_id(lt->t), sim_thread_name(lt->t));
    return 1;
}

void lhcp_thread_register(lua_State *L) {
    static const luaL_Reg methods[] = {
        {"run", t_run},
        {"pcall_run", t_pcall_run},
        {"counters", t_counters},
        {"inject_kernel_updates", t_inject_kernel_updates},
        {"GetCurrentThread", t_GetCurrentThread},
        {"GetCurrentThreadId", t_GetCurrentThreadId},
        {"GetLastError", t_GetLastError},
        {"SetLastError", t_SetLastError},
        {"OpenThread", t_OpenThread},
        {"CloseHandle", t_CloseHandle},
        {"EnableThreadProfiling", t_EnableThreadProfiling},
        {"DisableThreadProfiling", t_DisableThreadProfiling},
        {"QueryThreadProfiling", t_QueryThreadProfiling},
        {"ReadThreadProfilingData", t_ReadThreadProfilingData},
        {"GetThreadTimes", t_GetThreadTimes},
        {"QueryThreadCycleTime", t_QueryThreadCycleTime},
        {"Sleep", t_Sleep},
        {"SwitchToThread", t_SwitchToThread},
        {"WaitForSingleObject", t_WaitForSingleObject},
        {"WaitForMultipleObjects", t_WaitForMultipleObjects},
        {"SetEvent", t_SetEvent},
        {"ResetEvent", t_ResetEvent},
        {"ReleaseMutex", t_ReleaseMutex},
        {"ReleaseSemaphore", t_ReleaseSemaphore},
        {"exit", t_exit},
        {NULL, NULL},
    };
    if (!luaL_newmetatable(L, LHCP_THREAD)) {
        lua_pop(L, 1);
        return;
    }
    luaL_newlib(L, methods);
    lhcp_report_wrap(L, -1, false); /* --report records the Windows functions' calls */
    lua_setfield(L, -2, "methods");
    lua_pushcfunction(L, t_index);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, t_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pop(L, 1);
}
