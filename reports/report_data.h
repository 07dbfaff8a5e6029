/* reports/report_data.h — the run report's collected data (internal to reports/).
 *
 * report.c fills these structures while the run goes on (a sim_observer per
 * machine, the call gate's observer, the Lua binding's rep_call_begin/end);
 * at rep_report_close it hands them, read-only, to the writer of the report's
 * format: report_json.c, report_md.c or report_html.c.  Every list here is
 * bounded (see the limits below and reports/SCHEMA.md). */
#ifndef HCPSIM_REPORT_DATA_H
#define HCPSIM_REPORT_DATA_H

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "reports/common.h"
#include "reports/decode.h"

#define SCHEMA_NAME "hcpsim-report"
#define SCHEMA_VERSION 2

#define HTML_ROWS 200            /* schedule and call rows shown in HTML */
#define HTML_THREADS 50          /* thread rows shown in HTML before an "other threads" row */
#define NCOLORS 10               /* threads with a colour of their own (by CPU time) */
#define TL_COLS 500              /* timeline columns per CPU at most */
#define TL_TOPK 4                /* threads tracked per column; the rest count as "other" */
#define EXACT_MAX 2000           /* a machine with at most this many intervals is drawn interval by interval */
#define SERIES_MAX 64            /* counter samples kept per thread */
#define NWAIT SIM_WAIT_REASONS   /* KWAIT_REASON 0..40 */
#define REP_TAP_FAILURES_MAX 100 /* failing test descriptions kept */

extern const char *const rep_palette[NCOLORS];
#define OTHER_COLOR "#c8c8c8"

/* ---- data ----------------------------------------------------------------------------------- */

typedef struct series {
    int n, cap;      /* points kept */
    uint64_t stride; /* a sample is kept when its number is a multiple of stride */
    uint64_t count;  /* samples offered */
    uint64_t *pts;   /* n points of (time, value of each distinct PMC) */
    uint64_t *last;  /* the latest sample offered (kept or not) */
    bool has_last;
} series;

typedef struct rthread {
    bool seen;
    int index;
    uint32_t id;
    char *name;
    uint64_t run;         /* cycles as a CPU's current thread: the sum of its intervals */
    uint64_t nint;        /* its intervals */
    uint64_t outs[NWAIT]; /* switch-outs into Ready or Waiting, by KWAIT_REASON */
    uint64_t exits;       /* switch-outs into Terminated */
    uint64_t calls;       /* API calls it made */
    long pending;         /* a gate call that blocked, waiting for its result (-1: none) */
    uint64_t last_t;      /* time of its latest counter sample */
    bool final;           /* the totals below were taken at detach */
    int state, priority, ideal;
    uint64_t affinity;
    uint32_t exit_code;
    uint64_t create, exit, ticks, switches, cycle_time;
    pmu_bank bank;
    series s;
} rthread;

typedef struct column {
    int32_t th[TL_TOPK]; /* thread index, -1 empty */
    uint64_t cy[TL_TOPK];
    uint64_t other; /* cycles of threads not tracked here */
    uint32_t nsw;   /* switch-outs that ended in this column */
    uint32_t mk[MK__COUNT];
} column;

typedef struct rcpu {
    int cur; /* thread index, -1 idle */
    uint64_t since;
    sim_cpu_stats st;
    uint64_t nint, kept;
    column *cols;                  /* TL_COLS */
    uint64_t ev[PMU_EV__COUNT];    /* user-mode events of the threads while they ran here */
    uint64_t in_ev[PMU_EV__COUNT]; /* the current thread's user-mode events at its switch-in */
} rcpu;

typedef struct rinterval {
    uint64_t start, end;
    int32_t th;
    int16_t cpu;
    int8_t why; /* KWAIT_REASON, -1 none */
    int8_t next;
} rinterval;

typedef struct fncount {
    char *name;
    uint64_t lua, guest;
    bool missing; /* a function hcpsim lacks (an import the spec does not know, or a stub row) */
} fncount;

typedef struct rmachine {
    rep_report *r;
    sim_machine *m; /* NULL once detached */
    hcp_os *os;
    int slot, k;
    int call_slot; /* its call observer's slot (hcp_add_call_observer), -1 when none */
    char platform[32];
    hcp_semantics sem;
    sim_config cfg;
    int ncpus;
    rcpu *cpus;
    rthread *threads;
    int nthreads, capthreads;
    rinterval *iv;
    size_t niv, capiv;
    uint64_t ivtotal;
    uint64_t w; /* cycles per timeline column */
    uint64_t end;
    bool detached;
    int nv; /* distinct PMCs (event and mode), their PMC indices in vpmc */
    int vpmc[PMU_MAX_PMC];
    fncount *fns;
    int nfns, capfns;
    uint64_t calls_total, calls_kept;
} rmachine;

typedef struct rcall {
    int mk; /* machine number */
    int32_t th;
    int cpu;
    bool guest, done;
    const char *fn; /* the machine's fncount name */
    uint64_t start, end;
    json_t *args, *results;
} rcall;

struct rep_report {
    FILE *f;
    char *path, *tmp;
    rep_format fmt;
    char *scenario;
    uint64_t seed;
    char **args;
    int nargs;
    rmachine **machines;
    int nmachines, capmachines;
    rcall *calls;
    size_t ncalls, capcalls;
    uint64_t max_intervals, max_calls; /* list limits per machine (--report-intervals, --report-calls) */
    int err;
    /* the scenario's TAP results (rep_report_tap_line): counts, and the first failing descriptions */
    bool tap_seen;
    int64_t tap_planned; /* -1: no plan line */
    uint64_t tap_tests, tap_passed, tap_failed, tap_todo, tap_skipped;
    char *tap_failures[REP_TAP_FAILURES_MAX];
    int tap_nfailures;
    /* how the run ended (rep_report_set_end); end_status NULL: from the exit status */
    char *end_status, *end_limit;
    bool end_has_code;
    uint32_t end_code;
};

/* What a writer gets: the collected report and how the run ended. */
typedef struct rep_view {
    const rep_report *r;
    int exit_status;
    const char *error;
    const char *status; /* reports/SCHEMA.md "run.status" */
    const char *limit;  /* the limit's option when status is "limit", else NULL */
    bool has_code;      /* a program's exit code (status "exited") */
    uint32_t code;
} rep_view;

/* Threads by CPU time (run cycles), most first, ties by index: a heap array of
 * rm->nthreads indices, or NULL when out of memory. */
int *rep_thread_rank(const rmachine *rm);
/* The colour slot of each thread: its rank when below NCOLORS and it ran, else -1 (heap, or NULL). */
int *rep_thread_colors(const rmachine *rm, const int *rank);

static inline uint64_t rep_user_cycles(const rthread *rt) { return rt->bank.ev[PMU_EV_CYCLES]; }
static inline uint64_t rep_kernel_cycles(const rthread *rt) {
    return rt->bank.kev[PMU_EV_CYCLES] - rt->bank.intr_cycles;
}
static inline uint64_t rep_interrupt_cycles(const rthread *rt) { return rt->bank.intr_cycles; }
/* The status of a run whose ending nobody recorded (rep_report_set_end): 128 + N, signal N stopped it
 * (hcpsim run's interrupt handling); 0 and 1 it ran to its end; any other an error ended it. */
static inline const char *rep_status_name(int exit_status) {
    return exit_status >= 128 ? "interrupted" : exit_status <= 1 ? "complete" : "error";
}
/* Whether a run of that status stopped early: its report holds what ran until then ("partial"). */
static inline bool rep_status_partial(const char *status) {
    return strcmp(status, "complete") != 0 && strcmp(status, "exited") != 0;
}
/* The status as the Markdown, HTML and CSV reports show it: "complete", "exited with code 7",
 * "limit max_cycles", "unhandled-exception", ... */
static inline void rep_status_text(const rep_view *v, char *buf, size_t n) {
    if (v->has_code)
        snprintf(buf, n, "%s with code %" PRIu32, v->status, v->code);
    else if (v->limit)
        snprintf(buf, n, "%s %s", v->status, v->limit);
    else
        snprintf(buf, n, "%s", v->status);
}

/* Derived metrics of a set of user-mode event totals (reports/SCHEMA.md "Derived metrics"):
 * integers, rounded down; has[k] false where the denominator is 0. */
enum {
    RD_IPC_MILLI = 0,  /* instructions / cycles x 1000 */
    RD_CPI_MILLI,      /* cycles / instructions x 1000 */
    RD_BRANCH_MISS_BP, /* branch-misses / branches x 10000 */
    RD_L1D_MPKI_MILLI, /* l1d-misses per 1000 instructions, x 1000 */
    RD_L1D_MISS_BP,    /* l1d-misses / (loads + stores) x 10000 */
    RD_L2_MPKI_MILLI,  /* l2-misses per 1000 instructions, x 1000 */
    RD_L2_MISS_BP,     /* l2-misses / l1d-misses x 10000 */
    RD_LLC_MPKI_MILLI, /* llc-misses per 1000 instructions, x 1000 */
    RD_LLC_MISS_BP,    /* llc-misses / llc-references x 10000 */
    RD__COUNT
};
typedef struct rep_derived {
    bool has[RD__COUNT];
    uint64_t v[RD__COUNT];
} rep_derived;
extern const char *const rep_derived_keys[RD__COUNT];   /* JSON keys: "ipc_milli", ... */
extern const char *const rep_derived_titles[RD__COUNT]; /* table headings: "IPC", ... */
void rep_derive(const uint64_t ev[PMU_EV__COUNT], rep_derived *d);
/* The value of metric k as text: "1.234" (milli), "12.34 %" (basis points), "-" when undefined. */
const char *rep_derived_str(char *buf, size_t n, const rep_derived *d, int k);

/* A JSON value as compact text (sorted keys), "-" for NULL; heap, NULL when out of memory. */
char *rep_compact(const json_t *v);

/* The writers: 0 or an errno value. */
int rep_write_json(const rep_view *v, FILE *f);
int rep_write_md(const rep_view *v, FILE *f);
int rep_write_html(const rep_view *v, FILE *f);
int rep_write_csv(const rep_view *v, FILE *f);

#endif
