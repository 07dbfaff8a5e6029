/* reports/report.c — run reports: JSON, Markdown and HTML with SVG (--report).
 *
 * A sim_observer per machine collects, while the run goes on, what a person
 * wants to see afterwards: the schedule as intervals (each stretch a thread
 * was a CPU's current thread, and the wait reason it left with), per-thread
 * switch counts, counter samples at each switch-out, an aggregated timeline
 * of at most TL_COLS columns per CPU, and every Windows API call with its
 * arguments and results (from the Lua binding layer, rep_call_begin/end, and
 * from the call gate, hcp_set_call_observer).  At detach it takes each
 * thread's and CPU's final totals.  At close it writes one of three views of
 * that data.  reports/SCHEMA.md describes the document; the JSON is built
 * with jansson and dumped with sorted keys.
 *
 * Everything is bounded: the interval and call lists stop growing at their
 * limits (the totals keep counting and the report says it was truncated),
 * counter series keep at most SERIES_MAX points per thread (halved by
 * dropping every other point), and the timeline keeps TL_COLS columns per
 * CPU whose width doubles as the run grows.  No floating point, no host
 * time, no pointers: two runs give byte-identical files. */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/reports.h"

#define SCHEMA_NAME "hcpsim-report"
#define SCHEMA_VERSION 1

#define HTML_ROWS 200          /* schedule and call rows shown in HTML */
#define HTML_THREADS 50        /* thread rows shown in HTML before an "other threads" row */
#define NCOLORS 10             /* threads with a colour of their own (by CPU time) */
#define TL_COLS 500            /* timeline columns per CPU at most */
#define TL_TOPK 4              /* threads tracked per column; the rest count as "other" */
#define EXACT_MAX 2000         /* a machine with at most this many intervals is drawn interval by interval */
#define SERIES_MAX 64          /* counter samples kept per thread */
#define NWAIT SIM_WAIT_REASONS /* KWAIT_REASON 0..40 */

#define NS_PER_S UINT64_C(1000000000)

/* ---- names --------------------------------------------------------------------------------- */

static int wait_index(int r) { return r >= 0 && r < NWAIT ? r : NWAIT - 1; }
static const char *wait_name(int r) { return sim_wait_reason_name(wait_index(r)); }

static const char *kstate_name(int s) {
    switch (s) {
    case SIM_TS_INITIALIZED: return "Initialized";
    case SIM_TS_READY: return "Ready";
    case SIM_TS_RUNNING: return "Running";
    case SIM_TS_STANDBY: return "Standby";
    case SIM_TS_TERMINATED: return "Terminated";
    case SIM_TS_WAITING: return "Waiting";
    default: return "Unknown";
    }
}

/* What a thread did when its interval ended. */
enum { NX_READY = 0, NX_WAITING, NX_TERMINATED, NX_RUNNING };
static const char *const next_names[] = {"Ready", "Waiting", "Terminated", "Running"};

/* Switch-marker categories of the timeline, with their colours. */
enum { MK_QUANTUM = 0, MK_DELAY, MK_USER, MK_PREEMPT, MK_YIELD, MK_EXIT, MK_OTHER, MK__COUNT };
static const char *const mk_names[MK__COUNT] = {"WrQuantumEnd",     "DelayExecution", "UserRequest", "WrPreempted",
                                                "WrYieldExecution", "exit",           "other"};
static const char *const mk_colors[MK__COUNT] = {"#444444", "#1565c0", "#8e24aa", "#d32f2f",
                                                 "#ef6c00", "#000000", "#888888"};

static int mk_of(int why, int next) {
    if (next == NX_TERMINATED) return MK_EXIT;
    switch (why) {
    case SIM_WR_QUANTUM_END: return MK_QUANTUM;
    case SIM_WR_DELAY_EXECUTION: return MK_DELAY;
    case SIM_WR_USER_REQUEST: return MK_USER;
    case SIM_WR_PREEMPTED: return MK_PREEMPT;
    case SIM_WR_YIELD_EXECUTION: return MK_YIELD;
    default: return MK_OTHER;
    }
}

static const char *const palette[NCOLORS] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                             "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#17becf"};
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
    column *cols; /* TL_COLS */
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
} fncount;

typedef struct rmachine {
    rep_report *r;
    sim_machine *m; /* NULL once detached */
    hcp_os *os;
    int slot, k;
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
};

static void nomem(rep_report *r) {
    if (!r->err) r->err = ENOMEM;
}

static char *dup_str(const char *s) {
    size_t n = strlen(s ? s : "");
    char *d = malloc(n + 1);
    if (d) memcpy(d, s ? s : "", n + 1);
    return d;
}

/* Grows *p (of *cap elements of size sz) to hold n; false when out of memory. */
static bool grow(void *p, size_t *cap, size_t n, size_t sz) {
    if (n <= *cap) return true;
    size_t nc = *cap ? *cap : 16;
    while (nc < n) nc *= 2;
    void *a = realloc(*(void **)p, nc * sz);
    if (!a) return false;
    *(void **)p = a;
    *cap = nc;
    return true;
}

/* ---- text: UTF-8 and escaping ------------------------------------------------------------- */

int rep_utf8_len(const unsigned char *p, uint32_t *cpo) {
    int n;
    uint32_t cp, min;
    if (p[0] < 0x80) {
        *cpo = p[0];
        return p[0] ? 1 : 0;
    }
    if (p[0] >= 0xC2 && p[0] <= 0xDF) {
        n = 2, cp = p[0] & 0x1Fu, min = 0x80;
    } else if ((p[0] & 0xF0) == 0xE0) {
        n = 3, cp = p[0] & 0x0Fu, min = 0x800;
    } else if (p[0] >= 0xF0 && p[0] <= 0xF4) {
        n = 4, cp = p[0] & 0x07u, min = 0x10000;
    } else {
        return 0;
    }
    for (int i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80) return 0;
        cp = cp << 6 | (p[i] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    *cpo = cp;
    return n;
}

/* A copy of s that is valid UTF-8: any byte that starts no valid sequence becomes U+FFFD. */
static char *clean_utf8(const char *s) {
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t n = strlen((const char *)p);
    char *d = malloc(3 * n + 1), *q = d;
    if (!d) return NULL;
    while (*p) {
        uint32_t cp;
        int k = rep_utf8_len(p, &cp);
        if (k) {
            memcpy(q, p, (size_t)k);
            q += k, p += k;
        } else {
            memcpy(q, "\xEF\xBF\xBD", 3);
            q += 3, p++;
        }
    }
    *q = 0;
    return d;
}

/* Text for HTML/SVG (also well-formed XML): & < > " escaped; bytes that are
 * not valid UTF-8 and characters XML 1.0 forbids become U+FFFD. */
static void put_html(FILE *f, const char *s) {
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        uint32_t cp;
        int k = rep_utf8_len(p, &cp);
        bool bad =
            !k || (cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') || cp == 0x7F || cp == 0xFFFE || cp == 0xFFFF;
        if (bad) {
            fputs("\xEF\xBF\xBD", f);
            p += k ? k : 1;
            continue;
        }
        switch (cp) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fwrite(p, 1, (size_t)k, f);
        }
        p += k;
    }
}

/* Text for a Markdown table cell: | \\ * _ ` are backslash-escaped, < > & written
 * as entities, line breaks as spaces. */
static void put_md(FILE *f, const char *s) {
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        uint32_t cp;
        int k = rep_utf8_len(p, &cp);
        if (!k || cp < 0x20 || cp == 0x7F) {
            fputs(k && (cp == '\n' || cp == '\r' || cp == '\t') ? " " : "\xEF\xBF\xBD", f);
            p += k ? k : 1;
            continue;
        }
        switch (cp) {
        case '|':
        case '\\':
        case '*':
        case '_':
        case '`':
            fputc('\\', f);
            fputc((int)cp, f);
            break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        default: fwrite(p, 1, (size_t)k, f);
        }
        p += k;
    }
}

/* ---- time ---------------------------------------------------------------------------------- */

/* cycles * 10^9 / freq, rounded down, exact for any frequency (reports/README.md "Time"). */
static uint64_t ns_of(uint64_t freq, uint64_t cycles) {
    uint64_t c = freq ? freq : 1;
    if (c <= UINT64_MAX / NS_PER_S) return sim_mul_div(cycles, NS_PER_S, c);
    uint64_t q = cycles / c, r = cycles % c, frac = 0;
    for (int i = 0; i < 9; i++) {
        r *= 10;
        frac = frac * 10 + r / c;
        r %= c;
    }
    return sim_mul_div(q, NS_PER_S, 1) + frac;
}

/* "1234.567" microseconds, exact. */
static const char *us_str(char *buf, size_t n, uint64_t ns) {
    snprintf(buf, n, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
    return buf;
}

/* "93.12" percent of part in whole, rounded down (integer arithmetic). */
static const char *pct_str(char *buf, size_t n, uint64_t part, uint64_t whole) {
    uint64_t bp = whole ? sim_mul_div(part, 10000, whole) : 0;
    snprintf(buf, n, "%" PRIu64 ".%02u", bp / 100, (unsigned)(bp % 100));
    return buf;
}

/* ---- per-machine collection ---------------------------------------------------------------- */

static void counter_name(char *buf, size_t n, const pmu_config *pc, int i) {
    if (pc->mode[i] == PMU_MODE_USER)
        snprintf(buf, n, "%s", pmu_event_name(pc->pmc[i]));
    else
        snprintf(buf, n, "%s:%s", pmu_event_name(pc->pmc[i]), pmu_mode_name(pc->mode[i]));
}

static rthread *thread_of(rmachine *rm, const sim_thread *t) {
    int i = sim_thread_index(t);
    if (i < 0) return NULL;
    if (i >= rm->capthreads) {
        size_t cap = (size_t)rm->capthreads;
        if (!grow(&rm->threads, &cap, (size_t)i + 1, sizeof *rm->threads)) {
            nomem(rm->r);
            return NULL;
        }
        memset(rm->threads + rm->capthreads, 0, (cap - (size_t)rm->capthreads) * sizeof *rm->threads);
        rm->capthreads = (int)cap;
    }
    if (i >= rm->nthreads) rm->nthreads = i + 1;
    rthread *rt = &rm->threads[i];
    if (!rt->seen) {
        rt->seen = true;
        rt->index = i;
        rt->id = sim_thread_id(t);
        rt->pending = -1;
        const char *name = sim_thread_name(t);
        char buf[32];
        if (!name || !*name) {
            snprintf(buf, sizeof buf, "thread %" PRIu32, rt->id);
            name = buf;
        }
        rt->name = clean_utf8(name);
        if (!rt->name) nomem(rm->r);
        rt->s.stride = 1;
    }
    return rt;
}

/* Offers a counter sample of rt at time `t` (kept non-decreasing). */
static void sample(rmachine *rm, rthread *rt, const pmu_bank *b, uint64_t t) {
    series *s = &rt->s;
    int w = 1 + rm->nv;
    if (t < rt->last_t) t = rt->last_t;
    rt->last_t = t;
    if (!s->last && !(s->last = malloc((size_t)w * sizeof *s->last))) {
        nomem(rm->r);
        return;
    }
    s->last[0] = t;
    for (int j = 0; j < rm->nv; j++) s->last[1 + j] = pmu_pmc_read(&rm->cfg.pmc, b, (uint64_t)rm->vpmc[j]);
    s->has_last = true;
    if (s->count++ % s->stride) return;
    if (s->n == s->cap) {
        int nc = s->cap ? s->cap * 2 : 4;
        if (nc > SERIES_MAX) nc = SERIES_MAX;
        uint64_t *a = realloc(s->pts, (size_t)nc * (size_t)w * sizeof *a);
        if (!a) {
            nomem(rm->r);
            return;
        }
        s->pts = a;
        s->cap = nc;
    }
    memcpy(s->pts + (size_t)s->n * (size_t)w, s->last, (size_t)w * sizeof *s->last);
    if (++s->n == SERIES_MAX) { /* keep every other point; later samples at twice the stride */
        for (int i = 1; i < SERIES_MAX / 2; i++)
            memcpy(s->pts + (size_t)i * (size_t)w, s->pts + (size_t)(2 * i) * (size_t)w, (size_t)w * sizeof *s->pts);
        s->n = SERIES_MAX / 2;
        s->stride *= 2;
    }
}

/* -- timeline columns -- */

static void col_add(column *c, int32_t th, uint64_t cy) {
    int free_slot = -1, min = 0;
    for (int i = 0; i < TL_TOPK; i++) {
        if (c->th[i] == th) {
            c->cy[i] += cy;
            return;
        }
        if (c->th[i] < 0 && free_slot < 0) free_slot = i;
        if (c->cy[i] < c->cy[min]) min = i;
    }
    if (free_slot >= 0) {
        c->th[free_slot] = th;
        c->cy[free_slot] = cy;
    } else if (cy > c->cy[min]) { /* the new thread displaces the smallest tracked one */
        c->other += c->cy[min];
        c->th[min] = th;
        c->cy[min] = cy;
    } else {
        c->other += cy;
    }
}

static void col_clear(column *c) {
    memset(c, 0, sizeof *c);
    for (int i = 0; i < TL_TOPK; i++) c->th[i] = -1;
}

/* a and b merged: tracked threads summed, the TL_TOPK largest kept (ties: lower index). */
static column col_merge(const column *a, const column *b) {
    int32_t th[2 * TL_TOPK] = {0};
    uint64_t cy[2 * TL_TOPK] = {0};
    int n = 0;
    for (int s = 0; s < 2; s++) {
        const column *c = s ? b : a;
        for (int i = 0; i < TL_TOPK; i++) {
            if (c->th[i] < 0) continue;
            int j = 0;
            while (j < n && th[j] != c->th[i]) j++;
            if (j == n) th[n] = c->th[i], cy[n++] = 0;
            cy[j] += c->cy[i];
        }
    }
    column m;
    col_clear(&m);
    m.other = a->other + b->other;
    m.nsw = a->nsw + b->nsw;
    for (int k = 0; k < MK__COUNT; k++) m.mk[k] = a->mk[k] + b->mk[k];
    for (int k = 0; k < n; k++) {
        int best = -1;
        for (int j = 0; j < n; j++)
            if (th[j] >= 0 && (best < 0 || cy[j] > cy[best] || (cy[j] == cy[best] && th[j] < th[best]))) best = j;
        if (k < TL_TOPK) {
            m.th[k] = th[best];
            m.cy[k] = cy[best];
        } else {
            m.other += cy[best];
        }
        th[best] = -1;
    }
    return m;
}

/* Widens the columns (doubling, merging pairs) until time e fits in TL_COLS of them. */
static void tl_fit(rmachine *rm, uint64_t e) {
    while (e > rm->w * TL_COLS) {
        for (int c = 0; c < rm->ncpus; c++) {
            column *cols = rm->cpus[c].cols;
            for (int i = 0; i < TL_COLS / 2; i++) cols[i] = col_merge(&cols[2 * i], &cols[2 * i + 1]);
            for (int i = TL_COLS / 2; i < TL_COLS; i++) col_clear(&cols[i]);
        }
        rm->w *= 2;
    }
}

/* The interval [s, e) of thread th on CPU c ended: thread totals, timeline, the kept list. */
static void add_interval(rmachine *rm, int c, int32_t th, uint64_t s, uint64_t e, int why, int next) {
    if (e < s) e = s;
    rthread *rt = &rm->threads[th];
    rcpu *rc = &rm->cpus[c];
    rt->run += e - s;
    rt->nint++;
    rc->nint++;
    rm->ivtotal++;
    if (next == NX_READY || next == NX_WAITING)
        rt->outs[wait_index(why)]++;
    else if (next == NX_TERMINATED)
        rt->exits++;
    tl_fit(rm, e);
    column *cols = rc->cols;
    for (uint64_t t = s; t < e;) {
        uint64_t col = t / rm->w, stop = (col + 1) * rm->w;
        if (stop > e) stop = e;
        col_add(&cols[col], th, stop - t);
        t = stop;
    }
    if (next != NX_RUNNING) {
        uint64_t col = e / rm->w;
        if (col >= TL_COLS) col = TL_COLS - 1;
        cols[col].nsw++;
        cols[col].mk[mk_of(why, next)]++;
    }
    if (rm->niv < rm->r->max_intervals) {
        if (!grow(&rm->iv, &rm->capiv, rm->niv + 1, sizeof *rm->iv)) {
            nomem(rm->r);
            return;
        }
        rm->iv[rm->niv++] = (rinterval){
            s, e, th, (int16_t)c, (int8_t)(next == NX_READY || next == NX_WAITING ? why : -1), (int8_t)next};
        rc->kept++;
    }
}

static void cb_record(void *ud, const sim_record *r) {
    rmachine *rm = ud;
    if (r->type == SIM_REC_READY) {
        rthread *rt = thread_of(rm, r->thread);
        if (rt && rt->s.count == 0) sample(rm, rt, sim_thread_bank(r->thread), r->time);
        return;
    }
    if (r->type != SIM_REC_SWITCH || r->cpu < 0 || r->cpu >= rm->ncpus) return;
    rcpu *rc = &rm->cpus[r->cpu];
    if (r->old) {
        rthread *rt = thread_of(rm, r->old);
        if (rt && rc->cur == rt->index) {
            int next = r->old_state == SIM_TS_WAITING ? NX_WAITING
                       : r->old_state == SIM_TS_READY ? NX_READY
                                                      : NX_TERMINATED;
            add_interval(rm, r->cpu, rt->index, rc->since, r->time, r->old_wait_reason, next);
            sample(rm, rt, sim_thread_bank(r->old), r->time);
        }
    }
    rc->cur = -1;
    if (r->thread) {
        rthread *rt = thread_of(rm, r->thread);
        if (rt) {
            rc->cur = rt->index;
            rc->since = r->time;
            sample(rm, rt, sim_thread_bank(r->thread), r->time); /* so a chart stays flat while it is off CPU */
        }
    }
}

/* ---- API calls ------------------------------------------------------------------------------- */

static fncount *fn_of(rmachine *rm, const char *name) {
    for (int i = 0; i < rm->nfns; i++)
        if (strcmp(rm->fns[i].name, name) == 0) return &rm->fns[i];
    size_t cap = (size_t)rm->capfns;
    if (!grow(&rm->fns, &cap, (size_t)rm->nfns + 1, sizeof *rm->fns)) return NULL;
    rm->capfns = (int)cap;
    fncount *fc = &rm->fns[rm->nfns];
    if (!(fc->name = clean_utf8(name))) return NULL;
    fc->lua = fc->guest = 0;
    rm->nfns++;
    return fc;
}

/* Counts a call and keeps it when under the limit: its id, or -1.  Takes args. */
static long call_new(rmachine *rm, const sim_thread *t, const char *fn, bool guest, uint64_t start, json_t *args) {
    rep_report *r = rm->r;
    fncount *fc = fn_of(rm, fn);
    rthread *rt = t ? thread_of(rm, t) : NULL;
    rm->calls_total++;
    if (rt) rt->calls++;
    if (!fc) {
        nomem(r);
        json_decref(args);
        return -1;
    }
    if (guest)
        fc->guest++;
    else
        fc->lua++;
    if (rm->calls_kept >= r->max_calls || !grow(&r->calls, &r->capcalls, r->ncalls + 1, sizeof *r->calls)) {
        json_decref(args);
        return -1;
    }
    rm->calls_kept++;
    r->calls[r->ncalls] = (rcall){rm->k,
                                  rt ? rt->index : -1,
                                  t ? sim_thread_cpu(t) : -1,
                                  guest,
                                  false,
                                  fc->name,
                                  start,
                                  start,
                                  args ? args : json_array(),
                                  NULL};
    return (long)r->ncalls++;
}

static void call_done(rep_report *r, long id, json_t *results) {
    if (id < 0 || (size_t)id >= r->ncalls || r->calls[id].done) {
        json_decref(results);
        return;
    }
    rcall *c = &r->calls[id];
    const rmachine *rm = r->machines[c->mk];
    c->done = true;
    c->results = results ? results : json_array();
    if (rm->m) c->end = sim_clock(rm->m);
}

static void cb_call(void *ud, const hcp_call *c) {
    rmachine *rm = ud;
    rthread *rt = c->thread ? thread_of(rm, c->thread) : NULL;
    if (c->resumed) {
        if (rt && rt->pending >= 0) {
            json_t *res = json_array();
            json_array_append_new(res, json_integer((json_int_t)c->result));
            call_done(rm->r, rt->pending, res);
            rt->pending = -1;
        }
        return;
    }
    json_t *args = json_array();
    for (int i = 0; i < c->nargs; i++) json_array_append_new(args, json_integer((json_int_t)c->args[i]));
    long id = call_new(rm, c->thread, c->name, true, c->start, args);
    if (c->pending) {
        if (rt) rt->pending = id;
        return;
    }
    json_t *res = json_array();
    json_array_append_new(res, json_integer((json_int_t)c->result));
    call_done(rm->r, id, res);
}

static rmachine *machine_of(rep_report *r, const sim_machine *m) {
    if (!r || !m) return NULL;
    for (int k = 0; k < r->nmachines; k++)
        if (r->machines[k]->m == m) return r->machines[k];
    return NULL;
}

long rep_call_begin(rep_report *r, sim_machine *m, const sim_thread *t, const char *fn, rep_value *args) {
    rmachine *rm = machine_of(r, m);
    if (!rm) {
        json_decref((json_t *)args);
        return -1;
    }
    return call_new(rm, t, fn, false, sim_clock(m), (json_t *)args);
}

void rep_call_end(rep_report *r, long id, rep_value *results) {
    if (!r) {
        json_decref((json_t *)results);
        return;
    }
    call_done(r, id, (json_t *)results);
}

/* ---- values ---------------------------------------------------------------------------------- */

rep_value *rep_value_null(void) { return (rep_value *)json_null(); }
rep_value *rep_value_bool(bool v) { return (rep_value *)json_boolean(v); }
rep_value *rep_value_int(int64_t v) { return (rep_value *)json_integer((json_int_t)v); }
rep_value *rep_value_list(void) { return (rep_value *)json_array(); }
rep_value *rep_value_object(void) { return (rep_value *)json_object(); }

rep_value *rep_value_str(const char *s) {
    char *c = clean_utf8(s);
    if (!c) return NULL;
    json_t *v = json_string(c);
    free(c);
    return (rep_value *)v;
}

void rep_value_append(rep_value *list, rep_value *v) {
    if (list && v)
        json_array_append_new((json_t *)list, (json_t *)v);
    else
        json_decref((json_t *)v);
}

void rep_value_set(rep_value *object, const char *key, rep_value *v) {
    char *k = clean_utf8(key);
    if (object && v && k)
        json_object_set_new((json_t *)object, k, (json_t *)v);
    else
        json_decref((json_t *)v);
    free(k);
}

void rep_value_free(rep_value *v) { json_decref((json_t *)v); }

/* ---- public: open, attach, detach ------------------------------------------------------------ */

int rep_report_format(const char *path, rep_format *out) {
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash) || dot == path || (slash && dot == slash + 1)) return -1;
    if (strcmp(dot, ".json") == 0)
        *out = REP_FORMAT_JSON;
    else if (strcmp(dot, ".md") == 0)
        *out = REP_FORMAT_MARKDOWN;
    else if (strcmp(dot, ".html") == 0)
        *out = REP_FORMAT_HTML;
    else
        return -1;
    return 0;
}

rep_report *rep_report_open(const char *path, rep_format fmt) {
    rep_report *r = calloc(1, sizeof *r);
    if (!r) {
        errno = ENOMEM;
        return NULL;
    }
    r->fmt = fmt;
    r->max_intervals = REP_REPORT_MAX_INTERVALS;
    r->max_calls = REP_REPORT_MAX_CALLS;
    if (!(r->f = rep_out_open(path, &r->path, &r->tmp))) {
        int e = errno;
        free(r);
        errno = e;
        return NULL;
    }
    return r;
}

void rep_report_set_limits(rep_report *r, uint64_t max_intervals, uint64_t max_calls) {
    if (!r) return;
    r->max_intervals = max_intervals;
    r->max_calls = max_calls;
}

void rep_report_set_run(rep_report *r, const char *scenario, uint64_t seed, int nargs, char *const *args) {
    if (!r) return;
    free(r->scenario);
    r->scenario = clean_utf8(scenario);
    r->seed = seed;
    r->args = calloc((size_t)(nargs > 0 ? nargs : 1), sizeof *r->args);
    if (!r->scenario || !r->args) {
        nomem(r);
        return;
    }
    for (int i = 0; i < nargs; i++)
        if ((r->args[i] = clean_utf8(args[i]))) r->nargs = i + 1;
}

int rep_report_attach(rep_report *r, sim_machine *m, hcp_os *os, const char *platform) {
    size_t cap = (size_t)r->capmachines;
    if (!grow(&r->machines, &cap, (size_t)r->nmachines + 1, sizeof *r->machines)) return -1;
    r->capmachines = (int)cap;
    rmachine *rm = calloc(1, sizeof *rm);
    if (!rm) return -1;
    rm->r = r;
    rm->m = m;
    rm->os = os;
    rm->k = r->nmachines;
    snprintf(rm->platform, sizeof rm->platform, "%s", platform ? platform : "");
    rm->sem = os ? hcp_os_semantics(os) : HCP_DOCUMENTED;
    rm->cfg = *sim_machine_config(m);
    rm->ncpus = sim_cpu_count(m);
    rm->w = 1;
    const pmu_config *pc = &rm->cfg.pmc;
    for (int i = 0; i < pc->npmc; i++) {
        bool dup = false;
        for (int j = 0; j < i; j++) dup |= pc->pmc[j] == pc->pmc[i] && pc->mode[j] == pc->mode[i];
        if (!dup) rm->vpmc[rm->nv++] = i;
    }
    rm->cpus = calloc((size_t)rm->ncpus, sizeof *rm->cpus);
    if (!rm->cpus) {
        free(rm);
        return -1;
    }
    for (int c = 0; c < rm->ncpus; c++) {
        rm->cpus[c].cur = -1;
        if (!(rm->cpus[c].cols = malloc(TL_COLS * sizeof(column)))) {
            for (int d = 0; d < c; d++) free(rm->cpus[d].cols);
            free(rm->cpus);
            free(rm);
            return -1;
        }
        for (int i = 0; i < TL_COLS; i++) col_clear(&rm->cpus[c].cols[i]);
    }
    sim_observer o = {NULL, NULL, cb_record, rm};
    rm->slot = sim_add_observer(m, &o);
    if (rm->slot < 0) {
        for (int c = 0; c < rm->ncpus; c++) free(rm->cpus[c].cols);
        free(rm->cpus);
        free(rm);
        return -1;
    }
    if (os) hcp_set_call_observer(os, cb_call, rm);
    r->machines[r->nmachines++] = rm;
    return 0;
}

void rep_report_detach(rep_report *r, sim_machine *m) {
    rmachine *rm = machine_of(r, m);
    if (!rm) return;
    uint64_t end = 0;
    for (int c = 0; c < rm->ncpus; c++) {
        sim_cpu_stats_of(m, c, &rm->cpus[c].st);
        if (rm->cpus[c].st.time > end) end = rm->cpus[c].st.time;
    }
    rm->end = end;
    for (int c = 0; c < rm->ncpus; c++) { /* threads still running: their interval ends at their CPU's clock */
        rcpu *rc = &rm->cpus[c];
        if (rc->cur >= 0) add_interval(rm, c, rc->cur, rc->since, rc->st.time, -1, NX_RUNNING);
        rc->cur = -1;
    }
    int n = sim_thread_count(m);
    for (int i = 0; i < n; i++) {
        sim_thread *t = sim_thread_at(m, i);
        rthread *rt = thread_of(rm, t);
        if (!rt) continue;
        rt->final = true;
        rt->state = (int)sim_thread_state_of(t);
        rt->priority = sim_thread_priority(t);
        rt->ideal = sim_thread_ideal(t);
        rt->affinity = sim_thread_affinity(t);
        rt->exit_code = sim_thread_exit_code(t);
        rt->create = sim_thread_create_time(t);
        rt->exit = sim_thread_exit_time(t);
        rt->ticks = sim_thread_ticks(t);
        rt->switches = sim_thread_switches(t);
        rt->cycle_time = sim_thread_cycle_time(t);
        rt->bank = *sim_thread_bank(t);
        sample(rm, rt, &rt->bank, rt->state == SIM_TS_TERMINATED ? rt->exit : end);
    }
    sim_remove_observer(m, rm->slot);
    if (rm->os) hcp_set_call_observer(rm->os, NULL, NULL);
    rm->detached = true;
    rm->m = NULL;
    rm->os = NULL;
}

/* ---- shared helpers for the three writers ---------------------------------------------------- */

typedef struct view {
    const rep_report *r;
    int exit_status;
    const char *error;
} view;

/* Threads by CPU time (run cycles), most first; ties by index. */
static int *thread_rank(const rmachine *rm) {
    int n = rm->nthreads;
    int *o = malloc((size_t)(n ? n : 1) * sizeof *o);
    if (!o) return NULL;
    for (int i = 0; i < n; i++) o[i] = i;
    /* insertion into a binary-searched position keeps this O(n log n) comparisons */
    for (int i = 1; i < n; i++) {
        int x = o[i], lo = 0, hi = i;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            const rthread *a = &rm->threads[o[mid]], *b = &rm->threads[x];
            bool before = a->run > b->run || (a->run == b->run && a->index < b->index);
            if (before)
                lo = mid + 1;
            else
                hi = mid;
        }
        memmove(o + lo + 1, o + lo, (size_t)(i - lo) * sizeof *o);
        o[lo] = x;
    }
    return o;
}

/* colour slot of each thread: its rank when below NCOLORS and it ran, else -1 */
static int *thread_colors(const rmachine *rm, const int *rank) {
    int *col = malloc((size_t)(rm->nthreads ? rm->nthreads : 1) * sizeof *col);
    if (!col) return NULL;
    for (int i = 0; i < rm->nthreads; i++) col[i] = -1;
    for (int i = 0; i < rm->nthreads && i < NCOLORS; i++)
        if (rm->threads[rank[i]].run) col[rank[i]] = i;
    return col;
}

static uint64_t user_cycles(const rthread *rt) { return rt->bank.ev[PMU_EV_CYCLES]; }
static uint64_t kernel_cycles(const rthread *rt) { return rt->bank.kev[PMU_EV_CYCLES] - rt->bank.intr_cycles; }
static uint64_t interrupt_cycles(const rthread *rt) { return rt->bank.intr_cycles; }

/* 2: an error ended the run; 128 + N: signal N stopped it (hcpsim run's interrupt handling) */
static const char *status_name(int exit_status) {
    return exit_status == 2 ? "partial" : exit_status >= 128 ? "interrupted" : "complete";
}

/* ---- JSON ------------------------------------------------------------------------------------ */

static void jset(json_t *o, const char *k, json_t *v) { json_object_set_new(o, k, v); }
static void jint(json_t *o, const char *k, uint64_t v) { jset(o, k, json_integer((json_int_t)v)); }
static void jstr(json_t *o, const char *k, const char *s) {
    char *c = clean_utf8(s);
    jset(o, k, c ? json_string(c) : json_null());
    free(c);
}

static json_t *j_level(const pmu_cache_level *l) {
    json_t *o = json_object();
    jint(o, "size", l->size);
    jint(o, "ways", l->ways);
    jint(o, "line", l->line);
    return o;
}

static json_t *j_machine(const rmachine *rm, const rep_report *r) {
    const sim_config *c = &rm->cfg;
    json_t *o = json_object();
    jint(o, "index", (uint64_t)rm->k);
    jstr(o, "platform", rm->platform);
    jstr(o, "semantics", rm->sem == HCP_OBSERVED ? "observed" : "documented");
    jint(o, "end_cycles", rm->end);
    jint(o, "end_ns", ns_of(c->frequency, rm->end));
    jset(o, "detached", json_boolean(rm->detached));

    json_t *cf = json_object();
    uint64_t tick_cycles = sim_mul_div(c->tick, c->frequency, 10000000u);
    jint(cf, "cpus", (uint64_t)c->cpus);
    jint(cf, "frequency", c->frequency);
    jint(cf, "tick_100ns", c->tick);
    jint(cf, "tick_cycles", tick_cycles);
    jint(cf, "quantum_ticks", c->quantum);
    jint(cf, "quantum_cycles", tick_cycles * c->quantum);
    jint(cf, "interrupt_cycles", c->interrupt_cycles);
    jint(cf, "slice_cycles", c->slice);
    jint(cf, "max_cycles", c->max_cycles ? c->max_cycles : SIM_DEFAULT_MAX_CYCLES);
    jint(cf, "stack_size", c->stack_size);
    jint(cf, "boot_time", c->boot_time);
    jset(cf, "precise_faults", json_boolean(c->precise_faults));
    jset(cf, "predictor", json_boolean(c->predictor));
    jset(cf, "cache", json_boolean(c->cache));
    jset(o, "config", cf);

    json_t *pl = json_array();
    for (int i = 0; i < c->pmc.npmc; i++) {
        json_t *p = json_object();
        char name[48];
        counter_name(name, sizeof name, &c->pmc, i);
        jint(p, "index", (uint64_t)i);
        jstr(p, "event", pmu_event_name(c->pmc.pmc[i]));
        jstr(p, "mode", pmu_mode_name(c->pmc.mode[i]));
        jstr(p, "name", name);
        json_array_append_new(pl, p);
    }
    jset(o, "pmc", pl);

    const pmu_cost_params *cp = &c->cost;
    json_t *co = json_object();
    jstr(co, "profile", cp->profile ? cp->profile : "");
    jstr(co, "table", cp->table ? cp->table : "");
    json_t *cl = json_object();
    for (int k = 0; k < PMU_CL__COUNT; k++) jint(cl, pmu_class_name((pmu_class)k), cp->class_cycles[k]);
    jset(co, "class_cycles", cl);
    jint(co, "mispredict_cycles", cp->mispredict_cycles);
    jint(co, "l2_hit_cycles", cp->l2_hit_cycles);
    jint(co, "llc_hit_cycles", cp->llc_hit_cycles);
    jint(co, "mem_cycles", cp->mem_cycles);
    jint(co, "api_call_cycles", cp->api_call_cycles);
    jint(co, "interrupt_cycles", c->interrupt_cycles);
    json_t *bp = json_object();
    jset(bp, "enabled", json_boolean(c->predictor));
    jint(bp, "hist_bits", cp->bp.hist_bits);
    jint(bp, "index_bits", cp->bp.index_bits);
    jint(bp, "pc_shift", cp->bp.pc_shift);
    jint(bp, "ras_depth", cp->bp.ras_depth);
    jint(bp, "btb_entries", cp->bp.btb_entries);
    jset(co, "predictor", bp);
    json_t *ca = json_object();
    jset(ca, "enabled", json_boolean(c->cache));
    jset(ca, "l1d", j_level(&cp->cache.l1d));
    jset(ca, "l2", j_level(&cp->cache.l2));
    jset(ca, "llc", j_level(&cp->cache.llc));
    jset(co, "cache", ca);
    jset(o, "cost", co);

    json_t *ths = json_array();
    for (int i = 0; i < rm->nthreads; i++) {
        const rthread *rt = &rm->threads[i];
        if (!rt->seen) continue;
        json_t *t = json_object();
        char hex[24];
        jint(t, "index", (uint64_t)rt->index);
        jint(t, "id", rt->id);
        jstr(t, "name", rt->name);
        jint(t, "priority", (uint64_t)rt->priority);
        jset(t, "ideal", json_integer(rt->ideal));
        snprintf(hex, sizeof hex, "0x%" PRIX64, rt->affinity);
        jstr(t, "affinity", hex);
        jstr(t, "state", kstate_name(rt->state));
        jint(t, "exit_code", rt->exit_code);
        jint(t, "create_cycles", rt->create);
        jset(t, "exit_cycles", rt->state == SIM_TS_TERMINATED ? json_integer((json_int_t)rt->exit) : json_null());
        json_t *cn = json_object();
        for (int j = 0; j < rm->nv; j++) {
            char name[48];
            counter_name(name, sizeof name, &c->pmc, rm->vpmc[j]);
            jint(cn, name, pmu_pmc_read(&c->pmc, &rt->bank, (uint64_t)rm->vpmc[j]));
        }
        jset(t, "counters", cn);
        jint(t, "cycle_time", rt->cycle_time);
        jint(t, "user_cycles", user_cycles(rt));
        jint(t, "kernel_cycles", kernel_cycles(rt));
        jint(t, "interrupt_cycles", interrupt_cycles(rt));
        jint(t, "user_ns", ns_of(c->frequency, user_cycles(rt)));
        jint(t, "kernel_ns", ns_of(c->frequency, kernel_cycles(rt)));
        jint(t, "interrupt_ns", ns_of(c->frequency, interrupt_cycles(rt)));
        jint(t, "ticks", rt->ticks);
        jint(t, "run_cycles", rt->run);
        jint(t, "intervals", rt->nint);
        jint(t, "api_calls", rt->calls);
        json_t *sw = json_object();
        jint(sw, "in", rt->switches);
        json_t *out = json_object();
        for (int w = 0; w < NWAIT; w++)
            if (rt->outs[w]) jint(out, sim_wait_reason_name(w), rt->outs[w]);
        jset(sw, "out", out);
        jint(sw, "exit", rt->exits);
        jset(t, "switches", sw);
        json_array_append_new(ths, t);
    }
    jset(o, "threads", ths);

    json_t *cpus = json_array();
    for (int k = 0; k < rm->ncpus; k++) {
        const rcpu *rc = &rm->cpus[k];
        json_t *x = json_object();
        jint(x, "index", (uint64_t)k);
        jint(x, "time", rc->st.time);
        jint(x, "busy", rc->st.busy);
        jint(x, "idle", rc->st.idle);
        jint(x, "interrupt", rc->st.interrupt);
        jint(x, "ticks", rc->st.ticks);
        jint(x, "switches", rc->st.switches);
        jint(x, "intervals", rc->nint);
        jint(x, "busy_bp", rc->st.time ? sim_mul_div(rc->st.busy, 10000, rc->st.time) : 0);
        json_array_append_new(cpus, x);
    }
    jset(o, "cpus", cpus);

    json_t *sc = json_object();
    jint(sc, "limit", rm->r->max_intervals);
    jint(sc, "total", rm->ivtotal);
    jint(sc, "kept", rm->niv);
    jset(sc, "truncated", json_boolean(rm->niv < rm->ivtotal));
    json_t *lanes = json_array();
    for (int k = 0; k < rm->ncpus; k++) {
        json_t *lane = json_object(), *ivs = json_array();
        jint(lane, "cpu", (uint64_t)k);
        for (size_t i = 0; i < rm->niv; i++) {
            const rinterval *v = &rm->iv[i];
            if (v->cpu != k) continue;
            json_t *x = json_object();
            jint(x, "tid", rm->threads[v->th].id);
            jint(x, "start", v->start);
            jint(x, "end", v->end);
            jint(x, "cycles", v->end - v->start);
            jset(x, "left_with", v->why >= 0 ? json_string(wait_name(v->why)) : json_null());
            jstr(x, "next_state", next_names[v->next]);
            json_array_append_new(ivs, x);
        }
        jset(lane, "intervals", ivs);
        json_array_append_new(lanes, lane);
    }
    jset(sc, "lanes", lanes);
    jset(o, "schedule", sc);

    json_t *api = json_object();
    jint(api, "limit", rm->r->max_calls);
    jint(api, "total", rm->calls_total);
    jint(api, "kept", rm->calls_kept);
    jset(api, "truncated", json_boolean(rm->calls_kept < rm->calls_total));
    json_t *byfn = json_object();
    for (int i = 0; i < rm->nfns; i++) {
        json_t *x = json_object();
        jint(x, "lua", rm->fns[i].lua);
        jint(x, "guest", rm->fns[i].guest);
        jset(byfn, rm->fns[i].name, x);
    }
    jset(api, "by_function", byfn);
    json_t *calls = json_array();
    uint64_t seq = 0;
    for (size_t i = 0; i < r->ncalls; i++) {
        const rcall *cl2 = &r->calls[i];
        if (cl2->mk != rm->k) continue;
        json_t *x = json_object();
        jint(x, "seq", seq++);
        jset(x, "tid", cl2->th >= 0 ? json_integer(rm->threads[cl2->th].id) : json_null());
        jset(x, "cpu", cl2->cpu >= 0 ? json_integer(cl2->cpu) : json_null());
        jint(x, "start", cl2->start);
        jint(x, "end", cl2->end);
        jstr(x, "via", cl2->guest ? "guest" : "lua");
        jstr(x, "function", cl2->fn);
        jset(x, "args", json_incref(cl2->args));
        jset(x, "results", cl2->results ? json_incref(cl2->results) : json_null());
        jset(x, "completed", json_boolean(cl2->done));
        json_array_append_new(calls, x);
    }
    jset(api, "calls", calls);
    jset(o, "api", api);
    return o;
}

static int write_json(const view *v, FILE *f) {
    const rep_report *r = v->r;
    json_t *d = json_object();
    jstr(d, "schema", SCHEMA_NAME);
    jint(d, "version", SCHEMA_VERSION);
    jstr(d, "generator", "hcpsim");
    json_t *run = json_object();
    jstr(run, "scenario", r->scenario ? r->scenario : "");
    jint(run, "seed", r->seed);
    json_t *args = json_array();
    for (int i = 0; i < r->nargs; i++) json_array_append_new(args, json_string(r->args[i] ? r->args[i] : ""));
    jset(run, "args", args);
    jstr(run, "status", status_name(v->exit_status));
    jint(run, "exit_status", (uint64_t)v->exit_status);
    if (v->error)
        jstr(run, "error", v->error);
    else
        jset(run, "error", json_null());
    /* why the report stops early: the error of a failed run (a limit reached, a scenario error) */
    if (v->error && (v->exit_status == 2 || v->exit_status >= 128))
        jstr(run, "partial", v->error);
    else
        jset(run, "partial", json_null());
    jset(d, "run", run);
    json_t *lim = json_object();
    jint(lim, "intervals_per_machine", r->max_intervals);
    jint(lim, "calls_per_machine", r->max_calls);
    jset(d, "limits", lim);
    json_t *ms = json_array();
    for (int k = 0; k < r->nmachines; k++) json_array_append_new(ms, j_machine(r->machines[k], r));
    jset(d, "machines", ms);
    int rc = json_dumpf(d, f, JSON_INDENT(1) | JSON_SORT_KEYS);
    fputc('\n', f);
    json_decref(d);
    return rc == 0 ? 0 : EIO;
}

/* ---- Markdown -------------------------------------------------------------------------------- */

/* A JSON value as compact text (sorted keys), for the call tables. */
static char *compact(const json_t *v) {
    return v ? json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY) : dup_str("-");
}

static void md_thread_name(FILE *f, const rthread *rt) { put_md(f, rt->name); }

static void write_md_machine(const view *v, const rmachine *rm, FILE *f) {
    const sim_config *c = &rm->cfg;
    const pmu_cost_params *cp = &c->cost;
    char b1[48], b2[48], b3[48];
    uint64_t tick_cycles = sim_mul_div(c->tick, c->frequency, 10000000u);
    fprintf(f, "\n## Machine %d: ", rm->k);
    put_md(f, rm->platform);
    fprintf(f, ", %d CPU%s, %s semantics\n\n", c->cpus, c->cpus == 1 ? "" : "s",
            rm->sem == HCP_OBSERVED ? "observed" : "documented");
    fprintf(f, "Ran for %" PRIu64 " cycles (%s µs of virtual time).%s\n", rm->end,
            us_str(b1, sizeof b1, ns_of(c->frequency, rm->end)),
            rm->detached ? "" : " The machine was never released, so its totals are missing.");

    fputs("\n### Configuration\n\n| setting | value |\n|---|---|\n", f);
    fprintf(f, "| cpus | %d |\n| frequency | %" PRIu64 " cycles/s |\n", c->cpus, c->frequency);
    fprintf(f, "| tick | %" PRIu32 " × 100 ns = %" PRIu64 " cycles |\n", c->tick, tick_cycles);
    fprintf(f, "| quantum | %" PRIu32 " ticks = %" PRIu64 " cycles |\n", c->quantum, tick_cycles * c->quantum);
    fprintf(f, "| clock interrupt | %" PRIu32 " cycles |\n", c->interrupt_cycles);
    fprintf(f, "| lock-step slice | %" PRIu64 " cycles |\n", c->slice);
    fprintf(f, "| max_cycles | %" PRIu64 " |\n", c->max_cycles ? c->max_cycles : SIM_DEFAULT_MAX_CYCLES);
    fprintf(f, "| stack size | %" PRIu32 " bytes |\n", c->stack_size);
    fprintf(f, "| boot time | %" PRIu64 " (FILETIME) |\n", c->boot_time);
    fprintf(f, "| branch predictor | %s |\n| cache model | %s |\n| precise faults | %s |\n",
            c->predictor ? "on" : "off", c->cache ? "on" : "off", c->precise_faults ? "on" : "off");

    fputs("\n### Programmed counters\n\n| PMC | event | mode |\n|---|---|---|\n", f);
    for (int i = 0; i < c->pmc.npmc; i++)
        fprintf(f, "| %d | %s | %s |\n", i, pmu_event_name(c->pmc.pmc[i]), pmu_mode_name(c->pmc.mode[i]));
    if (!c->pmc.npmc) fputs("| - | none | - |\n", f);

    fprintf(f, "\n### Cost tables: profile %s, table %s\n\n| instruction class | cycles |\n|---|---|\n",
            cp->profile ? cp->profile : "-", cp->table ? cp->table : "-");
    for (int k = 0; k < PMU_CL__COUNT; k++)
        fprintf(f, "| %s | %" PRIu32 " |\n", pmu_class_name((pmu_class)k), cp->class_cycles[k]);
    fputs("\n| event | cycles |\n|---|---|\n", f);
    fprintf(f, "| branch mispredict | %" PRIu32 " |\n| L2 hit | %" PRIu32 " |\n| LLC hit | %" PRIu32 " |\n",
            cp->mispredict_cycles, cp->l2_hit_cycles, cp->llc_hit_cycles);
    fprintf(f, "| memory | %" PRIu32 " |\n| API call (kernel) | %" PRIu32 " |\n| clock interrupt | %" PRIu32 " |\n",
            cp->mem_cycles, cp->api_call_cycles, c->interrupt_cycles);
    fprintf(f,
            "\nBranch predictor (%s): %" PRIu32 " history bits, 2^%" PRIu32 " counters, pc shift %" PRIu32 ", %" PRIu32
            "-entry return stack, %" PRIu32 "-entry BTB.\n",
            c->predictor ? "on" : "off", cp->bp.hist_bits, cp->bp.index_bits, cp->bp.pc_shift, cp->bp.ras_depth,
            cp->bp.btb_entries);
    fprintf(f, "\n| cache (%s) | size | ways | line |\n|---|---|---|---|\n", c->cache ? "on" : "off");
    const pmu_cache_level *lv[3] = {&cp->cache.l1d, &cp->cache.l2, &cp->cache.llc};
    static const char *const lvn[3] = {"L1D", "L2", "LLC"};
    for (int i = 0; i < 3; i++)
        fprintf(f, "| %s | %" PRIu32 " | %" PRIu32 " | %" PRIu32 " |\n", lvn[i], lv[i]->size, lv[i]->ways, lv[i]->line);

    fputs("\n### Threads\n\nCounters as RDPMC reads them (48 bits, mode applied); times in cycles.\n\n", f);
    fputs("| thread | id | state | exit code |", f);
    for (int j = 0; j < rm->nv; j++) {
        char name[48];
        counter_name(name, sizeof name, &c->pmc, rm->vpmc[j]);
        fprintf(f, " %s |", name);
    }
    fputs(" cycle time | user | kernel | interrupt | ticks | on CPU | switch-ins | switch-outs by wait reason | "
          "API calls |\n|---|---|---|---|",
          f);
    for (int j = 0; j < rm->nv; j++) fputs("---|", f);
    fputs("---|---|---|---|---|---|---|---|---|\n", f);
    for (int i = 0; i < rm->nthreads; i++) {
        const rthread *rt = &rm->threads[i];
        if (!rt->seen) continue;
        fputs("| ", f);
        md_thread_name(f, rt);
        fprintf(f, " | %" PRIu32 " | %s | %" PRIu32 " |", rt->id, kstate_name(rt->state), rt->exit_code);
        for (int j = 0; j < rm->nv; j++)
            fprintf(f, " %" PRIu64 " |", pmu_pmc_read(&c->pmc, &rt->bank, (uint64_t)rm->vpmc[j]));
        fprintf(
            f, " %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | ",
            rt->cycle_time, user_cycles(rt), kernel_cycles(rt), interrupt_cycles(rt), rt->ticks, rt->run, rt->switches);
        bool any = false;
        for (int w = 0; w < NWAIT; w++)
            if (rt->outs[w]) {
                fprintf(f, "%s%s %" PRIu64, any ? ", " : "", sim_wait_reason_name(w), rt->outs[w]);
                any = true;
            }
        if (rt->exits) fprintf(f, "%sexit %" PRIu64, any ? ", " : "", rt->exits), any = true;
        fprintf(f, "%s | %" PRIu64 " |\n", any ? "" : "-", rt->calls);
    }

    fputs("\n### CPUs\n\n| CPU | time | busy | busy % | idle | interrupt | ticks | switches | intervals |\n"
          "|---|---|---|---|---|---|---|---|---|\n",
          f);
    for (int k = 0; k < rm->ncpus; k++) {
        const sim_cpu_stats *s = &rm->cpus[k].st;
        fprintf(f,
                "| %d | %" PRIu64 " | %" PRIu64 " | %s | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64
                " | %" PRIu64 " |\n",
                k, s->time, s->busy, pct_str(b1, sizeof b1, s->busy, s->time), s->idle, s->interrupt, s->ticks,
                s->switches, rm->cpus[k].nint);
    }

    fprintf(f, "\n### Schedule\n\nEach stretch a thread was a CPU's current thread (cycles on that CPU's clock), "
               "and how it left.");
    if (rm->niv < rm->ivtotal)
        fprintf(f, " **Truncated**: the first %zu of %" PRIu64 " intervals (limit %" PRIu64 " per machine).", rm->niv,
                rm->ivtotal, rm->r->max_intervals);
    fputs("\n\n| CPU | thread | id | start | end | cycles | µs | left with | next state |\n"
          "|---|---|---|---|---|---|---|---|---|\n",
          f);
    for (int k = 0; k < rm->ncpus; k++)
        for (size_t i = 0; i < rm->niv; i++) {
            const rinterval *iv = &rm->iv[i];
            if (iv->cpu != k) continue;
            const rthread *rt = &rm->threads[iv->th];
            fprintf(f, "| %d | ", k);
            md_thread_name(f, rt);
            fprintf(f, " | %" PRIu32 " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | %s | %s | %s |\n", rt->id, iv->start,
                    iv->end, iv->end - iv->start,
                    us_str(b2, sizeof b2, ns_of(c->frequency, iv->end) - ns_of(c->frequency, iv->start)),
                    iv->why >= 0 ? wait_name(iv->why) : "-", next_names[iv->next]);
        }

    fprintf(f, "\n### API calls\n\n%" PRIu64 " calls.", rm->calls_total);
    if (rm->calls_kept < rm->calls_total)
        fprintf(f, " **Truncated**: the first %" PRIu64 " are listed (limit %" PRIu64 " per machine).", rm->calls_kept,
                rm->r->max_calls);
    fputs("\n\n| function | from Lua | from guest code |\n|---|---|---|\n", f);
    /* by name: a small insertion order over the machine's functions */
    int order[64], no = 0;
    for (int i = 0; i < rm->nfns && no < 64; i++) {
        int j = no++;
        while (j > 0 && strcmp(rm->fns[order[j - 1]].name, rm->fns[i].name) > 0) order[j] = order[j - 1], j--;
        order[j] = i;
    }
    for (int i = 0; i < no; i++)
        fprintf(f, "| %s | %" PRIu64 " | %" PRIu64 " |\n", rm->fns[order[i]].name, rm->fns[order[i]].lua,
                rm->fns[order[i]].guest);
    if (!no) fputs("| - | 0 | 0 |\n", f);
    fputs("\n| # | start | end | thread | via | function | arguments | results |\n"
          "|---|---|---|---|---|---|---|---|\n",
          f);
    uint64_t seq = 0;
    for (size_t i = 0; i < v->r->ncalls; i++) {
        const rcall *cl = &v->r->calls[i];
        if (cl->mk != rm->k) continue;
        fprintf(f, "| %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | ", seq++, cl->start, cl->end);
        if (cl->th >= 0)
            md_thread_name(f, &rm->threads[cl->th]);
        else
            fputs("(machine)", f);
        fprintf(f, " | %s | %s | ", cl->guest ? "guest" : "lua", cl->fn);
        char *a = compact(cl->args), *res = cl->done ? compact(cl->results) : dup_str("(did not return)");
        put_md(f, a ? a : "?");
        fputs(" | ", f);
        put_md(f, res ? res : "?");
        fputs(" |\n", f);
        free(a);
        free(res);
    }
    (void)b3;
}

static int write_md(const view *v, FILE *f) {
    const rep_report *r = v->r;
    fputs("# hcpsim run report\n\n| | |\n|---|---|\n| scenario | ", f);
    put_md(f, r->scenario);
    fprintf(f, " |\n| seed | %" PRIu64 " |\n| arguments | ", r->seed);
    for (int i = 0; i < r->nargs; i++) {
        if (i) fputs(", ", f);
        put_md(f, r->args[i]);
    }
    if (!r->nargs) fputs("none", f);
    fprintf(f, " |\n| status | %s (exit status %d) |\n", status_name(v->exit_status), v->exit_status);
    if (v->error) {
        fputs("| error | ", f);
        put_md(f, v->error);
        fputs(" |\n", f);
    }
    fprintf(f, "| machines | %d |\n| schema | %s version %d (reports/SCHEMA.md) |\n", r->nmachines, SCHEMA_NAME,
            SCHEMA_VERSION);
    for (int k = 0; k < r->nmachines; k++) write_md_machine(v, r->machines[k], f);
    return 0;
}

/* ---- HTML with SVG ----------------------------------------------------------------------------- */

#define ML 80       /* left margin of a plot: lane labels */
#define PW 1000     /* plot width */
#define LH 26       /* lane height */
#define LANE_GAP 26 /* below each lane: switch markers and their labels */
#define AXIS_H 24

static int px(uint64_t t, uint64_t end) { return ML + (int)sim_mul_div(t < end ? t : end, PW, end ? end : 1); }

/* A tick step for [0, span_ns]: 1, 2 or 5 × 10^k ns, at most 10 ticks. */
static uint64_t tick_step(uint64_t span_ns) {
    uint64_t step = 1;
    for (;;) {
        static const uint64_t m[3] = {1, 2, 5};
        for (int i = 0; i < 3; i++)
            if (span_ns / (step * m[i]) <= 10) return step * m[i];
        step *= 10;
    }
}

static void tick_label(char *buf, size_t n, uint64_t ns, uint64_t step) {
    if (step % 1000000 == 0)
        snprintf(buf, n, "%" PRIu64 " ms", ns / 1000000);
    else if (step % 1000 == 0)
        snprintf(buf, n, "%" PRIu64 " µs", ns / 1000);
    else
        snprintf(buf, n, "%" PRIu64 " ns", ns);
}

/* Time axis at y (a line and labelled ticks). */
static void svg_axis(FILE *f, int y, uint64_t end_ns) {
    uint64_t step = tick_step(end_ns ? end_ns : 1);
    fprintf(f, "<g class=\"axis\"><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\"/>", ML, y, ML + PW, y);
    for (uint64_t t = 0; t <= end_ns; t += step) {
        int x = px(t, end_ns);
        char lab[32];
        tick_label(lab, sizeof lab, t, step);
        fprintf(f,
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\"/><text x=\"%d\" y=\"%d\" "
                "text-anchor=\"middle\">%s</text>",
                x, y, x, y + 4, x, y + 16, lab);
        if (end_ns - t < step) break;
    }
    fputs("</g>\n", f);
}

static const char *color_of(const int *col, int th) { return th >= 0 && col[th] >= 0 ? palette[col[th]] : OTHER_COLOR; }

static void svg_timeline(const rmachine *rm, const int *col, FILE *f) {
    uint64_t end = rm->end ? rm->end : 1, end_ns = ns_of(rm->cfg.frequency, end);
    int pitch = LH + LANE_GAP, h = 8 + rm->ncpus * pitch + AXIS_H;
    bool exact = rm->niv == rm->ivtotal && rm->ivtotal <= EXACT_MAX;
    char b1[32], b2[32];
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"timeline-%d\" class=\"timeline\" width=\"%d\" "
            "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"schedule timeline, one lane per CPU\">\n",
            rm->k, ML + PW + 20, h, ML + PW + 20, h);
    for (int c = 0; c < rm->ncpus; c++) {
        const rcpu *rc = &rm->cpus[c];
        int y = 8 + c * pitch;
        fprintf(f, "<g class=\"lane\" id=\"lane-%d-%d\" data-cpu=\"%d\">", rm->k, c, c);
        fprintf(f,
                "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" class=\"lanelabel\">CPU %d</text><rect x=\"%d\" y=\"%d\" "
                "width=\"%d\" height=\"%d\" fill=\"#f3f3f3\"><title>CPU %d: busy %s%%, %" PRIu64
                " switches</title></rect>\n",
                ML - 8, y + LH / 2 + 4, c, ML, y, PW, LH, c, pct_str(b1, sizeof b1, rc->st.busy, rc->st.time),
                rc->st.switches);
        if (exact) {
            int label_end = -1000; /* where the last label drawn in this lane ends */
            for (size_t i = 0; i < rm->niv; i++) {
                const rinterval *iv = &rm->iv[i];
                if (iv->cpu != c) continue;
                const rthread *rt = &rm->threads[iv->th];
                int x0 = px(iv->start, end), x1 = px(iv->end, end);
                fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"><title>", x0, y,
                        x1 > x0 ? x1 - x0 : 1, LH, color_of(col, iv->th));
                put_html(f, rt->name);
                fprintf(f, " (%" PRIu32 "): %s to %s µs, %" PRIu64 " cycles, %s%s%s</title></rect>\n", rt->id,
                        us_str(b1, sizeof b1, ns_of(rm->cfg.frequency, iv->start)),
                        us_str(b2, sizeof b2, ns_of(rm->cfg.frequency, iv->end)), iv->end - iv->start,
                        iv->next == NX_RUNNING ? "still running" : "left with ",
                        iv->next == NX_RUNNING ? ""
                        : iv->why >= 0         ? wait_name(iv->why)
                                               : "exit",
                        iv->next == NX_READY     ? " (Ready)"
                        : iv->next == NX_WAITING ? " (Waiting)"
                                                 : "");
                if (iv->next == NX_RUNNING) continue;
                int mk = mk_of(iv->why, iv->next);
                const char *label = iv->next == NX_TERMINATED ? "exit" : wait_name(iv->why);
                fprintf(f,
                        "<line class=\"switch\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
                        "stroke-width=\"2\"><title>%s</title></line>",
                        x1, y, x1, y + LH + 5, mk_colors[mk], label);
                if (x1 + 2 >= label_end + 4) { /* a label only where it does not overlap the previous one */
                    fprintf(f, "<text class=\"mk\" x=\"%d\" y=\"%d\" fill=\"%s\">%s</text>", x1 + 2, y + LH + 14,
                            mk_colors[mk], label);
                    label_end = x1 + 2 + 6 * (int)strlen(label); /* about 6 px per character at 10 px */
                }
                fputc('\n', f);
            }
        } else {
            uint64_t ncols = (end + rm->w - 1) / rm->w;
            if (ncols > TL_COLS) ncols = TL_COLS;
            for (uint64_t i = 0; i < ncols; i++) {
                const column *cl = &rc->cols[i];
                uint64_t s = i * rm->w, e = s + rm->w < end ? s + rm->w : end;
                if (e <= s) continue;
                int x0 = px(s, end), x1 = px(e, end), wpx = x1 > x0 ? x1 - x0 : 1, yy = y + LH;
                uint64_t span = e - s, other = cl->other;
                /* tracked threads, largest first; uncoloured ones join "other" */
                int ord[TL_TOPK], n = 0;
                for (int k = 0; k < TL_TOPK; k++)
                    if (cl->th[k] >= 0) ord[n++] = k;
                for (int a = 1; a < n; a++)
                    for (int b = a;
                         b > 0 && (cl->cy[ord[b]] > cl->cy[ord[b - 1]] ||
                                   (cl->cy[ord[b]] == cl->cy[ord[b - 1]] && cl->th[ord[b]] < cl->th[ord[b - 1]]));
                         b--) {
                        int t = ord[b];
                        ord[b] = ord[b - 1];
                        ord[b - 1] = t;
                    }
                for (int a = 0; a < n; a++) {
                    int th = cl->th[ord[a]];
                    if (col[th] < 0) {
                        other += cl->cy[ord[a]];
                        continue;
                    }
                    int hh = (int)sim_mul_div(cl->cy[ord[a]], LH, span);
                    if (hh <= 0) continue;
                    yy -= hh;
                    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>", x0, yy, wpx, hh,
                            palette[col[th]]);
                }
                int hh = (int)sim_mul_div(other, LH, span);
                if (hh > 0) {
                    yy -= hh;
                    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>", x0, yy, wpx, hh,
                            OTHER_COLOR);
                }
                if (cl->nsw) {
                    int best = 0;
                    for (int k = 1; k < MK__COUNT; k++)
                        if (cl->mk[k] > cl->mk[best]) best = k;
                    fprintf(
                        f,
                        "<rect class=\"switch\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"6\" fill=\"%s\"><title>%" PRIu32
                        " switch%s:",
                        x0, y + LH + 2, wpx, mk_colors[best], cl->nsw, cl->nsw == 1 ? "" : "es");
                    for (int k = 0; k < MK__COUNT; k++)
                        if (cl->mk[k]) fprintf(f, " %s %" PRIu32, mk_names[k], cl->mk[k]);
                    fputs("</title></rect>", f);
                }
                fputc('\n', f);
            }
        }
        fputs("</g>\n", f);
    }
    svg_axis(f, 8 + rm->ncpus * pitch - 4, end_ns);
    fputs("</svg>\n", f);
}

/* One chart per distinct programmed counter: a line per coloured thread. */
static void svg_counters(const rmachine *rm, const int *rank, const int *col, FILE *f) {
    uint64_t end = rm->end ? rm->end : 1, end_ns = ns_of(rm->cfg.frequency, end);
    const int H = 120, top = 20, w = 1 + rm->nv;
    for (int j = 0; j < rm->nv; j++) {
        char name[48];
        counter_name(name, sizeof name, &rm->cfg.pmc, rm->vpmc[j]);
        uint64_t max = 0;
        for (int i = 0; i < rm->nthreads && i < NCOLORS; i++) {
            const rthread *rt = &rm->threads[rank[i]];
            if (col[rank[i]] < 0 || !rt->s.has_last) continue;
            if (rt->s.last[1 + j] > max) max = rt->s.last[1 + j];
            for (int p = 0; p < rt->s.n; p++)
                if (rt->s.pts[(size_t)p * (size_t)w + 1 + (size_t)j] > max)
                    max = rt->s.pts[(size_t)p * (size_t)w + 1 + (size_t)j];
        }
        int h = top + H + AXIS_H + 8;
        fprintf(f,
                "<figure class=\"chart\"><svg xmlns=\"http://www.w3.org/2000/svg\" class=\"counter-chart\" "
                "id=\"chart-%d-%d\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n",
                rm->k, j, ML + PW + 20, h, ML + PW + 20, h);
        fprintf(f, "<text x=\"%d\" y=\"14\" class=\"charttitle\">%s</text>", ML, name);
        fprintf(f,
                "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#fafafa\" stroke=\"#ddd\"/>"
                "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%" PRIu64 "</text><text x=\"%d\" y=\"%d\" "
                "text-anchor=\"end\">0</text>\n",
                ML, top, PW, H, ML - 6, top + 10, max, ML - 6, top + H);
        for (int i = 0; i < rm->nthreads && i < NCOLORS; i++) {
            const rthread *rt = &rm->threads[rank[i]];
            if (col[rank[i]] < 0 || !rt->s.has_last) continue;
            fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", palette[col[rank[i]]]);
            uint64_t lt = 0;
            for (int p = 0; p <= rt->s.n; p++) {
                const uint64_t *pt = p < rt->s.n ? rt->s.pts + (size_t)p * (size_t)w : rt->s.last;
                if (p == rt->s.n && rt->s.n && pt[0] == lt &&
                    pt[1 + j] == rt->s.pts[(size_t)(p - 1) * (size_t)w + 1 + (size_t)j])
                    break;
                lt = pt[0];
                int x = px(pt[0], end);
                int y = top + H - (max ? (int)sim_mul_div(pt[1 + j], (uint64_t)H, max) : 0);
                fprintf(f, "%s%d,%d", p ? " " : "", x, y);
            }
            fputs("\"><title>", f);
            put_html(f, rt->name);
            fprintf(f, " (%" PRIu32 "): %s %" PRIu64 "</title></polyline>\n", rt->id, name, rt->s.last[1 + j]);
        }
        svg_axis(f, top + H, end_ns);
        fputs("</svg></figure>\n", f);
    }
}

static void html_td_u64(FILE *f, uint64_t v) { fprintf(f, "<td class=\"n\">%" PRIu64 "</td>", v); }

static void html_thread_row(const rmachine *rm, const rthread *rt, const int *col, FILE *f) {
    const sim_config *c = &rm->cfg;
    fprintf(f, "<tr><td><span class=\"sw\" style=\"background:%s\"></span>", color_of(col, rt->index));
    put_html(f, rt->name);
    if (rt->index < 0)
        fputs("</td><td class=\"n\">-</td><td>-</td>", f); /* the "other threads" row */
    else
        fprintf(f, "</td><td class=\"n\">%" PRIu32 "</td><td>%s</td>", rt->id, kstate_name(rt->state));
    for (int j = 0; j < rm->nv; j++) html_td_u64(f, pmu_pmc_read(&c->pmc, &rt->bank, (uint64_t)rm->vpmc[j]));
    html_td_u64(f, rt->cycle_time);
    html_td_u64(f, user_cycles(rt));
    html_td_u64(f, kernel_cycles(rt));
    html_td_u64(f, interrupt_cycles(rt));
    html_td_u64(f, rt->run);
    html_td_u64(f, rt->switches);
    fputs("<td>", f);
    bool any = false;
    for (int w = 0; w < NWAIT; w++)
        if (rt->outs[w]) fprintf(f, "%s%s %" PRIu64, any ? ", " : "", sim_wait_reason_name(w), rt->outs[w]), any = true;
    if (rt->exits) fprintf(f, "%sexit %" PRIu64, any ? ", " : "", rt->exits), any = true;
    fprintf(f, "%s</td>", any ? "" : "-");
    html_td_u64(f, rt->calls);
    fputs("</tr>\n", f);
}

static void write_html_machine(const view *v, const rmachine *rm, FILE *f) {
    const sim_config *c = &rm->cfg;
    const pmu_cost_params *cp = &c->cost;
    char b1[48], b2[48];
    int *rank = thread_rank(rm), *col = rank ? thread_colors(rm, rank) : NULL;
    if (!rank || !col) {
        free(rank);
        fputs("<p>out of memory</p>\n", f);
        return;
    }
    fprintf(f, "<section id=\"machine-%d\">\n<h2>Machine %d: ", rm->k, rm->k);
    put_html(f, rm->platform);
    fprintf(f, ", %d CPU%s, %s semantics</h2>\n", c->cpus, c->cpus == 1 ? "" : "s",
            rm->sem == HCP_OBSERVED ? "observed" : "documented");
    fprintf(f,
            "<p>Ran for %" PRIu64 " cycles = %s µs of virtual time at %" PRIu64 " cycles/s; %d threads; %" PRIu64
            " schedule intervals; %" PRIu64 " API calls.</p>\n",
            rm->end, us_str(b1, sizeof b1, ns_of(c->frequency, rm->end)), c->frequency, rm->nthreads, rm->ivtotal,
            rm->calls_total);

    fputs("<h3>Timeline</h3>\n", f);
    bool exact = rm->niv == rm->ivtotal && rm->ivtotal <= EXACT_MAX;
    if (exact)
        fprintf(f,
                "<p class=\"rule\">Every interval is drawn (at most %d per machine are drawn one by one). A "
                "coloured bar is a thread on the CPU; a mark below it is a switch-out, labelled with the wait "
                "reason the thread left with where there is room (hover for details).</p>\n",
                EXACT_MAX);
    else
        fprintf(
            f,
            "<p class=\"rule\">%" PRIu64 " intervals: aggregated into columns of %" PRIu64
            " cycles (at most %d per CPU). A column's height is split by CPU time among its %d busiest threads "
            "(the %d threads with the most CPU time have colours; the rest, and threads beyond those tracked "
            "in a column, are grey &#8220;other&#8221;); blank is idle time (a clock interrupt counts to the thread "
            "it hit). The strip below a "
            "lane marks columns with switch-outs, coloured by their most frequent wait reason (hover for "
            "counts).</p>\n",
            rm->ivtotal, rm->w, TL_COLS, TL_TOPK, NCOLORS);
    svg_timeline(rm, col, f);
    fputs("<div class=\"legend\">", f);
    int shown = 0;
    for (int i = 0; i < rm->nthreads && i < NCOLORS; i++) {
        if (col[rank[i]] < 0) continue;
        fprintf(f, "<span><span class=\"sw\" style=\"background:%s\"></span>", palette[col[rank[i]]]);
        put_html(f, rm->threads[rank[i]].name);
        fprintf(f, " (%" PRIu32 ")</span> ", rm->threads[rank[i]].id);
        shown++;
    }
    if (rm->nthreads > shown)
        fprintf(f, "<span><span class=\"sw\" style=\"background:%s\"></span>other (%d threads)</span> ", OTHER_COLOR,
                rm->nthreads - shown);
    fputs("<br/>switch-outs: ", f);
    for (int k = 0; k < MK__COUNT; k++)
        fprintf(f, "<span><span class=\"sw\" style=\"background:%s\"></span>%s</span> ", mk_colors[k], mk_names[k]);
    fputs("</div>\n", f);

    if (rm->nv) {
        fprintf(
            f,
            "<h3>Counters over time</h3>\n<p class=\"rule\">Each programmed counter as RDPMC reads it, sampled "
            "when a thread is created, at each of its switch-ins and switch-outs and at the end; one line per coloured "
            "thread (the %d with the most CPU time), straight between samples. A thread keeps at most %d "
            "samples: when full, every other one is dropped.</p>\n",
            NCOLORS, SERIES_MAX);
        svg_counters(rm, rank, col, f);
    }

    fputs("<h3>Threads</h3>\n", f);
    bool all = rm->nthreads <= HTML_THREADS;
    if (!all)
        fprintf(f,
                "<p class=\"rule\">The %d threads with the most CPU time; the others are summed in the last row "
                "(every thread is in the JSON and Markdown reports).</p>\n",
                HTML_THREADS);
    fputs("<table><thead><tr><th>thread</th><th>id</th><th>state</th>", f);
    for (int j = 0; j < rm->nv; j++) {
        char name[48];
        counter_name(name, sizeof name, &c->pmc, rm->vpmc[j]);
        fprintf(f, "<th>%s</th>", name);
    }
    fputs("<th>cycle time</th><th>user</th><th>kernel</th><th>interrupt</th><th>on CPU</th><th>switch-ins</th>"
          "<th>switch-outs by wait reason</th><th>API calls</th></tr></thead><tbody>\n",
          f);
    int nrows = all ? rm->nthreads : HTML_THREADS;
    for (int i = 0; i < nrows; i++) {
        const rthread *rt = &rm->threads[all ? i : rank[i]];
        if (rt->seen) html_thread_row(rm, rt, col, f);
    }
    if (!all) {
        rthread sum;
        memset(&sum, 0, sizeof sum);
        sum.index = -1;
        sum.state = -1;
        for (int i = HTML_THREADS; i < rm->nthreads; i++) {
            const rthread *rt = &rm->threads[rank[i]];
            for (int e = 0; e < PMU_EV__COUNT; e++) {
                sum.bank.ev[e] += rt->bank.ev[e];
                sum.bank.kev[e] += rt->bank.kev[e];
            }
            sum.bank.intr_cycles += rt->bank.intr_cycles;
            sum.cycle_time += rt->cycle_time;
            sum.run += rt->run;
            sum.switches += rt->switches;
            sum.exits += rt->exits;
            sum.calls += rt->calls;
            for (int w = 0; w < NWAIT; w++) sum.outs[w] += rt->outs[w];
        }
        char nm[48];
        snprintf(nm, sizeof nm, "other %d threads (sum)", rm->nthreads - HTML_THREADS);
        sum.name = nm;
        html_thread_row(rm, &sum, col, f);
    }
    fputs("</tbody></table>\n", f);

    fputs("<h3>CPUs</h3>\n<table><thead><tr><th>CPU</th><th>time</th><th>busy</th><th>busy %</th><th>idle</th>"
          "<th>interrupt</th><th>ticks</th><th>switches</th><th>intervals</th></tr></thead><tbody>\n",
          f);
    for (int k = 0; k < rm->ncpus; k++) {
        const sim_cpu_stats *s = &rm->cpus[k].st;
        fprintf(f, "<tr><td>CPU %d</td>", k);
        html_td_u64(f, s->time);
        html_td_u64(f, s->busy);
        fprintf(f, "<td class=\"n\">%s</td>", pct_str(b1, sizeof b1, s->busy, s->time));
        html_td_u64(f, s->idle);
        html_td_u64(f, s->interrupt);
        html_td_u64(f, s->ticks);
        html_td_u64(f, s->switches);
        html_td_u64(f, rm->cpus[k].nint);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n", f);

    fputs("<details><summary>Configuration and cost tables</summary>\n<table><tbody>\n", f);
    uint64_t tick_cycles = sim_mul_div(c->tick, c->frequency, 10000000u);
    fprintf(f, "<tr><th>frequency</th><td>%" PRIu64 " cycles/s</td></tr>\n", c->frequency);
    fprintf(f, "<tr><th>tick</th><td>%" PRIu32 " × 100 ns = %" PRIu64 " cycles</td></tr>\n", c->tick, tick_cycles);
    fprintf(f, "<tr><th>quantum</th><td>%" PRIu32 " ticks = %" PRIu64 " cycles</td></tr>\n", c->quantum,
            tick_cycles * c->quantum);
    fprintf(f, "<tr><th>clock interrupt</th><td>%" PRIu32 " cycles</td></tr>\n", c->interrupt_cycles);
    fprintf(f, "<tr><th>lock-step slice</th><td>%" PRIu64 " cycles</td></tr>\n", c->slice);
    fprintf(f, "<tr><th>boot time</th><td>%" PRIu64 " (FILETIME)</td></tr>\n", c->boot_time);
    fprintf(f, "<tr><th>PMCs</th><td>");
    for (int i = 0; i < c->pmc.npmc; i++) {
        char name[48];
        counter_name(name, sizeof name, &c->pmc, i);
        fprintf(f, "%sPMC%d %s", i ? ", " : "", i, name);
    }
    fprintf(f, "%s</td></tr>\n", c->pmc.npmc ? "" : "none");
    fprintf(f, "<tr><th>cost table</th><td>profile %s, table %s</td></tr>\n", cp->profile ? cp->profile : "-",
            cp->table ? cp->table : "-");
    fputs("<tr><th>class cycles</th><td>", f);
    for (int k = 0; k < PMU_CL__COUNT; k++)
        fprintf(f, "%s%s %" PRIu32, k ? ", " : "", pmu_class_name((pmu_class)k), cp->class_cycles[k]);
    fputs("</td></tr>\n", f);
    fprintf(f,
            "<tr><th>penalties</th><td>mispredict %" PRIu32 ", L2 hit %" PRIu32 ", LLC hit %" PRIu32 ", memory %" PRIu32
            ", API call %" PRIu32 "</td></tr>\n",
            cp->mispredict_cycles, cp->l2_hit_cycles, cp->llc_hit_cycles, cp->mem_cycles, cp->api_call_cycles);
    fprintf(f,
            "<tr><th>branch predictor</th><td>%s: %" PRIu32 " history bits, 2^%" PRIu32 " counters, pc shift %" PRIu32
            ", RAS %" PRIu32 ", BTB %" PRIu32 "</td></tr>\n",
            c->predictor ? "on" : "off", cp->bp.hist_bits, cp->bp.index_bits, cp->bp.pc_shift, cp->bp.ras_depth,
            cp->bp.btb_entries);
    fprintf(f,
            "<tr><th>caches</th><td>%s: L1D %" PRIu32 "/%" PRIu32 "-way/%" PRIu32 ", L2 %" PRIu32 "/%" PRIu32
            "-way/%" PRIu32 ", LLC %" PRIu32 "/%" PRIu32 "-way/%" PRIu32 " (bytes/ways/line)</td></tr>\n",
            c->cache ? "on" : "off", cp->cache.l1d.size, cp->cache.l1d.ways, cp->cache.l1d.line, cp->cache.l2.size,
            cp->cache.l2.ways, cp->cache.l2.line, cp->cache.llc.size, cp->cache.llc.ways, cp->cache.llc.line);
    fputs("</tbody></table></details>\n", f);

    fprintf(f, "<details><summary>Schedule: the first %d of %" PRIu64 " intervals</summary>\n",
            rm->niv < HTML_ROWS ? (int)rm->niv : HTML_ROWS, rm->ivtotal);
    fputs("<table><thead><tr><th>CPU</th><th>thread</th><th>start</th><th>end</th><th>cycles</th><th>left with</th>"
          "<th>next state</th></tr></thead><tbody>\n",
          f);
    for (size_t i = 0; i < rm->niv && i < HTML_ROWS; i++) {
        const rinterval *iv = &rm->iv[i];
        fprintf(f, "<tr><td>%d</td><td>", iv->cpu);
        put_html(f, rm->threads[iv->th].name);
        fputs("</td>", f);
        html_td_u64(f, iv->start);
        html_td_u64(f, iv->end);
        html_td_u64(f, iv->end - iv->start);
        fprintf(f, "<td>%s</td><td>%s</td></tr>\n", iv->why >= 0 ? wait_name(iv->why) : "-", next_names[iv->next]);
    }
    fputs("</tbody></table></details>\n", f);

    fprintf(f, "<details><summary>API calls: %" PRIu64 " (the first %d listed)</summary>\n", rm->calls_total,
            HTML_ROWS);
    fputs("<table><thead><tr><th>#</th><th>start</th><th>thread</th><th>via</th><th>function</th><th>arguments</th>"
          "<th>results</th></tr></thead><tbody>\n",
          f);
    int shown_calls = 0;
    for (size_t i = 0; i < v->r->ncalls && shown_calls < HTML_ROWS; i++) {
        const rcall *cl = &v->r->calls[i];
        if (cl->mk != rm->k) continue;
        fprintf(f, "<tr><td class=\"n\">%d</td>", shown_calls++);
        html_td_u64(f, cl->start);
        fputs("<td>", f);
        put_html(f, cl->th >= 0 ? rm->threads[cl->th].name : "(machine)");
        fprintf(f, "</td><td>%s</td><td>%s</td><td class=\"code\">", cl->guest ? "guest" : "lua", cl->fn);
        char *a = compact(cl->args), *res = cl->done ? compact(cl->results) : dup_str("(did not return)");
        put_html(f, a ? a : "?");
        fputs("</td><td class=\"code\">", f);
        put_html(f, res ? res : "?");
        fputs("</td></tr>\n", f);
        free(a);
        free(res);
    }
    fputs("</tbody></table></details>\n</section>\n", f);
    (void)b2;
    free(rank);
    free(col);
}

static const char css[] =
    "body{font:14px/1.4 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:24px;color:#222}"
    "h1{font-size:22px}h2{font-size:18px;border-bottom:1px solid #ddd;padding-bottom:4px;margin-top:32px}"
    "h3{font-size:15px;margin-bottom:4px}table{border-collapse:collapse;margin:6px 0 12px;display:block;"
    "overflow-x:auto;max-width:100%}td:first-child{white-space:nowrap}"
    "th,td{border:1px solid #ddd;padding:2px 8px;text-align:left;vertical-align:top}th{background:#f4f4f4}"
    "td.n{text-align:right;font-variant-numeric:tabular-nums}td.code{font-family:monospace;font-size:12px;"
    "max-width:420px;word-break:break-all}.rule{color:#555;font-size:13px;max-width:1100px}"
    "svg{display:block;font:11px sans-serif;overflow:visible}svg .lanelabel{font-weight:bold;font-size:12px}"
    "svg .mk{font-size:10px}svg .charttitle{font-weight:bold;font-size:12px}"
    ".legend span{margin-right:10px;white-space:nowrap}.sw{display:inline-block;width:10px;height:10px;"
    "margin-right:4px;border:1px solid #888;vertical-align:middle}figure{margin:8px 0}"
    ".status-partial{color:#b00020;font-weight:bold}";

static int write_html(const view *v, FILE *f) {
    const rep_report *r = v->r;
    fputs("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n<meta "
          "charset=\"utf-8\"/>\n<title>hcpsim report: ",
          f);
    put_html(f, r->scenario);
    fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>hcpsim run report: ", css);
    put_html(f, r->scenario);
    fputs("</h1>\n<table><tbody>\n", f);
    fprintf(f, "<tr><th>seed</th><td>%" PRIu64 "</td></tr>\n<tr><th>arguments</th><td>", r->seed);
    for (int i = 0; i < r->nargs; i++) {
        if (i) fputs(", ", f);
        put_html(f, r->args[i]);
    }
    fprintf(f, "%s</td></tr>\n<tr><th>status</th><td class=\"status-%s\">%s (exit status %d)</td></tr>\n",
            r->nargs ? "" : "none", status_name(v->exit_status), status_name(v->exit_status), v->exit_status);
    if (v->error) {
        fputs("<tr><th>error</th><td class=\"code\">", f);
        put_html(f, v->error);
        fputs("</td></tr>\n", f);
    }
    fprintf(f,
            "<tr><th>machines</th><td>%d</td></tr>\n<tr><th>schema</th><td>%s version %d (reports/SCHEMA.md); "
            "times are cycles of virtual time unless marked</td></tr>\n</tbody></table>\n",
            r->nmachines, SCHEMA_NAME, SCHEMA_VERSION);
    for (int k = 0; k < r->nmachines; k++) write_html_machine(v, r->machines[k], f);
    fputs("</body>\n</html>\n", f);
    return 0;
}

/* ---- close ----------------------------------------------------------------------------------- */

static void free_machine(rmachine *rm) {
    for (int i = 0; i < rm->nthreads; i++) {
        free(rm->threads[i].name);
        free(rm->threads[i].s.pts);
        free(rm->threads[i].s.last);
    }
    for (int c = 0; c < rm->ncpus; c++) free(rm->cpus[c].cols);
    for (int i = 0; i < rm->nfns; i++) free(rm->fns[i].name);
    free(rm->fns);
    free(rm->cpus);
    free(rm->threads);
    free(rm->iv);
    free(rm);
}

int rep_report_close(rep_report *r, int exit_status, const char *error) {
    if (!r) return 0;
    /* a machine still attached has no final totals; it stops being observed here */
    for (int k = 0; k < r->nmachines; k++) {
        rmachine *rm = r->machines[k];
        if (rm->m) {
            sim_remove_observer(rm->m, rm->slot);
            if (rm->os) hcp_set_call_observer(rm->os, NULL, NULL);
            rm->m = NULL;
        }
    }
    view v = {r, exit_status, error};
    int err = r->err;
    if (!err) {
        int e = r->fmt == REP_FORMAT_JSON       ? write_json(&v, r->f)
                : r->fmt == REP_FORMAT_MARKDOWN ? write_md(&v, r->f)
                                                : write_html(&v, r->f);
        if (e) err = e;
    }
    err = rep_out_close(r->f, r->path, r->tmp, err);

    for (size_t i = 0; i < r->ncalls; i++) {
        json_decref(r->calls[i].args);
        json_decref(r->calls[i].results);
    }
    free(r->calls);
    for (int k = 0; k < r->nmachines; k++) free_machine(r->machines[k]);
    free(r->machines);
    for (int i = 0; i < r->nargs; i++) free(r->args[i]);
    free(r->args);
    free(r->scenario);
    free(r);
    return err;
}
