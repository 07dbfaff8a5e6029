/* reports/report_md.c — the Markdown run report: the same data as tables
 * (reports/SCHEMA.md); the data comes from report.c (report_data.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "reports/report_data.h"

/* ---- Markdown -------------------------------------------------------------------------------- */

/* A JSON value as compact text (sorted keys), for the call tables. */
static void md_thread_name(FILE *f, const rthread *rt) { rep_put_md(f, rt->name); }

/* Derived metrics per thread and per CPU, from user-mode event totals (SCHEMA.md "Derived metrics"). */
static void md_derived_row(FILE *f, const uint64_t ev[PMU_EV__COUNT], const char *share) {
    rep_derived d;
    rep_derive(ev, &d);
    fprintf(f, " %s | %s |", rep_g(ev[PMU_EV_INSTRUCTIONS]), rep_g(ev[PMU_EV_CYCLES]));
    for (int k = 0; k < RD__COUNT; k++) {
        char b[48];
        fprintf(f, " %s |", rep_derived_str(b, sizeof b, &d, k));
    }
    fprintf(f, " %s |\n", share);
}

static void md_derived_head(FILE *f, const char *first, const char *share) {
    fprintf(f, "| %s | instructions | cycles |", first);
    for (int k = 0; k < RD__COUNT; k++) fprintf(f, " %s |", rep_derived_titles[k]);
    fprintf(f, " %s |\n|---|---|---|", share);
    for (int k = 0; k < RD__COUNT; k++) fputs("---|", f);
    fputs("---|\n", f);
}

static void write_md_derived(const rmachine *rm, FILE *f) {
    char b[48];
    fputs("\n### Derived metrics\n\nFrom each thread's user-mode event totals (every event is counted, programmed or "
          "not): IPC = instructions / cycles, CPI = cycles / instructions, branch miss % of branches, MPKI = misses "
          "per 1,000 instructions; miss % of L1D = of loads + stores, of L2 = of L1D misses, of LLC = of LLC "
          "references; CPU share = on-CPU cycles / the run's length. Rounded down; - where the denominator is 0.\n\n",
          f);
    md_derived_head(f, "thread", "CPU share %");
    for (int i = 0; i < rm->nthreads; i++) {
        const rthread *rt = &rm->threads[i];
        if (!rt->seen) continue;
        fputs("| ", f);
        md_thread_name(f, rt);
        fputs(" |", f);
        md_derived_row(f, rt->bank.ev, rm->end ? rep_pct_str(b, sizeof b, rt->run, rm->end) : "-");
    }
    fputs("\nPer CPU: the user-mode events of the threads while they ran on it.\n\n", f);
    md_derived_head(f, "CPU", "busy %");
    for (int k = 0; k < rm->ncpus; k++) {
        fprintf(f, "| %d |", k);
        md_derived_row(f, rm->cpus[k].ev, rep_pct_str(b, sizeof b, rm->cpus[k].st.busy, rm->cpus[k].st.time));
    }
}

static void write_md_machine(const rep_view *v, const rmachine *rm, FILE *f) {
    const sim_config *c = &rm->cfg;
    const pmu_cost_params *cp = &c->cost;
    char b1[48], b2[48], b3[48];
    uint64_t tick_cycles = sim_mul_div(c->tick, c->frequency, 10000000u);
    fprintf(f, "\n## Machine %d: ", rm->k);
    rep_put_md(f, rm->platform);
    fprintf(f, ", %d CPU%s, %s semantics\n\n", c->cpus, c->cpus == 1 ? "" : "s",
            rm->sem == HCP_OBSERVED ? "observed" : "documented");
    fprintf(f, "Ran for %" PRIu64 " cycles (%s µs of virtual time).%s\n", rm->end,
            rep_us_str(b1, sizeof b1, rep_ns_of(c->frequency, rm->end)),
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
            rm->platform[0] ? rm->platform : "-", cp->table ? cp->table : "-");
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
        fprintf(f, "| %s | %s bytes | %" PRIu32 " | %" PRIu32 " bytes |\n", lvn[i], rep_g(lv[i]->size), lv[i]->ways,
                lv[i]->line);

    fputs("\n### Threads\n\nCounters as RDPMC reads them (48 bits, mode applied); times in cycles.\n\n", f);
    fputs("| thread | id | state | exit code |", f);
    for (int j = 0; j < rm->nv; j++) {
        char name[48];
        rep_counter_name(name, sizeof name, &c->pmc, rm->vpmc[j]);
        fprintf(f, " %s |", name);
    }
    fputs(" cycle time (cycles) | user (cycles) | kernel (cycles) | interrupt (cycles) | ticks | on CPU (cycles) | "
          "switch-ins | switch-outs by wait reason | API calls |\n|---|---|---|---|",
          f);
    for (int j = 0; j < rm->nv; j++) fputs("---|", f);
    fputs("---|---|---|---|---|---|---|---|---|\n", f);
    for (int i = 0; i < rm->nthreads; i++) {
        const rthread *rt = &rm->threads[i];
        if (!rt->seen) continue;
        fputs("| ", f);
        md_thread_name(f, rt);
        fprintf(f, " | %" PRIu32 " | %s | %" PRIu32 " |", rt->id, rep_state_name(rt->state), rt->exit_code);
        for (int j = 0; j < rm->nv; j++)
            fprintf(f, " %s |", rep_g(pmu_pmc_read(&c->pmc, &rt->bank, (uint64_t)rm->vpmc[j])));
        fprintf(f, " %s | %s | %s | %s | %s | %s | %s | ", rep_g(rt->cycle_time), rep_g(rep_user_cycles(rt)),
                rep_g(rep_kernel_cycles(rt)), rep_g(rep_interrupt_cycles(rt)), rep_g(rt->ticks), rep_g(rt->run),
                rep_g(rt->switches));
        bool any = false;
        for (int w = 0; w < NWAIT; w++)
            if (rt->outs[w]) {
                fprintf(f, "%s%s %" PRIu64, any ? ", " : "", sim_wait_reason_name(w), rt->outs[w]);
                any = true;
            }
        if (rt->exits) fprintf(f, "%sexit %" PRIu64, any ? ", " : "", rt->exits), any = true;
        fprintf(f, "%s | %s |\n", any ? "" : "-", rep_g(rt->calls));
    }
    write_md_derived(rm, f);

    fputs("\n### CPUs\n\n| CPU | time (cycles) | busy (cycles) | busy % | idle (cycles) | interrupt (cycles) | ticks | "
          "switches | intervals |\n"
          "|---|---|---|---|---|---|---|---|---|\n",
          f);
    for (int k = 0; k < rm->ncpus; k++) {
        const sim_cpu_stats *s = &rm->cpus[k].st;
        fprintf(f, "| %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", k, rep_g(s->time), rep_g(s->busy),
                rep_pct_str(b1, sizeof b1, s->busy, s->time), rep_g(s->idle), rep_g(s->interrupt), rep_g(s->ticks),
                rep_g(s->switches), rep_g(rm->cpus[k].nint));
    }

    fprintf(f, "\n### Schedule\n\nEach stretch a thread was a CPU's current thread (cycles on that CPU's clock), "
               "and how it left.");
    if (rm->niv < rm->ivtotal)
        fprintf(f, " **Truncated**: the first %zu of %" PRIu64 " intervals (limit %" PRIu64 " per machine).", rm->niv,
                rm->ivtotal, rm->r->max_intervals);
    fputs("\n\n| CPU | thread | id | start (cycles) | end (cycles) | length (cycles) | length (µs) | left with | next "
          "state |\n"
          "|---|---|---|---|---|---|---|---|---|\n",
          f);
    for (int k = 0; k < rm->ncpus; k++)
        for (size_t i = 0; i < rm->niv; i++) {
            const rinterval *iv = &rm->iv[i];
            if (iv->cpu != k) continue;
            const rthread *rt = &rm->threads[iv->th];
            fprintf(f, "| %d | ", k);
            md_thread_name(f, rt);
            fprintf(f, " | %" PRIu32 " | %s | %s | %s | %s | %s | %s |\n", rt->id, rep_g(iv->start), rep_g(iv->end),
                    rep_g(iv->end - iv->start),
                    rep_us_str(b2, sizeof b2, rep_ns_of(c->frequency, iv->end) - rep_ns_of(c->frequency, iv->start)),
                    iv->why >= 0 ? rep_wait_name(iv->why) : "-", rep_next_names[iv->next]);
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
        fprintf(f, "| %s | %s | %s |\n", rm->fns[order[i]].name, rep_g(rm->fns[order[i]].lua),
                rep_g(rm->fns[order[i]].guest));
    if (!no) fputs("| - | 0 | 0 |\n", f);
    fputs("\n| # | start (cycles) | end (cycles) | thread | via | function | arguments | results | call |\n"
          "|---|---|---|---|---|---|---|---|---|\n",
          f);
    uint64_t seq = 0;
    for (size_t i = 0; i < v->r->ncalls; i++) {
        const rcall *cl = &v->r->calls[i];
        if (cl->mk != rm->k) continue;
        fprintf(f, "| %" PRIu64 " | %s | %s | ", seq++, rep_g(cl->start), rep_g(cl->end));
        if (cl->th >= 0)
            md_thread_name(f, &rm->threads[cl->th]);
        else
            fputs("(machine)", f);
        fprintf(f, " | %s | %s | ", cl->guest ? "guest" : "lua", cl->fn);
        char *a = rep_compact(cl->args), *res = cl->done ? rep_compact(cl->results) : rep_dup_str("(did not return)");
        rep_put_md(f, a ? a : "?");
        fputs(" | ", f);
        rep_put_md(f, res ? res : "?");
        fputs(" | ", f);
        char *txt = rep_call_text(cl->fn, cl->guest, cl->args, cl->results, cl->done);
        rep_put_md(f, txt ? txt : "?");
        fputs(" |\n", f);
        free(txt);
        free(a);
        free(res);
    }
    (void)b3;
}

int rep_write_md(const rep_view *v, FILE *f) {
    const rep_report *r = v->r;
    fputs("# hcpsim run report\n\n| | |\n|---|---|\n| scenario | ", f);
    rep_put_md(f, r->scenario);
    fprintf(f, " |\n| seed | %" PRIu64 " |\n| arguments | ", r->seed);
    for (int i = 0; i < r->nargs; i++) {
        if (i) fputs(", ", f);
        rep_put_md(f, r->args[i]);
    }
    if (!r->nargs) fputs("none", f);
    char st[96];
    rep_status_text(v, st, sizeof st);
    fprintf(f, " |\n| status | %s (exit status %d) |\n", st, v->exit_status);
    if (v->error) {
        fputs("| error | ", f);
        rep_put_md(f, v->error);
        fputs(" |\n", f);
    }
    if (r->tap_seen) {
        fprintf(f, "| TAP tests | %" PRIu64 " run", r->tap_tests);
        if (r->tap_planned >= 0) fprintf(f, " of %" PRId64 " planned", r->tap_planned);
        fprintf(f, ": %" PRIu64 " passed, %" PRIu64 " failed, %" PRIu64 " todo, %" PRIu64 " skipped |\n", r->tap_passed,
                r->tap_failed, r->tap_todo, r->tap_skipped);
        for (int i = 0; i < r->tap_nfailures; i++) {
            fputs("| failed | ", f);
            rep_put_md(f, r->tap_failures[i]);
            fputs(" |\n", f);
        }
    }
    fprintf(f, "| machines | %d |\n| schema | %s version %d (reports/SCHEMA.md) |\n", r->nmachines, SCHEMA_NAME,
            SCHEMA_VERSION);
    for (int k = 0; k < r->nmachines; k++) write_md_machine(v, r->machines[k], f);
    return 0;
}
