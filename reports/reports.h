/* reports — report and trace writers of hcpsim.
 *
 * Writers read what sim/ and api/ publish (scheduler records, thread counter
 * banks) and write files; they are called by the CLI edge (scenarios/).
 * Output is a pure function of what the simulator recorded: no host time, no
 * pointers, integer arithmetic only, so two runs give byte-identical files.
 * Includes sim/ and api/; no Lua. */
#ifndef HCPSIM_REPORTS_H
#define HCPSIM_REPORTS_H

#include "api/hcp_api.h"
#include "sim/sim.h"

/* ---- Perfetto / Chrome trace-event JSON (reports/README.md describes the file) ---------- */

typedef struct rep_trace rep_trace;

/* Starts a trace that will be written to `path`.  The events go to
 * "PATH.tmp" (opened here, so an unwritable path fails before anything
 * runs); `path` itself appears only when rep_trace_close() succeeds.
 * Returns NULL with errno set when PATH.tmp cannot be opened or memory is
 * exhausted.  The writer owns a copy of `path`. */
rep_trace *rep_trace_open(const char *path);

/* Observes machine m from now on: one sim_observer slot of m.  Attach right
 * after sim_machine_new(), before any thread exists, so every thread is seen
 * from its creation.  Machines are numbered in the order they are attached
 * (machine k gets pids 2k+1 and 2k+2).  Returns 0, or -1 when m has no free
 * observer slot or host memory is exhausted (nothing is traced for m then). */
int rep_trace_attach(rep_trace *tr, sim_machine *m);
/* Also shows the guest calls of m's OS (its API calls through the dispatcher): one span per call
 * on a "calls" track beside each thread's.  After rep_trace_attach(tr, m), once the OS exists;
 * 0, or -1 when m is not attached or the OS has no free call-observer slot. */
int rep_trace_attach_calls(rep_trace *tr, sim_machine *m, hcp_os *os);

/* Ends the trace of m: closes the spans still open at m's final time (the
 * latest CPU clock), removes the observer.  Call before sim_machine_free(m);
 * after it the writer never touches m.  A machine that was not attached is
 * ignored. */
void rep_trace_detach(rep_trace *tr, sim_machine *m);

/* The most events the file may hold (--trace-limit; REP_TRACE_DEFAULT_LIMIT
 * until set).  The scheduling record that would go past it is dropped, and so
 * is every later one: rep_trace_full() turns true, and the caller ends the run
 * (scenarios/README.md "Limits"); the spans still open are closed at the time
 * of the last record kept. */
#define REP_TRACE_DEFAULT_LIMIT UINT64_C(10000000)
/* The message of a run that the limit ended (a lua_pushfstring format: the limit, then the default). */
#define REP_TRACE_LIMIT_MESSAGE "limit reached: %I trace events (hcpsim run --trace-limit N; default %I)"
void rep_trace_set_limit(rep_trace *tr, uint64_t max_events);
uint64_t rep_trace_limit(const rep_trace *tr);
bool rep_trace_full(const rep_trace *tr);

/* Completes the file: closes the spans of machines still attached at the
 * last time they recorded (without touching the machines), writes the
 * trailer, and renames PATH.tmp to PATH.  `partial`, when not NULL, is why the
 * run ended early (its error message): the trailer's "partial" field says so.
 * On a write or rename error, PATH.tmp is removed.  Frees tr in every case.
 * Returns 0 or an errno value.  rep_trace_close(NULL, ...) returns 0. */
int rep_trace_close(rep_trace *tr, const char *partial);

/* ---- run reports: JSON, Markdown, HTML, CSV (--report PATH; reports/SCHEMA.md) ----------------- */

typedef enum rep_format { REP_FORMAT_JSON = 0, REP_FORMAT_MARKDOWN, REP_FORMAT_HTML, REP_FORMAT_CSV } rep_format;
/* The list limits of a report: past them a list is truncated and says so (its totals stay exact). */
#define REP_REPORT_MAX_INTERVALS 100000
#define REP_REPORT_MAX_CALLS 10000
#define REP_FORMAT_EXTENSIONS ".json, .md, .html, .csv"

/* The format a report path's extension names: 0 with *out set, or -1 when the
 * extension is none of REP_FORMAT_EXTENSIONS (compared exactly, lower case). */
int rep_report_format(const char *path, rep_format *out);

typedef struct rep_report rep_report;

/* Starts a report that will be written to `path` in format `fmt` when the run
 * ends.  PATH.tmp is opened here (an unwritable path fails before anything
 * runs); `path` appears only when rep_report_close() succeeds.  Returns NULL
 * with errno set when PATH.tmp cannot be opened or memory is exhausted. */
rep_report *rep_report_open(const char *path, rep_format fmt);

/* What was run: the scenario path as given, the seed and the scenario's
 * arguments (copied). */
void rep_report_set_run(rep_report *r, const char *scenario, uint64_t seed, int nargs, char *const *args);

/* Observes machine m and its OS from now on (one sim_observer slot of m and
 * the OS's gate-call observer).  Attach right after hcp_os_new(), before any
 * thread exists.  `platform` is the machine's platform profile name (copied).
 * Returns 0, or -1 when m has no free observer slot or memory is exhausted. */
int rep_report_attach(rep_report *r, sim_machine *m, hcp_os *os, const char *platform);

/* Takes m's final state (thread totals, CPU statistics, open schedule
 * intervals) and stops observing it.  Call before hcp_os_free() and
 * sim_machine_free(); afterwards the report never touches m or os. */
void rep_report_detach(rep_report *r, sim_machine *m);

/* How the run ended (reports/SCHEMA.md "run.status"): `status` one of "complete" (a scenario ran
 * to its end), "exited" (a program ended itself: exit_code its 32-bit exit code, has_code true),
 * "limit" (`limit` the option that bounds it: "timeout", "max_cycles", "max_threads", ...),
 * "missing-import", "unhandled-exception", "deadlock", "interrupted", "error" (any other error).
 * Strings are copied.  Without a call, the status follows the exit status: 0 and 1 "complete",
 * 128 and up "interrupted", else "error". */
void rep_report_set_end(rep_report *r, const char *status, const char *limit, bool has_code, uint32_t exit_code);

/* Writes the report with the run's exit status (0, 1 or 2) and, for a run
 * that failed, its error message (NULL otherwise): status 2 marks the report
 * "partial".  Writes PATH.tmp and renames it to PATH; on a write or rename
 * error PATH.tmp is removed.  Frees r in every case.  Returns 0 or an errno
 * value.  rep_report_close(NULL, ...) returns 0. */
int rep_report_close(rep_report *r, int exit_status, const char *error);

/* One line the scenario's TAP module (hcpsim.tap) printed: a plan ("1..N") or a
 * test line ("ok N - ...", "not ok N - ... # TODO ...", "ok N - ... # SKIP ...");
 * any other line is ignored.  The report keeps the counts and the first 100
 * failing descriptions (reports/SCHEMA.md "run.tap").  r NULL is ignored. */
void rep_report_tap_line(rep_report *r, const char *line);

/* The scenario path a report records: relative to the root of the git
 * repository that holds the file (the nearest parent with a .git entry), so the
 * same scenario run from two folders gives the same report; as given when it is
 * in no repository or cannot be resolved.  Heap string, NULL when out of memory. */
char *rep_scenario_path(const char *given);

/* hcpsim diff [--format text|md|json] [--tolerance EVENT=PCT]... A.json B.json:
 * what moved between two run reports (reports/README.md "hcpsim diff").
 * argv[0] is the first argument after "diff".  Returns the exit status: 0 the
 * same, 1 different, 2 an error (printed on stderr). */
int rep_diff_main(int argc, char **argv);

/* The list limits: schedule intervals and API calls kept per machine (defaults
 * REP_REPORT_MAX_INTERVALS, REP_REPORT_MAX_CALLS).  Past them a list is
 * truncated and says so; totals stay exact.  Set before the scenario runs. */
void rep_report_set_limits(rep_report *r, uint64_t max_intervals, uint64_t max_calls);

/* ---- API calls made by Lua bodies (the binding layer records them) ---------------------------- */

/* A JSON-like value: null, boolean, integer, string, list or object.  The
 * constructors return NULL when memory is exhausted; appending or setting
 * NULL is ignored.  A value handed to rep_value_append, rep_value_set,
 * rep_call_begin or rep_call_end belongs to the receiver from then on. */
typedef struct rep_value rep_value;
rep_value *rep_value_null(void);
rep_value *rep_value_bool(bool v);
rep_value *rep_value_int(int64_t v);
rep_value *rep_value_str(const char *s); /* arbitrary bytes; invalid UTF-8 becomes U+FFFD */
rep_value *rep_value_list(void);
rep_value *rep_value_object(void);
void rep_value_append(rep_value *list, rep_value *v);
void rep_value_set(rep_value *object, const char *key, rep_value *v);
void rep_value_free(rep_value *v);

/* A call of Windows function `fn` by a Lua body (thread t, or NULL for a
 * machine-level call such as m:KeSetHardwareCounterConfiguration) on machine
 * m, with its arguments (a list).  Returns an id for rep_call_end, or -1 when
 * the call is only counted (past the report's call limit, or m not attached). */
long rep_call_begin(rep_report *r, sim_machine *m, const sim_thread *t, const char *fn, rep_value *args);
/* The call `id` returned its results (a list); id -1 is ignored. */
void rep_call_end(rep_report *r, long id, rep_value *results);

/* Length of the valid UTF-8 sequence at p (not overlong, no surrogates, at most
 * U+10FFFF), with its code point in *cp; 0 when p does not start one (a NUL
 * byte included).  Shared by the trace and report writers. */
int rep_utf8_len(const unsigned char *p, uint32_t *cp);

/* Opens PATH.tmp for writing (64 KiB buffered) and returns it, with heap
 * copies of PATH and PATH.tmp in *path_copy and *tmp; NULL with errno set
 * (nothing allocated) on failure. */
FILE *rep_out_open(const char *path, char **path_copy, char **tmp);
/* Ends a file from rep_out_open: `err` is the writer's first error (0 none).
 * Closes f, renames PATH.tmp to PATH when nothing failed, else removes
 * PATH.tmp; frees both strings.  Returns the first error (errno value) or 0. */
int rep_out_close(FILE *f, char *path, char *tmp, int err);

#endif
