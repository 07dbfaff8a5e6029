/* scenarios/fuzz/regress_test.c — replays every file of
 * scenarios/fuzz/regressions/TARGET/ (inputs that once crashed a fuzz
 * target) and scenarios/fuzz/seeds/TARGET/ through the targets' entry
 * functions, without libFuzzer and with the normal compiler: make test runs
 * it (as a TAP test), make check-asan and check-ubsan under the sanitizers.
 * A crash, a sanitizer report or a broken invariant (an abort) fails it.
 * Every input runs on fresh Unicorn engines here.  One more test checks what
 * the libFuzzer builds rely on (sim_engine_recycle, sim/engine.c): each guest
 * input gives the same digest (results, faults, counters, switches, clock,
 * memory: fz_guest.c) on a fresh engine and on engines recycled from the
 * machines of the other inputs, in two orders. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The targets, built into this one program. */
#include "scenarios/fuzz/fz_api.c"
#include "scenarios/fuzz/fz_common.c"
#include "scenarios/fuzz/fz_dll.c"
#include "scenarios/fuzz/fz_exports.c"
#include "scenarios/fuzz/fz_guest.c"
#include "scenarios/fuzz/fz_lua.c"
#include "scenarios/fuzz/fz_marshal.c"
#include "scenarios/fuzz/fz_paths.c"
#include "scenarios/fuzz/fz_pe.c"

/* After the targets, so their own identifiers (a local `ok`) do not meet tap.h's functions. */
#include "conformance/tap.h"

typedef struct target {
    const char *name;
    int (*fn)(const uint8_t *, size_t);
} target;

static const target targets[] = {{"lua", hcpfz_lua},     {"api", hcpfz_api}, {"marshal", hcpfz_marshal},
                                 {"guest", hcpfz_guest}, {"pe", hcpfz_pe},   {"exports", hcpfz_exports},
                                 {"paths", hcpfz_paths}, {"dll", hcpfz_dll}};

typedef struct input {
    char path[512];
    const target *t;
} input;

static int cmp_input(const void *a, const void *b) {
    return strcmp(((const input *)a)->path, ((const input *)b)->path);
}

/* Appends the regular files of dir (sorted later); returns the new count. */
static size_t collect(const char *dir, const target *t, input **list, size_t n, size_t *cap) {
    DIR *d = opendir(dir);
    if (!d) return n;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "README") == 0) continue;
        if (n == *cap) {
            *cap = *cap ? *cap * 2 : 64;
            input *nl = realloc(*list, *cap * sizeof **list);
            if (!nl) break;
            *list = nl;
        }
        snprintf((*list)[n].path, sizeof(*list)[n].path, "%s/%s", dir, e->d_name);
        (*list)[n].t = t;
        n++;
    }
    closedir(d);
    return n;
}

static unsigned char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    unsigned char *b = malloc(cap);
    size_t k;
    while (b && (k = fread(b + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap) {
            unsigned char *nb = realloc(b, cap * 2);
            if (!nb) {
                free(b);
                b = NULL;
                break;
            }
            b = nb;
            cap *= 2;
        }
    }
    fclose(f);
    *len = n;
    return b;
}

/* The recycling check: fresh digests, then recycled ones forward and backward. */
static bool recycle_check(const input *list, size_t n, size_t *count, char *why, size_t whylen) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++) k += list[i].t->fn == hcpfz_guest;
    uint64_t *fresh = calloc(k ? k : 1, sizeof *fresh);
    unsigned char **data = calloc(k ? k : 1, sizeof *data);
    size_t *len = calloc(k ? k : 1, sizeof *len);
    bool good = fresh && data && len;
    k = 0;
    for (size_t i = 0; good && i < n; i++) {
        if (list[i].t->fn != hcpfz_guest) continue;
        if (!(data[k] = slurp(list[i].path, &len[k]))) {
            snprintf(why, whylen, "cannot read %s", list[i].path);
            good = false;
        }
        k++;
    }
    *count = k;
    sim_engine_recycle(false);
    for (size_t i = 0; good && i < k; i++) fresh[i] = guest_run(data[i], len[i]);
    unsigned long before = sim_engine_reuses();
    sim_engine_recycle(true);
    for (int pass = 0; good && pass < 2; pass++)
        for (size_t j = 0; good && j < k; j++) {
            size_t i = pass ? k - 1 - j : j;
            uint64_t d = guest_run(data[i], len[i]);
            if (d != fresh[i]) {
                snprintf(why, whylen, "guest input %zu: digest %016llX on a recycled engine, %016llX on a fresh one", i,
                         (unsigned long long)d, (unsigned long long)fresh[i]);
                good = false;
            }
        }
    sim_engine_recycle(false);
    /* Every machine but the first of each guest ISA (the input's second byte, fz_guest.c) takes a spare. */
    bool isa_seen[4] = {false, false, false, false};
    size_t nisa = 0;
    for (size_t i = 0; i < k; i++) {
        int isa = len[i] > 1 ? data[i][1] >> 6 : 0;
        nisa += !isa_seen[isa];
        isa_seen[isa] = true;
    }
    if (good && k > 1 && sim_engine_reuses() - before < 2 * k - nisa) {
        snprintf(why, whylen, "only %lu of %zu machines took a recycled engine", sim_engine_reuses() - before, 2 * k);
        good = false;
    }
    for (size_t i = 0; data && i < k; i++) free(data[i]);
    free(fresh);
    free(data);
    free(len);
    return good;
}

int main(void) {
    input *list = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        char dir[128];
        snprintf(dir, sizeof dir, "scenarios/fuzz/regressions/%s", targets[i].name);
        n = collect(dir, &targets[i], &list, n, &cap);
        snprintf(dir, sizeof dir, "scenarios/fuzz/seeds/%s", targets[i].name);
        n = collect(dir, &targets[i], &list, n, &cap);
    }
    if (n) qsort(list, n, sizeof *list, cmp_input);
    tap_plan((int)n + 1);
    tap_clause("SIM-FUZZ-REGRESSIONS");
    if (!n) {
        skip("no inputs under scenarios/fuzz/regressions or scenarios/fuzz/seeds", "replay the kept inputs");
        return tap_done();
    }
    for (size_t i = 0; i < n; i++) {
        size_t len = 0;
        unsigned char *b = slurp(list[i].path, &len);
        if (!b) {
            ok(0, "%s: cannot read it", list[i].path);
            continue;
        }
        diag("replaying %s (%zu bytes) through target %s", list[i].path, len, list[i].t->name);
        fflush(stdout); /* a crash below leaves the name of the input printed */
        int r = list[i].t->fn(b, len);
        free(b);
        ok(r == 0, "%s: target %s returns", list[i].path, list[i].t->name);
    }
    char why[256] = "";
    size_t k = 0;
    bool same = recycle_check(list, n, &k, why, sizeof why);
    tap_clause("SIM-FUZZ-RECYCLE");
    if (same && k < 2)
        skip("fewer than two guest inputs kept",
             "%zu guest inputs give identical digests on fresh and on recycled engines", k);
    else if (!ok(same, "%zu guest inputs give identical digests on fresh and on recycled engines", k))
        diag("%s", why);
    free(list);
    return tap_done();
}
