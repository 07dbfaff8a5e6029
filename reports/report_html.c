/* reports/report_html.c — the HTML run report: one self-contained page, SVG timeline and counter charts,
 * aggregated for big runs
 * (reports/SCHEMA.md); the data comes from report.c (report_data.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "reports/report_data.h"

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

static const char *color_of(const int *col, int th) {
    return th >= 0 && col[th] >= 0 ? rep_palette[col[th]] : OTHER_COLOR;
}

static void svg_timeline(const rmachine *rm, const int *col, FILE *f) {
    uint64_t end = rm->end ? rm->end : 1, end_ns = rep_ns_of(rm->cfg.frequency, end);
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
                ML - 8, y + LH / 2 + 4, c, ML, y, PW, LH, c, rep_pct_str(b1, sizeof b1, rc->st.busy, rc->st.time),
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
                rep_put_html(f, rt->name);
                fprintf(f, " (%" PRIu32 "): %s to %s µs, %" PRIu64 " cycles, %s%s%s</title></rect>\n", rt->id,
                        rep_us_str(b1, sizeof b1, rep_ns_of(rm->cfg.frequency, iv->start)),
                        rep_us_str(b2, sizeof b2, rep_ns_of(rm->cfg.frequency, iv->end)), iv->end - iv->start,
                        iv->next == NX_RUNNING ? "still running" : "left with ",
                        iv->next == NX_RUNNING ? ""
                        : iv->why >= 0         ? rep_wait_name(iv->why)
                                               : "exit",
                        iv->next == NX_READY     ? " (Ready)"
                        : iv->next == NX_WAITING ? " (Waiting)"
                                                 : "");
                if (iv->next == NX_RUNNING) continue;
                int mk = rep_mk_of(iv->why, iv->next);
                const char *label = iv->next == NX_TERMINATED ? "exit" : rep_wait_name(iv->why);
                fprintf(f,
                        "<line class=\"switch\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
                        "stroke-width=\"2\"><title>%s</title></line>",
                        x1, y, x1, y + LH + 5, rep_mk_colors[mk], label);
                if (x1 + 2 >= label_end + 4) { /* a label only where it does not overlap the previous one */
                    fprintf(f, "<text class=\"mk\" x=\"%d\" y=\"%d\" fill=\"%s\">%s</text>", x1 + 2, y + LH + 14,
                            rep_mk_colors[mk], label);
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
                            rep_palette[col[th]]);
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
                        x0, y + LH + 2, wpx, rep_mk_colors[best], cl->nsw, cl->nsw == 1 ? "" : "es");
                    for (int k = 0; k < MK__COUNT; k++)
                        if (cl->mk[k]) fprintf(f, " %s %" PRIu32, rep_mk_names[k], cl->mk[k]);
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

/* Horizontal gridlines with value labels at 0, 1/4, ..., max of a chart of height H at top;
 * vertical gridlines at the time axis' ticks; axis titles. */
static void svg_grid(FILE *f, int top, int H, uint64_t max, uint64_t end_ns, const char *ytitle) {
    fputs("<g class=\"grid\">", f);
    for (int q = 0; q <= 4; q++) {
        int y = top + H - H * q / 4;
        fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#e4e4e4\"/>", ML, y, ML + PW, y);
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>", ML - 6, y + 4,
                rep_g(sim_mul_div(max, (uint64_t)q, 4)));
    }
    uint64_t step = tick_step(end_ns ? end_ns : 1);
    for (uint64_t t = step; t <= end_ns; t += step) {
        int x = px(t, end_ns);
        fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#eeeeee\"/>", x, top, x, top + H);
        if (end_ns - t < step) break;
    }
    fprintf(f,
            "</g><text class=\"axistitle\" x=\"%d\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 %d %d)\">",
            14, top + H / 2, 14, top + H / 2);
    rep_put_html(f, ytitle);
    fprintf(f, "</text><text class=\"axistitle\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">virtual time</text>\n",
            ML + PW / 2, top + H + AXIS_H + 12);
}

/* The points of thread rt's series for counter j (time in cycles, value), the latest included; their number. */
static int series_points(const rmachine *rm, const rthread *rt, int j, uint64_t *ts, uint64_t *vs) {
    int w = 1 + rm->nv, n = 0;
    uint64_t lt = 0;
    for (int p = 0; p <= rt->s.n; p++) {
        const uint64_t *pt = p < rt->s.n ? rt->s.pts + (size_t)p * (size_t)w : rt->s.last;
        if (p == rt->s.n && rt->s.n && pt[0] == lt &&
            pt[1 + j] == rt->s.pts[(size_t)(p - 1) * (size_t)w + 1 + (size_t)j])
            break;
        lt = pt[0];
        ts[n] = pt[0];
        vs[n++] = pt[1 + j];
    }
    return n;
}

/* Events per µs of virtual time between samples p-1 and p (0 when no time passed). */
static uint64_t rate_at(const rmachine *rm, const uint64_t *ts, const uint64_t *vs, int p) {
    uint64_t dt = rep_ns_of(rm->cfg.frequency, ts[p]) - rep_ns_of(rm->cfg.frequency, ts[p - 1]);
    return dt && vs[p] >= vs[p - 1] ? sim_mul_div(vs[p] - vs[p - 1], 1000, dt) : 0;
}

/* Two charts per distinct programmed counter: the cumulative count, and its rate per sample
 * interval (events per µs of virtual time between consecutive samples); a line per coloured thread. */
static void svg_counters(const rmachine *rm, const int *rank, const int *col, FILE *f) {
    uint64_t end = rm->end ? rm->end : 1, end_ns = rep_ns_of(rm->cfg.frequency, end);
    const int H = 120, top = 24;
    uint64_t ts[SERIES_MAX + 1], vs[SERIES_MAX + 1];
    for (int j = 0; j < rm->nv; j++) {
        char name[48], title[96];
        rep_counter_name(name, sizeof name, &rm->cfg.pmc, rm->vpmc[j]);
        for (int kind = 0; kind < 2; kind++) { /* 0: cumulative, 1: rate */
            uint64_t max = 0;
            for (int i = 0; i < rm->nthreads && i < NCOLORS; i++) {
                const rthread *rt = &rm->threads[rank[i]];
                if (col[rank[i]] < 0 || !rt->s.has_last) continue;
                int n = series_points(rm, rt, j, ts, vs);
                for (int p = kind; p < n; p++) {
                    uint64_t v = kind ? rate_at(rm, ts, vs, p) : vs[p];
                    if (v > max) max = v;
                }
            }
            int h = top + H + AXIS_H + 24;
            snprintf(title, sizeof title, kind ? "%s per µs" : "%s", name);
            fprintf(f,
                    "<figure class=\"chart\"><svg xmlns=\"http://www.w3.org/2000/svg\" class=\"%s\" "
                    "id=\"%s-%d-%d\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n",
                    kind ? "rate-chart" : "counter-chart", kind ? "rate" : "chart", rm->k, j, ML + PW + 20, h,
                    ML + PW + 20, h);
            fprintf(f, "<text x=\"%d\" y=\"14\" class=\"charttitle\">", ML);
            rep_put_html(f, title);
            fputs(kind ? " (rate between consecutive samples)</text>" : " (cumulative, as RDPMC reads it)</text>", f);
            fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#fcfcfc\" stroke=\"#ddd\"/>\n", ML,
                    top, PW, H);
            svg_grid(f, top, H, max, end_ns, title);
            for (int i = 0; i < rm->nthreads && i < NCOLORS; i++) {
                const rthread *rt = &rm->threads[rank[i]];
                if (col[rank[i]] < 0 || !rt->s.has_last) continue;
                int n = series_points(rm, rt, j, ts, vs);
                fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
                        rep_palette[col[rank[i]]]);
                for (int p = kind; p < n; p++) {
                    uint64_t v = kind ? rate_at(rm, ts, vs, p) : vs[p];
                    int y = top + H - (max ? (int)sim_mul_div(v, (uint64_t)H, max) : 0);
                    if (kind) /* a step: flat at the interval's rate from one sample to the next */
                        fprintf(f, "%s%d,%d %d,%d", p > 1 ? " " : "", px(ts[p - 1], end), y, px(ts[p], end), y);
                    else
                        fprintf(f, "%s%d,%d", p ? " " : "", px(ts[p], end), y);
                }
                fputs("\"><title>", f);
                rep_put_html(f, rt->name);
                fprintf(f, " (%" PRIu32 "): %s %s</title></polyline>\n", rt->id, name, rep_g(rt->s.last[1 + j]));
            }
            svg_axis(f, top + H, end_ns);
            fputs("</svg></figure>\n", f);
        }
    }
}

static void html_td_u64(FILE *f, uint64_t v) { fprintf(f, "<td class=\"n\">%s</td>", rep_g(v)); }

static void html_thread_row(const rmachine *rm, const rthread *rt, const int *col, FILE *f) {
    const sim_config *c = &rm->cfg;
    fprintf(f, "<tr><td><span class=\"sw\" style=\"background:%s\"></span>", color_of(col, rt->index));
    rep_put_html(f, rt->name);
    if (rt->index < 0)
        fputs("</td><td class=\"n\">-</td><td>-</td>", f); /* the "other threads" row */
    else
        fprintf(f, "</td><td class=\"n\">%" PRIu32 "</td><td>%s</td>", rt->id, rep_state_name(rt->state));
    for (int j = 0; j < rm->nv; j++) html_td_u64(f, pmu_pmc_read(&c->pmc, &rt->bank, (uint64_t)rm->vpmc[j]));
    html_td_u64(f, rt->cycle_time);
    html_td_u64(f, rep_user_cycles(rt));
    html_td_u64(f, rep_kernel_cycles(rt));
    html_td_u64(f, rep_interrupt_cycles(rt));
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

static void html_derived_row(FILE *f, const char *color, const char *label, const uint64_t ev[PMU_EV__COUNT],
                             const char *share) {
    rep_derived d;
    rep_derive(ev, &d);
    fputs("<tr><td>", f);
    if (color) fprintf(f, "<span class=\"sw\" style=\"background:%s\"></span>", color);
    rep_put_html(f, label);
    fputs("</td>", f);
    html_td_u64(f, ev[PMU_EV_INSTRUCTIONS]);
    html_td_u64(f, ev[PMU_EV_CYCLES]);
    for (int k = 0; k < RD__COUNT; k++) {
        char b[48];
        fprintf(f, "<td class=\"n\">%s</td>", rep_derived_str(b, sizeof b, &d, k));
    }
    fprintf(f, "<td class=\"n\">%s</td></tr>\n", share);
}

static void html_derived_head(FILE *f, const char *first, const char *share) {
    fprintf(f, "<table class=\"derived\"><thead><tr><th>%s</th><th>instructions</th><th>cycles</th>", first);
    for (int k = 0; k < RD__COUNT; k++) fprintf(f, "<th>%s</th>", rep_derived_titles[k]);
    fprintf(f, "<th>%s</th></tr></thead><tbody>\n", share);
}

/* Derived metrics per thread (the rows of the threads table) and per CPU (SCHEMA.md "Derived metrics"). */
static void html_derived(const rmachine *rm, const int *rank, bool all, FILE *f) {
    char b[48], lab[96];
    fputs("<h3>Derived metrics</h3>\n<p class=\"rule\">From user-mode event totals (every event is counted, "
          "programmed or not): IPC = instructions / cycles, CPI = cycles / instructions, branch miss % of branches, "
          "MPKI = misses per 1,000 instructions; miss % of L1D = of loads + stores, of L2 = of L1D misses, of LLC = "
          "of LLC references. A CPU's row counts the threads' events while they ran on it. Rounded down; - where "
          "the denominator is 0.</p>\n",
          f);
    html_derived_head(f, "thread", "CPU share %");
    int nrows = all ? rm->nthreads : HTML_THREADS;
    int *col = rep_thread_colors(rm, rank);
    for (int i = 0; i < nrows; i++) {
        const rthread *rt = &rm->threads[all ? i : rank[i]];
        if (!rt->seen) continue;
        snprintf(lab, sizeof lab, "%s (%" PRIu32 ")", rt->name, rt->id);
        html_derived_row(f, col ? color_of(col, rt->index) : NULL, lab, rt->bank.ev,
                         rm->end ? rep_pct_str(b, sizeof b, rt->run, rm->end) : "-");
    }
    free(col);
    fputs("</tbody></table>\n", f);
    html_derived_head(f, "CPU", "busy %");
    for (int k = 0; k < rm->ncpus; k++) {
        snprintf(lab, sizeof lab, "CPU %d", k);
        html_derived_row(f, NULL, lab, rm->cpus[k].ev,
                         rep_pct_str(b, sizeof b, rm->cpus[k].st.busy, rm->cpus[k].st.time));
    }
    fputs("</tbody></table>\n", f);
}

static void write_html_machine(const rep_view *v, const rmachine *rm, FILE *f) {
    const sim_config *c = &rm->cfg;
    const pmu_cost_params *cp = &c->cost;
    char b1[48], b2[48];
    int *rank = rep_thread_rank(rm), *col = rank ? rep_thread_colors(rm, rank) : NULL;
    if (!rank || !col) {
        free(rank);
        fputs("<p>out of memory</p>\n", f);
        return;
    }
    fprintf(f, "<section id=\"machine-%d\">\n<h2>Machine %d: ", rm->k, rm->k);
    rep_put_html(f, rm->platform);
    fprintf(f, ", %d CPU%s, %s semantics</h2>\n", c->cpus, c->cpus == 1 ? "" : "s",
            rm->sem == HCP_OBSERVED ? "observed" : "documented");
    fprintf(f,
            "<p>Ran for %" PRIu64 " cycles = %s µs of virtual time at %" PRIu64 " cycles/s; %d threads; %" PRIu64
            " schedule intervals; %" PRIu64 " API calls.</p>\n",
            rm->end, rep_us_str(b1, sizeof b1, rep_ns_of(c->frequency, rm->end)), c->frequency, rm->nthreads,
            rm->ivtotal, rm->calls_total);

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
        fprintf(f, "<span><span class=\"sw\" style=\"background:%s\"></span>", rep_palette[col[rank[i]]]);
        rep_put_html(f, rm->threads[rank[i]].name);
        fprintf(f, " (%" PRIu32 ")</span> ", rm->threads[rank[i]].id);
        shown++;
    }
    if (rm->nthreads > shown)
        fprintf(f, "<span><span class=\"sw\" style=\"background:%s\"></span>other (%d threads)</span> ", OTHER_COLOR,
                rm->nthreads - shown);
    /* only the switch-out kinds that occur in this machine's timeline */
    uint64_t occurs[MK__COUNT] = {0};
    for (int c2 = 0; c2 < rm->ncpus; c2++)
        for (int i = 0; i < TL_COLS; i++)
            for (int k = 0; k < MK__COUNT; k++) occurs[k] += rm->cpus[c2].cols[i].mk[k];
    bool anymk = false;
    for (int k = 0; k < MK__COUNT; k++) anymk |= occurs[k] != 0;
    if (anymk) fputs("<br/>switch-outs: ", f);
    for (int k = 0; k < MK__COUNT; k++)
        if (occurs[k])
            fprintf(f, "<span><span class=\"sw\" style=\"background:%s\"></span>%s</span> ", rep_mk_colors[k],
                    rep_mk_names[k]);
    fputs("</div>\n", f);

    if (rm->nv) {
        fprintf(
            f,
            "<h3>Counters over time</h3>\n<p class=\"rule\">Each programmed counter as RDPMC reads it, sampled "
            "when a thread is created, at each of its switch-ins and switch-outs and at the end; one line per coloured "
            "thread (the %d with the most CPU time), straight between samples; beside it, the rate per sample "
            "interval: the change between two consecutive samples divided by the virtual time between them, in "
            "events per µs. A thread keeps at most %d samples: when full, every other one is dropped.</p>\n",
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
        rep_counter_name(name, sizeof name, &c->pmc, rm->vpmc[j]);
        fprintf(f, "<th>%s</th>", name);
    }
    fputs("<th>cycle time (cycles)</th><th>user (cycles)</th><th>kernel (cycles)</th><th>interrupt (cycles)</th><th>on "
          "CPU (cycles)</th><th>switch-ins</th>"
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

    html_derived(rm, rank, all, f);
    fputs("<h3>CPUs</h3>\n<table><thead><tr><th>CPU</th><th>time (cycles)</th><th>busy (cycles)</th><th>busy "
          "%</th><th>idle (cycles)</th>"
          "<th>interrupt</th><th>ticks</th><th>switches</th><th>intervals</th></tr></thead><tbody>\n",
          f);
    for (int k = 0; k < rm->ncpus; k++) {
        const sim_cpu_stats *s = &rm->cpus[k].st;
        fprintf(f, "<tr><td>CPU %d</td>", k);
        html_td_u64(f, s->time);
        html_td_u64(f, s->busy);
        fprintf(f, "<td class=\"n\">%s</td>", rep_pct_str(b1, sizeof b1, s->busy, s->time));
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
        rep_counter_name(name, sizeof name, &c->pmc, i);
        fprintf(f, "%sPMC%d %s", i ? ", " : "", i, name);
    }
    fprintf(f, "%s</td></tr>\n", c->pmc.npmc ? "" : "none");
    fprintf(f, "<tr><th>cost table</th><td>profile %s, table %s</td></tr>\n", rm->platform[0] ? rm->platform : "-",
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
    fputs("<table><thead><tr><th>CPU</th><th>thread</th><th>start (cycles)</th><th>end (cycles)</th><th>length "
          "(cycles)</th><th>left with</th>"
          "<th>next state</th></tr></thead><tbody>\n",
          f);
    for (size_t i = 0; i < rm->niv && i < HTML_ROWS; i++) {
        const rinterval *iv = &rm->iv[i];
        fprintf(f, "<tr><td>%d</td><td>", iv->cpu);
        rep_put_html(f, rm->threads[iv->th].name);
        fputs("</td>", f);
        html_td_u64(f, iv->start);
        html_td_u64(f, iv->end);
        html_td_u64(f, iv->end - iv->start);
        fprintf(f, "<td>%s</td><td>%s</td></tr>\n", iv->why >= 0 ? rep_wait_name(iv->why) : "-",
                rep_next_names[iv->next]);
    }
    fputs("</tbody></table></details>\n", f);

    fprintf(f, "<details><summary>API calls: %" PRIu64 " (the first %d listed)</summary>\n", rm->calls_total,
            HTML_ROWS);
    fputs("<table><thead><tr><th>#</th><th>start (cycles)</th><th>thread</th><th>via</th><th>call (parameters "
          "named, values decoded; hover for the raw arguments and results)</th></tr></thead><tbody>\n",
          f);
    int shown_calls = 0;
    for (size_t i = 0; i < v->r->ncalls && shown_calls < HTML_ROWS; i++) {
        const rcall *cl = &v->r->calls[i];
        if (cl->mk != rm->k) continue;
        fprintf(f, "<tr><td class=\"n\">%d</td>", shown_calls++);
        html_td_u64(f, cl->start);
        fputs("<td>", f);
        rep_put_html(f, cl->th >= 0 ? rm->threads[cl->th].name : "(machine)");
        fprintf(f, "</td><td>%s</td><td class=\"code\" title=\"", cl->guest ? "guest" : "lua");
        char *a = rep_compact(cl->args), *res = cl->done ? rep_compact(cl->results) : rep_dup_str("(did not return)");
        char *txt = rep_call_text(cl->fn, cl->guest, cl->args, cl->results, cl->done);
        fputs("arguments ", f);
        rep_put_html(f, a ? a : "?");
        fputs(", results ", f);
        rep_put_html(f, res ? res : "?");
        fputs("\">", f);
        rep_put_html(f, txt ? txt : "?");
        fputs("</td></tr>\n", f);
        free(txt);
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
    "svg .mk{font-size:10px}svg .charttitle{font-weight:bold;font-size:12px}svg .axistitle{font-size:11px;fill:#555}"
    ".legend span{margin-right:10px;white-space:nowrap}.sw{display:inline-block;width:10px;height:10px;"
    "margin-right:4px;border:1px solid #888;vertical-align:middle}figure{margin:8px 0}"
    ".status-partial{color:#b00020;font-weight:bold}";

int rep_write_html(const rep_view *v, FILE *f) {
    const rep_report *r = v->r;
    fputs("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n<meta "
          "charset=\"utf-8\"/>\n<title>hcpsim report: ",
          f);
    rep_put_html(f, r->scenario);
    fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>hcpsim run report: ", css);
    rep_put_html(f, r->scenario);
    fputs("</h1>\n<table><tbody>\n", f);
    fprintf(f, "<tr><th>seed</th><td>%" PRIu64 "</td></tr>\n<tr><th>arguments</th><td>", r->seed);
    for (int i = 0; i < r->nargs; i++) {
        if (i) fputs(", ", f);
        rep_put_html(f, r->args[i]);
    }
    char st[96];
    rep_status_text(v, st, sizeof st);
    fprintf(f, "%s</td></tr>\n<tr><th>status</th><td class=\"status-%s\">%s (exit status %d)</td></tr>\n",
            r->nargs ? "" : "none", rep_status_partial(v->status) ? "partial" : "ok", st, v->exit_status);
    if (v->error) {
        fputs("<tr><th>error</th><td class=\"code\">", f);
        rep_put_html(f, v->error);
        fputs("</td></tr>\n", f);
    }
    if (r->tap_seen) {
        fprintf(f, "<tr><th>TAP tests</th><td class=\"status-%s\">%" PRIu64 " run", r->tap_failed ? "partial" : "ok",
                r->tap_tests);
        if (r->tap_planned >= 0) fprintf(f, " of %" PRId64 " planned", r->tap_planned);
        fprintf(f, ": %" PRIu64 " passed, %" PRIu64 " failed, %" PRIu64 " todo, %" PRIu64 " skipped</td></tr>\n",
                r->tap_passed, r->tap_failed, r->tap_todo, r->tap_skipped);
        for (int i = 0; i < r->tap_nfailures; i++) {
            fputs("<tr><th>failed</th><td class=\"code\">", f);
            rep_put_html(f, r->tap_failures[i]);
            fputs("</td></tr>\n", f);
        }
    }
    fprintf(f,
            "<tr><th>machines</th><td>%d</td></tr>\n<tr><th>schema</th><td>%s version %d (reports/SCHEMA.md); "
            "times are cycles of virtual time unless marked</td></tr>\n</tbody></table>\n",
            r->nmachines, SCHEMA_NAME, SCHEMA_VERSION);
    for (int k = 0; k < r->nmachines; k++) write_html_machine(v, r->machines[k], f);
    fputs("</body>\n</html>\n", f);
    return 0;
}
