/* scenarios/main.c — the hcpsim command line (scenarios/README.md).
 *
 *   hcpsim run [OPTIONS] FILE.lua [ARGS...]   run a scenario (--seed N, --unsafe-io, --trace PATH,
 *                                             --report PATH, --trace-limit N, --report-intervals N,
 *                                             --report-calls N, --lua-instructions N, --lua-memory N)
 *   hcpsim describe [--platform P]           platform profile, PMU events, cost tables
 *   hcpsim version
 *
 * Exit status: 0 the scenario ran and every TAP test passed; 1 a test failed;
 * 2 usage, scenario or simulation error (FILE:LINE: message on stderr). */
#define _POSIX_C_SOURCE 200809L /* isatty, sigaction, unlink */
#include <capstone/capstone.h>
#include <errno.h>
#include <inttypes.h>
#include <lualib.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unicorn/unicorn.h>
#include <unistd.h>

#include <jansson.h>

#include "api/exports.h"
#include "api/pe.h"
#include "api/pe_check.h"
#include "api/platform.h"
#include "scenarios/lhcp.h"

#define EXIT_TESTFAIL 1
#define EXIT_ERROR 2

#include "scenarios/version.h" /* HCPSIM_RELEASE; HCPSIM_GIT, the build's git description */

static void usage(FILE *f) {
    fputs("usage: hcpsim run [--seed N] [--unsafe-io] [--trace PATH] [--report PATH] [--trace-limit N]\n"
          "                  [--report-intervals N] [--report-calls N] [--lua-instructions N]\n"
          "                  [--lua-memory BYTES] FILE.lua [ARGS...]\n"
          "       hcpsim run [MACHINE OPTIONS] [--pmc EV,EV...] [--counters I,I...] [--timeout SECONDS]\n"
          "                  [--missing-imports stop|fail] [--dll-path DIR]...\n"
          "                  [--report PATH] [--trace PATH] PROGRAM.exe [PROGRAM ARGUMENTS...]\n"
          "       hcpsim check [--json] [--dll-path DIR]... PROGRAM.exe\n"
          "       hcpsim describe [--platform P] | --imports\n"
          "       hcpsim version (also --version, -V)\n"
          "       hcpsim diff [--format text|md|json] [--tolerance METRIC=PERCENT]... A.json B.json\n"
          "       hcpsim bench [--rounds R] [WORKLOAD ...] | --one WORKLOAD MODE N\n"
          "       hcpsim help [COMMAND] (also hcpsim COMMAND --help): every option of a command\n"
          "Options after FILE.lua are read until '--'; later words reach the scenario as arg[1..].\n"
          "Every word after PROGRAM.exe is the program's: hcpsim's options go before it.\n"
          "--unsafe-io opens Lua's io library (files): never use it for scenarios you did not write.\n"
          "MACHINE OPTIONS: --NAME VALUE for each option hcpsim describe lists (--cpus 2, --semantics observed).\n",
          f);
}

/* A non-string error object becomes a message naming where it was raised
 * (error() adds no position to a table). */
static int msgh(lua_State *L) {
    if (!lua_isstring(L, 1)) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) return 1;
        lua_Debug ar;
        int level = 1;
        while (lua_getstack(L, level, &ar) && lua_getinfo(L, "Sl", &ar) && ar.currentline <= 0) level++;
        luaL_where(L, level);
        lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
        lua_concat(L, 2);
    }
    return 1;
}

static char *strdup_or_null(const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

static bool parse_u64(const char *s, uint64_t *out) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || !*s || *end || *s == '-') return false;
    *out = v;
    return true;
}

/* A positive integer option: 0, or 2 after the usage message. */
static int opt_positive(int argc, char **argv, int *i, const char *what, uint64_t *out) {
    if (*i + 1 >= argc || !parse_u64(argv[*i + 1], out) || *out == 0 || *out > INT64_MAX) {
        fprintf(stderr, "hcpsim: %s needs a positive integer\n", what);
        return EXIT_ERROR;
    }
    (*i)++;
    return 0;
}

/* The one place that reads the host clock: speed measurement and progress lines, never results. */
static uint64_t host_ns(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* SIGINT/SIGTERM: the run stops at its next check (lhcp_signal) and writes what it has.  A
 * second signal means it did not stop in time: the temporary files go and the process ends. */
static char *tmp_files[2];
static void on_signal(int sig) {
    if (lhcp_signal) {
        for (int i = 0; i < 2; i++)
            if (tmp_files[i]) unlink(tmp_files[i]);
        _exit(128 + sig);
    }
    lhcp_signal = sig;
}

static char *tmp_name(const char *path) {
    if (!path) return NULL;
    size_t n = strlen(path);
    char *t = malloc(n + 5);
    if (t) memcpy(t, path, n), memcpy(t + n, ".tmp", 5);
    return t;
}

/* The report's run.status of an ending the runtime recorded (reports/SCHEMA.md). */
static const char *end_name(lhcp_end e) {
    switch (e) {
    case LHCP_END_LIMIT: return "limit";
    case LHCP_END_MISSING_IMPORT: return "missing-import";
    case LHCP_END_EXCEPTION: return "unhandled-exception";
    case LHCP_END_DEADLOCK: return "deadlock";
    case LHCP_END_WARNING: return "warning";
    case LHCP_END_ERROR: return "error";
    }
    return "error";
}

/* The options hcpsim run reads (machine options aside: lhcp_is_machine_option), one table: it
 * drives the parser, `hcpsim help run`, the unknown-option message and its suggestions (and
 * through those, scenarios/tests/manpage.sh's check of the man page and the completion). */
enum run_opt_id {
    RO_SEED,
    RO_UNSAFE_IO,
    RO_TRACE,
    RO_REPORT,
    RO_TRACE_LIMIT,
    RO_REPORT_INTERVALS,
    RO_REPORT_CALLS,
    RO_LUA_INSTRUCTIONS,
    RO_LUA_MEMORY,
    RO_WERROR,
    RO_PROGRESS,
    RO_NO_PROGRESS,
    NRUN_OPTS
};
static const struct run_opt {
    const char *name, *arg, *help; /* arg NULL: a flag */
} run_table[NRUN_OPTS] = {
    [RO_SEED] = {"--seed", "N", "the scenario seed: math.random starts from it (default 1)"},
    [RO_UNSAFE_IO] = {"--unsafe-io", NULL, "open Lua's io library (files); only for scenarios you wrote"},
    [RO_TRACE] = {"--trace", "PATH", "a Perfetto/Chrome trace-event JSON of the schedule and counters"},
    [RO_REPORT] = {"--report", "PATH", "a run report; its format from the extension: " REP_FORMAT_EXTENSIONS},
    [RO_TRACE_LIMIT] = {"--trace-limit", "N", "events per trace file (default 10000000), then the run ends"},
    [RO_REPORT_INTERVALS] = {"--report-intervals", "N",
                             "schedule intervals kept per machine in the report (then truncated)"},
    [RO_REPORT_CALLS] = {"--report-calls", "N", "API calls kept per machine in the report (then truncated)"},
    [RO_LUA_INSTRUCTIONS] = {"--lua-instructions", "N", "Lua instructions a run may execute (default 5000000000)"},
    [RO_LUA_MEMORY] = {"--lua-memory", "BYTES", "bytes of Lua heap (default 1073741824)"},
    [RO_WERROR] = {"--werror", NULL, "a warning (what the documentation forbids, Windows lets pass) ends the run"},
    [RO_PROGRESS] = {"--progress", NULL, "progress lines on stderr after 2 s of host time (default: on a terminal)"},
    [RO_NO_PROGRESS] = {"--no-progress", NULL, "no progress lines"},
};

static int run_option(const char *a) {
    for (int i = 0; i < NRUN_OPTS; i++)
        if (strcmp(a, run_table[i].name) == 0) return i;
    return -1;
}

static bool is_run_option(const char *a) {
    return run_option(a) >= 0 || (a[0] == '-' && a[1] == '-' && lhcp_is_machine_option(a + 2));
}

/* "--seed N, --unsafe-io, ..." for the unknown-option message. */
static void run_options_list(FILE *f) {
    for (int i = 0; i < NRUN_OPTS; i++)
        fprintf(f, "%s%s%s%s", i ? ", " : "", run_table[i].name, run_table[i].arg ? " " : "",
                run_table[i].arg ? run_table[i].arg : "");
}

/* A program that failed got arguments spelled like hcpsim's own options: they were its own (a
 * program's arguments follow it), which is worth saying once when the user may have meant them
 * for hcpsim. */
static void note_misplaced(const char *file, int n, char **args) {
    char list[256] = "";
    size_t len = 0;
    int found = 0;
    for (int i = 0; i < n; i++) {
        if (!is_run_option(args[i])) continue;
        if (found < 4) len += (size_t)snprintf(list + len, sizeof list - len, "%s'%s'", found ? ", " : "", args[i]);
        if (len >= sizeof list) len = sizeof list - 1;
        found++;
    }
    if (!found) return;
    const char *slash = strrchr(file, '/');
    fflush(stdout);
    fprintf(stderr,
            "hcpsim: note: %s%s went to %s as %s argument%s: hcpsim reads its own options only before the program "
            "(hcpsim run [OPTIONS] PROGRAM.exe [PROGRAM ARGUMENTS...])\n",
            list, found > 4 ? ", ..." : "", slash ? slash + 1 : file, found > 1 ? "its" : "its own",
            found > 1 ? "s" : "");
}

static int cmd_run(int argc, char **argv) {
    uint64_t seed = 1, trace_limit = REP_TRACE_DEFAULT_LIMIT, lua_instructions = LHCP_DEFAULT_LUA_INSTRUCTIONS,
             lua_memory = LHCP_DEFAULT_LUA_MEMORY, report_intervals = REP_REPORT_MAX_INTERVALS,
             report_calls = REP_REPORT_MAX_CALLS;
    bool unsafe_io = false, opts = true, werror = false;
    int progress = -1; /* --progress 1, --no-progress 0, else: stderr is a terminal */
    const char *file = NULL, *trace_path = NULL, *report_path = NULL;
    rep_format report_fmt = REP_FORMAT_JSON;
    int first_arg = argc;
    char **sargs = calloc((size_t)argc + 1, sizeof *sargs);
    char **mopts = calloc((size_t)argc + 1, sizeof *mopts); /* machine options: name, value, ... */
    int nsargs = 0, nmopts = 0;
    if (!sargs || !mopts) {
        free(sargs);
        free(mopts);
        return EXIT_ERROR;
    }
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (opts && strcmp(a, "--") == 0) {
            opts = false;
        } else if (opts && run_option(a) >= 0) {
            int id = run_option(a);
            const struct run_opt *o = &run_table[id];
            if (o->arg && (i + 1 >= argc || !argv[i + 1][0]) && strcmp(o->arg, "PATH") == 0) {
                fprintf(stderr, "hcpsim: %s needs a file path%s\n", a,
                        id == RO_REPORT ? " ending in " REP_FORMAT_EXTENSIONS : "");
                free(sargs);
                free(mopts);
                return EXIT_ERROR;
            }
            uint64_t *v = NULL;
            bool bad = false;
            switch ((enum run_opt_id)id) {
            case RO_SEED:
                if (i + 1 >= argc || !parse_u64(argv[i + 1], &seed)) {
                    fprintf(stderr, "hcpsim: --seed needs a non-negative integer\n");
                    bad = true;
                }
                i++;
                break;
            case RO_UNSAFE_IO: unsafe_io = true; break;
            case RO_WERROR: werror = true; break;
            case RO_PROGRESS: progress = 1; break;
            case RO_NO_PROGRESS: progress = 0; break;
            case RO_TRACE: trace_path = argv[++i]; break;
            case RO_REPORT:
                report_path = argv[++i];
                if (rep_report_format(report_path, &report_fmt) != 0) {
                    fprintf(stderr, "hcpsim: --report %s: unknown report format (the extension must be one of %s)\n",
                            report_path, REP_FORMAT_EXTENSIONS);
                    bad = true;
                }
                break;
            case RO_TRACE_LIMIT: v = &trace_limit; break;
            case RO_REPORT_INTERVALS: v = &report_intervals; break;
            case RO_REPORT_CALLS: v = &report_calls; break;
            case RO_LUA_INSTRUCTIONS: v = &lua_instructions; break;
            case RO_LUA_MEMORY: v = &lua_memory; break;
            case NRUN_OPTS: break;
            }
            if (v && opt_positive(argc, argv, &i, a, v)) bad = true;
            if (bad) {
                free(sargs);
                free(mopts);
                return EXIT_ERROR;
            }
        } else if (opts && a[0] == '-' && a[1] == '-' && lhcp_is_machine_option(a + 2)) {
            if (i + 1 >= argc) { /* checked once Lua is up (lhcp_program_option) */
                fprintf(stderr, "hcpsim: %s needs a value (hcpsim describe: machine options)\n", a);
                free(sargs);
                free(mopts);
                return EXIT_ERROR;
            }
            mopts[nmopts++] = argv[i] + 2;
            mopts[nmopts++] = argv[++i];
        } else if (opts && a[0] == '-' && a[1] == '-') {
            const char *names[NRUN_OPTS];
            for (int k = 0; k < NRUN_OPTS; k++) names[k] = run_table[k].name;
            const char *near = hcp_suggest(a, names, NRUN_OPTS);
            char mnear[80] = "";
            const char *opt = near ? NULL : hcp_option_suggest(a + 2);
            if (opt) { /* a machine option, as --name-with-dashes */
                snprintf(mnear, sizeof mnear, "--%s", opt);
                for (char *c = mnear + 2; *c; c++)
                    if (*c == '_') *c = '-';
                near = mnear;
            }
            fprintf(stderr, "hcpsim: unknown option '%s'%s%s%s (valid: ", a, near ? " (did you mean '" : "",
                    near ? near : "", near ? "'?)" : "");
            run_options_list(stderr);
            fprintf(stderr, ", --; machine options for programs: hcpsim help run)\n");
            free(sargs);
            free(mopts);
            return EXIT_ERROR;
        } else if (!file) {
            file = a;
            first_arg = i + 1;
            /* A program's own arguments follow it, whatever they look like (as valgrind and wine
             * read theirs): hcpsim's options go before the program.  A scenario's options may
             * also follow FILE.lua, up to '--'. */
            if (lhcp_file_kind(a) > 0) opts = false;
        } else {
            sargs[nsargs++] = argv[i];
        }
    }
    (void)first_arg;
    if (!file) {
        fprintf(stderr, "hcpsim: run needs a scenario file\n");
        usage(stderr);
        free(sargs);
        free(mopts);
        return EXIT_ERROR;
    }
    /* The trace file is opened before anything runs, so a bad path costs nothing. */
    rep_trace *trace = NULL;
    if (trace_path && !(trace = rep_trace_open(trace_path))) {
        fprintf(stderr, "hcpsim: --trace %s: %s\n", trace_path, strerror(errno));
        free(sargs);
        free(mopts);
        return EXIT_ERROR;
    }
    rep_trace_set_limit(trace, trace_limit);
    rep_report *report = NULL;
    if (report_path && !(report = rep_report_open(report_path, report_fmt))) {
        fprintf(stderr, "hcpsim: --report %s: %s\n", report_path, strerror(errno));
        free(sargs);
        free(mopts);
        rep_trace_close(trace, NULL);
        return EXIT_ERROR;
    }
    rep_report_set_limits(report, report_intervals, report_calls);
    rep_report_set_run(report, file, seed, nsargs, sargs);
    lua_State *L = luaL_newstate();
    if (!L) {
        fprintf(stderr, "hcpsim: out of memory\n");
        free(sargs);
        free(mopts);
        rep_trace_close(trace, "out of memory");
        rep_report_close(report, EXIT_ERROR, "out of memory");
        return EXIT_ERROR;
    }
    lua_pushinteger(L, (lua_Integer)lua_instructions);
    lua_setfield(L, LUA_REGISTRYINDEX, "hcpsim.lua_limit");
    lua_pushinteger(L, (lua_Integer)lua_memory);
    lua_setfield(L, LUA_REGISTRYINDEX, "hcpsim.memory_limit");
    lua_pushboolean(L, werror);
    lua_setfield(L, LUA_REGISTRYINDEX, "hcpsim.werror");
    if (progress < 0) progress = isatty(STDERR_FILENO);
    lhcp_set_progress(progress ? host_ns : NULL);
    tmp_files[0] = tmp_name(trace_path);
    tmp_files[1] = tmp_name(report_path);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    lhcp_open_runtime(L, file, seed, unsafe_io);
    lhcp_set_trace(L, trace);
    lhcp_set_report(L, report);
    lua_createtable(L, nsargs, 1);
    lua_pushstring(L, file);
    lua_rawseti(L, -2, 0);
    for (int i = 0; i < nsargs; i++) {
        lua_pushstring(L, sargs[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setglobal(L, "arg");
    for (int i = 0; i < nmopts; i += 2) {
        char msg[1024];
        if (lhcp_program_option(L, mopts[i], mopts[i + 1], msg, sizeof msg) != 0) {
            fprintf(stderr, "hcpsim: %s\n", msg);
            nmopts = -1;
            break;
        }
    }
    free(mopts);
    if (nmopts > 0 && lhcp_file_kind(file) <= 0) {
        fprintf(stderr,
                "hcpsim: %s: machine options on the command line are for Windows programs; a scenario sets "
                "them in hcp.machine{}\n",
                file);
        nmopts = -1;
    }
    if (nmopts < 0) {
        free(sargs);
        lua_close(L);
        rep_trace_close(trace, "usage error");
        rep_report_close(report, EXIT_ERROR, "usage error");
        return EXIT_ERROR;
    }
    int status = 0;
    char *errmsg = NULL;                         /* the failure, for the report and the trace */
    const char *end = "complete", *limit = NULL; /* how the run ended: the report's run.status */
    bool has_code = false;
    uint32_t code = 0;
    lua_pushcfunction(L, msgh);
    int kind = lhcp_file_kind(file); /* a Windows program runs under the built-in driver (lprocess.c) */
    int st = kind > 0 ? lhcp_load_program(L, file) : luaL_loadfilex(L, file, "t");
    if (kind < 0) {
        lua_pushfstring(L, "%s: neither a Lua scenario (text) nor a Windows program (a PE image starts with 'MZ')",
                        file);
        st = LUA_ERRSYNTAX;
    }
    if (st == LUA_OK) {
        lhcp_strict_globals(L);
        for (int i = 0; kind > 0 && i < nsargs; i++) lua_pushstring(L, sargs[i]);
        st = lua_pcall(L, kind > 0 ? 1 + nsargs : 0, kind > 0 ? 1 : 0, 1);
        if (st != LUA_OK && kind > 0) { /* the program's failure: hcpsim's own exit status */
            status = lhcp_program_failure_status(L);
            const char *msg = lua_tostring(L, -1);
            end = end_name(lhcp_end_of(L, msg, &limit));
            if (strcmp(end, "warning") == 0) end = "error", status = EXIT_ERROR; /* --werror: as for a scenario */
            fflush(stdout);
            fprintf(stderr, "hcpsim: %s\n", msg ? msg : "(error object is not a string)");
            errmsg = strdup_or_null(msg);
            lua_pop(L, 1);
            st = LUA_OK;
        } else if (kind > 0) {
            code = (uint32_t)lua_tointeger(L, -1);
            status = (int)(code & 0xFF);
            end = "exited", has_code = true;
            lua_pop(L, 1);
        }
        if (kind > 0 && status != 0) note_misplaced(file, nsargs, sargs);
    }
    free(sargs);
    if (st != LUA_OK) {
        fflush(stdout);
        const char *msg = lua_tostring(L, -1);
        /* lua_load names no file when it refuses a binary chunk */
        if (msg && strncmp(msg, "attempt to load a binary chunk", 30) == 0)
            msg = lua_pushfstring(L, "%s: %s (hcpsim runs Lua source only)", file, msg);
        /* a refused allocation carries no position: it is named as the limit, after the file */
        const char *lim = lhcp_limit_message(L, msg);
        end = end_name(lhcp_end_of(L, msg, &limit));
        if (lim) msg = lua_pushfstring(L, "%s: %s", file, lim), end = "limit", limit = "lua_memory";
        if (strcmp(end, "warning") == 0) end = "error";
        fprintf(stderr, "%s\n", msg ? msg : "(error object is not a string)");
        status = EXIT_ERROR;
        errmsg = strdup_or_null(msg);
    } else if (rep_trace_full(trace)) {
        /* Records were dropped where no m:run step checked (outside m:run): the run still ends at
         * the limit, named after the file as no line caused it. */
        const char *msg = lua_pushfstring(L, "%s: " REP_TRACE_LIMIT_MESSAGE, file, (lua_Integer)rep_trace_limit(trace),
                                          (lua_Integer)REP_TRACE_DEFAULT_LIMIT);
        fflush(stdout);
        fprintf(stderr, "%s\n", msg);
        status = EXIT_ERROR;
        errmsg = strdup_or_null(msg);
        end = "limit", limit = "trace_limit", has_code = false;
    } else if (kind <= 0) {
        status = lhcp_tap_status(L) ? EXIT_TESTFAIL : 0;
    }
    if (lhcp_signal) { /* interrupted: 130 (SIGINT), 143 (SIGTERM) */
        status = 128 + lhcp_signal;
        end = "interrupted", limit = NULL, has_code = false;
    }
    rep_report_set_end(report, end, limit, has_code, code);
    fflush(stdout);
    lua_close(L); /* frees the machines, which closes their open trace spans */
    /* The trace of what ran is written whatever the scenario's status, marked partial after an error. */
    int terr = rep_trace_close(trace, status == EXIT_ERROR || lhcp_signal ? errmsg : NULL);
    if (terr) {
        fprintf(stderr, "hcpsim: --trace %s: %s\n", trace_path, strerror(terr));
        status = EXIT_ERROR;
    }
    /* So is the report: a failed run's report says it is partial. */
    int rerr = rep_report_close(report, status, errmsg);
    free(errmsg);
    if (rerr) {
        fprintf(stderr, "hcpsim: --report %s: %s\n", report_path, strerror(rerr));
        status = EXIT_ERROR;
    }
    free(tmp_files[0]);
    free(tmp_files[1]);
    tmp_files[0] = tmp_files[1] = NULL;
    return status;
}

/* ---- describe ----------------------------------------------------------------------------- */
/* hcpsim describe prints what the tables hold (a platform's row, the option table with each
 * default, the limits it holds, the PMU model's parameters) and in prose only what no table
 * says: the scheduler's rules in brief and what counts against each limit. */

static const hcp_option *option(const char *name) { return hcp_option_find(name); }

/* "LABEL TEXT": the label padded to column `indent`, every '\n' of TEXT followed by `indent` spaces. */
static void row(int indent, const char *label, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void row(int indent, const char *label, const char *fmt, ...) {
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    printf("%-*s", indent, label);
    for (const char *p = text; *p; p++) {
        putchar(*p);
        if (*p == '\n') printf("%*s", indent, "");
    }
    putchar('\n');
}

/* A platform profile, one line per field of its row (api/platform.c). */
static void describe_platform(const hcp_platform *p) {
    unsigned ptr = hcp_platform_ptr_size(p);
    row(14, "platform", "%s: %s", p->name, p->description);
    row(14, "isa", "%s, %u-byte pointers; %s", sim_arch_name(p->arch), ptr, p->callconv);
    row(14, "hcp", "%s",
        p->hcp ? "EnableThreadProfiling, QueryThreadProfiling, ReadThreadProfilingData, DisableThreadProfiling, "
                 "KeSet/KeQueryHardwareCounterConfiguration"
               : "absent: the four functions fail with ERROR_CALL_NOT_IMPLEMENTED (120) and set the last error to "
                 "it, Ke* return STATUS_NOT_IMPLEMENTED (0xC0000002)");
    row(14, "semantics", "documented (default) | observed");
    row(14, "observed", "semantics = \"observed\" follows %s", p->observed);
    row(14, "handles", "%u bytes in guest memory (PerformanceDataHandle, HANDLE arrays)%s", ptr,
        ptr == 4 ? "; (HANDLE)-2 = 0xFFFFFFFE" : "");
    row(14, "thread times", "%s",
        p->times == HCP_TIMES_CE
            ? "Windows CE 2.10-2.12 rules (HCP-SPEC §8.2, seed 004): CreationTime, ExitTime, KernelTime 0;\n"
              "UserTime = total run time (user + kernel), 0 after the thread exited (simulator-defined)"
            : "Windows NT rules (HCP-SPEC §8.1): creation/exit = boot time + clock; user = ticks taken while\n"
              "running x tick; kernel = API-call kernel cycles in 100 ns, rounded down to whole ticks\n"
              "(api/README.md)");
    row(14, "query access", "GetThreadTimes, QueryThreadCycleTime need %s",
        p->query_limited ? "THREAD_QUERY_LIMITED_INFORMATION (0x800) or THREAD_QUERY_INFORMATION (0x40)"
                         : "THREAD_QUERY_INFORMATION (0x40); THREAD_QUERY_LIMITED_INFORMATION does not exist");
    row(14, "cycle time", "%s",
        p->cycle_time ? "QueryThreadCycleTime (Vista+, HCP-SPEC §8.4)"
                      : "absent: QueryThreadCycleTime fails with ERROR_CALL_NOT_IMPLEMENTED");
    if (p->times != HCP_TIMES_CE) /* CE runs no Windows NT programs */
        row(14, "user sync", "%s",
            p->win8 ? "Windows 8+: SRW locks, condition variables, WaitOnAddress wait WrAlertByThreadId (37);\n"
                      "CRITICAL_SECTION DebugInfo (PRTL_CRITICAL_SECTION_DEBUG)-1; 4080 FLS slots (api/README.md)"
                    : "Windows 7: SRW locks, condition variables, WaitOnAddress wait WrKeyedEvent (21);\n"
                      "CRITICAL_SECTION DebugInfo a debug block; 128 FLS slots (api/README.md)");
}

/* The kernel logger and each Thread event class's payload, from the layouts api/etw.c writes. */
static void describe_logger(const hcp_platform *p) {
    if (!p->etw) {
        row(14, "kernel logger", "none: m:trace fails naming the platform (StartTrace: ERROR_NOT_SUPPORTED)");
        return;
    }
    unsigned ptr = hcp_platform_ptr_size(p);
    const hcp_option *ver = option("etw_thread_version");
    row(14, "kernel logger",
        "NT Kernel Logger, %u-bit: pointer-sized payload fields are %u bytes; Thread events of\n"
        "class version %d by default (machine option etw_thread_version = %" PRId64 "..%" PRId64 "); CSwitch and\n"
        "ReadyThread are class Thread_V2 (version 2)",
        ptr * 8, ptr, p->etw_thread_version, ver->lo, ver->hi);
    static const uint8_t types[] = {EVENT_TRACE_TYPE_START, EVENT_TRACE_TYPE_END, EVENT_TRACE_TYPE_CSWITCH,
                                    EVENT_TRACE_TYPE_READYTHREAD};
    for (int v = 3; v >= 0; v--) {
        for (size_t i = 0; i < sizeof types; i++) {
            if (v != 3 && types[i] > EVENT_TRACE_TYPE_END) continue;
            if (v != 1 && types[i] == EVENT_TRACE_TYPE_END) continue; /* the same class as Start */
            hcp_etw_field f[16];
            int n = hcp_etw_layout(v, ptr, types[i], f, NULL);
            printf("  %-22s %2u bytes:", hcp_etw_payload_class(v, types[i]),
                   (unsigned)(f[n - 1].offset + f[n - 1].size));
            int col = 36;
            for (int j = 0; j < n; j++) {
                char item[64];
                int len = snprintf(item, sizeof item, " %s@%u", f[j].name, (unsigned)f[j].offset);
                if (col + len > 110) {
                    printf("\n%36s", "");
                    col = 36;
                }
                fputs(item, stdout);
                col += len;
            }
            printf("\n");
        }
    }
}

/* The scheduler's rules in brief (sim/README.md states them all), with this machine's numbers. */
static void describe_scheduler(const sim_config *c) {
    uint64_t tick = sim_mul_div(c->tick, c->frequency, 10000000u);
    printf("\nscheduler (sim/README.md states every rule)\n");
    row(20, "  tick",
        "%u x 100 ns = %" PRIu64 " cycles; clock interrupt costs %u cycles (interrupt time, not\n"
        "charged to the running thread)",
        c->tick, tick, c->interrupt_cycles);
    row(20, "  quantum", "%u ticks = %" PRIu64 " cycles of the thread's own time, checked at each tick", c->quantum,
        tick * c->quantum);
    row(20, "  priorities", "0-31, default 8, FIFO ready queue per priority; no boost, no decay");
    row(20, "  quantum end",
        "to the tail of its queue when a ready thread of equal or higher priority\n"
        "may run there (WrQuantumEnd)");
    row(20, "  preemption",
        "a readied higher-priority thread takes the CPU at its next block\n"
        "boundary; the preempted thread goes to the head of its queue (WrPreempted)");
    row(20, "  waits",
        "Sleep (DelayExecution), waits on objects (UserRequest), SwitchToThread and\n"
        "Sleep(0) (WrYieldExecution); timeouts resolve at CPU 0's ticks");
    row(20, "  several CPUs",
        "one host thread; the CPU furthest behind steps next; lock-step rounds of\n"
        "%" PRIu64 " cycles; an idle CPU leaves a thread to its idle ideal processor; each CPU\n"
        "has its own predictor and caches",
        c->slice);
}

/* The limits of a run.  The machine options' defaults and maxima come from the option table; the
 * text says what counts against each and what happens at it, which no table holds. */
static void describe_limits(const hcp_system_opts *o) {
    static const struct {
        const char *label, *option, *unit, *what;
    } limits[] = {
        {"threads", "max_threads", "", ""},
        {"guest memory", "max_memory", " bytes",
         ": what\n"
         "m:alloc, m:code and m:import_table place; the OS heap (profiling blocks) is 64 MiB\n"
         "(machine option os_heap, smaller only): when it is full EnableThreadProfiling fails with\n"
         "ERROR_NOT_ENOUGH_MEMORY, as on Windows"},
        {"handles", "max_handles", " open",
         "; a full table\n"
         "is Windows-visible: OpenThread fails with ERROR_NO_SYSTEM_RESOURCES (1450)"},
        {"guest mappings", "max_mappings", "",
         ": each m:alloc, m:code\n"
         "and m:import_table block, and each stack slot (as many as threads were inside\n"
         "guest calls at once); n of them cost host time as n^3 (sim/README.md \"Guest memory\")"},
        {"trap points", "max_trap_points", "",
         ": places in m:code's\n"
         "bytes where an instruction the engine must not translate may start; each costs\n"
         "host time on every guest call (sim/README.md \"Faults\")"},
    };
    printf("\nlimits (scenarios/README.md \"Limits\"): past one the run ends, status 2, \"limit reached: ...\"; the\n"
           "trace and report are still written, marked partial\n");
    row(20, "  cycles", "%llu per CPU clock (machine option max_cycles, or m:run{max_cycles = N})",
        (unsigned long long)SIM_DEFAULT_MAX_CYCLES);
    row(20, "  program time",
        "%d s of simulated time for hcpsim run PROGRAM.exe (--timeout SECONDS; it sets\n"
        "max_cycles = SECONDS x frequency)",
        LHCP_PROGRAM_TIMEOUT_S);
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
        const hcp_option *opt = option(limits[i].option);
        char label[32];
        snprintf(label, sizeof label, "  %s", limits[i].label);
        row(20, label, "%" PRId64 "%s per machine (machine option %s, at most %" PRId64 ")%s", hcp_option_get(o, opt),
            limits[i].unit, opt->name, opt->hi, limits[i].what);
    }
    row(20, "  Lua instructions", "%lld per run (hcpsim run --lua-instructions N)",
        (long long)LHCP_DEFAULT_LUA_INSTRUCTIONS);
    row(20, "  Lua memory", "%lld bytes per run (hcpsim run --lua-memory BYTES)", (long long)LHCP_DEFAULT_LUA_MEMORY);
    row(20, "  trace events", "%llu per --trace file (hcpsim run --trace-limit N)",
        (unsigned long long)REP_TRACE_DEFAULT_LIMIT);
    row(20, "  report lists",
        "%d schedule intervals and %d API calls per machine (hcpsim run\n"
        "--report-intervals N, --report-calls N), then truncated: not an error, the\n"
        "totals stay exact and the run goes on",
        REP_REPORT_MAX_INTERVALS, REP_REPORT_MAX_CALLS);
}

/* The machine options, from the option table: name, range or syntax, default, unit, what it is. */
static void describe_options(const hcp_system_opts *o) {
    printf("\nmachine options (hcp.machine{...}; checked in this order)\n");
    for (int i = 0; hcp_option_at(i); i++) {
        const hcp_option *opt = hcp_option_at(i);
        char range[96];
        if (opt->kind == HCP_OPTK_INT)
            snprintf(range, sizeof range, "%" PRId64 "..%" PRId64 ", default %" PRId64 "%s%s", opt->lo, opt->hi,
                     hcp_option_get(o, opt), *opt->unit ? " " : "", opt->unit);
        else if (opt->kind == HCP_OPTK_BOOL)
            snprintf(range, sizeof range, "true | false, default %s", hcp_option_get(o, opt) ? "true" : "false");
        else
            snprintf(range, sizeof range, "%s", opt->syntax ? opt->syntax : hcp_platform_names());
        printf("  %-19s %s\n  %-19s %s\n", opt->name, opt->doc, "", range);
    }
}

static int describe_imports(void);

static int cmd_describe(int argc, char **argv) {
    const char *platform = "win10-x64";
    bool imports = false, given = false;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--platform") == 0 && i + 1 < argc) {
            platform = argv[++i];
            given = true;
        } else if (strcmp(argv[i], "--platform") == 0) {
            fprintf(stderr, "hcpsim: describe: --platform needs a platform name (valid: %s)\n", hcp_platform_names());
            return EXIT_ERROR;
        } else if (strcmp(argv[i], "--imports") == 0) {
            imports = true;
        } else {
            fprintf(stderr, "hcpsim: describe: unknown argument '%s' (valid: --platform P, --imports)\n", argv[i]);
            return EXIT_ERROR;
        }
    }
    if (imports && given) {
        fprintf(stderr, "hcpsim: describe: --imports takes no --platform (the import table is the same on every "
                        "platform that runs programs)\n");
        return EXIT_ERROR;
    }
    if (imports) return describe_imports();
    const hcp_platform *plat = hcp_platform_find(platform);
    if (!plat) {
        fprintf(stderr, "hcpsim: unknown platform '%s' (valid: %s)\n", platform, hcp_platform_names());
        return EXIT_ERROR;
    }
    hcp_system_opts o;
    hcp_system_opts_init(&o, plat);
    describe_platform(plat);
    describe_logger(plat);
    describe_scheduler(&o.sim);
    describe_limits(&o);
    printf("\n");
    pmu_describe(stdout, &o.sim.cost, plat->name);
    describe_options(&o);
    return 0;
}

/* One row of `hcpsim describe --imports`: its signature as the export spec writes it. */
static void describe_signature(const hcp_export *e, char *out, size_t cap) {
    size_t k = 0;
    if (e->kind == HCP_EXPORT_DATA || e->kind == HCP_EXPORT_GUEST) {
        snprintf(out, cap, "%s", e->kind == HCP_EXPORT_DATA ? "(a variable)" : "(guest code)");
        return;
    }
    k += (size_t)snprintf(out + k, cap - k, "%s %s(", e->conv == HCP_CC_STDCALL ? "stdcall" : "cdecl", e->name);
    for (int i = 0; i < e->nparams && k < cap; i++)
        k += (size_t)snprintf(out + k, cap - k, "%s%s%s%s", i ? ", " : "", hcp_type_name(e->params[i].type),
                              e->params[i].type == HCP_T_VARARGS ? "" : " ",
                              e->params[i].type == HCP_T_VARARGS ? "" : e->params[i].name);
    if (k < cap) snprintf(out + k, cap - k, ") %s", hcp_type_name(e->ret));
}

/* hcpsim describe --imports: the export table of the simulated system DLLs (api/exports.spec),
 * DLL by DLL in ordinal order. */
static int describe_imports(void) {
    int n = 0;
    for (int i = 0; hcp_export_at(i); i++) n += !(hcp_export_at(i)->flags & HCP_EX_INTERNAL);
    printf("import table: %d rows; a program's import of anything else loads, and calling it stops the run\n"
           "(status %d). cost: what a call adds for the caller besides its thunk's 3 user instructions\n"
           "(api/README.md \"Windows programs\")\n\n",
           n, HCP_EXIT_SIMULATION);
    printf("%-13s %7s  %-28s %-11s %-13s %-22s %s\n", "dll", "ordinal", "function", "kind", "implemented", "cost",
           "signature");
    for (int d = 0; hcp_export_dll_at(d); d++) {
        const char *dll = hcp_export_dll_at(d);
        int last = 0;
        for (;;) { /* the next ordinal of this DLL: rows are few, a scan per row is cheap */
            const hcp_export *next = NULL;
            for (int i = 0; hcp_export_at(i); i++) {
                const hcp_export *e = hcp_export_at(i);
                if (strcmp(e->dll, dll) == 0 && !(e->flags & HCP_EX_INTERNAL) && e->ordinal > last &&
                    (!next || e->ordinal < next->ordinal))
                    next = e;
            }
            if (!next) break;
            last = next->ordinal;
            static const char *const kinds[] = {"function", "stub", "data", "guest code"};
            char sig[512];
            describe_signature(next, sig, sizeof sig);
            printf("%-13s %7d  %-28s %-11s %-13s %-22s %s\n", next->dll, next->ordinal, next->name, kinds[next->kind],
                   hcp_export_does(next), hcp_export_cost(next), sig);
        }
    }
    return 0;
}

/* ---- check ------------------------------------------------------------------------------------ */

/* The file's bytes (at most twice the largest image), or NULL with the message printed. */
static uint8_t *read_image(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "hcpsim: check: cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    size_t limit = (size_t)HCP_PE_MAX_IMAGE * 2;
    uint8_t *b = malloc(limit + 1);
    *n = b ? fread(b, 1, limit + 1, f) : 0;
    bool bad = ferror(f);
    fclose(f);
    if (!b || bad || *n > limit) {
        fprintf(stderr, "hcpsim: check: %s: %s\n", path,
                !b    ? "out of host memory"
                : bad ? "cannot read the file"
                      : "larger than twice hcpsim's largest image");
        free(b);
        return NULL;
    }
    return b;
}

static json_t *check_counts(const int *n) {
    json_t *o = json_object();
    json_object_set_new(o, "implemented", json_integer(n[HCP_IMP_IMPLEMENTED]));
    json_object_set_new(o, "no_op", json_integer(n[HCP_IMP_NOOP]));
    json_object_set_new(o, "never_called", json_integer(n[HCP_IMP_NEVER_CALLED]));
    json_object_set_new(o, "missing", json_integer(n[HCP_IMP_MISSING]));
    return o;
}

static json_t *nullable(const char *s) { return s ? json_string(s) : json_null(); }

/* hcpsim check --json: the same facts as one document (scenarios/README.md "Checking a program"). */
static int check_json(const hcp_check *c, const char *verdict) {
    json_t *d = json_object(), *dlls = json_array(), *missing = json_array(), *notfound = json_array();
    json_object_set_new(d, "schema", json_string("hcpsim-check"));
    json_object_set_new(d, "version", json_integer(1));
    json_object_set_new(d, "image", json_string(c->image));
    json_object_set_new(d, "machine", json_string(c->machine));
    json_object_set_new(d, "platform", json_string(c->platform));
    json_object_set_new(d, "counts", check_counts(c->n));
    for (int k = 0; k < c->ndlls; k++) {
        const hcp_check_dll *dl = &c->dlls[k];
        json_t *o = json_object(), *imps = json_array();
        json_object_set_new(o, "name", json_string(dl->name));
        json_object_set_new(o, "by", json_string(dl->by));
        json_object_set_new(o, "found", nullable(dl->found));
        json_object_set_new(o, "image", json_boolean(dl->image));
        json_object_set_new(o, "problem", nullable(dl->problem));
        json_object_set_new(o, "counts", check_counts(dl->n));
        if (!dl->found) json_array_append_new(notfound, json_string(dl->name));
        for (int i = dl->first; i < dl->first + dl->count; i++) {
            const hcp_check_import *im = &c->imports[i];
            json_t *e = json_object();
            json_object_set_new(e, "name", json_string(im->name));
            json_object_set_new(e, "ordinal", im->ordinal >= 0 ? json_integer(im->ordinal) : json_null());
            json_object_set_new(e, "state", json_string(hcp_check_state_name(im->state)));
            json_object_set_new(e, "kind", nullable(im->kind));
            json_object_set_new(e, "note", nullable(im->note));
            json_array_append_new(imps, e);
            if (im->state == HCP_IMP_MISSING) {
                char full[200];
                snprintf(full, sizeof full, "%s!%s", dl->name, im->name);
                json_array_append_new(missing, json_string(full));
            }
        }
        json_object_set_new(o, "imports", imps);
        json_array_append_new(dlls, o);
    }
    json_object_set_new(d, "dlls", dlls);
    json_object_set_new(d, "missing", missing);
    json_object_set_new(d, "dlls_not_found", notfound);
    json_object_set_new(d, "runs", json_boolean(c->n[HCP_IMP_MISSING] == 0 && !c->start_status));
    json_object_set_new(d, "start_status", c->start_status ? json_integer(c->start_status) : json_null());
    json_object_set_new(d, "start_error", nullable(c->start_error));
    json_object_set_new(d, "verdict", json_string(verdict));
    int rc = json_dumpf(d, stdout, JSON_INDENT(1) | JSON_SORT_KEYS);
    putchar('\n');
    json_decref(d);
    return rc;
}

static void check_text(const hcp_check *c, const char *verdict) {
    printf("%s: %s program (hcpsim run uses %s); %d import%s from %d DLL%s\n", c->image, c->machine, c->platform,
           c->nimports, c->nimports == 1 ? "" : "s", c->ndlls, c->ndlls == 1 ? "" : "s");
    for (int k = 0; k < c->ndlls; k++) {
        const hcp_check_dll *dl = &c->dlls[k];
        if (strcmp(dl->by, c->image) != 0) printf("%s imports ", dl->by); /* a DLL image's own imports */
        if (!dl->found && dl->windows)
            printf("%s: not found: a Windows DLL hcpsim does not simulate (it loads, its functions missing)", dl->name);
        else if (!dl->found)
            printf("%s: not found: not a system DLL hcpsim simulates, and no folder has it (the run does not start)",
                   dl->name);
        else if (dl->image && dl->problem)
            printf("%s: found: %s, which cannot load (%s)", dl->name, dl->found, dl->problem);
        else if (dl->image)
            printf("%s: found: the DLL image %s", dl->name, dl->found);
        else if (strcasecmp(dl->found, dl->name) == 0)
            printf("%s: found: a system DLL hcpsim simulates", dl->name);
        else /* another spelling, or an API-set name Windows resolves to it */
            printf("%s: found: hcpsim's %s serves it", dl->name, dl->found);
        printf("; %d import%s:", dl->count, dl->count == 1 ? "" : "s");
        static const char *const label[HCP_IMP_STATES][2] = {{"implemented", "implemented"},
                                                             {"no-op", "no-ops"},
                                                             {"never called", "never called"},
                                                             {"missing", "missing"}};
        for (int s = 0, first = 1; s < HCP_IMP_STATES; s++)
            if (dl->n[s]) printf("%s %d %s", first ? "" : ",", dl->n[s], label[s][dl->n[s] != 1]), first = 0;
        putchar('\n');
        for (int i = dl->first; i < dl->first + dl->count; i++) {
            const hcp_check_import *im = &c->imports[i];
            printf("  %-13s %s", hcp_check_state_name(im->state), im->name);
            if (im->ordinal >= 0 && im->name[0] != '#') printf(" (ordinal %d)", im->ordinal);
            if (im->kind && strcmp(im->kind, "function") != 0) printf(" (%s)", im->kind);
            if (im->note) printf(": %s", im->note);
            putchar('\n');
        }
    }
    printf("verdict: %s\n", verdict);
}

/* hcpsim check [--json] [--dll-path DIR]... PROGRAM.exe: 0 nothing missing, 1 an import missing
 * or the run would not start, 2 an error. */
static int cmd_check(int argc, char **argv) {
    bool json = false;
    const char *file = NULL;
    const char *dirs[65];
    int ndirs = 1; /* dirs[0]: the program's folder */
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = true;
        } else if (strcmp(argv[i], "--dll-path") == 0) {
            if (i + 1 >= argc || !argv[i + 1][0]) {
                fprintf(stderr, "hcpsim: check: --dll-path needs a folder name\n");
                return EXIT_ERROR;
            }
            if (ndirs == 65) {
                fprintf(stderr, "hcpsim: check: at most 64 folders in --dll-path\n");
                return EXIT_ERROR;
            }
            dirs[ndirs++] = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "hcpsim: check: unknown option '%s' (valid: --json, --dll-path DIR)\n", argv[i]);
            return EXIT_ERROR;
        } else if (!file) {
            file = argv[i];
        } else {
            fprintf(stderr, "hcpsim: check: one program at a time (got '%s' after '%s')\n", argv[i], file);
            return EXIT_ERROR;
        }
    }
    if (!file) {
        fprintf(stderr, "hcpsim: check needs a program: hcpsim check [--json] [--dll-path DIR]... PROGRAM.exe\n");
        return EXIT_ERROR;
    }
    size_t n;
    uint8_t *img = read_image(file, &n);
    if (!img) return EXIT_ERROR;
    const char *slash = strrchr(file, '/');
    char folder[4096];
    if (!slash)
        snprintf(folder, sizeof folder, ".");
    else if (slash == file)
        snprintf(folder, sizeof folder, "/");
    else
        snprintf(folder, sizeof folder, "%.*s", (int)(slash - file), file);
    dirs[0] = folder; /* the program's folder first, as Windows searches */
    hcp_check c;
    char err[512], verdict[1024];
    int rc = hcp_pe_check_in(slash ? slash + 1 : file, img, n, dirs, ndirs, &c, err, sizeof err);
    free(img);
    if (rc != 0) {
        fprintf(stderr, "hcpsim: %s: %s\n", slash ? slash + 1 : file, err);
        return EXIT_ERROR;
    }
    hcp_check_verdict(&c, verdict, sizeof verdict);
    int st = c.n[HCP_IMP_MISSING] || c.start_status ? 1 : 0;
    if (json) {
        if (check_json(&c, verdict) != 0) st = EXIT_ERROR;
    } else {
        check_text(&c, verdict);
    }
    hcp_check_free(&c);
    return st;
}

/* hcpsim bench: guest MIPS per counting mode next to raw Unicorn, same code,
 * same process.  Workloads are the built-in kernels (scenarios/kernels/NAME.S). */
static int cmd_bench(int argc, char **argv) {
    static const uint8_t spin[] = {0x48, 0x89, 0xc8, 0x48, 0x85, 0xc9, 0x74, 0x05, 0x48, 0xff, 0xc9, 0x75, 0xfb, 0xc3};
    static const uint8_t memwalk[] = {0x31, 0xc0, 0x48, 0x85, 0xd2, 0x74, 0x0c, 0x48, 0x03, 0x01,
                                      0x48, 0x83, 0xc1, 0x08, 0x48, 0xff, 0xca, 0x75, 0xf4, 0xc3};
    static const uint8_t calls[] = {0x48, 0x89, 0xc8, 0x48, 0x85, 0xc9, 0x74, 0x0a, 0xe8, 0x06,
                                    0x00, 0x00, 0x00, 0x48, 0xff, 0xc9, 0x75, 0xf6, 0xc3, 0xc3};
    static const uint8_t stores[] = {0x48, 0x89, 0xd0, 0x48, 0x85, 0xd2, 0x74, 0x0c, 0x48, 0x89, 0x11,
                                     0x48, 0x83, 0xc1, 0x08, 0x48, 0xff, 0xca, 0x75, 0xf4, 0xc3};
    static const uint8_t branchy[] = {0x31, 0xc0, 0x48, 0x85, 0xd2, 0x74, 0x11, 0xf6, 0x01, 0x01, 0x74, 0x03, 0x48,
                                      0xff, 0xc0, 0x48, 0x83, 0xc1, 0x08, 0x48, 0xff, 0xca, 0x75, 0xef, 0xc3};
    /* spin of scenarios/kernels/{x86,arm64,arm}/spin.S */
    static const uint8_t spin_x86[] = {0x8b, 0x4c, 0x24, 0x04, 0x89, 0xc8, 0x85, 0xc9,
                                       0x74, 0x03, 0x49, 0x75, 0xfd, 0xc2, 0x04, 0x00};
    static const uint8_t spin_arm64[] = {0xe1, 0x03, 0x00, 0xaa, 0x61, 0x00, 0x00, 0xb4, 0x21, 0x04,
                                         0x00, 0xf1, 0xe1, 0xff, 0xff, 0x54, 0xc0, 0x03, 0x5f, 0xd6};
    static const uint8_t spin_arm[] = {0x00, 0x10, 0xb0, 0xe1, 0x01, 0x00, 0x00, 0x0a, 0x01, 0x10,
                                       0x51, 0xe2, 0xfd, 0xff, 0xff, 0x1a, 0x1e, 0xff, 0x2f, 0xe1};
    /* memwalk of scenarios/kernels/arm64/memwalk.S: what precise faults cost on ARM64 */
    static const uint8_t memwalk_arm64[] = {0xe2, 0x03, 0x00, 0xaa, 0x00, 0x00, 0x80, 0xd2, 0xa1, 0x00, 0x00,
                                            0xb4, 0x43, 0x84, 0x40, 0xf8, 0x00, 0x00, 0x03, 0x8b, 0x21, 0x04,
                                            0x00, 0xf1, 0xa1, 0xff, 0xff, 0x54, 0xc0, 0x03, 0x5f, 0xd6};
    /* The bytes of scenarios/kernels/{spin,memwalk,stores,branchy,calls}.S (make checks them against the
     * assembled kernels); the data workloads touch each 8-byte word of a 64 MiB buffer once: n = 8388608. */
    const sim_bench_workload w[] = {
        {"spin", "ALU: spin (dec, jnz)", spin, sizeof spin, 100000000, false, false, 4, 2, 0, SIM_ARCH_X64},
        {"memwalk", "load-heavy: memwalk (one 8-byte load in 4 instructions)", memwalk, sizeof memwalk, 8388608, true,
         false, 4, 4, 0, SIM_ARCH_X64},
        {"stores", "store-heavy: stores (one 8-byte store in 4 instructions)", stores, sizeof stores, 8388608, true,
         false, 4, 4, 0, SIM_ARCH_X64},
        {"branchy", "branchy: branchy on random words (one data-dependent jz per word)", branchy, sizeof branchy,
         8388608, true, true, 4, 5, 1, SIM_ARCH_X64},
        {"calls", "calls (call, ret, dec, jnz; one push)", calls, sizeof calls, 5000000, false, false, 4, 4, 0,
         SIM_ARCH_X64},
        {"x86-spin", "x86 ALU: spin (dec, jnz; stdcall)", spin_x86, sizeof spin_x86, 100000000, false, false, 5, 2, 0,
         SIM_ARCH_X86},
        {"arm64-spin", "ARM64 ALU: spin (subs, b.ne)", spin_arm64, sizeof spin_arm64, 100000000, false, false, 3, 2, 0,
         SIM_ARCH_ARM64},
        {"arm-spin", "ARM ALU: spin (subs, bne)", spin_arm, sizeof spin_arm, 100000000, false, false, 3, 2, 0,
         SIM_ARCH_ARM},
        {"arm64-memwalk", "ARM64 load-heavy: memwalk (one 8-byte load in 4 instructions)", memwalk_arm64,
         sizeof memwalk_arm64, 8388608, true, false, 4, 4, 0, SIM_ARCH_ARM64},
    };
    size_t nw = sizeof w / sizeof w[0];
    if (argc == 4 && strcmp(argv[0], "--one") == 0) { /* one workload, one mode, n iterations (make bench-ir) */
        char *end;
        unsigned long mode = strtoul(argv[2], &end, 10);
        bool ok = *argv[2] && !*end && mode < SIM_BENCH_MODES;
        unsigned long long n = strtoull(argv[3], &end, 10);
        ok = ok && *argv[3] && !*end && n > 0 && n <= 100000000ull;
        size_t i = 0;
        while (i < nw && strcmp(w[i].key, argv[1]) != 0) i++;
        if (!ok || i == nw) {
            fprintf(stderr, "hcpsim: bench --one needs WORKLOAD MODE N (workloads:");
            for (size_t j = 0; j < nw; j++) fprintf(stderr, " %s", w[j].key);
            fprintf(stderr, "; modes 0 to %d; 1 <= N <= 100000000)\n", SIM_BENCH_MODES - 1);
            return EXIT_ERROR;
        }
        sim_bench_workload one = w[i];
        one.n = n;
        sim_bench_result r;
        if (sim_bench_one(&one, (int)mode, host_ns, &r) != 0) {
            fprintf(stderr, "hcpsim: bench: workload '%s' failed or miscounted in mode %lu (N up to %llu with data)\n",
                    one.key, mode, (unsigned long long)w[i].n);
            return EXIT_ERROR;
        }
        printf("%s\t%lu\t%s\t%llu\t%llu\n", one.key, mode, r.mode, (unsigned long long)r.insns,
               (unsigned long long)r.blocks);
        return 0;
    }
    int rounds = 3;
    if (argc >= 2 && strcmp(argv[0], "--rounds") == 0) {
        char *end;
        long r = strtol(argv[1], &end, 10);
        if (!*argv[1] || *end || r < 1 || r > SIM_BENCH_ROUNDS_MAX) {
            fprintf(stderr, "hcpsim: bench --rounds needs a number from 1 to %d\n", SIM_BENCH_ROUNDS_MAX);
            return EXIT_ERROR;
        }
        rounds = (int)r;
        argc -= 2, argv += 2;
    }
    for (int a = 0; a < argc; a++) { /* the workloads named, else all */
        size_t i = 0;
        while (i < nw && strcmp(w[i].key, argv[a]) != 0) i++;
        if (i == nw) {
            fprintf(stderr, "hcpsim: bench: no workload '%s' (workloads:", argv[a]);
            for (size_t j = 0; j < nw; j++) fprintf(stderr, " %s", w[j].key);
            fprintf(stderr, ")\n");
            return EXIT_ERROR;
        }
    }
    printf("hcpsim bench: guest MIPS per counting mode, raw Unicorn on the same code in the same run;\n"
           "each mode %d time%s, the modes in turn; MIPS of the fastest run and of the median one,\n"
           "the ratio from the fastest runs\n",
           rounds, rounds == 1 ? "" : "s");
    for (size_t i = 0; i < nw; i++) {
        bool named = argc == 0;
        for (int a = 0; a < argc; a++) named = named || strcmp(w[i].key, argv[a]) == 0;
        if (!named) continue;
        sim_bench_result r[SIM_BENCH_MODES];
        if (sim_bench(&w[i], host_ns, rounds, r) != 0) {
            fprintf(stderr, "hcpsim bench: workload '%s' failed or miscounted\n", w[i].name);
            return EXIT_ERROR;
        }
        printf("\n%s, %llu instructions\n", w[i].name, (unsigned long long)r[0].insns);
        printf("  %-36s %10s %12s %9s\n", "mode", "MIPS", "median MIPS", "vs raw");
        double raw = (double)r[0].insns * 1e3 / (double)(r[0].ns ? r[0].ns : 1);
        for (int k = 0; k < SIM_BENCH_MODES; k++) {
            double mips = (double)r[k].insns * 1e3 / (double)(r[k].ns ? r[k].ns : 1);
            double med = (double)r[k].insns * 1e3 / (double)(r[k].ns_median ? r[k].ns_median : 1);
            printf("  %-36s %10.1f %12.1f %8.2fx\n", r[k].mode, mips, med, mips / raw);
        }
    }
    return 0;
}

/* ---- help -------------------------------------------------------------------------------- */

/* What `hcpsim help COMMAND` and `hcpsim COMMAND --help` print: every option of the command. */
static const struct {
    const char *name, *text;
} helps[] = {
    {"run", "usage: hcpsim run [OPTIONS] FILE.lua [ARGS...]\n"
            "       hcpsim run [OPTIONS] [MACHINE OPTIONS] PROGRAM.exe [PROGRAM ARGUMENTS...]\n"
            "Runs a Lua scenario, or a Windows program (a PE image: x86-64 or i386) on a machine of its ISA.\n"
            "Every word after PROGRAM.exe is the program's, also one spelt like an hcpsim option, as for\n"
            "valgrind and wine: hcpsim's options go before the program ('--' may end them there).\n"
            "For a scenario, options are read up to '--', also after FILE.lua; later words reach it as arg[1..].\n"
            "%RUN-OPTIONS%"
            "Machine options (Windows programs only; a scenario sets them in hcp.machine{}): --NAME VALUE\n"
            "for each machine option (hcpsim describe lists their ranges and defaults), dashes or\n"
            "underscores: --platform P, --semantics documented|observed (a program's default: observed),\n"
            "--cpus N, --max-cycles N, ...\n"
            "  --pmc EV,EV,...          the events of PMC0, PMC1, ...\n"
            "  --counters I,I,...       KeSetHardwareCounterConfiguration of these PMC indices before start\n"
            "  --timeout SECONDS        simulated seconds the program may run (default 1: about a minute\n"
            "                           of host time; CI: --timeout 0.1); then it stops, status 125\n"
            "  --missing-imports stop|fail  a call of a function hcpsim lacks ends the run (stop, the\n"
            "                           default) or returns failure, warned once, and the program goes on\n"
            "  --cwd DIR                the host folder mapped as C:\\hcpsim, the program's current directory\n"
            "                           (default: where hcpsim runs); nothing outside it is reachable\n"
            "  --env NAME=VALUE         add or replace a variable of the fixed environment (repeatable)\n"
            "  --stdin FILE             the program's standard input, '-' hcpsim's own (default: empty)\n"
            "  --timezone ZONE          the time zone (default UTC; e.g. 'W. Europe Standard Time' or\n"
            "                           Europe/Berlin; a wrong name lists the valid ones)\n"
            "  --debug-output trace|stderr  OutputDebugString's text: the trace only (default), or stderr too\n"
            "  --dll-path DIR           a folder the program's DLLs are searched in, after the program's own\n"
            "                           (repeatable: in the order given)\n"
            "hcpsim check PROGRAM.exe says whether hcpsim has every function the program imports.\n"
            "Exit status: a scenario 0 (every TAP test passed), 1 (a test failed), 2 (a usage, scenario or\n"
            "simulation error: FILE:LINE: message); a program its own exit code, 2 for a malformed image\n"
            "or a warning under --werror, 53 when a DLL cannot be found (0xC0000135), 57 an import it\n"
            "lacks (0xC0000139), 123 a DLL of the wrong machine (0xC000007B), 66 a DllMain that fails\n"
            "(0xC0000142), 125 when the simulation ends it (an import hcpsim lacks, an unhandled\n"
            "exception, a limit such as --timeout, a deadlock); 130 or 143 when SIGINT or SIGTERM\n"
            "stopped the run (its report and trace are still written).\n"},
    {"check", "usage: hcpsim check [--json] [--dll-path DIR]... PROGRAM.exe\n"
              "Whether hcpsim can run a Windows program, without running it: each DLL it imports, where a run\n"
              "finds it (a system DLL hcpsim simulates, a DLL image in the program's folder or a --dll-path\n"
              "folder, whose own imports follow, or not found), and each import marked implemented, no-op (it\n"
              "does nothing) or missing (the run stops at its first call, status 125; a DLL image's export it\n"
              "lacks, or a DLL no folder has: the run does not start); then a one-line verdict.\n"
              "  --json                   the same facts as one JSON document (schema hcpsim-check)\n"
              "  --dll-path DIR           a folder DLLs are searched in after the program's (repeatable)\n"
              "Exit status: 0 nothing is missing, 1 an import is missing or the run would not start, 2 an\n"
              "error (a malformed image).\n"},
    {"describe", "usage: hcpsim describe [--platform P] | hcpsim describe --imports\n"
                 "Prints a platform profile (default win10-x64), its rules and parameters, the limits of a\n"
                 "run, the PMU events, the cost tables and the machine options with their ranges.\n"
                 "  --platform P             a platform profile (listed below)\n"
                 "  --imports                the import table of Windows programs: each DLL function, its\n"
                 "                           ordinal, whether hcpsim implements it and what a call costs\n"},
    {"diff", NULL}, /* reports/diff.c prints its own (rep_diff_main --help) */
    {"bench", "usage: hcpsim bench [--rounds R] [WORKLOAD ...] | hcpsim bench --one WORKLOAD MODE N\n"
              "Guest MIPS per counting mode next to raw Unicorn on the same code, in one process (host\n"
              "time: the one place hcpsim reads the clock). make bench adds native and cachegrind.\n"
              "  --rounds R               run every mode R times (1 to 15, default 3), the modes in turn;\n"
              "                           the fastest run and the median one are shown\n"
              "  WORKLOAD ...             only these workloads (default: all)\n"
              "  --one WORKLOAD MODE N    one workload in one counting mode for N iterations (what\n"
              "                           make bench-ir counts with callgrind)\n"},
    {"version", "usage: hcpsim version (also hcpsim --version, hcpsim -V)\n"
                "Prints hcpsim's version, the git description of its build and its libraries' versions.\n"},
    {"help", "usage: hcpsim help [COMMAND]\nDescribes a command and every option it takes.\n"},
};
#define NHELPS (int)(sizeof helps / sizeof helps[0])

static int print_version(void) {
    unsigned maj, min;
    uc_version(&maj, &min);
    int cmaj, cmin;
    cs_version(&cmaj, &cmin);
    printf("hcpsim %s (%s; Unicorn %u.%u, capstone %d.%d, %s)\n", HCPSIM_RELEASE, HCPSIM_GIT, maj, min, cmaj, cmin,
           LUA_RELEASE);
    return 0;
}

static const char *command_suggestion(const char *name) {
    const char *names[NHELPS];
    for (int i = 0; i < NHELPS; i++) names[i] = helps[i].name;
    return hcp_suggest(name, names, NHELPS);
}

static bool is_command(const char *name) {
    for (int i = 0; i < NHELPS; i++)
        if (strcmp(helps[i].name, name) == 0) return true;
    return false;
}

static int unknown_command(const char *name) {
    const char *near = command_suggestion(name);
    fprintf(stderr, "hcpsim: unknown command '%s'%s%s%s\n", name, near ? " (did you mean '" : "", near ? near : "",
            near ? "'?)" : "");
    usage(stderr);
    return EXIT_ERROR;
}

static int cmd_help(const char *command) {
    if (!command) {
        usage(stdout);
        printf("hcpsim help COMMAND (or hcpsim COMMAND --help) describes a command: run, check, describe, diff, "
               "bench, version.\n");
        return 0;
    }
    for (int i = 0; i < NHELPS; i++)
        if (strcmp(helps[i].name, command) == 0) {
            if (!helps[i].text) {
                char help[] = "--help", *args[] = {help, NULL};
                return rep_diff_main(1, args);
            }
            const char *mark = strstr(helps[i].text, "%RUN-OPTIONS%");
            if (mark) { /* run's own options, from their table */
                fwrite(helps[i].text, 1, (size_t)(mark - helps[i].text), stdout);
                for (int k = 0; k < NRUN_OPTS; k++) {
                    char head[40];
                    snprintf(head, sizeof head, "%s%s%s", run_table[k].name, run_table[k].arg ? " " : "",
                             run_table[k].arg ? run_table[k].arg : "");
                    printf("  %-24s %s\n", head, run_table[k].help);
                }
                fputs(mark + strlen("%RUN-OPTIONS%"), stdout);
            } else {
                fputs(helps[i].text, stdout);
            }
            if (strcmp(command, "describe") == 0) printf("Platforms: %s\n", hcp_platform_names());
            return 0;
        }
    return unknown_command(command);
}

/* --help or -h among a command's options: up to '--', and for run up to a program, whose own
 * arguments follow it (hcpsim run PROGRAM.exe --help gives --help to the program). */
static bool wants_help(int argc, char **argv, bool run) {
    for (int i = 0; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return true;
        if (run && argv[i][0] != '-' && lhcp_file_kind(argv[i]) > 0) return false;
    }
    return false;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return EXIT_ERROR;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) return print_version();
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) return cmd_help(NULL);
    if (strcmp(cmd, "help") == 0)
        return cmd_help(argc > 2 && strcmp(argv[2], "--help") != 0 && strcmp(argv[2], "-h") != 0 ? argv[2]
                        : argc > 2                                                               ? "help"
                                                                                                 : NULL);
    if (is_command(cmd) && wants_help(argc - 2, argv + 2, strcmp(cmd, "run") == 0)) return cmd_help(cmd);
    if (strcmp(cmd, "run") == 0) return cmd_run(argc - 2, argv + 2);
    if (strcmp(cmd, "describe") == 0) return cmd_describe(argc - 2, argv + 2);
    if (strcmp(cmd, "check") == 0) return cmd_check(argc - 2, argv + 2);
    if (strcmp(cmd, "diff") == 0) return rep_diff_main(argc - 2, argv + 2);
    if (strcmp(cmd, "bench") == 0) return cmd_bench(argc - 2, argv + 2);
    if (strcmp(cmd, "version") == 0) return print_version();
    return unknown_command(cmd);
}
