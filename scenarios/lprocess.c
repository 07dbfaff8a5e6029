/* scenarios/lprocess.c — m:process{path = "x.exe", args = {...}, echo = true}: a
 * Windows program as the process of a machine (scenarios/README.md "Windows
 * programs"), and the built-in driver of `hcpsim run PROGRAM.exe`.
 *
 * The image is loaded by api/pe.c; its main thread is an ordinary thread of
 * the machine whose body (a C function) runs the TLS callbacks, then the
 * entry point, with t:run, so it is scheduled, preempted and counted like any
 * other.  Output is captured (p.stdout, p.stderr) and echoed as it is written. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/pe.h"
#include "api/pe_check.h"
#include "scenarios/lhcp.h"

#define LHCP_PROCESS "hcpsim.Process"
#define MAX_CAPTURE (64u << 20) /* bytes of p.stdout / p.stderr kept (the echo goes on) */

typedef struct lprocess {
    lmachine *lm;
    hcp_process *p;
    bool echo;
    lua_State *L;   /* the main Lua thread (CreateThread's factory reaches the running body through it) */
    int mref, pref; /* registry references: the machine, this process */
    char *out[2];
    size_t n[2], cap[2];
    hcp_check check; /* p.imports: the image's imports and what hcpsim gives each, made at its first use */
    bool checked;
    char *ck_name; /* for it: the image's name, its bytes, the DLL folders (its own first) */
    uint8_t *ck_img;
    size_t ck_n;
    char **ck_dirs;
    int ck_ndirs;
    /* warnings of the HCP functions (on_api_warning) waiting for a safe point: under --werror, or
     * for a scenario's hcp.on_warning handler */
    char pending[4][512];
    int npending;
} lprocess;

static void on_output(void *ud, int fd, const char *bytes, size_t n) {
    lprocess *lp = ud;
    int k = fd == 2 ? 1 : 0;
    if (lp->echo) {
        FILE *f = k ? stderr : stdout;
        fwrite(bytes, 1, n, f);
    }
    if (lp->n[k] + n > MAX_CAPTURE) return;
    if (lp->n[k] + n > lp->cap[k]) {
        size_t nc = (lp->n[k] + n) * 2;
        char *b = realloc(lp->out[k], nc);
        if (!b) return;
        lp->out[k] = b;
        lp->cap[k] = nc;
    }
    memcpy(lp->out[k] + lp->n[k], bytes, n);
    lp->n[k] += n;
}

/* ---- the process's threads' bodies ------------------------------------------------------------- */

/* What Windows reports of an unhandled exception of thread t: the code, the faulting address with
 * its module and offset, the inaccessible address of an access violation, the instruction. */
static int unhandled(lua_State *L, lprocess *lp, sim_thread *t) {
    const sim_fault *f = t ? sim_call_fault(t) : NULL;
    if (!f) return lhcp_end_error(L, LHCP_END_EXCEPTION, NULL, "%s: unhandled exception", hcp_process_name(lp->p));
    uint32_t code = hcp_fault_status(f->kind);
    const char *name = hcp_status_name(code);
    char where[128], what[96] = "", insn[160], bytes[16 * 3 + 1] = "", msg[768];
    hcp_process_where(lp->p, f->address, where, sizeof where);
    int len = sim_fault_insn(lp->lm->m, f, insn, sizeof insn);
    for (int i = 0, k = 0; i < (len ? len : f->nbytes); i++)
        k += snprintf(bytes + k, sizeof bytes - (size_t)k, i ? " %02X" : "%02X", f->bytes[i]);
    if (code == STATUS_ACCESS_VIOLATION || code == STATUS_STACK_OVERFLOW)
        snprintf(what, sizeof what, ": %s 0x%llX",
                 f->access == 1   ? "writing"
                 : f->access == 8 ? "executing"
                                  : "reading",
                 (unsigned long long)f->data);
    snprintf(msg, sizeof msg, "%s: unhandled exception 0x%08X (%s) at 0x%llX (%s) in thread '%s' (id %u)%s; %s%s%s[%s]",
             hcp_process_name(lp->p), (unsigned)code, name ? name : "?", (unsigned long long)f->address, where,
             sim_thread_name(t), (unsigned)sim_thread_id(t), what, len ? "instruction: " : "instruction bytes ",
             len ? insn : "", len ? " " : "", bytes[0] ? bytes : "not readable");
    lhcp_set_end(L, LHCP_END_EXCEPTION, NULL, msg);
    lua_pushstring(L, msg);
    return lua_error(L);
}

/* The API's warnings about the program's calls (hcp_set_warning_handler), inside the call: printed
 * at once, as "PROGRAM.exe: warning: MESSAGE", unless a scenario takes warnings (hcp.on_warning)
 * or --werror makes them errors; then kept for after_run, the next point where Lua may run (and
 * under --werror the call ends here, so the program stops at the call that warned). */
static void on_api_warning(void *ud, sim_thread *t, const char *msg) {
    lprocess *lp = ud;
    lua_State *L = lp->L;
    bool handler = lua_getfield(L, LUA_REGISTRYINDEX, "hcpsim.on_warning") == LUA_TFUNCTION;
    lua_getfield(L, LUA_REGISTRYINDEX, "hcpsim.werror");
    bool werror = lua_toboolean(L, -1);
    lua_pop(L, 2);
    if (!handler && !werror) {
        fflush(stdout);
        fprintf(stderr, "%s: warning: %s\n", hcp_process_name(lp->p), msg);
        fflush(stderr);
        return;
    }
    if (lp->npending < 4) snprintf(lp->pending[lp->npending++], sizeof lp->pending[0], "%s", msg);
    if (werror && !handler) sim_gate_end_call(t);
}

/* A thread of the process, as its body runs it (api/README.md "DLLs"): the loader's attach calls
 * (stage 0), the entry point or the start routine (1), the detach calls (2), done (3).  Each is a
 * guest call of its own (t:pcall_run), so only the callees' instructions count. */
#define LHCP_TSTATE "hcpsim.ProcessThread"
typedef struct tstate {
    lprocess *lp;
    bool main;             /* the main thread: PROCESS_ATTACH calls, then the entry point */
    uint64_t start, param; /* a created thread's start routine */
    int stage;
    hcp_loader_call *calls;
    int ncalls, next;
    uint32_t code;       /* the thread's exit code, once stage 1 ended */
    bool exit_callbacks; /* a created thread's FLS callbacks have been called (stage 1, after its start routine) */
} tstate;

static int tstate_gc(lua_State *L) {
    tstate *ts = luaL_checkudata(L, 1, LHCP_TSTATE);
    free(ts->calls);
    ts->calls = NULL;
    return 0;
}

static int set_calls(lua_State *L, tstate *ts, uint32_t reason) {
    free(ts->calls);
    ts->calls = NULL;
    ts->next = 0;
    ts->ncalls = hcp_process_loader_calls(ts->lp->p, reason, &ts->calls);
    if (ts->ncalls < 0) return luaL_error(L, "%s: out of host memory", hcp_process_name(ts->lp->p));
    return 0;
}

/* The thread's guest call ended (stage 1, or an ExitThread/ExitProcess inside a loader call): its
 * detach calls come next.  The last thread alive ends the process too (DLL_PROCESS_DETACH). */
static void to_detach(lua_State *L, tstate *ts, uint32_t code) {
    hcp_process *p = ts->lp->p;
    ts->code = code;
    ts->stage = 2;
    bool last = hcp_process_live_threads(p) <= 1;
    uint32_t ecode;
    hcp_process_thread_reset_exit(p, sim_sched_current(ts->lp->lm->m)); /* an ExitThread in a detach call ends it */
    set_calls(L, ts, hcp_process_exited(p, &ecode) || last ? HCP_DLL_PROCESS_DETACH : HCP_DLL_THREAD_DETACH);
}

static int tstep(lua_State *L, tstate *ts);

/* After a t:pcall_run of the thread, its results (r, code, info) on top. */
static int tstep_k(lua_State *L, int status, lua_KContext ctx) {
    (void)status;
    tstate *ts = (tstate *)ctx;
    lprocess *lp = ts->lp;
    sim_thread *t = sim_sched_current(lp->lm->m);
    if (lp->npending) { /* to the scenario's handler, or under --werror the run's end */
        char where[80];
        snprintf(where, sizeof where, "%s: ", hcp_process_name(lp->p));
        int n = lp->npending;
        lp->npending = 0;
        for (int i = 0; i < n; i++) lhcp_warn(L, where, "%s", lp->pending[i]);
    }
    const char *failure = hcp_process_failure(lp->p);
    if (failure) { /* a call of an import hcpsim lacks, or the program's misuse of a function */
        lhcp_set_end(L,
                     hcp_process_failure_missing(lp->p)     ? LHCP_END_MISSING_IMPORT
                     : hcp_process_failure_exception(lp->p) ? LHCP_END_EXCEPTION
                                                            : LHCP_END_ERROR,
                     NULL, failure);
        lua_pushstring(L, failure);
        return lua_error(L);
    }
    uint32_t code;
    bool exited = t && hcp_process_thread_exited(lp->p, t, &code); /* ExitThread, ExitProcess, TerminateThread */
    if (lua_isnil(L, -3) && !exited) return unhandled(L, lp, t);
    uint64_t r = exited ? 0 : (uint64_t)lua_tointeger(L, -3);
    lua_pop(L, 3);
    if (ts->stage == 0) {
        const hcp_loader_call *c = &ts->calls[ts->next - 1];
        if (exited) {
            to_detach(L, ts, code);
        } else if (c->dllmain && c->a[1] == HCP_DLL_PROCESS_ATTACH && (uint32_t)r == 0) {
            hcp_process_start_failed(lp->p, c->module);
            lua_pushinteger(L, (lua_Integer)hcp_process_load_status(lp->p));
            lua_setfield(L, LUA_REGISTRYINDEX, "hcpsim.program_status");
            lua_pushstring(L, hcp_process_failure(lp->p));
            return lua_error(L);
        }
    } else if (ts->stage == 1) {
        uint32_t rc = exited               ? code
                      : ts->exit_callbacks ? ts->code
                                           : (uint32_t)r; /* returned: ExitThread of its value */
        uint64_t cb = 0;
        if (!ts->main && !exited && !ts->exit_callbacks) cb = hcp_process_exit_callbacks(lp->p, t, rc);
        if (cb) { /* the thread's FLS callbacks run as its guest code before it ends (api/ucb.c) */
            ts->exit_callbacks = true;
            ts->code = rc;
            lua_getfield(L, 1, "pcall_run");
            lua_pushvalue(L, 1);
            lua_pushinteger(L, (lua_Integer)cb);
            lua_callk(L, 2, 3, (lua_KContext)ts, tstep_k);
            return tstep_k(L, LUA_OK, (lua_KContext)ts);
        }
        to_detach(L, ts, rc);
    } else if (exited) {
        ts->stage = 3; /* an ExitThread inside a detach call: the thread ends there */
    }
    return tstep(L, ts);
}

static int tstep(lua_State *L, tstate *ts) {
    lprocess *lp = ts->lp;
    for (;;) {
        if (ts->stage == 0 || ts->stage == 2) {
            if (ts->next < ts->ncalls) { /* PIMAGE_TLS_CALLBACK / DllMain (DllHandle, Reason, Reserved) */
                const hcp_loader_call *c = &ts->calls[ts->next++];
                lua_getfield(L, 1, "pcall_run");
                lua_pushvalue(L, 1);
                lua_pushinteger(L, (lua_Integer)c->fn);
                for (int i = 0; i < 3; i++) lua_pushinteger(L, (lua_Integer)c->a[i]);
                lua_callk(L, 5, 3, (lua_KContext)ts, tstep_k);
                return tstep_k(L, LUA_OK, (lua_KContext)ts);
            }
            ts->stage++;
            continue;
        }
        if (ts->stage == 1) {
            lua_getfield(L, 1, "pcall_run"); /* an exception is the process's: tstep_k names it */
            lua_pushvalue(L, 1);
            if (ts->main) {
                lua_pushinteger(L, (lua_Integer)hcp_process_entry(lp->p));
                lua_callk(L, 2, 3, (lua_KContext)ts, tstep_k);
            } else {
                lua_pushinteger(L, (lua_Integer)ts->start);
                lua_pushinteger(L, (lua_Integer)ts->param);
                lua_callk(L, 3, 3, (lua_KContext)ts, tstep_k);
            }
            return tstep_k(L, LUA_OK, (lua_KContext)ts);
        }
        if (hcp_process_live_threads(lp->p) <= 1) hcp_process_set_exited(lp->p, ts->code); /* the last thread */
        lua_pushinteger(L, (lua_Integer)ts->code);
        return 1;
    }
}

/* A thread body: upvalue 1 its tstate. */
static int tbody(lua_State *L) {
    tstate *ts = luaL_checkudata(L, lua_upvalueindex(1), LHCP_TSTATE);
    lua_settop(L, 1);
    ts->stage = 0;
    set_calls(L, ts, ts->main ? HCP_DLL_PROCESS_ATTACH : HCP_DLL_THREAD_ATTACH);
    return tstep(L, ts);
}

/* Pushes a body closure for a thread of the process. */
static void push_body(lua_State *L, lprocess *lp, bool main, uint64_t start, uint64_t param) {
    tstate *ts = lua_newuserdatauv(L, sizeof *ts, 0);
    memset(ts, 0, sizeof *ts);
    luaL_setmetatable(L, LHCP_TSTATE);
    ts->lp = lp;
    ts->main = main;
    ts->start = start;
    ts->param = param;
    lua_pushcclosure(L, tbody, 1);
}

typedef struct spawn_req {
    lprocess *lp;
    const char *name;
    uint64_t start, param;
    sim_thread *out;
} spawn_req;

static int spawn_protected(lua_State *L) {
    spawn_req *rq = lua_touserdata(L, 1);
    lprocess *lp = rq->lp;
    lua_rawgeti(L, LUA_REGISTRYINDEX, lp->mref);
    int midx = lua_gettop(L);
    lua_createtable(L, 0, 2);
    lua_pushstring(L, rq->name);
    lua_setfield(L, -2, "name");
    push_body(L, lp, false, rq->start, rq->param);
    lua_setfield(L, -2, "body");
    lhcp_thread_new(L, lp->lm, midx, -1);
    rq->out = lhcp_check_thread(L, -1)->t;
    return 0;
}

/* CreateThread's factory: a thread of the machine made like m:thread's, on the running body's coroutine. */
static sim_thread *spawn(void *ud, const char *name, uint64_t start, uint64_t param, char *err, size_t cap) {
    lprocess *lp = ud;
    lua_State *L0 = lp->L;
    sim_thread *cur = hcp_process_spawner(lp->p); /* a thread that has left its CPU, or the running one */
    if (!cur && lp->lm->m) cur = sim_sched_current(lp->lm->m);
    if (!cur) {
        snprintf(err, cap, "no running thread");
        return NULL;
    }
    lua_rawgeti(L0, LUA_REGISTRYINDEX, lp->mref);
    lua_getiuservalue(L0, -1, 1); /* the machine's threads, by index + 1 */
    lua_rawgeti(L0, -1, sim_thread_index(cur) + 1);
    lthread *clt = lua_touserdata(L0, -1);
    lua_pop(L0, 3);
    if (!clt || !clt->co) {
        snprintf(err, cap, "the calling thread has no body");
        return NULL;
    }
    lua_State *L = clt->co;
    spawn_req rq = {lp, name, start, param, NULL};
    lua_pushcfunction(L, spawn_protected);
    lua_pushlightuserdata(L, &rq);
    if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
        snprintf(err, cap, "%s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "error");
        lua_pop(L, 1);
        return NULL;
    }
    return rq.out;
}

/* ---- m:process ---------------------------------------------------------------------------------------- */

static char *read_file(const char *path, size_t *n, char *err, size_t cap) {
    *n = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, cap, "%s: cannot open the file", path);
        return NULL;
    }
    size_t limit = (size_t)HCP_PE_MAX_IMAGE * 2, len = 0;
    char *b = malloc(limit + 1);
    if (b) len = fread(b, 1, limit + 1, f);
    fclose(f);
    if (!b) {
        snprintf(err, cap, "%s: out of host memory", path);
        return NULL;
    }
    if (len > limit) {
        snprintf(err, cap, "%s: larger than %zu bytes", path, limit);
        free(b);
        return NULL;
    }
    *n = len;
    return b;
}

/* Pushes the path of `rel` relative to the scenario's folder (as given when absolute). */
static const char *push_path(lua_State *L, const char *rel) {
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    if (rel[0] != '/') {
        lua_getfield(L, LUA_REGISTRYINDEX, "hcpsim.script");
        const char *script = lua_tostring(L, -1);
        const char *slash = script ? strrchr(script, '/') : NULL;
        lua_pop(L, 1);
        if (slash) luaL_addlstring(&b, script, (size_t)(slash - script) + 1);
    }
    luaL_addstring(&b, rel);
    luaL_pushresult(&b);
    return lua_tostring(L, -1);
}

static void set_str(lua_State *L, const char *k, const char *v) {
    if (!v) return;
    lua_pushstring(L, v);
    lua_setfield(L, -2, k);
}

static void push_counts(lua_State *L, const int *n) {
    lua_createtable(L, 0, 4);
    static const char *const key[HCP_IMP_STATES] = {"implemented", "no_op", "never_called", "missing"};
    for (int s = 0; s < HCP_IMP_STATES; s++) {
        lua_pushinteger(L, n[s]);
        lua_setfield(L, -2, key[s]);
    }
}

/* The table of hcp.check and p.imports: what hcpsim check --json holds (scenarios/API.md). */
static void push_check(lua_State *L, const hcp_check *c) {
    char verdict[1024];
    hcp_check_verdict(c, verdict, sizeof verdict);
    lua_createtable(L, 0, 10);
    set_str(L, "image", c->image);
    set_str(L, "machine", c->machine);
    set_str(L, "platform", c->platform);
    set_str(L, "verdict", verdict);
    lua_pushboolean(L, c->n[HCP_IMP_MISSING] == 0 && !c->start_status);
    lua_setfield(L, -2, "runs");
    if (c->start_status) {
        lua_pushinteger(L, (lua_Integer)c->start_status);
        lua_setfield(L, -2, "start_status");
        set_str(L, "start_error", c->start_error);
    }
    push_counts(L, c->n);
    lua_setfield(L, -2, "counts");
    lua_newtable(L); /* missing */
    lua_newtable(L); /* dlls_not_found */
    lua_createtable(L, c->ndlls, 0);
    int nmiss = 0, nnf = 0;
    for (int k = 0; k < c->ndlls; k++) {
        const hcp_check_dll *dl = &c->dlls[k];
        lua_createtable(L, 0, 5);
        set_str(L, "name", dl->name);
        set_str(L, "by", dl->by);
        set_str(L, "found", dl->found);
        lua_pushboolean(L, dl->image);
        lua_setfield(L, -2, "image");
        set_str(L, "problem", dl->problem);
        push_counts(L, dl->n);
        lua_setfield(L, -2, "counts");
        if (!dl->found) {
            lua_pushstring(L, dl->name);
            lua_rawseti(L, -4, ++nnf);
        }
        lua_createtable(L, dl->count, 0);
        for (int i = dl->first; i < dl->first + dl->count; i++) {
            const hcp_check_import *im = &c->imports[i];
            lua_createtable(L, 0, 5);
            set_str(L, "name", im->name);
            set_str(L, "state", hcp_check_state_name(im->state));
            set_str(L, "kind", im->kind);
            set_str(L, "note", im->note);
            if (im->ordinal >= 0) {
                lua_pushinteger(L, im->ordinal);
                lua_setfield(L, -2, "ordinal");
            }
            lua_rawseti(L, -2, i - dl->first + 1);
            if (im->state == HCP_IMP_MISSING) {
                lua_pushfstring(L, "%s!%s", dl->name, im->name);
                lua_rawseti(L, -6, ++nmiss);
            }
        }
        lua_setfield(L, -2, "imports");
        lua_rawseti(L, -2, k + 1);
    }
    lua_setfield(L, -4, "dlls");
    lua_setfield(L, -3, "dlls_not_found");
    lua_setfield(L, -2, "missing");
}

/* Pushes the folder of host path `path` ("." when it names none). */
static const char *push_folder(lua_State *L, const char *path) {
    const char *slash = strrchr(path, '/');
    if (!slash)
        lua_pushliteral(L, ".");
    else if (slash == path)
        lua_pushliteral(L, "/");
    else
        lua_pushlstring(L, path, (size_t)(slash - path));
    return lua_tostring(L, -1);
}

/* hcp.check(path) --> the table of push_check: whether a program can run, without loading it. */
int lhcp_check(lua_State *L) {
    const char *rel = luaL_checkstring(L, 1);
    const char *path = push_path(L, rel);
    char err[512] = "";
    size_t n = 0;
    char *img = read_file(path, &n, err, sizeof err);
    if (!img) return luaL_error(L, "hcp.check: %s", err);
    const char *slash = strrchr(rel, '/');
    const char *dir = push_folder(L, path); /* the program's folder: its DLLs are searched there */
    hcp_check c;
    int rc = hcp_pe_check_in(slash ? slash + 1 : rel, (const uint8_t *)img, n, &dir, 1, &c, err, sizeof err);
    free(img);
    if (rc != 0) return luaL_error(L, "hcp.check: %s: %s", rel, err);
    push_check(L, &c);
    hcp_check_free(&c);
    return 1;
}

/* The program hcpsim run drives (its paths are the command line's: relative to where hcpsim runs). */
static bool driven(lua_State *L) {
    lua_getfield(L, LUA_REGISTRYINDEX, "hcpsim.program_phase");
    const char *ph = lua_tostring(L, -1);
    bool d = ph && strcmp(ph, "load") == 0;
    lua_pop(L, 1);
    return d;
}

/* Host I/O of a process (its folder, its standard input from a file): with --unsafe-io, or for the
 * program hcpsim run drives. */
static bool host_io_allowed(lua_State *L) {
    lua_getfield(L, LUA_REGISTRYINDEX, "hcpsim.unsafe_io");
    bool ok = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return ok || driven(L);
}

/* The process options of m:process's table at index t: env (a list of "NAME=VALUE" and/or a table
 * NAME = VALUE, taken in name order), cwd, stdin, timezone, debug_output; the strings stay alive
 * on the stack (the caller pops to its mark after loading). */
static void process_opts(lua_State *L, int t, hcp_process_opts *o, const char **env, int maxenv) {
    if (lua_getfield(L, t, "env") != LUA_TNIL) {
        if (!lua_istable(L, -1))
            luaL_error(L, "m:process: 'env' must be a table (\"NAME=VALUE\" strings, or NAME = value)");
        int et = lua_gettop(L);
        lua_Integer n = luaL_len(L, et);
        for (lua_Integer i = 1; i <= n; i++) {
            if (lua_rawgeti(L, et, i) != LUA_TSTRING)
                luaL_error(L, "m:process: env[%d] must be a string NAME=VALUE", (int)i);
            if (o->nenv >= maxenv) luaL_error(L, "m:process: at most %d environment variables", maxenv);
            env[o->nenv++] = lua_tostring(L, -1);
        }
        /* NAME = value pairs, sorted by name so the order never depends on the table */
        lua_newtable(L);
        int names = lua_gettop(L), k = 0;
        lua_pushnil(L);
        while (lua_next(L, et)) {
            lua_pop(L, 1);
            if (lua_type(L, -1) == LUA_TSTRING) {
                lua_pushvalue(L, -1);
                lua_rawseti(L, names, ++k);
            } else if (!lua_isinteger(L, -1)) {
                luaL_error(L, "m:process: env keys must be names (strings) or list positions");
            }
        }
        lua_getglobal(L, "table");
        lua_getfield(L, -1, "sort");
        lua_pushvalue(L, names);
        lua_call(L, 1, 0);
        lua_pop(L, 1);
        for (int i = 1; i <= k; i++) {
            lua_rawgeti(L, names, i);
            lua_pushvalue(L, -1);
            lua_gettable(L, et);
            if (lua_type(L, -1) != LUA_TSTRING && lua_type(L, -1) != LUA_TNUMBER)
                luaL_error(L, "m:process: env.%s must be a string", lua_tostring(L, -2));
            lua_pushfstring(L, "%s=%s", lua_tostring(L, -2), lua_tostring(L, -1));
            if (o->nenv >= maxenv) luaL_error(L, "m:process: at most %d environment variables", maxenv);
            env[o->nenv++] = lua_tostring(L, -1);
        }
        o->env = env;
    }
    if (lua_getfield(L, t, "cwd") != LUA_TNIL) {
        if (lua_type(L, -1) != LUA_TSTRING) luaL_error(L, "m:process: 'cwd' must be a string (a folder)");
        if (!host_io_allowed(L))
            luaL_error(L, "m:process: 'cwd' maps a host folder into the program: it needs hcpsim run --unsafe-io");
        o->cwd = driven(L) ? lua_tostring(L, -1) : push_path(L, lua_tostring(L, -1));
    }
    if (lua_getfield(L, t, "stdin") != LUA_TNIL) {
        if (lua_type(L, -1) != LUA_TSTRING) luaL_error(L, "m:process: 'stdin' must be a string (a file, or \"-\")");
        if (!host_io_allowed(L)) luaL_error(L, "m:process: 'stdin' reads a host file: it needs hcpsim run --unsafe-io");
        o->stdin_path = strcmp(lua_tostring(L, -1), "-") == 0 || driven(L) ? lua_tostring(L, -1)
                                                                           : push_path(L, lua_tostring(L, -1));
    }
    if (lua_getfield(L, t, "timezone") != LUA_TNIL) {
        if (lua_type(L, -1) != LUA_TSTRING) luaL_error(L, "m:process: 'timezone' must be a string");
        o->timezone = lua_tostring(L, -1);
    }
    if (lua_getfield(L, t, "debug_output") != LUA_TNIL) {
        const char *d = lua_tostring(L, -1);
        if (!d || (strcmp(d, "stderr") && strcmp(d, "trace")))
            luaL_error(L, "m:process: 'debug_output' must be \"trace\" (the default) or \"stderr\"");
        o->debug_stderr = strcmp(d, "stderr") == 0;
    }
}

int lhcp_m_process(lua_State *L) {
    static const char *const keys[] = {"path",  "args",     "echo",         "missing_imports", "cwd", "env",
                                       "stdin", "timezone", "debug_output", "dll_path",        NULL};
    lmachine *lm = lhcp_check_machine(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    lhcp_check_keys(L, 2, "m:process", keys);
    if (!lm->m) return luaL_error(L, "m:process: the machine is closed");
    if (lm->running) return luaL_error(L, "m:process: the machine is running (call it before m:run)");
    if (lua_getfield(L, 2, "path") != LUA_TSTRING) return luaL_error(L, "m:process: 'path' must be a string");
    const char *rel = lua_tostring(L, -1);
    const char *path = push_path(L, rel); /* relative to the scenario's folder */
    int nargs = 0;
    const char *args[256];
    if (lua_getfield(L, 2, "args") != LUA_TNIL) {
        if (!lua_istable(L, -1)) return luaL_error(L, "m:process: 'args' must be a table of strings");
        lua_Integer n = luaL_len(L, -1);
        if (n > 255) return luaL_error(L, "m:process: at most 255 arguments");
        for (lua_Integer i = 1; i <= n; i++) {
            lua_rawgeti(L, -1, i);
            if (lua_type(L, -1) != LUA_TSTRING) return luaL_error(L, "m:process: args[%d] must be a string", (int)i);
            args[nargs++] = lua_tostring(L, -1); /* kept alive by the args table */
            lua_pop(L, 1);
        }
    }
    int ndirs = 1; /* dirs[0]: the program's folder, first as Windows searches; then dll_path */
    const char *dirs[65];
    if (lua_getfield(L, 2, "dll_path") != LUA_TNIL) { /* folders searched for DLLs after the program's */
        if (!lua_istable(L, -1)) return luaL_error(L, "m:process: 'dll_path' must be a table of folder names");
        lua_Integer n = luaL_len(L, -1);
        if (n > 64) return luaL_error(L, "m:process: at most 64 folders in 'dll_path'");
        for (lua_Integer i = 1; i <= n; i++) {
            lua_rawgeti(L, -1, i);
            if (lua_type(L, -1) != LUA_TSTRING)
                return luaL_error(L, "m:process: dll_path[%d] must be a string", (int)i);
            dirs[ndirs++] = lua_tostring(L, -1); /* kept alive by the table */
            lua_pop(L, 1);
        }
    }
    bool echo = true;
    if (lua_getfield(L, 2, "echo") != LUA_TNIL) {
        if (!lua_isboolean(L, -1)) return luaL_error(L, "m:process: 'echo' must be a boolean");
        echo = lua_toboolean(L, -1);
    }
    lua_pop(L, 1);
    bool missing_fail = false; /* what a call of an import hcpsim lacks does: "stop" the run, or "fail" */
    if (lua_getfield(L, 2, "missing_imports") != LUA_TNIL) {
        const char *v = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
        if (strcmp(v, "stop") != 0 && strcmp(v, "fail") != 0)
            return luaL_error(L, "m:process: 'missing_imports' must be \"stop\" or \"fail\"");
        missing_fail = strcmp(v, "fail") == 0;
    }
    lua_pop(L, 1);
    hcp_process_opts popts = {0};
    static const char *envs[4096];
    process_opts(L, 2, &popts, envs, 4096);
    char err[512] = "";
    size_t n = 0;
    char *img = read_file(path, &n, err, sizeof err);
    if (!img) return luaL_error(L, "%s", err);
    dirs[0] = push_folder(L, path);
    popts.dll_dir = dirs[0];
    popts.dll_path = dirs + 1;
    popts.ndll_path = ndirs - 1;
    uint32_t status = 0;
    popts.status = &status;
    hcp_process *p = hcp_process_load_ex(lm->os, rel, (const uint8_t *)img, n, args, nargs, &popts, err, sizeof err);
    if (!p && status) { /* the process could not start: its exit code is Windows' status */
        lua_pushinteger(L, (lua_Integer)status);
        lua_setfield(L, LUA_REGISTRYINDEX, "hcpsim.program_status");
    }
    if (!p) {
        free(img);
        return luaL_error(L, "%s", err);
    }
    lprocess *lp = lua_newuserdatauv(L, sizeof *lp, 1);
    int pidx = lua_gettop(L);
    memset(lp, 0, sizeof *lp);
    luaL_setmetatable(L, LHCP_PROCESS);
    lp->lm = lm;
    lp->p = p;
    lp->echo = echo;
    /* p.imports is made at its first use (DLL images are read then): what it needs is kept */
    lp->ck_img = (uint8_t *)img;
    lp->ck_n = n;
    lp->ck_name = malloc(strlen(rel) + 1);
    lp->ck_dirs = calloc((size_t)ndirs, sizeof *lp->ck_dirs);
    if (lp->ck_name) strcpy(lp->ck_name, rel);
    for (int i = 0; lp->ck_dirs && i < ndirs; i++)
        if ((lp->ck_dirs[i] = malloc(strlen(dirs[i]) + 1))) strcpy(lp->ck_dirs[i], dirs[i]), lp->ck_ndirs = i + 1;
    hcp_process_set_output(p, on_output, lp);
    lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
    lp->L = lua_tothread(L, -1);
    lua_pop(L, 1);
    lua_pushvalue(L, 1);
    lp->mref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pushvalue(L, pidx);
    lp->pref = luaL_ref(L, LUA_REGISTRYINDEX);
    hcp_process_set_spawn(p, spawn, lp);
    hcp_process_set_missing_fail(p, missing_fail);
    hcp_process_set_memory_limit(p, lm->max_memory);
    hcp_set_warning_handler(lm->os, on_api_warning, lp);
    /* its main thread: named after the image, priority 8 */
    lua_createtable(L, 0, 2);
    lua_pushstring(L, hcp_process_name(p));
    lua_setfield(L, -2, "name");
    push_body(L, lp, true, 0, 0);
    lua_setfield(L, -2, "body");
    lhcp_thread_new(L, lm, 1, -1);
    lthread *lt = lhcp_check_thread(L, -1);
    if (hcp_process_attach_thread(p, lt->t) != 0) return luaL_error(L, "m:process: cannot attach the main thread");
    lua_setiuservalue(L, pidx, 1); /* p.thread */
    lua_pushvalue(L, pidx);
    return 1;
}

static int p_index(lua_State *L) {
    lprocess *lp = luaL_checkudata(L, 1, LHCP_PROCESS);
    const char *k = luaL_checkstring(L, 2);
    if (strcmp(k, "exit_code") == 0) {
        uint32_t code;
        if (lp->lm->m && hcp_process_exited(lp->p, &code))
            lua_pushinteger(L, (lua_Integer)code);
        else
            lua_pushnil(L);
    } else if (strcmp(k, "exports") == 0) { /* {name = address}: t:run(p.exports.name, ...) */
        const char *name;
        uint64_t addr;
        lua_newtable(L);
        for (int i = 0; lp->lm->m && hcp_process_export(lp->p, i, &name, &addr); i++) {
            lua_pushinteger(L, (lua_Integer)addr);
            lua_setfield(L, -2, name);
        }
    } else if (strcmp(k, "stdout") == 0 || strcmp(k, "stderr") == 0) {
        int i = k[3] == 'e';
        lua_pushlstring(L, lp->out[i] ? lp->out[i] : "", lp->n[i]);
    } else if (strcmp(k, "thread") == 0) {
        lua_getiuservalue(L, 1, 1);
    } else if (strcmp(k, "base") == 0) {
        lua_pushinteger(L, lp->lm->m ? (lua_Integer)hcp_process_base(lp->p) : 0);
    } else if (strcmp(k, "entry") == 0) {
        lua_pushinteger(L, lp->lm->m ? (lua_Integer)hcp_process_entry(lp->p) : 0);
    } else if (strcmp(k, "imports") == 0) { /* what hcp.check gives for the image */
        char cerr[256] = "out of host memory";
        if (!lp->checked && lp->ck_img && lp->ck_name)
            lp->checked = hcp_pe_check_in(lp->ck_name, lp->ck_img, lp->ck_n, (const char *const *)lp->ck_dirs,
                                          lp->ck_ndirs, &lp->check, cerr, sizeof cerr) == 0;
        if (!lp->checked) return luaL_error(L, "p.imports: %s", cerr);
        push_check(L, &lp->check);
    } else {
        return luaL_error(L, "hcpsim.Process has no member '%s'", k);
    }
    return 1;
}

static int p_gc(lua_State *L) {
    lprocess *lp = luaL_checkudata(L, 1, LHCP_PROCESS);
    if (lp->lm && lp->lm->m && lp->p) {
        hcp_process_set_output(lp->p, NULL, NULL);
        hcp_set_warning_handler(lp->lm->os, NULL, NULL);
    }
    free(lp->out[0]);
    free(lp->out[1]);
    lp->out[0] = lp->out[1] = NULL;
    if (lp->checked) hcp_check_free(&lp->check);
    lp->checked = false;
    free(lp->ck_img);
    free(lp->ck_name);
    for (int i = 0; i < lp->ck_ndirs; i++) free(lp->ck_dirs[i]);
    free(lp->ck_dirs);
    lp->ck_img = NULL;
    lp->ck_name = NULL;
    lp->ck_dirs = NULL;
    lp->ck_ndirs = 0;
    return 0;
}

void lhcp_process_register(lua_State *L) {
    if (luaL_newmetatable(L, LHCP_TSTATE)) {
        lua_pushcfunction(L, tstate_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_pop(L, 1);
    if (!luaL_newmetatable(L, LHCP_PROCESS)) {
        lua_pop(L, 1);
        return;
    }
    lua_pushcfunction(L, p_index);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, p_gc);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);
}

/* ---- hcpsim run PROGRAM.exe -------------------------------------------------------------------------- */

int lhcp_file_kind(const char *file) {
    FILE *f = fopen(file, "rb");
    if (!f) return 0; /* Lua's loader names the error */
    char b[512];
    size_t n = fread(b, 1, sizeof b, f);
    fclose(f);
    if (n >= 2 && b[0] == 'M' && b[1] == 'Z') return 1;
    if (n >= 1 && b[0] == 0x1B) return 0; /* a precompiled Lua chunk: the loader refuses it by name */
    return memchr(b, 0, n) ? -1 : 0;
}

/* ---- machine options on the command line -------------------------------------------------------
 * `hcpsim run --cpus 2 --pmc instructions,branches --counters 0,1 PROGRAM.exe`: every option of the
 * option table (api/system.c) by its name (dashes or underscores), plus --counters.  Each value is
 * checked here against the table and kept, typed, in the registry table "hcpsim.program_machine";
 * the driver passes it to hcp.machine{} and makes the --counters configuration before the start. */

#define PROGRAM_MACHINE "hcpsim.program_machine"
#define PROGRAM_COUNTERS "hcpsim.program_counters"
#define PROGRAM_PROCESS "hcpsim.program_process"
#define PROGRAM_TIMEOUT "hcpsim.program_timeout"   /* --timeout, in nanoseconds of simulated time */
#define PROGRAM_MISSING "hcpsim.program_missing"   /* --missing-imports stop|fail */
#define PROGRAM_DLL_PATH "hcpsim.program_dll_path" /* --dll-path DIR, repeatable */

/* The option table's spelling of a command-line name ("max-cycles" -> "max_cycles"), or NULL. */
/* Options of the program's process rather than its machine (m:process's fields). */
static bool process_option(const char *key) {
    static const char *const names[] = {"cwd", "env", "stdin", "timezone", "debug_output"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(key, names[i]) == 0) return true;
    return false;
}

static const char *option_name(const char *name, char *buf, size_t n) {
    snprintf(buf, n, "%s", name);
    for (char *c = buf; *c; c++)
        if (*c == '-') *c = '_';
    if (strcmp(buf, "counters") == 0 || strcmp(buf, "timeout") == 0 || strcmp(buf, "missing_imports") == 0 ||
        process_option(buf) || strcmp(buf, "dll_path") == 0)
        return buf;
    const hcp_option *o = hcp_option_find(buf);
    return o ? o->name : NULL;
}

bool lhcp_is_machine_option(const char *name) {
    char buf[64];
    return option_name(name, buf, sizeof buf) != NULL;
}

/* Splits "a,b,c" into the strings of a new table (pushed); an empty item is an error. */
static bool push_list(lua_State *L, const char *v) {
    lua_newtable(L);
    int n = 0;
    for (const char *p = v;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == 0) return false;
        lua_pushlstring(L, p, len);
        lua_rawseti(L, -2, ++n);
        if (!comma) return true;
        p = comma + 1;
    }
}

/* "SECONDS" ("2", "0.5", "1.000000001": at most 9 decimals) as nanoseconds, 1 ns to 10^9 s. */
static bool parse_seconds(const char *s, uint64_t *ns) {
    uint64_t whole = 0, frac = 0;
    int digits = 0, decimals = 0;
    const char *p = s;
    for (; *p >= '0' && *p <= '9'; p++, digits++) {
        whole = whole * 10 + (uint64_t)(*p - '0');
        if (whole > 1000000000u) return false;
    }
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++, decimals++) {
            if (decimals >= 9) return false;
            frac = frac * 10 + (uint64_t)(*p - '0');
        }
    if (*p || (!digits && !decimals)) return false;
    for (int i = decimals; i < 9; i++) frac *= 10;
    *ns = whole * 1000000000u + frac;
    return *ns > 0 && *ns <= UINT64_C(1000000000000000000);
}

static bool parse_i64(const char *s, int64_t *out) {
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 0);
    if (errno || !*s || *end) return false;
    *out = v;
    return true;
}

int lhcp_program_option(lua_State *L, const char *name, const char *value, char *msg, size_t msglen) {
    char buf[64];
    const char *key = option_name(name, buf, sizeof buf);
    if (!key) {
        snprintf(msg, msglen, "--%s is not a machine option", name);
        return -1;
    }
    if (lua_getfield(L, LUA_REGISTRYINDEX, PROGRAM_MACHINE) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, PROGRAM_MACHINE);
    }
    int t = lua_gettop(L);
    int rc = 0;
    if (strcmp(key, "dll_path") == 0) { /* repeatable: the folders in the order given */
        if (lua_getfield(L, LUA_REGISTRYINDEX, PROGRAM_DLL_PATH) != LUA_TTABLE) {
            lua_pop(L, 1);
            lua_newtable(L);
            lua_pushvalue(L, -1);
            lua_setfield(L, LUA_REGISTRYINDEX, PROGRAM_DLL_PATH);
        }
        if (!*value) {
            snprintf(msg, msglen, "--dll-path needs a folder name");
            rc = -1;
        } else {
            lua_pushstring(L, value);
            lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
        }
        lua_settop(L, t - 1);
        return rc;
    }
    if (process_option(key)) { /* kept for m:process; --env repeats, the others are given once */
        if (lua_getfield(L, LUA_REGISTRYINDEX, PROGRAM_PROCESS) != LUA_TTABLE) {
            lua_pop(L, 1);
            lua_newtable(L);
            lua_pushvalue(L, -1);
            lua_setfield(L, LUA_REGISTRYINDEX, PROGRAM_PROCESS);
        }
        int pt = lua_gettop(L);
        if (strcmp(key, "env") == 0) {
            const char *eq = strchr(value, '=');
            if (!eq || eq == value) {
                snprintf(msg, msglen, "--env %s: NAME=VALUE with a non-empty NAME", value);
                rc = -1;
            } else {
                if (lua_getfield(L, pt, "env") != LUA_TTABLE) {
                    lua_pop(L, 1);
                    lua_newtable(L);
                    lua_pushvalue(L, -1);
                    lua_setfield(L, pt, "env");
                }
                lua_pushstring(L, value);
                lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
            }
        } else if (strcmp(key, "timezone") == 0 && !hcp_timezone_known(value)) {
            snprintf(msg, msglen, "--timezone %s: unknown time zone (valid: %s)", value, hcp_timezone_names());
            rc = -1;
        } else if (strcmp(key, "debug_output") == 0 && strcmp(value, "stderr") && strcmp(value, "trace")) {
            snprintf(msg, msglen, "--debug-output %s: trace (the default) or stderr", value);
            rc = -1;
        } else {
            lua_pushstring(L, value);
            lua_setfield(L, pt, key);
        }
        lua_settop(L, t - 1);
        return rc;
    }
    if (strcmp(key, "timeout") == 0) { /* simulated seconds: the driver sets max_cycles from them */
        uint64_t ns;
        if (!parse_seconds(value, &ns)) {
            snprintf(msg, msglen, "--timeout %s: simulated seconds, a number like 2 or 0.5 (0 < SECONDS <= 10^9)",
                     value);
            rc = -1;
        } else {
            lua_pushinteger(L, (lua_Integer)ns);
            lua_setfield(L, LUA_REGISTRYINDEX, PROGRAM_TIMEOUT);
        }
        lua_settop(L, t - 1);
        return rc;
    }
    if (strcmp(key, "missing_imports") == 0) { /* m:process{missing_imports = ...} of the program */
        if (strcmp(value, "stop") != 0 && strcmp(value, "fail") != 0) {
            snprintf(msg, msglen,
                     "--missing-imports %s: stop (a call of an import hcpsim lacks ends the run, the "
                     "default) or fail (it returns failure and the program goes on)",
                     value);
            rc = -1;
        } else {
            lua_pushstring(L, value);
            lua_setfield(L, LUA_REGISTRYINDEX, PROGRAM_MISSING);
        }
        lua_settop(L, t - 1);
        return rc;
    }
    if (strcmp(key, "counters") == 0) { /* PMC indices: element k of the configuration = the k-th */
        if (!push_list(L, value)) {
            snprintf(msg, msglen, "--counters %s: a list of PMC indices like 0,1,2", value);
            rc = -1;
        } else {
            int n = (int)lua_rawlen(L, -1);
            for (int i = 1; rc == 0 && i <= n; i++) {
                lua_rawgeti(L, -1, i);
                int64_t v = 0;
                if (!parse_i64(lua_tostring(L, -1), &v) || v < 0 || v >= PMU_MAX_PMC) {
                    snprintf(msg, msglen, "--counters %s: '%s' is not a PMC index (0..%d)", value, lua_tostring(L, -1),
                             PMU_MAX_PMC - 1);
                    rc = -1;
                }
                lua_pop(L, 1);
                lua_pushinteger(L, (lua_Integer)v);
                lua_rawseti(L, -2, i);
            }
            if (rc == 0 && n > MAX_HW_COUNTERS) {
                snprintf(msg, msglen, "--counters %s: %d counters; a configuration has at most %d", value, n,
                         MAX_HW_COUNTERS);
                rc = -1;
            }
            if (rc == 0) lua_setfield(L, LUA_REGISTRYINDEX, PROGRAM_COUNTERS);
        }
        lua_settop(L, t - 1);
        return rc;
    }
    const hcp_option *o = hcp_option_find(key);
    hcp_system_opts scratch;
    hcp_system_opts_init(&scratch, NULL);
    char why[512];
    switch (o->kind) {
    case HCP_OPTK_INT: {
        int64_t v;
        if (!parse_i64(value, &v)) {
            snprintf(msg, msglen, "--%s %s: not an integer", name, value);
            rc = -1;
        } else if (hcp_option_set(&scratch, o, v, why, sizeof why) != 0) {
            snprintf(msg, msglen, "--%s %s: out of range (%" PRId64 "..%" PRId64 ")", name, value, o->lo, o->hi);
            rc = -1;
        } else {
            lua_pushinteger(L, (lua_Integer)v);
        }
        break;
    }
    case HCP_OPTK_BOOL:
    case HCP_OPTK_MODEL:
        if (strcmp(value, "true") == 0 || strcmp(value, "false") == 0) {
            lua_pushboolean(L, value[0] == 't');
        } else if (o->kind == HCP_OPTK_MODEL && strcmp(key, "cost") == 0) {
            lua_pushstring(L, value); /* a table name; hcp.machine{} names the valid ones */
        } else {
            snprintf(msg, msglen, "--%s %s: true or false%s", name, value,
                     o->kind == HCP_OPTK_MODEL ? " (its table form is for scenarios: hcp.machine{})" : "");
            rc = -1;
        }
        break;
    case HCP_OPTK_EVENTS: {
        if (!push_list(L, value)) {
            snprintf(msg, msglen, "--%s %s: a list of event names like instructions,branches", name, value);
            rc = -1;
            break;
        }
        const char *names[PMU_MAX_PMC];
        int n = (int)lua_rawlen(L, -1);
        for (int i = 0; i < n && i < PMU_MAX_PMC; i++) {
            lua_rawgeti(L, -1, i + 1);
            names[i] = lua_tostring(L, -1); /* alive in the list */
            lua_pop(L, 1);
        }
        if (hcp_system_set_pmc(&scratch, names, n, why, sizeof why) != 0) {
            snprintf(msg, msglen, "--%s %s: %s", name, value, why);
            rc = -1;
        }
        break;
    }
    case HCP_OPTK_NAME:
        if (strcmp(key, "platform") == 0 && !hcp_platform_find(value)) {
            snprintf(msg, msglen, "--%s %s: unknown platform (valid: %s)", name, value, hcp_platform_names());
            rc = -1;
        } else if (strcmp(key, "semantics") == 0 && strcmp(value, "documented") != 0 &&
                   strcmp(value, "observed") != 0) {
            snprintf(msg, msglen, "--%s %s: unknown semantics (valid: documented, observed)", name, value);
            rc = -1;
        } else {
            lua_pushstring(L, value);
        }
        break;
    }
    if (rc == 0) lua_setfield(L, t, key);
    lua_settop(L, t - 1);
    return rc;
}

/* The driver: hcp.machine{platform = the image's}, m:process, m:run.  Called
 * with the program's path and arguments (strings); returns the exit status,
 * or raises "message" with lhcp_program_status telling which code it is. */
static int driver(lua_State *L) {
    const char *file = luaL_checkstring(L, 1);
    int nargs = lua_gettop(L) - 1;
    /* the machine type decides the platform: peek at the header */
    uint8_t hdr[4096];
    size_t n = 0;
    FILE *f = fopen(file, "rb");
    if (f) {
        n = fread(hdr, 1, sizeof hdr, f);
        fclose(f);
    }
    /* a header past the first 4 KiB is not x86: m:process then says what is wrong */
    const char *platform = "win10-x64";
    if (n >= 64 && hcp_get32(hdr + 0x3C) < n - 6 && hcp_get16(hdr + hcp_get32(hdr + 0x3C) + 4) == HCP_PE_MACHINE_I386)
        platform = "win7-x86";
    luaL_requiref(L, "hcpsim", luaopen_hcpsim, 0); /* the module registers the machine's methods */
    lua_pop(L, 1);
    lua_pushcfunction(L, lhcp_machine_new);
    lua_createtable(L, 0, 8); /* the command line's machine options, the image's platform by default */
    if (lua_getfield(L, LUA_REGISTRYINDEX, PROGRAM_MACHINE) == LUA_TTABLE) {
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_settable(L, -5);
        }
    }
    lua_pop(L, 1);
    if (lua_getfield(L, -1, "platform") == LUA_TSTRING) { /* --platform: another profile of the image's ISA */
        const hcp_platform *want = hcp_platform_find(lua_tostring(L, -1));
        const hcp_platform *own = hcp_platform_find(platform);
        if (want && want->arch != own->arch)
            return luaL_error(L, "%s is %s code; --platform %s runs %s programs", file, sim_arch_name(own->arch),
                              want->name, sim_arch_name(want->arch));
    } else {
        lua_pushstring(L, platform);
        lua_setfield(L, -3, "platform");
    }
    lua_pop(L, 1);
    /* A program follows Windows 10/11 unless --semantics says otherwise: it was written against
     * Windows and is compared with runs there, where a read with HARDWARE_COUNTERS alone still
     * gives CycleTime (the documented semantics leaves it unwritten: api/README.md "Semantics").
     * A scenario's machine keeps the documented default. */
    if (lua_getfield(L, -1, "semantics") == LUA_TNIL) {
        lua_pushliteral(L, "observed");
        lua_setfield(L, -3, "semantics");
    }
    lua_pop(L, 1);
    /* A program's run is bounded in simulated time: --timeout SECONDS, by default
     * LHCP_PROGRAM_TIMEOUT_S (scenarios/README.md "Limits"), unless --max-cycles sets the bound:
     * max_cycles = SECONDS x the machine's frequency. */
    bool max_cycles = lua_getfield(L, -1, "max_cycles") != LUA_TNIL;
    lua_pop(L, 1);
    uint64_t timeout = (uint64_t)LHCP_PROGRAM_TIMEOUT_S * 1000000000u;
    bool given = lua_getfield(L, LUA_REGISTRYINDEX, PROGRAM_TIMEOUT) == LUA_TNUMBER;
    if (given) timeout = (uint64_t)lua_tointeger(L, -1);
    lua_pop(L, 1);
    if (given && max_cycles)
        return luaL_error(L, "--timeout and --max-cycles both bound the run: give one (--timeout is simulated "
                             "seconds, --max-cycles cycles of each CPU's clock)");
    if (!max_cycles) {
        hcp_system_opts o;
        hcp_system_opts_init(&o, NULL);
        uint64_t freq = o.sim.frequency;
        if (lua_getfield(L, -1, "frequency") == LUA_TNUMBER) freq = (uint64_t)lua_tointeger(L, -1);
        lua_pop(L, 1);
        uint64_t c = sim_mul_div(timeout, freq, 1000000000u);
        lua_pushinteger(L, (lua_Integer)(c == 0 ? 1 : c > INT64_MAX ? INT64_MAX : c));
        lua_setfield(L, -2, "max_cycles");
    }
    lua_call(L, 1, 1);
    int midx = lua_gettop(L);
    if (!max_cycles) lhcp_check_machine(L, midx)->timeout_ns = timeout;
    if (lua_getfield(L, LUA_REGISTRYINDEX, PROGRAM_COUNTERS) == LUA_TTABLE) { /* as a driver would, before the start */
        int list = lua_gettop(L), nc = (int)lua_rawlen(L, list);
        lua_getfield(L, midx, "KeSetHardwareCounterConfiguration");
        lua_pushvalue(L, midx);
        lua_createtable(L, nc, 0);
        for (int i = 1; i <= nc; i++) {
            lua_createtable(L, 0, 2);
            lua_pushinteger(L, PMCCounter);
            lua_setfield(L, -2, "Type");
            lua_rawgeti(L, list, i);
            lua_setfield(L, -2, "Index");
            lua_rawseti(L, -2, i);
        }
        lua_call(L, 2, 1);
        lua_Integer status = lua_tointeger(L, -1);
        if (status != 0)
            return luaL_error(L, "--counters: KeSetHardwareCounterConfiguration returned 0x%08X", (unsigned)status);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    lua_pushcfunction(L, lhcp_m_process);
    lua_pushvalue(L, midx);
    lua_createtable(L, 0, 2);
    const char *slash = strrchr(file, '/'); /* m:process reads a path relative to the "scenario": the program */
    lua_pushstring(L, slash ? slash + 1 : file);
    lua_setfield(L, -2, "path");
    lua_createtable(L, nargs, 0);
    for (int i = 0; i < nargs; i++) {
        lua_pushvalue(L, 2 + i);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "args");
    if (lua_getfield(L, LUA_REGISTRYINDEX, PROGRAM_MISSING) == LUA_TSTRING)
        lua_setfield(L, -2, "missing_imports");
    else
        lua_pop(L, 1);
    lua_pushliteral(L, "."); /* the program's folder is where hcpsim runs, unless --cwd says */
    lua_setfield(L, -2, "cwd");
    if (lua_getfield(L, LUA_REGISTRYINDEX, PROGRAM_PROCESS) == LUA_TTABLE) { /* --cwd, --env, ... */
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_settable(L, -5);
        }
    }
    lua_pop(L, 1);
    if (lua_getfield(L, LUA_REGISTRYINDEX, PROGRAM_DLL_PATH) == LUA_TTABLE) /* --dll-path DIR ... */
        lua_setfield(L, -2, "dll_path");
    else
        lua_pop(L, 1);
    lua_pushliteral(L, "load");
    lua_setfield(L, LUA_REGISTRYINDEX, "hcpsim.program_phase");
    lua_call(L, 2, 1);
    int pidx = lua_gettop(L);
    lua_pushliteral(L, "run");
    lua_setfield(L, LUA_REGISTRYINDEX, "hcpsim.program_phase");
    lua_getfield(L, midx, "run");
    lua_pushvalue(L, midx);
    lua_call(L, 1, 0);
    lua_getfield(L, pidx, "exit_code");
    return 1;
}

int lhcp_load_program(lua_State *L, const char *file) {
    lua_pushcfunction(L, driver);
    lua_pushstring(L, file);
    return LUA_OK;
}

int lhcp_program_failure_status(lua_State *L) {
    if (lua_getfield(L, LUA_REGISTRYINDEX, "hcpsim.program_status") == LUA_TNUMBER) {
        int st = (int)(lua_tointeger(L, -1) & 0xFF); /* a load or start Windows ends with its status */
        lua_pop(L, 1);
        return st;
    }
    lua_pop(L, 1);
    lua_getfield(L, LUA_REGISTRYINDEX, "hcpsim.program_phase");
    const char *ph = lua_tostring(L, -1);
    int st = ph && strcmp(ph, "run") == 0 ? HCP_EXIT_SIMULATION : 2;
    lua_pop(L, 1);
    return st;
}
