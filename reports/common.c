/* reports/common.c — names, text escaping, time and thread ranking shared by the
 * report writers (report*.c) and the trace writer (trace.c); common.h and
 * report_data.h declare them. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "reports/report_data.h"

/* ---- names --------------------------------------------------------------------------------- */

const char *rep_state_name(int s) {
    const char *n = sim_thread_state_name(s);
    return n ? n : "Unknown";
}

const char *const rep_next_names[4] = {"Ready", "Waiting", "Terminated", "Running"};
const char *const rep_mk_names[MK__COUNT] = {"WrQuantumEnd",     "DelayExecution", "UserRequest", "WrPreempted",
                                             "WrYieldExecution", "exit",           "other"};
const char *const rep_mk_colors[MK__COUNT] = {"#444444", "#1565c0", "#8e24aa", "#d32f2f",
                                              "#ef6c00", "#000000", "#888888"};
const char *const rep_palette[NCOLORS] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                          "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#17becf"};

int rep_mk_of(int why, int next) {
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

char *rep_dup_str(const char *s) {
    size_t n = strlen(s ? s : "");
    char *d = malloc(n + 1);
    if (d) memcpy(d, s ? s : "", n + 1);
    return d;
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
char *rep_clean_utf8(const char *s) {
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
void rep_put_html(FILE *f, const char *s) {
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
void rep_put_md(FILE *f, const char *s) {
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

/* cycles * 10^9 / freq, rounded down, exact for any frequency (reports/README.md "Time").
 * sim_mul_div is exact while the remainder times 10^9 fits in 64 bits (freq below
 * about 18 GHz); above that the remainder is scaled one decimal digit at a time. */
uint64_t rep_ns_of(uint64_t freq, uint64_t cycles) {
    uint64_t c = freq ? freq : 1;
    if (c <= UINT64_MAX / REP_NS_PER_S) return sim_mul_div(cycles, REP_NS_PER_S, c);
    uint64_t q = cycles / c, r = cycles % c, frac = 0;
    for (int i = 0; i < 9; i++) {
        r *= 10;
        frac = frac * 10 + r / c;
        r %= c;
    }
    return sim_mul_div(q, REP_NS_PER_S, 1) + frac;
}

/* "1234.567" microseconds, exact. */
const char *rep_us_str(char *buf, size_t n, uint64_t ns) {
    snprintf(buf, n, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
    return buf;
}

/* "93.12" percent of part in whole, rounded down (integer arithmetic). */
const char *rep_pct_str(char *buf, size_t n, uint64_t part, uint64_t whole) {
    uint64_t bp = whole ? sim_mul_div(part, 10000, whole) : 0;
    snprintf(buf, n, "%" PRIu64 ".%02u", bp / 100, (unsigned)(bp % 100));
    return buf;
}

void rep_counter_name(char *buf, size_t n, const pmu_config *pc, int i) {
    if (pc->mode[i] == PMU_MODE_USER)
        snprintf(buf, n, "%s", pmu_event_name(pc->pmc[i]));
    else
        snprintf(buf, n, "%s:%s", pmu_event_name(pc->pmc[i]), pmu_mode_name(pc->mode[i]));
}

/* Threads by CPU time (run cycles), most first; ties by index. */
int *rep_thread_rank(const rmachine *rm) {
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
int *rep_thread_colors(const rmachine *rm, const int *rank) {
    int *col = malloc((size_t)(rm->nthreads ? rm->nthreads : 1) * sizeof *col);
    if (!col) return NULL;
    for (int i = 0; i < rm->nthreads; i++) col[i] = -1;
    for (int i = 0; i < rm->nthreads && i < NCOLORS; i++)
        if (rm->threads[rank[i]].run) col[rank[i]] = i;
    return col;
}

char *rep_compact(const json_t *v) {
    return v ? json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY) : rep_dup_str("-");
}

const char *rep_group_u64(char *buf, size_t n, uint64_t v) {
    char d[24];
    int nd = snprintf(d, sizeof d, "%" PRIu64, v);
    size_t o = 0;
    for (int i = 0; i < nd && o + 2 < n; i++) {
        if (i && (nd - i) % 3 == 0) buf[o++] = ',';
        buf[o++] = d[i];
    }
    if (n) buf[o < n ? o : n - 1] = 0;
    return buf;
}

const char *rep_group_i64(char *buf, size_t n, int64_t v) {
    if (v >= 0 || n < 2) return rep_group_u64(buf, n, (uint64_t)v);
    buf[0] = '-';
    rep_group_u64(buf + 1, n - 1, (uint64_t)0 - (uint64_t)v);
    return buf;
}

/* ---- derived metrics ----------------------------------------------------------------------- */

const char *const rep_derived_keys[RD__COUNT] = {
    "ipc_milli",     "cpi_milli",  "branch_miss_bp", "l1d_mpki_milli", "l1d_miss_bp",
    "l2_mpki_milli", "l2_miss_bp", "llc_mpki_milli", "llc_miss_bp",
};
const char *const rep_derived_titles[RD__COUNT] = {
    "IPC", "CPI", "branch miss %", "L1D MPKI", "L1D miss %", "L2 MPKI", "L2 miss %", "LLC MPKI", "LLC miss %",
};

static void ratio(rep_derived *d, int k, uint64_t num, uint64_t den, uint64_t scale) {
    d->has[k] = den != 0;
    d->v[k] = den ? sim_mul_div(num, scale, den) : 0;
}

void rep_derive(const uint64_t ev[PMU_EV__COUNT], rep_derived *d) {
    uint64_t ins = ev[PMU_EV_INSTRUCTIONS], cyc = ev[PMU_EV_CYCLES];
    ratio(d, RD_IPC_MILLI, ins, cyc, 1000);
    ratio(d, RD_CPI_MILLI, cyc, ins, 1000);
    ratio(d, RD_BRANCH_MISS_BP, ev[PMU_EV_BRANCH_MISSES], ev[PMU_EV_BRANCHES], 10000);
    ratio(d, RD_L1D_MPKI_MILLI, ev[PMU_EV_L1D_MISSES], ins, 1000000);
    ratio(d, RD_L1D_MISS_BP, ev[PMU_EV_L1D_MISSES], ev[PMU_EV_LOADS] + ev[PMU_EV_STORES], 10000);
    ratio(d, RD_L2_MPKI_MILLI, ev[PMU_EV_L2_MISSES], ins, 1000000);
    ratio(d, RD_L2_MISS_BP, ev[PMU_EV_L2_MISSES], ev[PMU_EV_L1D_MISSES], 10000);
    ratio(d, RD_LLC_MPKI_MILLI, ev[PMU_EV_LLC_MISSES], ins, 1000000);
    ratio(d, RD_LLC_MISS_BP, ev[PMU_EV_LLC_MISSES], ev[PMU_EV_LLC_REFERENCES], 10000);
}

const char *rep_derived_str(char *buf, size_t n, const rep_derived *d, int k) {
    if (!d->has[k]) return "-";
    bool pct = k == RD_BRANCH_MISS_BP || k == RD_L1D_MISS_BP || k == RD_L2_MISS_BP || k == RD_LLC_MISS_BP;
    char g[32];
    if (pct)
        snprintf(buf, n, "%s.%02u %%", rep_group_u64(g, sizeof g, d->v[k] / 100), (unsigned)(d->v[k] % 100));
    else
        snprintf(buf, n, "%s.%03u", rep_group_u64(g, sizeof g, d->v[k] / 1000), (unsigned)(d->v[k] % 1000));
    return buf;
}

const char *rep_g(uint64_t v) {
    static char bufs[16][32];
    static unsigned next;
    char *b = bufs[next++ % 16];
    return rep_group_u64(b, 32, v);
}
