/* conformance/tap.h — a small TAP producer for hcpsim's C tests, in the
 * manner of C TAP Harness: typed checks that print both values on failure.
 * Header-only; each test program includes it once.  TAP version 13. */
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
static const char *tap_clause_;

static inline void tap_clause(const char *id) { tap_clause_ = id; }

static inline void tap_plan(int n) {
    printf("TAP version 13\n1..%d\n", n);
    tap_planned_ = n;
}

TAP_PRINTF(2, 0) static inline int tap_vresult(int pass, const char *fmt, va_list ap) {
    tap_count_++;
    if (!pass) tap_failed_++;
    printf("%s %d - ", pass ? "ok" : "not ok", tap_count_);
    vprintf(fmt, ap);
    if (tap_clause_) printf(" [%s]", tap_clause_);
    printf("\n");
    return pass;
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

TAP_PRINTF(1, 2) static inline void bail(const char *fmt, ...) {
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
