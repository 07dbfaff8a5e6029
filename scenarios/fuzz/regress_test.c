/* scenarios/fuzz/regress_test.c — replays every file of
 * scenarios/fuzz/regressions/TARGET/ (inputs that once crashed a fuzz
 * target) and scenarios/fuzz/seeds/TARGET/ through the targets' entry
 * functions, without libFuzzer and with the normal compiler: make test runs
 * it (as a TAP test), make check-asan and check-ubsan under the sanitizers.
 * A crash, a sanitizer report or a broken invariant (an abort) fails it. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The targets, built into this one program. */
#include "scenarios/fuzz/fz_api.c"
#include "scenarios/fuzz/fz_common.c"
#include "scenarios/fuzz/fz_guest.c"
#include "scenarios/fuzz/fz_lua.c"
#include "scenarios/fuzz/fz_marshal.c"

typedef struct target {
    const char *name;
    int (*fn)(const uint8_t *, size_t);
} target;

static const target targets[] = {
    {"lua", hcpfz_lua}, {"api", hcpfz_api}, {"marshal", hcpfz_marshal}, {"guest", hcpfz_guest}};

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
    printf("TAP version 13\n1..%zu\n", n ? n : (size_t)1);
    if (!n) {
        printf("ok 1 - replay the kept inputs [SIM-FUZZ-REGRESSIONS] # SKIP no inputs under scenarios/fuzz/regressions "
               "or scenarios/fuzz/seeds\n");
        return 0;
    }
    int fail = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = 0;
        unsigned char *b = slurp(list[i].path, &len);
        if (!b) {
            printf("not ok %zu - %s: cannot read it [SIM-FUZZ-REGRESSIONS]\n", i + 1, list[i].path);
            fail = 1;
            continue;
        }
        printf("# replaying %s (%zu bytes) through target %s\n", list[i].path, len, list[i].t->name);
        fflush(stdout); /* a crash below leaves the name of the input printed */
        int r = list[i].t->fn(b, len);
        free(b);
        printf("%s %zu - %s: target %s returns [SIM-FUZZ-REGRESSIONS]\n", r == 0 ? "ok" : "not ok", i + 1, list[i].path,
               list[i].t->name);
        if (r) fail = 1;
    }
    free(list);
    return fail;
}
