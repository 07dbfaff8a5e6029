/* conformance/tap.h — a small TAP producer for hcpsim's C tests, in the
 * manner of C TAP Harness: typed checks that print both values on failure.
 * Header-only; each test program includes it once.  TAP version 13.
 *
 * Clauses (conformance/README.md): tap_clause("ID") or tap_clause("ID1,ID2")
 * names the catalogue clauses (conformance/clauses.tsv) the following tests
 * check, until the next tap_clause (NULL clears); each test line then ends its
 * description with " [ID,...]".  An id the catalogue lacks stops the program
 * (Bail out!).  The catalogue is $HCPSIM_CLAUSES, else conformance/clauses.tsv
 * under the current directory; a program built with TAP_NO_CATALOGUE defined
 * (for example one that runs on Windows) checks only the ids' form.
 * tap_todo("reason") marks the following tests as known gaps until
 * tap_todo(NULL): a failure is "not ok ... # TODO reason", a pass is a failure
 * ("todo passed: remove the todo").  skip("reason", "name") prints a skipped test. */
#ifndef HCPSIM_TAP_H
#define HCPSIM_TAP_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#define TAP_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TAP_PRINTF(f, a)
#endif

static int tap_count_, tap_failed_, tap_planned_ = -1;
static const char *tap_clause_, *tap_todo_;

TAP_PRINTF(1, 2) static inline void bail(const char *fmt, ...);

#ifndef TAP_NO_CATALOGUE
/* The catalogue's text with a newline in front, so every row's id follows a '\n'. */
static char *tap_catalogue_;

static inline const char *tap_catalogue_text(void) {
    if (tap_catalogue_) return tap_catalogue_;
    const char *env = getenv("HCPSIM_CLAUSES");
    const char *path = env && *env ? env : "conformance/clauses.tsv";
    FILE *f = fopen(path, "rb");
    if (!f) bail("tap_clause: cannot open the clause catalogue %s (set HCPSIM_CLAUSES to its path)", path);
    size_t cap = 1 << 16, len = 1;
    char *text = malloc(cap);
    if (!text) bail("tap_clause: out of memory");
    text[0] = '\n';
    size_t n;
    while ((n = fread(text + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len < 2) {
            char *more = realloc(text, cap * 2);
            if (!more) bail("tap_clause: out of memory");
            text = more;
            cap *= 2;
        }
    }
    fclose(f);
    text[len] = '\0';
    tap_catalogue_ = text;
    return text;
}
#endif

/* ids: "ID" or "ID1,ID2,..."; NULL clears. */
static inline void tap_clause(const char *ids) {
    for (const char *p = ids; p && *p;) {
        size_t n = strcspn(p, ",");
        int ok = n > 0 && p[0] >= 'A' && p[0] <= 'Z' && p[n - 1] != '-' && memchr(p, '-', n) != NULL;
        for (size_t i = 0; ok && i < n; i++)
            ok = (p[i] >= 'A' && p[i] <= 'Z') || (p[i] >= '0' && p[i] <= '9') || (p[i] == '-' && p[i + 1] != '-');
        if (!ok) bail("tap_clause: '%.*s' is not a clause id (they look like HCP-READ-SIZE-EXACT)", (int)n, p);
#ifndef TAP_NO_CATALOGUE
        const char *text = tap_catalogue_text();
        int found = 0;
        for (const char *q = strstr(text, "\n"); q && !found; q = strstr(q + 1, "\n"))
            found = strncmp(q + 1, p, n) == 0 && q[1 + n] == '\t';
        if (!found) bail("tap_clause: unknown clause %.*s (not in the clause catalogue; add a row there)", (int)n, p);
#endif
        p += n;
        if (*p == ',') p++;
    }
    tap_clause_ = ids && *ids ? ids : NULL;
}

/* reason: the following tests are known gaps; NULL ends them. */
static inline void tap_todo(const char *reason) { tap_todo_ = reason; }

/* Prints the description and note with '#' escaped (it starts a directive), then the clause tag. */
TAP_PRINTF(2, 0) static inline void tap_describe_(const char *note, const char *fmt, va_list ap) {
    char buf[1024];
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    if (note && n >= 0 && (size_t)n < sizeof buf) snprintf(buf + n, sizeof buf - (size_t)n, "%s", note);
    for (const char *c = buf; *c; c++) {
        if (*c == '#') putchar('\\');
        putchar(*c == '\n' ? ' ' : *c);
    }
    if (tap_clause_) printf(" [%s]", tap_clause_);
}

static inline void tap_plan(int n) {
    printf("TAP version 13\n1..%d\n", n);
    tap_planned_ = n;
}

TAP_PRINTF(2, 0) static inline int tap_vresult(int pass, const char *fmt, va_list ap) {
    tap_count_++;
    if (tap_todo_) {
        char note[256];
        snprintf(note, sizeof note, " (todo passed: remove the todo '%s')", tap_todo_);
        printf("not ok %d - ", tap_count_);
        tap_describe_(pass ? note : NULL, fmt, ap);
        if (pass)
            tap_failed_++;
        else
            printf(" # TODO %s", tap_todo_);
        printf("\n");
        return pass;
    }
    if (!pass) tap_failed_++;
    printf("%s %d - ", pass ? "ok" : "not ok", tap_count_);
    tap_describe_(NULL, fmt, ap);
    printf("\n");
    return pass;
}

/* A skipped test: "ok N - name [ID] # SKIP reason". */
TAP_PRINTF(2, 3) static inline void skip(const char *reason, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    tap_count_++;
    printf("ok %d - ", tap_count_);
    tap_describe_(NULL, fmt, ap);
    printf(" # SKIP %s\n", reason);
    va_end(ap);
}

TAP_PRINTF(2, 3) static inline int ok(int pass, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    tap_vresult(pass, fmt, ap);
    va_end(ap);
    return pass;
}

TAP_PRINTF(3, 4) static inline int is_u64(uint64_t got, uint64_t want, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int pass = tap_vresult(got == want, fmt, ap);
    va_end(ap);
    if (!pass)
        printf("  ---\n  got: %" PRIu64 " (0x%" PRIX64 ")\n  expected: %" PRIu64 " (0x%" PRIX64 ")\n  ...\n", got, got,
               want, want);
    return pass;
}

TAP_PRINTF(3, 4) static inline int is_str(const char *got, const char *want, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int pass = tap_vresult(got && want && strcmp(got, want) == 0, fmt, ap);
    va_end(ap);
    if (!pass) printf("  ---\n  got: '%s'\n  expected: '%s'\n  ...\n", got ? got : "(null)", want ? want : "(null)");
    return pass;
}

TAP_PRINTF(1, 2) static inline void diag(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    printf("# ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
}

static inline void bail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    printf("Bail out! ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    exit(255);
}

/* Ends the program: the exit status is non-zero on any failure or plan mismatch. */
static inline int tap_done(void) {
    if (tap_planned_ < 0)
        printf("1..%d\n", tap_count_);
    else if (tap_planned_ != tap_count_) {
        printf("# planned %d tests but ran %d\n", tap_planned_, tap_count_);
        return 1;
    }
    return tap_failed_ ? 1 : 0;
}

#endif
