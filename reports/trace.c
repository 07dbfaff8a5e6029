/* reports/trace.c — the Perfetto / Chrome trace-event JSON writer (--trace).
 *
 * A sim_observer per machine turns the scheduler's records into trace events
 * as they happen: per-CPU spans of the thread that ran, per-thread state
 * spans (Ready / Running / Waiting), PMU counter samples at each switch-out
 * and a ready-thread counter.  Events stream to PATH.tmp in the order the
 * simulator records them; the file is renamed to PATH when it is complete.
 * reports/README.md describes the file.
 *
 * Time: the simulator counts cycles; the trace-event format wants
 * microseconds.  Every time is converted once to integer nanoseconds
 * (cycles * 10^9 / frequency, rounded down) and printed as an exact decimal
 * with three fractional digits; durations are differences of converted
 * times, so adjacent spans meet exactly.  No floating point anywhere. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/common.h"
#include "reports/decode.h"

typedef enum tstate { T_NONE = 0, T_READY, T_RUNNING, T_WAITING, T_DONE } tstate;

typedef struct rthread {
    tstate state;
    uint64_t since; /* ns: start of the open state span */
    int cpu;        /* Running: its CPU */
    int why;        /* Ready: SIM_READY_* (-1 unknown); Waiting: KWAIT_REASON */
    uint32_t id;
    char name[72];
    bool calls_named;    /* its API-call track has its metadata */
    bool in_call;        /* a call it made waited: it ends when the call is seen again */
    uint64_t call_start; /* cycles */
    char call_name[64];
    json_t *call_args; /* its arguments (reports' form: rep_guest_arg), until the span is written */
} rthread;

typedef struct rcpu {
    int cur;        /* index of the thread it runs, -1 idle */
    uint64_t since; /* ns */
    int priority;   /* of cur, at switch-in */
} rcpu;

typedef struct rmachine {
    rep_trace *tr;
    sim_machine *m; /* NULL once detached */
    hcp_os *os;     /* its OS's call observer (rep_trace_attach_calls), or NULL */
    int call_slot;
    int slot; /* observer slot */
    int k;    /* machine number, 0-based, in attach order */
    int ncpus;
    uint64_t freq;
    pmu_config pmc; /* the machine's PMC programming: the counters each thread track shows */
    rcpu *cpus;
    rthread *threads;
    int nthreads, capthreads;
    int nready;
    uint64_t ready_ts; /* ns of the last ready-counter sample (kept non-decreasing) */
    uint64_t last;     /* latest ns recorded */
} rmachine;

struct rep_trace {
    FILE *f;
    char *path, *tmp;
    rmachine **machines;
    int nmachines, capmachines;
    uint64_t nev;
    uint64_t limit; /* --trace-limit: events the file may hold */
    bool full;      /* a record was dropped at the limit: every later one is too */
    int err;        /* first error (errno value) */
};

static const char *wait_reason_name(int r) {
    const char *n = sim_wait_reason_name(r);
    return n ? n : "Unknown";
}

static const char *ready_reason_name(int r) {
    switch (r) {
    case SIM_READY_NEW: return "new";
    case SIM_READY_WAKE: return "wake";
    case SIM_READY_TIMEOUT: return "timeout";
    case SIM_READY_QUANTUM: return "quantum";
    case SIM_READY_PREEMPTED: return "preempted";
    case SIM_READY_YIELD: return "yield";
    default: return "unknown";
    }
}

/* ---- JSON output ------------------------------------------------------------------------ */

/* A JSON string: quotes, backslashes and control characters escaped, valid
 * UTF-8 kept, any other byte replaced by U+FFFD (names are arbitrary bytes). */
static void put_str(FILE *f, const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', f);
    while (*p) {
        unsigned c = *p;
        if (c == '"' || c == '\\') {
            fputc('\\', f);
            fputc((int)c, f);
            p++;
        } else if (c < 0x20 || c == 0x7F) {
            fprintf(f, "\\u%04x", c);
            p++;
        } else if (c < 0x80) {
            fputc((int)c, f);
            p++;
        } else {
            uint32_t cp;
            int n = rep_utf8_len(p, &cp);
            if (n) {
                fwrite(p, 1, (size_t)n, f);
                p += n;
            } else {
                fputs("\\ufffd", f);
                p++;
            }
        }
    }
    fputc('"', f);
}

static void put_time(FILE *f, const char *key, uint64_t ns) {
    fprintf(f, ",\"%s\":%" PRIu64 ".%03u", key, ns / 1000, (unsigned)(ns % 1000));
}

/* Starts an event: {"ph":..,"pid":..,"tid":..  (the caller adds the rest and the closing brace). */
static FILE *ev(rep_trace *tr, char ph, int pid, uint32_t tid) {
    FILE *f = tr->f;
    fputs(tr->nev++ ? ",\n{" : "\n{", f);
    fprintf(f, "\"ph\":\"%c\",\"pid\":%d,\"tid\":%" PRIu32, ph, pid, tid);
    return f;
}

static int pid_cpus(const rmachine *rm) { return 2 * rm->k + 1; }
static int pid_threads(const rmachine *rm) { return 2 * rm->k + 2; }

/* M events: process or thread name and sort index. */
static void meta_name(rep_trace *tr, int pid, uint32_t tid, const char *what, const char *name) {
    FILE *f = ev(tr, 'M', pid, tid);
    fprintf(f, ",\"name\":\"%s\",\"args\":{\"name\":", what);
    put_str(f, name);
    fputs("}}", f);
}

static void meta_sort(rep_trace *tr, int pid, uint32_t tid, const char *what, int index) {
    FILE *f = ev(tr, 'M', pid, tid);
    fprintf(f, ",\"name\":\"%s\",\"args\":{\"sort_index\":%d}}", what, index);
}

/* ---- per-machine state ---------------------------------------------------------------------- */

/* The tracked state of thread t, created (with its track's metadata) on first sight. */
static rthread *thread_of(rmachine *rm, const sim_thread *t) {
    int i = sim_thread_index(t);
    if (i < 0) return NULL;
    if (i >= rm->capthreads) {
        int nc = rm->capthreads ? rm->capthreads : 16;
        while (nc <= i) nc *= 2;
        rthread *a = realloc(rm->threads, (size_t)nc * sizeof *a);
        if (!a) {
            if (!rm->tr->err) rm->tr->err = ENOMEM;
            return NULL;
        }
        memset(a + rm->capthreads, 0, (size_t)(nc - rm->capthreads) * sizeof *a);
        rm->threads = a;
        rm->capthreads = nc;
    }
    if (i >= rm->nthreads) rm->nthreads = i + 1;
    rthread *rt = &rm->threads[i];
    if (rt->id == 0) {
        rt->id = sim_thread_id(t);
        rt->cpu = -1;
        const char *name = sim_thread_name(t);
        if (name && *name)
            snprintf(rt->name, sizeof rt->name, "%s", name);
        else
            snprintf(rt->name, sizeof rt->name, "thread %" PRIu32, rt->id);
        meta_name(rm->tr, pid_threads(rm), rt->id, "thread_name", rt->name);
        meta_sort(rm->tr, pid_threads(rm), rt->id, "thread_sort_index", i);
    }
    return rt;
}

/* A thread's state spans never go back in time: the scheduler makes a woken
 * thread Ready no earlier than the time it left its CPU (sim/README.md), and
 * this guard keeps the track in order should a record ever say otherwise. */
static uint64_t tclamp(const rthread *rt, uint64_t ns) { return ns < rt->since ? rt->since : ns; }

/* Closes the open state span of rt at ns (already clamped). */
static void close_state(rmachine *rm, rthread *rt, uint64_t ns) {
    const char *name;
    switch (rt->state) {
    case T_READY: name = "Ready"; break;
    case T_RUNNING: name = "Running"; break;
    case T_WAITING: name = "Waiting"; break;
    case T_NONE:
    case T_DONE:
    default: return;
    }
    FILE *f = ev(rm->tr, 'X', pid_threads(rm), rt->id);
    put_time(f, "ts", rt->since);
    put_time(f, "dur", ns - rt->since);
    fprintf(f, ",\"name\":\"%s\",\"cat\":\"state\",\"args\":{", name);
    if (rt->state == T_READY)
        fprintf(f, "\"readied_by\":\"%s\"}}", ready_reason_name(rt->why));
    else if (rt->state == T_RUNNING)
        fprintf(f, "\"cpu\":%d}}", rt->cpu);
    else
        fprintf(f, "\"reason\":\"%s\",\"reason_code\":%d}}", wait_reason_name(rt->why), rt->why);
}

static void set_state(rmachine *rm, rthread *rt, tstate s, uint64_t ns, int why, int cpu) {
    ns = tclamp(rt, ns);
    close_state(rm, rt, ns);
    rt->state = s;
    rt->since = ns;
    rt->why = why;
    rt->cpu = cpu;
}

static void sample_counters(rmachine *rm, const rthread *rt, const pmu_bank *b, uint64_t ns) {
    FILE *f = ev(rm->tr, 'C', pid_threads(rm), rt->id);
    put_time(f, "ts", ns);
    fputs(",\"name\":", f);
    char name[96];
    snprintf(name, sizeof name, "%s (%" PRIu32 ")", rt->name, rt->id);
    put_str(f, name);
    fputs(",\"cat\":\"pmu\",\"args\":{", f);
    /* The machine's programmed PMCs, as RDPMC reads them (mode applied, 48 bits); a PMC
     * that repeats an earlier PMC's event and mode is shown once. */
    const pmu_config *pc = &rm->pmc;
    bool first = true;
    for (int i = 0; i < pc->npmc; i++) {
        bool dup = false;
        for (int j = 0; j < i; j++) dup |= pc->pmc[j] == pc->pmc[i] && pc->mode[j] == pc->mode[i];
        if (dup) continue;
        fprintf(f, "%s\"%s%s%s\":%" PRIu64, first ? "" : ",", pmu_event_name(pc->pmc[i]),
                pc->mode[i] == PMU_MODE_USER ? "" : ":", pc->mode[i] == PMU_MODE_USER ? "" : pmu_mode_name(pc->mode[i]),
                pmu_pmc_read(pc, b, (uint64_t)i));
        first = false;
    }
    fputs("}}", f);
}

static void sample_ready(rmachine *rm, uint64_t ns) {
    if (ns < rm->ready_ts) ns = rm->ready_ts;
    rm->ready_ts = ns;
    FILE *f = ev(rm->tr, 'C', pid_cpus(rm), (uint32_t)pid_cpus(rm));
    put_time(f, "ts", ns);
    fprintf(f, ",\"name\":\"ready threads\",\"cat\":\"sched\",\"args\":{\"ready\":%d}}", rm->nready);
}

/* The CPU span of the thread c ran, from its switch-in to ns. */
static void close_cpu(rmachine *rm, int c, uint64_t ns, const char *left_with, const char *next_state) {
    rcpu *rc = &rm->cpus[c];
    if (rc->cur < 0) return;
    const rthread *rt = &rm->threads[rc->cur];
    if (ns < rc->since) ns = rc->since;
    FILE *f = ev(rm->tr, 'X', pid_cpus(rm), (uint32_t)(1 + c));
    put_time(f, "ts", rc->since);
    put_time(f, "dur", ns - rc->since);
    fputs(",\"name\":", f);
    put_str(f, rt->name);
    fprintf(f, ",\"cat\":\"cpu\",\"args\":{\"tid\":%" PRIu32 ",\"priority\":%d", rt->id, rc->priority);
    if (left_with)
        fprintf(f, ",\"left_with\":\"%s\",\"next_state\":\"%s\"}}", left_with, next_state);
    else
        fputs(",\"running_at_end\":true}}", f);
    rc->cur = -1;
}

/* ---- observer callbacks ------------------------------------------------------------------ */

static void on_ready(rmachine *rm, const sim_record *r, uint64_t ns) {
    rthread *rt = thread_of(rm, r->thread);
    if (!rt) return;
    if (rt->state == T_NONE) sample_counters(rm, rt, sim_thread_bank(r->thread), tclamp(rt, ns));
    set_state(rm, rt, T_READY, ns, r->reason, -1);
    rm->nready++;
    sample_ready(rm, ns);
}

static void on_switch(rmachine *rm, const sim_record *r, uint64_t ns) {
    int c = r->cpu;
    if (c < 0 || c >= rm->ncpus) return;
    if (r->old) {
        rthread *rt = thread_of(rm, r->old);
        if (rt) {
            close_cpu(rm, c, ns, wait_reason_name(r->old_wait_reason), rep_state_name(r->old_state));
            if (rt->state == T_RUNNING) {
                if (r->old_state == SIM_TS_WAITING)
                    set_state(rm, rt, T_WAITING, ns, r->old_wait_reason, -1);
                else if (r->old_state == SIM_TS_READY) /* normally readied (a record) before it left */
                    set_state(rm, rt, T_READY, ns, -1, -1);
                else
                    set_state(rm, rt, T_DONE, ns, 0, -1);
            }
            sample_counters(rm, rt, sim_thread_bank(r->old), tclamp(rt, ns));
        }
    }
    rm->cpus[c].cur = -1;
    if (r->thread) {
        rthread *rt = thread_of(rm, r->thread);
        if (!rt) return;
        if (rt->state == T_READY) {
            rm->nready--;
            sample_ready(rm, ns);
        }
        set_state(rm, rt, T_RUNNING, ns, 0, c);
        rm->cpus[c] = (rcpu){sim_thread_index(r->thread), ns, r->new_priority};
    }
}

/* A program's OutputDebugString: an instant event on its thread's track, the text as its name. */
static void on_mark(rmachine *rm, const sim_record *r, uint64_t ns) {
    rthread *rt = r->thread ? thread_of(rm, r->thread) : NULL;
    if (!rt) return;
    FILE *f = ev(rm->tr, 'i', pid_threads(rm), rt->id);
    put_time(f, "ts", ns);
    fputs(",\"s\":\"t\",\"cat\":\"debug\",\"name\":", f);
    put_str(f, r->text ? r->text : "");
    fputs("}", f);
}

/* Events a scheduling record may add: a CPU span, two state spans, a counter
 * sample and a ready sample, with room to spare.  A record is kept whole or
 * dropped, so the file never exceeds the limit. */
#define RECORD_EVENTS_MAX 8

static void cb_record(void *ud, const sim_record *r) {
    rmachine *rm = ud;
    if (rm->tr->full || rm->tr->nev + RECORD_EVENTS_MAX > rm->tr->limit) {
        rm->tr->full = true;
        return;
    }
    uint64_t ns = rep_ns_of(rm->freq, r->time);
    if (ns > rm->last) rm->last = ns;
    if (r->type == SIM_REC_READY)
        on_ready(rm, r, ns);
    else if (r->type == SIM_REC_SWITCH)
        on_switch(rm, r, ns);
    else if (r->type == SIM_REC_MARK)
        on_mark(rm, r, ns);
}

/* A thread that exits while Ready or Waiting leaves no switch record. */
static void cb_thread_exit(void *ud, sim_thread *t) {
    rmachine *rm = ud;
    if (rm->tr->full || rm->tr->nev + RECORD_EVENTS_MAX > rm->tr->limit) {
        rm->tr->full = true;
        return;
    }
    rthread *rt = thread_of(rm, t);
    if (!rt || rt->state == T_DONE || rt->state == T_RUNNING) return;
    uint64_t ns = rep_ns_of(rm->freq, sim_clock(rm->m));
    if (ns > rm->last) rm->last = ns;
    bool was_ready = rt->state == T_READY;
    set_state(rm, rt, T_DONE, ns, 0, -1);
    if (was_ready) {
        rm->nready--;
        sample_ready(rm, ns);
    }
}

/* A guest call of the thread (api/dispatch.c's observer): one span on the thread's "calls"
 * track (tid = the thread's id + 1: thread ids are multiples of 4), from the call's start to its
 * return; a call that waited ends when its thread runs again and returns. */
static void cb_call(void *ud, const hcp_call *c) {
    rmachine *rm = ud;
    if (!rm->m || !c->thread || rm->tr->full || rm->tr->nev + RECORD_EVENTS_MAX > rm->tr->limit) {
        if (rm->m && c->thread) rm->tr->full = true;
        return;
    }
    rthread *rt = thread_of(rm, c->thread);
    if (!rt) return;
    if (!c->resumed) {
        rt->call_start = c->start;
        snprintf(rt->call_name, sizeof rt->call_name, "%s", c->name);
        json_decref(rt->call_args);
        rt->call_args = json_array();
        for (int i = 0; i < c->nargs && rt->call_args; i++)
            json_array_append_new(rt->call_args, c->ex ? rep_guest_arg(rm->m, c->ex->params[i].type, c->args[i])
                                                       : json_integer((json_int_t)c->args[i]));
        if (c->pending) {
            rt->in_call = true;
            return;
        }
    } else if (!rt->in_call) {
        return;
    }
    rt->in_call = false;
    uint32_t tid = rt->id + 1;
    if (!rt->calls_named) {
        char name[96];
        snprintf(name, sizeof name, "%s calls", rt->name);
        meta_name(rm->tr, pid_threads(rm), tid, "thread_name", name);
        meta_sort(rm->tr, pid_threads(rm), tid, "thread_sort_index", sim_thread_index(c->thread));
        rt->calls_named = true;
    }
    uint64_t from = rep_ns_of(rm->freq, rt->call_start), to = rep_ns_of(rm->freq, sim_clock(rm->m));
    if (to < from) to = from;
    json_t *res = json_array();
    if (res && c->completed) json_array_append_new(res, json_integer((json_int_t)c->result));
    char *text = rep_call_text(rt->call_name, true, rt->call_args, res, c->completed);
    json_decref(res);
    json_decref(rt->call_args);
    rt->call_args = NULL;
    FILE *f = ev(rm->tr, 'X', pid_threads(rm), tid);
    put_time(f, "ts", from);
    put_time(f, "dur", to - from);
    fputs(",\"name\":", f);
    put_str(f, rt->call_name);
    fputs(",\"cat\":\"api\",\"args\":{\"call\":", f);
    put_str(f, text ? text : rt->call_name);
    fputs("}}", f);
    free(text);
    if (to > rm->last) rm->last = to;
}

/* ---- public ----------------------------------------------------------------------------- */

rep_trace *rep_trace_open(const char *path) {
    rep_trace *tr = calloc(1, sizeof *tr);
    if (!tr) {
        errno = ENOMEM;
        return NULL;
    }
    if (!(tr->f = rep_out_open(path, &tr->path, &tr->tmp))) {
        int e = errno;
        free(tr);
        errno = e;
        return NULL;
    }
    tr->limit = REP_TRACE_DEFAULT_LIMIT;
    fputs("{\"traceEvents\":[", tr->f);
    return tr;
}

void rep_trace_set_limit(rep_trace *tr, uint64_t max_events) {
    if (tr) tr->limit = max_events;
}
uint64_t rep_trace_limit(const rep_trace *tr) { return tr ? tr->limit : REP_TRACE_DEFAULT_LIMIT; }
bool rep_trace_full(const rep_trace *tr) { return tr && tr->full; }

int rep_trace_attach(rep_trace *tr, sim_machine *m) {
    if (tr->nmachines == tr->capmachines) {
        int nc = tr->capmachines ? tr->capmachines * 2 : 4;
        rmachine **a = realloc(tr->machines, (size_t)nc * sizeof *a);
        if (!a) return -1;
        tr->machines = a;
        tr->capmachines = nc;
    }
    rmachine *rm = calloc(1, sizeof *rm);
    if (!rm) return -1;
    rm->tr = tr;
    rm->m = m;
    rm->k = tr->nmachines;
    rm->ncpus = sim_cpu_count(m);
    rm->freq = sim_machine_config(m)->frequency;
    rm->pmc = sim_machine_config(m)->pmc;
    rm->cpus = calloc((size_t)rm->ncpus, sizeof *rm->cpus);
    if (!rm->cpus) {
        free(rm);
        return -1;
    }
    for (int c = 0; c < rm->ncpus; c++) rm->cpus[c].cur = -1;
    sim_observer o = {NULL, cb_thread_exit, cb_record, rm};
    rm->slot = sim_add_observer(m, &o);
    if (rm->slot < 0) {
        free(rm->cpus);
        free(rm);
        return -1;
    }
    tr->machines[tr->nmachines++] = rm;

    /* the first machine's processes are "machine" and "threads", later ones "machine 2", ... */
    char name[32], num[16] = "";
    int p = pid_cpus(rm), q = pid_threads(rm);
    if (rm->k) snprintf(num, sizeof num, " %d", rm->k + 1);
    snprintf(name, sizeof name, "machine%s", num);
    meta_name(tr, p, (uint32_t)p, "process_name", name);
    meta_sort(tr, p, (uint32_t)p, "process_sort_index", p);
    snprintf(name, sizeof name, "threads%s", num);
    meta_name(tr, q, (uint32_t)q, "process_name", name);
    meta_sort(tr, q, (uint32_t)q, "process_sort_index", q);
    for (int c = 0; c < rm->ncpus; c++) {
        snprintf(name, sizeof name, "CPU %d", c);
        meta_name(tr, p, (uint32_t)(1 + c), "thread_name", name);
        meta_sort(tr, p, (uint32_t)(1 + c), "thread_sort_index", c);
    }
    return 0;
}

int rep_trace_attach_calls(rep_trace *tr, sim_machine *m, hcp_os *os) {
    for (int k = 0; tr && k < tr->nmachines; k++) {
        rmachine *rm = tr->machines[k];
        if (rm->m != m || rm->os) continue;
        rm->call_slot = hcp_add_call_observer(os, cb_call, rm);
        if (rm->call_slot < 0) return -1;
        rm->os = os;
        return 0;
    }
    return -1;
}

/* Closes every open span of rm at end (ns).  m, when not NULL, is still
 * valid: threads still running get a last counter sample. */
static void finish_machine(rmachine *rm, uint64_t end, sim_machine *m) {
    for (int c = 0; c < rm->ncpus; c++) close_cpu(rm, c, end, NULL, NULL);
    for (int i = 0; i < rm->nthreads; i++) {
        rthread *rt = &rm->threads[i];
        if (rt->state == T_NONE || rt->state == T_DONE) continue;
        bool running = rt->state == T_RUNNING;
        set_state(rm, rt, T_DONE, end, 0, -1);
        if (running && m) sample_counters(rm, rt, sim_thread_bank(sim_thread_at(m, i)), rt->since);
    }
}

void rep_trace_detach(rep_trace *tr, sim_machine *m) {
    if (!tr || !m) return;
    for (int k = 0; k < tr->nmachines; k++) {
        rmachine *rm = tr->machines[k];
        if (rm->m != m) continue;
        uint64_t end = 0;
        for (int c = 0; c < rm->ncpus; c++) {
            sim_cpu_stats s;
            sim_cpu_stats_of(m, c, &s);
            if (s.time > end) end = s.time;
        }
        end = rep_ns_of(rm->freq, end);
        if (end < rm->last) end = rm->last;
        finish_machine(rm, end, m);
        sim_remove_observer(m, rm->slot);
        if (rm->os) hcp_remove_call_observer(rm->os, rm->call_slot);
        rm->os = NULL;
        rm->m = NULL;
        return;
    }
}

int rep_trace_close(rep_trace *tr, const char *partial) {
    if (!tr) return 0;
    FILE *f = tr->f;
    for (int k = 0; k < tr->nmachines; k++)
        if (tr->machines[k]->m) finish_machine(tr->machines[k], tr->machines[k]->last, NULL);
    fputs("\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"generator\":\"hcpsim\",\"clock\":\"virtual\",", f);
    fputs("\"timestamps\":\"microseconds of virtual time with 3 decimals: ns = cycles * 10^9 / frequency, rounded "
          "down\",",
          f);
    fputs("\"partial\":", f);
    if (partial)
        put_str(f, partial);
    else
        fputs("null", f);
    fprintf(f, ",\"machines\":\"%d\"", tr->nmachines);
    for (int k = 0; k < tr->nmachines; k++) {
        const rmachine *rm = tr->machines[k];
        fprintf(f, ",\"machine %d\":\"pid %d: %d CPU tracks; pid %d: %d thread tracks; %" PRIu64 " cycles per second\"",
                k + 1, pid_cpus(rm), rm->ncpus, pid_threads(rm), rm->nthreads, rm->freq);
    }
    fputs("}}\n", f);

    int err = rep_out_close(f, tr->path, tr->tmp, tr->err);

    for (int k = 0; k < tr->nmachines; k++) {
        for (int i = 0; i < tr->machines[k]->nthreads; i++) json_decref(tr->machines[k]->threads[i].call_args);
        free(tr->machines[k]->cpus);
        free(tr->machines[k]->threads);
        free(tr->machines[k]);
    }
    free(tr->machines);
    free(tr);
    return err;
}
