/* reports/diff.c — hcpsim diff A.json B.json: what moved between two run reports.
 *
 * Both files are read with jansson and compared by the schema's structure
 * (reports/SCHEMA.md): the run (scenario, seed, arguments, how it ended, exit status, TAP
 * results), then per machine its end time, each thread's counters and times
 * (threads matched by creation index), each CPU's statistics, the API call
 * counts per function and the first API call where the two call sequences
 * diverge.  Each difference is a row: absolute change and the change relative
 * to A in basis points (integer arithmetic).  A tolerance per metric name
 * (--tolerance cycles=2.5) lets a relative change up to that many percent
 * pass.  Output: a terminal table, Markdown or JSON (sorted keys); exit 0
 * the same, 1 different, 2 an error.  Every loop walks a parsed array or
 * object, so bad input cannot make it run away. */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/common.h"

#define MAX_TOL 32

typedef struct row {
    char scope[32];   /* "run", "machine 0" */
    char item[160];   /* "thread a (1000)", "CPU 0", "API call #3", "" */
    char metric[112]; /* "instructions", "cycle_time", ... */
    bool is_int;      /* a and b are integers (absent ones are has_a/has_b false) */
    bool has_a, has_b;
    int64_t a, b;
    char *sa, *sb; /* text values; NULL: absent */
    bool tolerated;
    bool has_rel;
    uint64_t rel_bp; /* |b - a| / |a| in basis points, rounded down */
} row;

typedef struct tol {
    char name[64];
    uint64_t bp;
} tol;

typedef struct ctx {
    row *rows;
    size_t n, cap;
    tol tols[MAX_TOL];
    int ntols;
    bool nomem;
} ctx;

/* ---- rows ------------------------------------------------------------------------------------ */

static row *add_row(ctx *c, const char *scope, const char *item, const char *metric) {
    if (c->n == c->cap) {
        size_t nc = c->cap ? 2 * c->cap : 64;
        row *a = realloc(c->rows, nc * sizeof *a);
        if (!a) {
            c->nomem = true;
            return NULL;
        }
        c->rows = a;
        c->cap = nc;
    }
    row *r = &c->rows[c->n++];
    memset(r, 0, sizeof *r);
    snprintf(r->scope, sizeof r->scope, "%s", scope);
    snprintf(r->item, sizeof r->item, "%s", item);
    snprintf(r->metric, sizeof r->metric, "%s", metric);
    return r;
}

static const tol *tolerance_of(const ctx *c, const char *metric) {
    for (int i = 0; i < c->ntols; i++)
        if (strcmp(c->tols[i].name, metric) == 0) return &c->tols[i];
    for (int i = 0; i < c->ntols; i++)
        if (strcmp(c->tols[i].name, "all") == 0) return &c->tols[i];
    return NULL;
}

static uint64_t mag(int64_t v) { return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v; }

/* Two integer values (either may be absent: NULL or not an integer). */
static void cmp_int(ctx *c, const char *scope, const char *item, const char *metric, const json_t *a, const json_t *b) {
    bool ha = json_is_integer(a), hb = json_is_integer(b);
    if (!ha && !hb) return;
    int64_t va = ha ? (int64_t)json_integer_value(a) : 0, vb = hb ? (int64_t)json_integer_value(b) : 0;
    if (ha && hb && va == vb) return;
    row *r = add_row(c, scope, item, metric);
    if (!r) return;
    r->is_int = true;
    r->has_a = ha, r->has_b = hb, r->a = va, r->b = vb;
    if (ha && hb && va != 0) {
        uint64_t d = va <= vb ? (uint64_t)vb - (uint64_t)va : (uint64_t)va - (uint64_t)vb;
        r->has_rel = true;
        r->rel_bp = sim_mul_div(d, 10000, mag(va));
        const tol *t = tolerance_of(c, metric);
        /* within tolerance: |b - a| <= bp * |a| / 10000, exactly (d is an integer, so the floor does) */
        if (t) r->tolerated = d <= sim_mul_div(t->bp, mag(va), 10000);
    }
}

/* Any two values compared as compact JSON (sorted keys); shown as text. */
static char *text_of(const json_t *v) {
    if (!v) return NULL;
    if (json_is_string(v)) return rep_dup_str(json_string_value(v));
    return json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
}

static void cmp_text(ctx *c, const char *scope, const char *item, const char *metric, const json_t *a,
                     const json_t *b) {
    if (!a && !b) return;
    if (a && b && json_equal((json_t *)a, (json_t *)b)) return;
    row *r = add_row(c, scope, item, metric);
    if (!r) return;
    r->sa = text_of(a);
    r->sb = text_of(b);
    r->has_a = a != NULL, r->has_b = b != NULL;
    if ((a && !r->sa) || (b && !r->sb)) c->nomem = true;
}

/* ---- structure --------------------------------------------------------------------------------- */

static const json_t *get(const json_t *o, const char *k) { return json_is_object(o) ? json_object_get(o, k) : NULL; }
static const json_t *at(const json_t *a, size_t i) { return json_is_array(a) ? json_array_get(a, i) : NULL; }
static size_t len(const json_t *a) { return json_is_array(a) ? json_array_size(a) : 0; }

static int cmp_str(const void *x, const void *y) { return strcmp(*(const char *const *)x, *(const char *const *)y); }

/* The keys of objects a and b together, sorted and unique (heap array of borrowed strings). */
static const char **keys_of(const json_t *a, const json_t *b, size_t *n) {
    size_t cap = (json_is_object(a) ? json_object_size(a) : 0) + (json_is_object(b) ? json_object_size(b) : 0);
    const char **k = malloc((cap ? cap : 1) * sizeof *k);
    *n = 0;
    if (!k) return NULL;
    const char *key;
    json_t *v;
    if (json_is_object(a)) json_object_foreach((json_t *)a, key, v) k[(*n)++] = key;
    if (json_is_object(b)) json_object_foreach((json_t *)b, key, v) k[(*n)++] = key;
    qsort(k, *n, sizeof *k, cmp_str);
    size_t u = 0;
    for (size_t i = 0; i < *n; i++)
        if (!u || strcmp(k[u - 1], k[i]) != 0) k[u++] = k[i];
    *n = u;
    return k;
}

static const char *str_or(const json_t *v, const char *dflt) { return json_is_string(v) ? json_string_value(v) : dflt; }

static void diff_run(ctx *c, const json_t *ra, const json_t *rb) {
    static const char *const text[] = {"scenario", "seed", "args", "status", "limit"};
    for (size_t i = 0; i < sizeof text / sizeof *text; i++)
        cmp_text(c, "run", "", text[i], get(ra, text[i]), get(rb, text[i]));
    cmp_int(c, "run", "", "exit_status", get(ra, "exit_status"), get(rb, "exit_status"));
    cmp_int(c, "run", "", "exit_code", get(ra, "exit_code"), get(rb, "exit_code"));
    const json_t *ta = get(ra, "tap"), *tb = get(rb, "tap");
    static const char *const counts[] = {"tests", "passed", "failed", "todo", "skipped"};
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++)
        cmp_int(c, "run", "TAP", counts[i], get(ta, counts[i]), get(tb, counts[i]));
    cmp_text(c, "run", "TAP", "failures", get(ta, "failures"), get(tb, "failures"));
}

static void thread_label(char *buf, size_t n, const json_t *t) {
    snprintf(buf, n, "thread %s (%" JSON_INTEGER_FORMAT ")", str_or(get(t, "name"), "?"),
             json_is_integer(get(t, "id")) ? json_integer_value(get(t, "id")) : (json_int_t)-1);
}

static void diff_thread(ctx *c, const char *scope, const json_t *ta, const json_t *tb) {
    char item[160];
    thread_label(item, sizeof item, ta ? ta : tb);
    if (!ta || !tb) {
        row *r = add_row(c, scope, item, "thread");
        if (r) {
            r->has_a = ta != NULL, r->has_b = tb != NULL;
            r->sa = ta ? rep_dup_str("present") : NULL;
            r->sb = tb ? rep_dup_str("present") : NULL;
        }
        return;
    }
    cmp_text(c, scope, item, "name", get(ta, "name"), get(tb, "name"));
    size_t nk;
    const json_t *ca = get(ta, "counters"), *cb = get(tb, "counters");
    const char **k = keys_of(ca, cb, &nk);
    if (!k) c->nomem = true;
    for (size_t i = 0; k && i < nk; i++) cmp_int(c, scope, item, k[i], get(ca, k[i]), get(cb, k[i]));
    free(k);
    static const char *const ints[] = {"cycle_time", "user_cycles", "kernel_cycles", "interrupt_cycles", "ticks",
                                       "run_cycles", "intervals",   "api_calls",     "exit_code"};
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
        cmp_int(c, scope, item, ints[i], get(ta, ints[i]), get(tb, ints[i]));
    cmp_text(c, scope, item, "state", get(ta, "state"), get(tb, "state"));
    const json_t *sa = get(ta, "switches"), *sb = get(tb, "switches");
    cmp_int(c, scope, item, "switch-ins", get(sa, "in"), get(sb, "in"));
    cmp_int(c, scope, item, "exits", get(sa, "exit"), get(sb, "exit"));
    const json_t *oa = get(sa, "out"), *ob = get(sb, "out");
    k = keys_of(oa, ob, &nk);
    if (!k) c->nomem = true;
    for (size_t i = 0; k && i < nk; i++) {
        char m[112];
        snprintf(m, sizeof m, "switch-outs %s", k[i]);
        cmp_int(c, scope, item, m, get(oa, k[i]), get(ob, k[i]));
    }
    free(k);
}

/* "Sleep(1) = [] by 1000 via lua" (a call as its function, arguments, results, thread, path). */
static char *call_text(const json_t *call) {
    if (!call) return rep_dup_str("(no call)");
    char *args = text_of(get(call, "args")), *res = text_of(get(call, "results"));
    const json_t *tid = get(call, "tid");
    size_t n = strlen(args ? args : "") + strlen(res ? res : "") + 200;
    char *s = malloc(n);
    if (s) {
        char who[32] = "the machine";
        if (json_is_integer(tid)) snprintf(who, sizeof who, "%" JSON_INTEGER_FORMAT, json_integer_value(tid));
        snprintf(s, n, "%s%s = %s by %s via %s", str_or(get(call, "function"), "?"), args ? args : "[]",
                 json_is_true(get(call, "completed")) ? (res ? res : "null") : "(did not return)", who,
                 str_or(get(call, "via"), "?"));
    }
    free(args);
    free(res);
    return s;
}

/* The call's identity for the comparison: what was called, by whom, with what, and what came back (not when). */
static bool same_call(const json_t *a, const json_t *b) {
    static const char *const keys[] = {"function", "via", "tid", "args", "results", "completed"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        const json_t *x = get(a, keys[i]), *y = get(b, keys[i]);
        if (!x != !y || (x && !json_equal((json_t *)x, (json_t *)y))) return false;
    }
    return true;
}

static void diff_api(ctx *c, const char *scope, const json_t *aa, const json_t *ab) {
    cmp_int(c, scope, "API", "calls", get(aa, "total"), get(ab, "total"));
    const json_t *fa = get(aa, "by_function"), *fb = get(ab, "by_function");
    size_t nk;
    const char **k = keys_of(fa, fb, &nk);
    if (!k) c->nomem = true;
    for (size_t i = 0; k && i < nk; i++) {
        char item[160];
        snprintf(item, sizeof item, "API %s", k[i]);
        cmp_int(c, scope, item, "from Lua", get(get(fa, k[i]), "lua"), get(get(fb, k[i]), "lua"));
        cmp_int(c, scope, item, "from guest", get(get(fa, k[i]), "guest"), get(get(fb, k[i]), "guest"));
    }
    free(k);
    const json_t *ca = get(aa, "calls"), *cb = get(ab, "calls");
    size_t na = len(ca), nb = len(cb), n = na < nb ? na : nb, i = 0;
    while (i < n && same_call(at(ca, i), at(cb, i))) i++;
    if (i == n && na == nb) return;
    char item[64];
    snprintf(item, sizeof item, "API call #%zu", i);
    row *r = add_row(c, scope, item, "first divergent call");
    if (!r) return;
    r->has_a = i < na, r->has_b = i < nb;
    r->sa = i < na ? call_text(at(ca, i)) : NULL;
    r->sb = i < nb ? call_text(at(cb, i)) : NULL;
}

static void diff_machine(ctx *c, size_t k, const json_t *ma, const json_t *mb) {
    char scope[32];
    snprintf(scope, sizeof scope, "machine %zu", k);
    cmp_text(c, scope, "", "platform", get(ma, "platform"), get(mb, "platform"));
    cmp_text(c, scope, "", "semantics", get(ma, "semantics"), get(mb, "semantics"));
    cmp_int(c, scope, "", "end_cycles", get(ma, "end_cycles"), get(mb, "end_cycles"));
    const json_t *ta = get(ma, "threads"), *tb = get(mb, "threads");
    size_t nt = len(ta) > len(tb) ? len(ta) : len(tb);
    for (size_t i = 0; i < nt; i++) diff_thread(c, scope, at(ta, i), at(tb, i));
    const json_t *pa = get(ma, "cpus"), *pb = get(mb, "cpus");
    size_t np = len(pa) > len(pb) ? len(pa) : len(pb);
    static const char *const cpu_keys[] = {"time", "busy", "idle", "interrupt", "ticks", "switches", "intervals"};
    for (size_t i = 0; i < np; i++) {
        char item[32];
        snprintf(item, sizeof item, "CPU %zu", i);
        for (size_t j = 0; j < sizeof cpu_keys / sizeof *cpu_keys; j++)
            cmp_int(c, scope, item, cpu_keys[j], get(at(pa, i), cpu_keys[j]), get(at(pb, i), cpu_keys[j]));
    }
    diff_api(c, scope, get(ma, "api"), get(mb, "api"));
}

/* ---- output -------------------------------------------------------------------------------------- */

static const char *val_str(char *buf, size_t n, const row *r, bool b) {
    if (!(b ? r->has_b : r->has_a)) return "(absent)";
    if (!r->is_int) return b ? r->sb : r->sa;
    return rep_group_i64(buf, n, b ? r->b : r->a);
}

static const char *change_str(char *buf, size_t n, const row *r) {
    if (!r->is_int || !r->has_a || !r->has_b) return "-";
    char g[40];
    uint64_t d = r->a <= r->b ? (uint64_t)r->b - (uint64_t)r->a : (uint64_t)r->a - (uint64_t)r->b;
    snprintf(buf, n, "%c%s", r->b >= r->a ? '+' : '-', rep_group_u64(g, sizeof g, d));
    return buf;
}

static const char *rel_str(char *buf, size_t n, const row *r) {
    if (!r->is_int || !r->has_a || !r->has_b) return "-";
    if (!r->has_rel) return "new"; /* A was 0 */
    snprintf(buf, n, "%c%" PRIu64 ".%02u%%", r->b >= r->a ? '+' : '-', r->rel_bp / 100, (unsigned)(r->rel_bp % 100));
    return buf;
}

/* Display width: code points (UTF-8 continuation bytes do not count). */
static size_t width(const char *s) {
    size_t w = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) w += (*p & 0xC0) != 0x80;
    return w;
}

static void pad(FILE *f, const char *s, size_t w, bool right) {
    size_t sw = width(s);
    if (right)
        for (size_t i = sw; i < w; i++) fputc(' ', f);
    fputs(s, f);
    if (!right)
        for (size_t i = sw; i < w; i++) fputc(' ', f);
}

#define NCOL 7
static const char *const heads[NCOL] = {"scope", "item", "metric", "A", "B", "change", "relative"};

#define CELL_MAX 40 /* a longer text value is cut in the terminal table and shown in full below it */

static bool too_long(const row *r) {
    return !r->is_int && ((r->sa && width(r->sa) > CELL_MAX) || (r->sb && width(r->sb) > CELL_MAX));
}

/* The text of value a (or b) in at most CELL_MAX columns: cut, with "..." (whole UTF-8 characters). */
static const char *cut(char *buf, size_t n, const char *s) {
    if (width(s) <= CELL_MAX) return s;
    size_t o = 0, w = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p && o + 8 < n; p++) {
        if ((*p & 0xC0) != 0x80 && ++w > CELL_MAX - 3) break;
        buf[o++] = (char)*p;
    }
    memcpy(buf + o, "...", 4);
    return buf;
}

static void cells(const row *r, char bufs[4][64], const char *out[NCOL], bool short_text) {
    out[0] = r->scope;
    out[1] = r->item;
    out[2] = r->metric;
    out[3] = val_str(bufs[0], sizeof bufs[0], r, false);
    out[4] = val_str(bufs[1], sizeof bufs[1], r, true);
    out[5] = change_str(bufs[2], sizeof bufs[2], r);
    out[6] = rel_str(bufs[3], sizeof bufs[3], r);
    if (short_text && !r->is_int) {
        out[3] = cut(bufs[0], sizeof bufs[0], out[3]);
        out[4] = cut(bufs[1], sizeof bufs[1], out[4]);
    }
}

static void write_text(const ctx *c, const char *pa, const char *pb, size_t ndiff, size_t ntol, FILE *f) {
    fprintf(f, "hcpsim diff: A = %s, B = %s\n", pa, pb);
    if (ndiff) {
        size_t w[NCOL];
        for (int j = 0; j < NCOL; j++) w[j] = width(heads[j]);
        for (size_t i = 0; i < c->n; i++) {
            if (c->rows[i].tolerated) continue;
            char bufs[4][64];
            const char *v[NCOL];
            cells(&c->rows[i], bufs, v, true);
            for (int j = 0; j < NCOL; j++)
                if (width(v[j]) > w[j]) w[j] = width(v[j]);
        }
        for (int j = 0; j < NCOL; j++) {
            pad(f, heads[j], w[j], j >= 3);
            fputs(j + 1 < NCOL ? "  " : "\n", f);
        }
        for (size_t i = 0; i < c->n; i++) {
            if (c->rows[i].tolerated) continue;
            char bufs[4][64];
            const char *v[NCOL];
            cells(&c->rows[i], bufs, v, true);
            for (int j = 0; j < NCOL; j++) {
                pad(f, v[j], w[j], j >= 3);
                fputs(j + 1 < NCOL ? "  " : "\n", f);
            }
        }
    }
    for (size_t i = 0; i < c->n; i++) { /* the values cut in the table, in full */
        const row *r = &c->rows[i];
        if (r->tolerated || !too_long(r)) continue;
        fprintf(f, "\n%s, %s, %s:\n  A: %s\n  B: %s\n", r->scope, r->item, r->metric, r->has_a ? r->sa : "(absent)",
                r->has_b ? r->sb : "(absent)");
    }
    if (ndiff) fputc('\n', f);
    fprintf(f, "%s: %zu difference%s", ndiff ? "different" : "the same", ndiff, ndiff == 1 ? "" : "s");
    if (ntol) fprintf(f, ", %zu more within tolerance", ntol);
    fputs(".\n", f);
}

static void write_md(const ctx *c, const char *pa, const char *pb, size_t ndiff, size_t ntol, FILE *f) {
    fputs("# hcpsim diff\n\n| | |\n|---|---|\n| A | ", f);
    rep_put_md(f, pa);
    fputs(" |\n| B | ", f);
    rep_put_md(f, pb);
    fprintf(f, " |\n| result | %s: %zu difference%s", ndiff ? "different" : "the same", ndiff, ndiff == 1 ? "" : "s");
    if (ntol) fprintf(f, ", %zu more within tolerance", ntol);
    fputs(" |\n", f);
    if (!ndiff) return;
    fputs("\n| scope | item | metric | A | B | change | relative |\n|---|---|---|---|---|---|---|\n", f);
    for (size_t i = 0; i < c->n; i++) {
        if (c->rows[i].tolerated) continue;
        char bufs[4][64];
        const char *v[NCOL];
        cells(&c->rows[i], bufs, v, false);
        fputc('|', f);
        for (int j = 0; j < NCOL; j++) {
            fputc(' ', f);
            rep_put_md(f, v[j]);
            fputs(" |", f);
        }
        fputc('\n', f);
    }
}

static json_t *jval(const row *r, bool b) {
    if (!(b ? r->has_b : r->has_a)) return json_null();
    if (r->is_int) return json_integer(b ? r->b : r->a);
    char *s = rep_clean_utf8(b ? r->sb : r->sa);
    json_t *v = s ? json_string(s) : json_null();
    free(s);
    return v;
}

static int write_json(const ctx *c, const char *pa, const char *pb, size_t ndiff, size_t ntol, FILE *f) {
    json_t *d = json_object(), *rows = json_array(), *tols = json_object();
    json_object_set_new(d, "schema", json_string("hcpsim-diff"));
    json_object_set_new(d, "version", json_integer(1));
    char *ca = rep_clean_utf8(pa), *cb = rep_clean_utf8(pb);
    json_object_set_new(d, "a", ca ? json_string(ca) : json_null());
    json_object_set_new(d, "b", cb ? json_string(cb) : json_null());
    free(ca);
    free(cb);
    json_object_set_new(d, "same", json_boolean(ndiff == 0));
    json_object_set_new(d, "differences", json_integer((json_int_t)ndiff));
    json_object_set_new(d, "within_tolerance", json_integer((json_int_t)ntol));
    for (int i = 0; i < c->ntols; i++)
        json_object_set_new(tols, c->tols[i].name, json_integer((json_int_t)c->tols[i].bp));
    json_object_set_new(d, "tolerance_bp", tols);
    for (size_t i = 0; i < c->n; i++) {
        const row *r = &c->rows[i];
        json_t *x = json_object();
        json_object_set_new(x, "scope", json_string(r->scope));
        char *it = rep_clean_utf8(r->item), *me = rep_clean_utf8(r->metric);
        json_object_set_new(x, "item", it ? json_string(it) : json_null());
        json_object_set_new(x, "metric", me ? json_string(me) : json_null());
        free(it);
        free(me);
        json_object_set_new(x, "a", jval(r, false));
        json_object_set_new(x, "b", jval(r, true));
        bool both = r->is_int && r->has_a && r->has_b;
        json_object_set_new(x, "change", both ? json_integer(r->b - r->a) : json_null());
        json_object_set_new(x, "relative_bp",
                            both && r->has_rel
                                ? json_integer((json_int_t)(r->b >= r->a ? 1 : -1) * (json_int_t)r->rel_bp)
                                : json_null());
        json_object_set_new(x, "within_tolerance", json_boolean(r->tolerated));
        json_array_append_new(rows, x);
    }
    json_object_set_new(d, "rows", rows);
    int rc = json_dumpf(d, f, JSON_INDENT(1) | JSON_SORT_KEYS);
    fputc('\n', f);
    json_decref(d);
    return rc;
}

/* ---- command line ---------------------------------------------------------------------------------- */

static int usage_error(const char *msg, const char *arg) {
    fprintf(stderr, "hcpsim diff: %s%s%s%s\n", msg, arg ? " '" : "", arg ? arg : "", arg ? "'" : "");
    fputs("usage: hcpsim diff [--format text|md|json] [--tolerance METRIC=PERCENT]... A.json B.json\n", stderr);
    return 2;
}

/* "cycles=2.5" (or "cycles=2.5%"): the metric and its tolerance in basis points. */
static bool parse_tol(const char *s, tol *t) {
    const char *eq = strchr(s, '=');
    if (!eq || eq == s || (size_t)(eq - s) >= sizeof t->name) return false;
    memcpy(t->name, s, (size_t)(eq - s));
    t->name[eq - s] = 0;
    const char *p = eq + 1;
    uint64_t whole = 0, frac = 0;
    int digits = 0, fd = 0;
    for (; *p >= '0' && *p <= '9' && digits < 6; p++, digits++) whole = whole * 10 + (uint64_t)(*p - '0');
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9' && fd < 2; p++, fd++) frac = frac * 10 + (uint64_t)(*p - '0');
    if (fd == 1) frac *= 10;
    if (*p == '%') p++;
    if (!digits || *p) return false;
    t->bp = whole * 100 + frac;
    return true;
}

/* Loads a report: the document, or NULL after printing FILE:LINE: message. */
static json_t *load(const char *path) {
    json_error_t e;
    json_t *d = json_load_file(path, JSON_REJECT_DUPLICATES, &e);
    if (!d) {
        if (e.line > 0)
            fprintf(stderr, "%s:%d: %s\n", path, e.line, e.text);
        else
            fprintf(stderr, "hcpsim diff: %s: %s\n", path, e.text);
        return NULL;
    }
    /* version 2 added run.exit_code and run.limit and split the failed runs' status; the keys
     * compared are the same in both */
    json_int_t ver = json_is_integer(get(d, "version")) ? json_integer_value(get(d, "version")) : 0;
    if (!json_is_object(d) || strcmp(str_or(get(d, "schema"), ""), "hcpsim-report") != 0 || ver < 1 || ver > 2) {
        fprintf(stderr, "%s:1: not an hcpsim run report (schema \"hcpsim-report\", version 1 or 2 expected)\n", path);
        json_decref(d);
        return NULL;
    }
    return d;
}

int rep_diff_main(int argc, char **argv) {
    ctx c;
    memset(&c, 0, sizeof c);
    const char *fmt = "text", *files[2] = {NULL, NULL};
    int nfiles = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--format") == 0 || strcmp(a, "--tolerance") == 0) {
            if (i + 1 >= argc) return usage_error("missing value after", a);
            const char *v = argv[++i];
            if (a[2] == 'f') {
                if (strcmp(v, "text") && strcmp(v, "md") && strcmp(v, "json"))
                    return usage_error("unknown format (valid: text, md, json):", v);
                fmt = v;
            } else if (c.ntols == MAX_TOL) {
                return usage_error("too many --tolerance options (at most 32)", NULL);
            } else if (!parse_tol(v, &c.tols[c.ntols++])) {
                return usage_error("--tolerance expects METRIC=PERCENT with at most 2 decimals (cycles=2.5):", v);
            }
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            puts("usage: hcpsim diff [--format text|md|json] [--tolerance METRIC=PERCENT]... A.json B.json\n"
                 "Compares two run reports (hcpsim run --report X.json): run, threads, CPUs, API calls.\n"
                 "METRIC is a counter name (cycles, instructions:k), a thread or CPU field (cycle_time, busy)\n"
                 "or 'all'. Exit status: 0 the same, 1 different, 2 an error.");
            return 0;
        } else if (a[0] == '-' && a[1]) {
            return usage_error("unknown option", a);
        } else if (nfiles < 2) {
            files[nfiles++] = a;
        } else {
            return usage_error("too many files:", a);
        }
    }
    if (nfiles != 2) return usage_error("expected two report files, A.json and B.json", NULL);
    json_t *da = load(files[0]);
    json_t *db = da ? load(files[1]) : NULL;
    if (!da || !db) {
        json_decref(da);
        return 2;
    }
    diff_run(&c, get(da, "run"), get(db, "run"));
    const json_t *ma = get(da, "machines"), *mb = get(db, "machines");
    json_t *na = json_integer((json_int_t)len(ma)), *nb = json_integer((json_int_t)len(mb));
    cmp_int(&c, "run", "", "machines", na, nb);
    json_decref(na);
    json_decref(nb);
    size_t nm = len(ma) < len(mb) ? len(ma) : len(mb);
    for (size_t k = 0; k < nm; k++) diff_machine(&c, k, at(ma, k), at(mb, k));

    size_t ndiff = 0, ntol = 0;
    for (size_t i = 0; i < c.n; i++) c.rows[i].tolerated ? ntol++ : ndiff++;
    int status = ndiff ? 1 : 0;
    if (c.nomem) {
        fputs("hcpsim diff: out of memory\n", stderr);
        status = 2;
    } else if (strcmp(fmt, "json") == 0) {
        if (write_json(&c, files[0], files[1], ndiff, ntol, stdout)) status = 2;
    } else if (strcmp(fmt, "md") == 0) {
        write_md(&c, files[0], files[1], ndiff, ntol, stdout);
    } else {
        write_text(&c, files[0], files[1], ndiff, ntol, stdout);
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "hcpsim diff: writing the output: %s\n", strerror(errno));
        status = 2;
    }
    for (size_t i = 0; i < c.n; i++) {
        free(c.rows[i].sa);
        free(c.rows[i].sb);
    }
    free(c.rows);
    json_decref(da);
    json_decref(db);
    return status;
}
