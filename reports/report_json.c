/* reports/report_json.c — the JSON run report, built as a jansson tree and dumped with sorted keys
 * (reports/SCHEMA.md); the data comes from report.c (report_data.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "reports/report_data.h"

/* ---- JSON ------------------------------------------------------------------------------------ */

static void jset(json_t *o, const char *k, json_t *v) { json_object_set_new(o, k, v); }
static void jint(json_t *o, const char *k, uint64_t v) { jset(o, k, json_integer((json_int_t)v)); }
static void jstr(json_t *o, const char *k, const char *s) {
    char *c = rep_clean_utf8(s);
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

/* A bounded list's header: how many entries a run may keep, how many there were, how many it kept. */
static json_t *j_kept(uint64_t limit, uint64_t total, uint64_t kept) {
    json_t *o = json_object();
    jint(o, "limit", limit);
    jint(o, "total", total);
    jint(o, "kept", kept);
    jset(o, "truncated", json_boolean(kept < total));
    return o;
}

/* Every user-mode event total, and the metrics derived from them (SCHEMA.md "Derived metrics"). */
static void j_events(json_t *o, const uint64_t ev[PMU_EV__COUNT]) {
    json_t *e = json_object(), *d = json_object();
    for (int k = 0; k < PMU_EV__COUNT; k++) jint(e, pmu_event_name((pmu_event)k), ev[k]);
    rep_derived dv;
    rep_derive(ev, &dv);
    for (int k = 0; k < RD__COUNT; k++)
        jset(d, rep_derived_keys[k], dv.has[k] ? json_integer((json_int_t)dv.v[k]) : json_null());
    jset(o, "events", e);
    jset(o, "derived", d);
}

static json_t *j_machine(const rmachine *rm, const rep_report *r) {
    const sim_config *c = &rm->cfg;
    json_t *o = json_object();
    jint(o, "index", (uint64_t)rm->k);
    jstr(o, "platform", rm->platform);
    jstr(o, "semantics", rm->sem == HCP_OBSERVED ? "observed" : "documented");
    jint(o, "end_cycles", rm->end);
    jint(o, "end_ns", rep_ns_of(c->frequency, rm->end));
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
        rep_counter_name(name, sizeof name, &c->pmc, i);
        jint(p, "index", (uint64_t)i);
        jstr(p, "event", pmu_event_name(c->pmc.pmc[i]));
        jstr(p, "mode", pmu_mode_name(c->pmc.mode[i]));
        jstr(p, "name", name);
        json_array_append_new(pl, p);
    }
    jset(o, "pmc", pl);

    const pmu_cost_params *cp = &c->cost;
    json_t *co = json_object();
    jstr(co, "profile", rm->platform); /* the platform profile the costs came from, not the cost profile */
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
        jstr(t, "state", rep_state_name(rt->state));
        jint(t, "exit_code", rt->exit_code);
        jint(t, "create_cycles", rt->create);
        jset(t, "exit_cycles", rt->state == SIM_TS_TERMINATED ? json_integer((json_int_t)rt->exit) : json_null());
        json_t *cn = json_object();
        for (int j = 0; j < rm->nv; j++) {
            char name[48];
            rep_counter_name(name, sizeof name, &c->pmc, rm->vpmc[j]);
            jint(cn, name, pmu_pmc_read(&c->pmc, &rt->bank, (uint64_t)rm->vpmc[j]));
        }
        jset(t, "counters", cn);
        jint(t, "cycle_time", rt->cycle_time);
        jint(t, "user_cycles", rep_user_cycles(rt));
        jint(t, "kernel_cycles", rep_kernel_cycles(rt));
        jint(t, "interrupt_cycles", rep_interrupt_cycles(rt));
        jint(t, "user_ns", rep_ns_of(c->frequency, rep_user_cycles(rt)));
        jint(t, "kernel_ns", rep_ns_of(c->frequency, rep_kernel_cycles(rt)));
        jint(t, "interrupt_ns", rep_ns_of(c->frequency, rep_interrupt_cycles(rt)));
        jint(t, "ticks", rt->ticks);
        jint(t, "run_cycles", rt->run);
        jint(t, "intervals", rt->nint);
        jint(t, "api_calls", rt->calls);
        j_events(t, rt->bank.ev);
        jset(t, "cpu_share_bp", rm->end ? json_integer((json_int_t)sim_mul_div(rt->run, 10000, rm->end)) : json_null());
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
        j_events(x, rc->ev);
        json_array_append_new(cpus, x);
    }
    jset(o, "cpus", cpus);

    json_t *sc = j_kept(rm->r->max_intervals, rm->ivtotal, rm->niv);
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
            jset(x, "left_with", v->why >= 0 ? json_string(rep_wait_name(v->why)) : json_null());
            jstr(x, "next_state", rep_next_names[v->next]);
            json_array_append_new(ivs, x);
        }
        jset(lane, "intervals", ivs);
        json_array_append_new(lanes, lane);
    }
    jset(sc, "lanes", lanes);
    jset(o, "schedule", sc);

    json_t *api = j_kept(rm->r->max_calls, rm->calls_total, rm->calls_kept);
    json_t *byfn = json_object();
    for (int i = 0; i < rm->nfns; i++) {
        json_t *x = json_object();
        jint(x, "lua", rm->fns[i].lua);
        jint(x, "guest", rm->fns[i].guest);
        jset(byfn, rm->fns[i].name, x);
    }
    jset(api, "by_function", byfn);
    json_t *missing = json_array();
    for (int i = 0; i < rm->nfns; i++)
        if (rm->fns[i].missing) json_array_append_new(missing, json_string(rm->fns[i].name));
    jset(api, "missing", missing);
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

int rep_write_json(const rep_view *v, FILE *f) {
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
    jstr(run, "status", v->status);
    jint(run, "exit_status", (uint64_t)v->exit_status);
    jset(run, "exit_code", v->has_code ? json_integer((json_int_t)v->code) : json_null());
    jset(run, "limit", v->limit ? json_string(v->limit) : json_null());
    if (v->error)
        jstr(run, "error", v->error);
    else
        jset(run, "error", json_null());
    /* why the report stops early: the error of a run that did not end by itself (a limit, an
     * exception, a scenario error, a signal) */
    if (v->error && rep_status_partial(v->status))
        jstr(run, "partial", v->error);
    else
        jset(run, "partial", json_null());
    if (r->tap_seen) { /* the scenario's TAP results (hcpsim.tap) */
        json_t *tap = json_object(), *fl = json_array();
        jset(tap, "planned", r->tap_planned >= 0 ? json_integer(r->tap_planned) : json_null());
        jint(tap, "tests", r->tap_tests);
        jint(tap, "passed", r->tap_passed);
        jint(tap, "failed", r->tap_failed);
        jint(tap, "todo", r->tap_todo);
        jint(tap, "skipped", r->tap_skipped);
        for (int i = 0; i < r->tap_nfailures; i++) json_array_append_new(fl, json_string(r->tap_failures[i]));
        jset(tap, "failures", fl);
        jset(run, "tap", tap);
    } else {
        jset(run, "tap", json_null());
    }
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
