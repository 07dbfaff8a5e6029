/* scenarios/lhcp.h — internals shared by the Lua binding files (scenarios/ only).
 * The only folder that embeds Lua. */
#ifndef HCPSIM_LHCP_H
#define HCPSIM_LHCP_H

#include <lauxlib.h>
#include <lua.h>
#include <signal.h>
#include <stdbool.h>

#include "api/hcp_api.h"
#include "api/system.h"
#include "reports/reports.h"
#include "sim/sim.h"

#define LHCP_MACHINE "hcpsim.Machine"
#define LHCP_THREAD "hcpsim.Thread"

typedef struct lmachine {
    sim_machine *m;
    hcp_os *os;
    uint64_t scratch;     /* a guest page for marshalling machine-level calls (Ke*) */
    bool running;         /* inside m:run */
    rep_trace *trace;     /* --trace writer observing this machine, or NULL */
    rep_report *report;   /* --report writer observing this machine, or NULL */
    int max_threads;      /* machine option max_threads: threads created over the machine's life */
    uint64_t max_memory;  /* machine option max_memory: bytes of m:alloc, m:code and m:import_table */
    uint64_t memory_used; /* those bytes so far, each request rounded up to whole 4 KiB pages */
    uint64_t timeout_ns;  /* hcpsim run --timeout of a program (max_cycles in simulated time), 0: none */
    char platform[32];
} lmachine;

typedef struct lthread {
    lmachine *lm;
    sim_thread *t;
    lua_State *co; /* the body's coroutine */
    bool started;
    bool yielding; /* set just before a yield to the driver (our own yields only) */
    bool exiting;  /* t:exit was called */
    uint32_t exit_code;
    uint64_t handle;
    char body_end[192];  /* "FILE:LINE: " of the body's last line ("" for a C body): where it exits */
    bool catch_fault;    /* the guest call in progress is t:pcall_run's: an exception is returned */
    uint32_t fault_code; /* the last guest exception t:pcall_run returned (0: none) ... */
    char fault_msg[512]; /* ... and its info.message */
} lthread;

/* runtime.c */
#define LHCP_DEFAULT_LUA_INSTRUCTIONS INT64_C(5000000000) /* Lua VM instructions per run */
#define LHCP_DEFAULT_LUA_MEMORY (INT64_C(1) << 30)        /* bytes of Lua heap per run: 1 GiB */
/* The limit message for a run that ended with `err`, pushed, when err is the
 * allocator's refusal at the Lua memory limit; NULL (nothing pushed) otherwise. */
const char *lhcp_limit_message(lua_State *L, const char *err);
int lhcp_open_runtime(lua_State *L, const char *script, uint64_t seed, bool allow_io);
void lhcp_limit_hook(lua_State *L);
/* A check the instruction-count hook also makes, every few thousand Lua instructions, in
 * whichever coroutine runs (fn may raise an error there); m:run sets one while a thread body
 * runs.  Returns the check it replaces, for the caller to put back. */
typedef struct lhcp_step {
    void (*fn)(lua_State *L, void *ud);
    void *ud;
} lhcp_step;
lhcp_step lhcp_set_step(lua_State *L, lhcp_step step);
/* How a run ended, for the report's run.status (reports/SCHEMA.md): the place that raises a
 * run-ending error records its kind (a limit names its option, as the report's run.limit) and its
 * message without a position; main.c takes the record when the run's final error ends with that
 * message, so an error a scenario caught with pcall and went past does not count. */
typedef enum {
    LHCP_END_ERROR = 0,      /* any other error: a scenario's, a malformed image, ... */
    LHCP_END_LIMIT,          /* a limit of the run (its option: `limit`) */
    LHCP_END_MISSING_IMPORT, /* a program called an import hcpsim lacks */
    LHCP_END_EXCEPTION,      /* a guest exception nothing handled */
    LHCP_END_DEADLOCK,       /* every thread waits, no timer pending */
    LHCP_END_WARNING,        /* a warning under --werror */
} lhcp_end;
void lhcp_set_end(lua_State *L, lhcp_end kind, const char *limit, const char *msg);
/* luaL_error's twin (the message at luaL_where(L, 1)) that records the ending first. */
int lhcp_end_error(lua_State *L, lhcp_end kind, const char *limit, const char *fmt, ...);
/* The recorded ending when `final` (the run's error message) ends with its message, else
 * LHCP_END_ERROR; *limit the limit's option name or NULL. */
lhcp_end lhcp_end_of(lua_State *L, const char *final, const char **limit);
/* A warning (scenarios/README.md "Warnings"): "WHERE warning: MESSAGE", WHERE being "FILE:LINE: "
 * (NULL: the innermost Lua line).  It goes to the scenario's hcp.on_warning handler when one is
 * set, else it ends the run under --werror (registry boolean "hcpsim.werror"), else to stderr.
 * Only where a Lua error may be raised. */
void lhcp_warn(lua_State *L, const char *where, const char *fmt, ...);
int lhcp_on_warning(lua_State *L); /* hcp.on_warning */
/* Signals and progress (scenarios/README.md "Interrupts and progress").  The CLI's SIGINT/SIGTERM
 * handler sets lhcp_signal; the run stops at its next check: the count hook, each m:run step,
 * each scheduling stop of a guest call (lhcp_poll through sim_set_poll). */
extern volatile sig_atomic_t lhcp_signal;
/* Raises "FILE:LINE: interrupted by SIGINT" when a signal came (level: luaL_where's, or -1 for the
 * innermost Lua line). */
void lhcp_check_interrupt(lua_State *L, int level);
typedef uint64_t (*lhcp_host_clock)(void);
#define LHCP_PROGRESS_AFTER_NS UINT64_C(2000000000) /* the first progress line, then one per interval */
/* The CLI turns progress lines on by giving the host clock (NULL: off, the default). */
void lhcp_set_progress(lhcp_host_clock clock);
/* Whether the run must stop (a signal); prints a progress line when one is due.  Never changes m. */
bool lhcp_poll(sim_machine *m);
void lhcp_charge_instructions(lua_State *L, uint64_t n); /* C work counted against the limit */
/* lorder.c: pairs, next, tostring, print and string.format without host order or addresses */
void lhcp_open_order(lua_State *L);
/* Pushes a sequence of the keys of the table at t in that order (a scan: counted as instructions). */
void lhcp_push_sorted_keys(lua_State *L, int t);
/* The order the object at idx was made in among the scenario's objects (1, 2, ...); 0 when no
 * allocation of the runtime made it (a light C function). runtime.c */
uint64_t lhcp_birth(lua_State *L, int idx);
void lhcp_strict_globals(lua_State *L);
/* after the scenario's globals are set up */ /* installs the instruction-count bound on a coroutine */
int lhcp_tap_status(lua_State *L);            /* 0 all passed, 1 a failure, after the scenario ran */
/* The run's --trace writer (owned by the CLI; it must outlive lua_close), or
 * NULL.  Every machine created after lhcp_set_trace is attached to it. */
void lhcp_set_trace(lua_State *L, rep_trace *tr);
rep_trace *lhcp_trace(lua_State *L);
/* The run's --report writer (owned by the CLI; it must outlive lua_close), or
 * NULL.  Every machine created after lhcp_set_report is attached to it. */
void lhcp_set_report(lua_State *L, rep_report *r);
rep_report *lhcp_report(lua_State *L);
/* Wraps the Windows functions (names starting with an upper-case letter) of
 * the method table at `idx` so that a call made while a --report writer
 * observes the machine is recorded with its arguments and results; `machine`:
 * methods of hcpsim.Machine (else hcpsim.Thread).  Without a report a wrapper
 * calls the function directly. */
void lhcp_report_wrap(lua_State *L, int idx, bool machine);

/* lhcp.c: the `hcpsim` module */
int luaopen_hcpsim(lua_State *L);
/* argument helpers */
lua_Integer lhcp_check_integer(lua_State *L, int arg); /* "integer expected, got X" */
uint32_t lhcp_check_dword(lua_State *L, int arg);
uint64_t lhcp_check_u64(lua_State *L, int arg);
lmachine *lhcp_check_machine(lua_State *L, int arg);
lthread *lhcp_check_thread(lua_State *L, int arg);
void lhcp_check_keys(lua_State *L, int arg, const char *what, const char *const *valid);
/* sim_machine_strerror in the scenario's terms: a limit names its machine option (the option table's
 * range and default); the text may be pushed on the stack. */
const char *lhcp_sim_strerror(lua_State *L, sim_machine *m, sim_err e);
/* Raises "TYPE has no member 'k'", with "(did you mean 'x'?)" when a string key of the table at
 * `names` is a small edit away (api/system.h hcp_suggest). */
_Noreturn void lhcp_no_member(lua_State *L, const char *type, const char *k, int names);

/* lmachine.c / lthread.c */
void lhcp_machine_register(lua_State *L);
void lhcp_thread_register(lua_State *L);
int lhcp_machine_new(lua_State *L);
int lhcp_thread_new(lua_State *L, lmachine *lm, int machine_idx, int spec_idx);
uint64_t lhcp_memory_pages(lua_State *L, lmachine *lm, uint64_t n);
/* Pushes the message of the cycle limit reached on `cpu` (-1: no CPU named), recording the run's
 * ending: "limit reached: N cycles ... (machine option max_cycles ...)", or for a program under
 * --timeout "limit reached: S s of simulated time ... (hcpsim run --timeout SECONDS ...)". */
const char *lhcp_cycle_limit(lua_State *L, lmachine *lm, int cpu);
/* The default --timeout of `hcpsim run PROGRAM.exe`: simulated seconds (scenarios/README.md "Limits"). */
#define LHCP_PROGRAM_TIMEOUT_S 1

/* lprocess.c: m:process and the driver of `hcpsim run PROGRAM.exe` */
int lhcp_m_process(lua_State *L);
int lhcp_check(lua_State *L); /* hcp.check(path) */
void lhcp_process_register(lua_State *L);
/* 1 a PE image ('MZ'), -1 binary but not PE (a NUL byte in the first 512 bytes), 0 else (Lua). */
int lhcp_file_kind(const char *file);
/* Pushes the driver and the program's path: call it with the program's
 * arguments (strings) pushed after, and 1 result, the exit code. */
int lhcp_load_program(lua_State *L, const char *file);
/* Machine options of `hcpsim run [--NAME VALUE...] PROGRAM.exe` (the option table's names, dashes or
 * underscores, and --counters): whether NAME is one; checking and keeping a value for the driver
 * (0, or -1 with the message). */
bool lhcp_is_machine_option(const char *name);
int lhcp_program_option(lua_State *L, const char *name, const char *value, char *msg, size_t msglen);
/* The exit status of a driver that raised an error: 2 (a bad image) or HCP_EXIT_SIMULATION. */
int lhcp_program_failure_status(lua_State *L);

/* embedded Lua sources (generated: build/scenarios/luasrc.c) */
typedef struct lhcp_luasrc {
    const char *name;
    const char *chunkname;
    const char *text;
    size_t len;
} lhcp_luasrc;
extern const lhcp_luasrc lhcp_luasrcs[];

#endif
