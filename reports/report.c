/* reports/report.c — run reports: JSON, Markdown and HTML with SVG (--report).
 *
 * A sim_observer per machine collects, while the run goes on, what a person
 * wants to see afterwards: the schedule as intervals (each stretch a thread
 * was a CPU's current thread, and the wait reason it left with), per-thread
 * switch counts, counter samples at each switch-out, an aggregated timeline
 * of at most TL_COLS columns per CPU, and every Windows API call with its
 * arguments and results (from the Lua binding layer, rep_call_begin/end, and
 * through the dispatcher, hcp_add_call_observer).  At detach it takes each
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/exports.h"
#include "reports/report_data.h"

static void nomem(rep_report *r) {
    if (!r->err) r->err = ENOMEM;
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

/* ---- per-machine collection ---------------------------------------------------------------- */

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
        rt->name = rep_clean_utf8(name);
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
        rt->outs[rep_wait_index(why)]++;
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
        cols[col].mk[rep_mk_of(why, next)]++;
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

/* The events of the thread leaving CPU rc since its switch-in count to rc. */
static void cpu_events(rcpu *rc, const pmu_bank *b) {
    for (int e = 0; e < PMU_EV__COUNT; e++) rc->ev[e] += b->ev[e] - rc->in_ev[e];
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
            cpu_events(rc, sim_thread_bank(r->old));
        }
    }
    rc->cur = -1;
    if (r->thread) {
        rthread *rt = thread_of(rm, r->thread);
        if (rt) {
            rc->cur = rt->index;
            rc->since = r->time;
            memcpy(rc->in_ev, sim_thread_bank(r->thread)->ev, sizeof rc->in_ev);
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
    if (!(fc->name = rep_clean_utf8(name))) return NULL;
    fc->lua = fc->guest = 0;
    fc->missing = false;
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
    for (int i = 0; i < c->nargs; i++)
        json_array_append_new(args, c->ex ? rep_guest_arg(rm->m, c->ex->params[i].type, c->args[i])
                                          : json_integer((json_int_t)c->args[i]));
    long id = call_new(rm, c->thread, c->name, true, c->start, args);
    if (!c->ex || c->ex->kind == HCP_EXPORT_STUB) { /* a function hcpsim lacks: the report lists it */
        fncount *fc = fn_of(rm, c->name);
        if (fc) fc->missing = true;
    }
    if (c->pending) {
        if (rt) rt->pending = id;
        return;
    }
    if (!c->completed) return; /* it never returned: results stay null */
    json_t *res = json_array();
    json_array_append_new(res, c->ex && c->ex->ret == HCP_T_INT ? json_integer((json_int_t)(int32_t)c->result)
                                                                : json_integer((json_int_t)c->result));
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
    char *c = rep_clean_utf8(s);
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
    char *k = rep_clean_utf8(key);
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
    else if (strcmp(dot, ".csv") == 0)
        *out = REP_FORMAT_CSV;
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
    char *norm = rep_scenario_path(scenario);
    r->scenario = rep_clean_utf8(norm ? norm : scenario);
    free(norm);
    r->seed = seed;
    r->args = calloc((size_t)(nargs > 0 ? nargs : 1), sizeof *r->args);
    if (!r->scenario || !r->args) {
        nomem(r);
        return;
    }
    for (int i = 0; i < nargs; i++)
        if ((r->args[i] = rep_clean_utf8(args[i]))) r->nargs = i + 1;
}

/* "not ok 3 - text [ID] # TODO why" -> the description "text [ID]" (the directive cut). */
static char *tap_description(const char *line) {
    const char *d = strstr(line, " - ");
    d = d ? d + 3 : "";
    const char *hash = strstr(d, " # ");
    size_t n = hash ? (size_t)(hash - d) : strlen(d);
    char *c = malloc(n + 1);
    if (!c) return NULL;
    memcpy(c, d, n);
    c[n] = 0;
    char *clean = rep_clean_utf8(c);
    free(c);
    return clean;
}

void rep_report_tap_line(rep_report *r, const char *line) {
    if (!r || !line) return;
    if (strncmp(line, "1..", 3) == 0) {
        r->tap_seen = true;
        r->tap_planned = strtoll(line + 3, NULL, 10);
        return;
    }
    bool ok = strncmp(line, "ok ", 3) == 0, notok = strncmp(line, "not ok ", 7) == 0;
    if (!ok && !notok) return;
    if (!r->tap_seen) r->tap_planned = -1;
    r->tap_seen = true;
    r->tap_tests++;
    /* a description escapes '#' as "\#", so " # " starts the directive */
    const char *dir = strstr(line, " # ");
    if (dir && strncmp(dir, " # SKIP", 7) == 0) {
        r->tap_skipped++;
    } else if (dir && strncmp(dir, " # TODO", 7) == 0) {
        r->tap_todo++;
    } else if (ok) {
        r->tap_passed++;
    } else {
        r->tap_failed++;
        if (r->tap_nfailures < REP_TAP_FAILURES_MAX) {
            char *d = tap_description(line);
            if (d)
                r->tap_failures[r->tap_nfailures++] = d;
            else
                nomem(r);
        }
    }
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
    rm->call_slot = os ? hcp_add_call_observer(os, cb_call, rm) : -1;
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
        if (rc->cur >= 0) {
            add_interval(rm, c, rc->cur, rc->since, rc->st.time, -1, NX_RUNNING);
            if (rc->cur < sim_thread_count(m)) cpu_events(rc, sim_thread_bank(sim_thread_at(m, rc->cur)));
        }
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
    if (rm->os) hcp_remove_call_observer(rm->os, rm->call_slot);
    rm->detached = true;
    rm->m = NULL;
    rm->os = NULL;
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
            if (rm->os) hcp_remove_call_observer(rm->os, rm->call_slot);
            rm->m = NULL;
        }
    }
    rep_view v = {r,
                  exit_status,
                  error,
                  r->end_status ? r->end_status : rep_status_name(exit_status),
                  r->end_status ? r->end_limit : NULL,
                  r->end_status && r->end_has_code,
                  r->end_code};
    int err = r->err;
    if (!err) {
        int e = r->fmt == REP_FORMAT_JSON       ? rep_write_json(&v, r->f)
                : r->fmt == REP_FORMAT_MARKDOWN ? rep_write_md(&v, r->f)
                : r->fmt == REP_FORMAT_CSV      ? rep_write_csv(&v, r->f)
                                                : rep_write_html(&v, r->f);
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
    for (int i = 0; i < r->tap_nfailures; i++) free(r->tap_failures[i]);
    free(r->end_status);
    free(r->end_limit);
    free(r);
    return err;
}

void rep_report_set_end(rep_report *r, const char *status, const char *limit, bool has_code, uint32_t exit_code) {
    if (!r || !status) return;
    free(r->end_status);
    free(r->end_limit);
    r->end_status = rep_dup_str(status);
    r->end_limit = limit ? rep_dup_str(limit) : NULL;
    r->end_has_code = has_code;
    r->end_code = exit_code;
    if (!r->end_status || (limit && !r->end_limit)) nomem(r);
}
