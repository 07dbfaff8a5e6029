/* reports/report_csv.c — the run report's tables as CSV (RFC 4180), in long form: one header,
 * `machine,table,row,column,value`, and one line per cell, so every table of the Markdown
 * report fits one file that any spreadsheet or data-frame library reads (pivot on table and
 * row).  Counts are plain integers (no digit grouping); derived metrics are decimals with
 * their fixed number of places (reports/SCHEMA.md "CSV"). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "reports/report_data.h"

/* A field: quoted when it holds a comma, a quote, a line break or leading/trailing space. */
static void field(FILE *f, const char *s) {
    char *c = rep_clean_utf8(s);
    const char *t = c ? c : "";
    size_t n = strlen(t);
    bool q = strpbrk(t, ",\"\r\n") != NULL || (n && (t[0] == ' ' || t[n - 1] == ' '));
    if (!q) {
        fputs(t, f);
    } else {
        fputc('"', f);
        for (const char *p = t; *p; p++) {
            if (*p == '"') fputc('"', f);
            fputc(*p, f);
        }
        fputc('"', f);
    }
    free(c);
}

static void cell(FILE *f, int mk, const char *table, const char *row, const char *col, const char *value) {
    if (mk >= 0) fprintf(f, "%d", mk);
    fputc(',', f);
    field(f, table);
    fputc(',', f);
    field(f, row);
    fputc(',', f);
    field(f, col);
    fputc(',', f);
    field(f, value);
    fputs("\r\n", f);
}

static void cell_u(FILE *f, int mk, const char *table, const char *row, const char *col, uint64_t v) {
    char b[32];
    snprintf(b, sizeof b, "%" PRIu64, v);
    cell(f, mk, table, row, col, b);
}

/* Derived metrics without digit grouping or unit: "0.734", "49.04". */
static void cells_derived(FILE *f, int mk, const char *table, const char *row, const uint64_t ev[PMU_EV__COUNT]) {
    rep_derived d;
    rep_derive(ev, &d);
    for (int k = 0; k < RD__COUNT; k++) {
        char b[40];
        bool bp = strstr(rep_derived_keys[k], "_bp") != NULL;
        char name[40];
        snprintf(name, sizeof name, "%s", rep_derived_keys[k]);
        char *suffix = strrchr(name, '_');
        if (suffix) strcpy(suffix, bp ? "_pct" : ""); /* ipc_milli -> ipc, branch_miss_bp -> branch_miss_pct */
        if (!d.has[k])
            b[0] = 0;
        else if (bp)
            snprintf(b, sizeof b, "%" PRIu64 ".%02u", d.v[k] / 100, (unsigned)(d.v[k] % 100));
        else
            snprintf(b, sizeof b, "%" PRIu64 ".%03u", d.v[k] / 1000, (unsigned)(d.v[k] % 1000));
        cell(f, mk, table, row, name, b);
    }
}

static void write_machine(const rep_view *v, const rmachine *rm, FILE *f) {
    const sim_config *c = &rm->cfg;
    int k = rm->k;
    char row[48], b[48];
    cell(f, k, "machine", "", "platform", rm->platform);
    cell(f, k, "machine", "", "semantics", rm->sem == HCP_OBSERVED ? "observed" : "documented");
    cell_u(f, k, "machine", "", "cpus", (uint64_t)c->cpus);
    cell_u(f, k, "machine", "", "frequency", c->frequency);
    cell_u(f, k, "machine", "", "end_cycles", rm->end);
    for (int i = 0; i < rm->nthreads; i++) {
        const rthread *rt = &rm->threads[i];
        if (!rt->seen) continue;
        snprintf(row, sizeof row, "%" PRIu32, rt->id);
        cell(f, k, "threads", row, "name", rt->name);
        cell(f, k, "threads", row, "state", rep_state_name(rt->state));
        cell_u(f, k, "threads", row, "exit_code", rt->exit_code);
        for (int j = 0; j < rm->nv; j++) {
            char name[48];
            rep_counter_name(name, sizeof name, &c->pmc, rm->vpmc[j]);
            cell_u(f, k, "threads", row, name, pmu_pmc_read(&c->pmc, &rt->bank, (uint64_t)rm->vpmc[j]));
        }
        cell_u(f, k, "threads", row, "cycle_time", rt->cycle_time);
        cell_u(f, k, "threads", row, "user_cycles", rep_user_cycles(rt));
        cell_u(f, k, "threads", row, "kernel_cycles", rep_kernel_cycles(rt));
        cell_u(f, k, "threads", row, "interrupt_cycles", rep_interrupt_cycles(rt));
        cell_u(f, k, "threads", row, "ticks", rt->ticks);
        cell_u(f, k, "threads", row, "run_cycles", rt->run);
        cell_u(f, k, "threads", row, "switch_ins", rt->switches);
        for (int w = 0; w < NWAIT; w++)
            if (rt->outs[w]) {
                char name[64];
                snprintf(name, sizeof name, "switch_outs_%s", sim_wait_reason_name(w));
                cell_u(f, k, "threads", row, name, rt->outs[w]);
            }
        cell_u(f, k, "threads", row, "exits", rt->exits);
        cell_u(f, k, "threads", row, "api_calls", rt->calls);
        for (int e = 0; e < PMU_EV__COUNT; e++) {
            char name[48];
            snprintf(name, sizeof name, "events_%s", pmu_event_name((pmu_event)e));
            cell_u(f, k, "threads", row, name, rt->bank.ev[e]);
        }
        cells_derived(f, k, "threads", row, rt->bank.ev);
        cell(f, k, "threads", row, "cpu_share_pct", rm->end ? rep_pct_str(b, sizeof b, rt->run, rm->end) : "");
    }
    for (int i = 0; i < rm->ncpus; i++) {
        const sim_cpu_stats *s = &rm->cpus[i].st;
        snprintf(row, sizeof row, "%d", i);
        cell_u(f, k, "cpus", row, "time", s->time);
        cell_u(f, k, "cpus", row, "busy", s->busy);
        cell_u(f, k, "cpus", row, "idle", s->idle);
        cell_u(f, k, "cpus", row, "interrupt", s->interrupt);
        cell_u(f, k, "cpus", row, "ticks", s->ticks);
        cell_u(f, k, "cpus", row, "switches", s->switches);
        cell_u(f, k, "cpus", row, "intervals", rm->cpus[i].nint);
        cell(f, k, "cpus", row, "busy_pct", rep_pct_str(b, sizeof b, s->busy, s->time));
        for (int e = 0; e < PMU_EV__COUNT; e++) {
            char name[48];
            snprintf(name, sizeof name, "events_%s", pmu_event_name((pmu_event)e));
            cell_u(f, k, "cpus", row, name, rm->cpus[i].ev[e]);
        }
        cells_derived(f, k, "cpus", row, rm->cpus[i].ev);
    }
    for (size_t i = 0; i < rm->niv; i++) {
        const rinterval *iv = &rm->iv[i];
        snprintf(row, sizeof row, "%zu", i);
        cell_u(f, k, "schedule", row, "cpu", (uint64_t)iv->cpu);
        cell_u(f, k, "schedule", row, "tid", rm->threads[iv->th].id);
        cell_u(f, k, "schedule", row, "start", iv->start);
        cell_u(f, k, "schedule", row, "end", iv->end);
        cell(f, k, "schedule", row, "left_with", iv->why >= 0 ? rep_wait_name(iv->why) : "");
        cell(f, k, "schedule", row, "next_state", rep_next_names[iv->next]);
    }
    uint64_t seq = 0;
    for (size_t i = 0; i < v->r->ncalls; i++) {
        const rcall *cl = &v->r->calls[i];
        if (cl->mk != k) continue;
        snprintf(row, sizeof row, "%" PRIu64, seq++);
        if (cl->th >= 0)
            cell_u(f, k, "api_calls", row, "tid", rm->threads[cl->th].id);
        else
            cell(f, k, "api_calls", row, "tid", "");
        cell_u(f, k, "api_calls", row, "start", cl->start);
        cell_u(f, k, "api_calls", row, "end", cl->end);
        cell(f, k, "api_calls", row, "via", cl->guest ? "guest" : "lua");
        cell(f, k, "api_calls", row, "function", cl->fn);
        char *a = rep_compact(cl->args), *res = cl->done ? rep_compact(cl->results) : NULL;
        char *txt = rep_call_text(cl->fn, cl->guest, cl->args, cl->results, cl->done);
        cell(f, k, "api_calls", row, "args", a ? a : "");
        cell(f, k, "api_calls", row, "results", res ? res : "");
        cell(f, k, "api_calls", row, "call", txt ? txt : "");
        free(a);
        free(res);
        free(txt);
    }
}

int rep_write_csv(const rep_view *v, FILE *f) {
    const rep_report *r = v->r;
    char b[32];
    fputs("machine,table,row,column,value\r\n", f);
    cell(f, -1, "run", "", "scenario", r->scenario);
    cell_u(f, -1, "run", "", "seed", r->seed);
    cell(f, -1, "run", "", "status", v->status);
    snprintf(b, sizeof b, "%d", v->exit_status);
    cell(f, -1, "run", "", "exit_status", b);
    if (v->has_code) cell_u(f, -1, "run", "", "exit_code", v->code);
    if (v->limit) cell(f, -1, "run", "", "limit", v->limit);
    if (v->error) cell(f, -1, "run", "", "error", v->error);
    if (r->tap_seen) {
        cell_u(f, -1, "run", "", "tap_tests", r->tap_tests);
        cell_u(f, -1, "run", "", "tap_passed", r->tap_passed);
        cell_u(f, -1, "run", "", "tap_failed", r->tap_failed);
        cell_u(f, -1, "run", "", "tap_todo", r->tap_todo);
        cell_u(f, -1, "run", "", "tap_skipped", r->tap_skipped);
    }
    for (int k = 0; k < r->nmachines; k++) write_machine(v, r->machines[k], f);
    return 0;
}
