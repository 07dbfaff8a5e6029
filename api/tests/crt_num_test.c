/* api/tests/crt_num_test.c — the exact decimal conversions under the C runtime's printf and
 * strtod (api/crt_num.c), against the host C library as an independent reference: glibc's
 * strtod rounds every decimal string correctly (ties to even) and its printf("%.800e") writes a
 * double's exact decimal value, so both are the right answer for every input tried here:
 * boundaries (the largest double, the smallest normal and denormal, halfway cases between
 * neighbours), strings of up to 900 digits and 20,000 pseudo-random ones (a fixed LCG: the same
 * inputs every run). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/crt_int.h"
#include "conformance/tap.h"

static uint64_t seed = 0x243F6A8885A308D3u;
static uint64_t rnd(void) {
    seed = seed * 6364136223846793005u + 1442695040888963407u;
    return seed >> 11;
}

static uint64_t bits_of(double d) {
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

/* s: "[digits].[digits]e[exp]" or plain digits; the reference and ours on the same text */
static int check_parse(const char *s, char *why, size_t cap) {
    double want = strtod(s, NULL);
    char dig[1200];
    int n = 0;
    long point = 0;
    bool seen_point = false;
    const char *p = s;
    for (; *p && *p != 'e'; p++) {
        if (*p == '.') {
            seen_point = true;
            continue;
        }
        if (n < (int)sizeof dig - 2) dig[n++] = *p;
        if (!seen_point) point++;
    }
    if (*p == 'e') point += strtol(p + 1, NULL, 10);
    int range;
    /* as the strto* functions pass them: at most HCP_DEC_MAX digits and a sticky '1' */
    int keep = n;
    if (n > HCP_DEC_MAX) {
        bool nz = false;
        for (int i = HCP_DEC_MAX; i < n; i++) nz |= dig[i] != '0';
        keep = HCP_DEC_MAX;
        if (nz) dig[keep++] = '1';
    }
    double got = hcp_dec_to_double(dig, keep, point, &range);
    if (bits_of(got) == bits_of(want)) return 1;
    snprintf(why, cap, "%.60s: want %a, got %a", s, want, got);
    return 0;
}

static int check_exact(double v, char *why, size_t cap) {
    char ref[1000];
    snprintf(ref, sizeof ref, "%.800e", v);
    /* the reference's significant digits without trailing zeros, and its exponent */
    char dig[900];
    int n = 0;
    const char *p = ref;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9') dig[n++] = *p;
    int ex = atoi(p + 1);
    while (n > 0 && dig[n - 1] == '0') n--;
    hcp_dec x;
    hcp_dec_of(v, &x);
    if (v == 0) return x.n == 0;
    if (x.n == n && memcmp(x.d, dig, (size_t)n) == 0 && x.point == ex + 1) return 1;
    snprintf(why, cap, "%a: want %.*s x 10^%d, got %.*s x 10^%d", v, n > 40 ? 40 : n, dig, ex + 1, x.n > 40 ? 40 : x.n,
             x.d, x.point);
    return 0;
}

int main(void) {
    char why[256] = "";
    tap_clause("PE-CRT-NUM");
    /* exact decimal values */
    static const double fixed[] = {0.0,
                                   1.0,
                                   0.1,
                                   0.5,
                                   2.5,
                                   1e22,
                                   1e23,
                                   DBL_MAX,
                                   DBL_MIN,
                                   4.9406564584124654e-324,
                                   123456789.125,
                                   1.0 / 3.0,
                                   2.2250738585072009e-308,
                                   9007199254740993.0,
                                   5e-324 * 3};
    int bad = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) bad += !check_exact(fixed[i], why, sizeof why);
    ok(!bad,
       "hcp_dec_of: the exact decimal value of 0, 1, 0.1, 0.5, 2.5, 1e22, 1e23, DBL_MAX, DBL_MIN, the smallest "
       "denormal and others (%d wrong: %s)",
       bad, why);
    bad = 0;
    for (int i = 0; i < 20000; i++) {
        uint64_t b = rnd() & 0x7FFFFFFFFFFFFFFFu;
        if ((b >> 52) == 0x7FF) continue;
        double v;
        memcpy(&v, &b, sizeof v);
        bad += !check_exact(v, why, sizeof why);
    }
    ok(!bad, "hcp_dec_of: the exact decimal value of 20,000 random doubles (%d wrong: %s)", bad, why);
    /* rounding */
    hcp_dec x;
    hcp_dec_of(0.125, &x);
    hcp_dec_round(&x, 2, false);
    int a = x.n == 2 && memcmp(x.d, "13", 2) == 0;
    hcp_dec_of(0.125, &x);
    hcp_dec_round(&x, 2, true);
    int b = x.n == 2 && memcmp(x.d, "12", 2) == 0;
    hcp_dec_of(9.96, &x);
    hcp_dec_round(&x, 2, false);
    int c9 = x.n == 1 && x.d[0] == '1' && x.point == 2;
    hcp_dec_of(0.006, &x);
    hcp_dec_round(&x, 0, false);
    int z = x.n == 1 && x.d[0] == '1' && x.point == -1;
    ok(a && b && c9 && z, "hcp_dec_round: 0.125 to 2 digits 13 (ties up) or 12 (ties to even); 9.96 to 2 digits 10; "
                          "0.006 at digit 0 rounds to 0.01");
    /* parsing */
    static const char *const strs[] = {"1",
                                       "0.1",
                                       "1e23",
                                       "8.98846567431158e307",
                                       "1.7976931348623157e308",
                                       "1.7976931348623158e308",
                                       "1.7976931348623159e308",
                                       "2.2250738585072011e-308",
                                       "2.2250738585072012e-308",
                                       "4.9406564584124654e-324",
                                       "2.4703282292062327e-324",
                                       "2.4703282292062328e-324",
                                       "1e-400",
                                       "1e400",
                                       "9007199254740993",
                                       "9007199254740993.0000000000000000000000000000001",
                                       "0.000000001",
                                       "123456789012345678901234567890",
                                       "7.2057594037927933e16",
                                       "5e-324",
                                       "3.4e38",
                                       "0.30000000000000004",
                                       "1.00000000000000011102230246251565404236316680908203125",
                                       "1.00000000000000011102230246251565404236316680908203124",
                                       "1.00000000000000011102230246251565404236316680908203126"};
    bad = 0;
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) bad += !check_parse(strs[i], why, sizeof why);
    ok(!bad, "hcp_dec_to_double: boundaries, halfway cases, overflow and underflow as glibc's strtod (%d wrong: %s)",
       bad, why);
    bad = 0;
    char s[1100];
    for (int i = 0; i < 20000; i++) {
        int n = 1 + (int)(rnd() % (i % 50 == 0 ? 900 : 25));
        int k = 0;
        for (int j = 0; j < n; j++) s[k++] = (char)('0' + rnd() % 10);
        int where = (int)(rnd() % (unsigned)(n + 1));
        memmove(s + where + 1, s + where, (size_t)(n - where));
        s[where] = '.';
        k++;
        k += snprintf(s + k, sizeof s - (size_t)k, "e%d", (int)(rnd() % 700) - 350);
        bad += !check_parse(s, why, sizeof why);
    }
    ok(!bad,
       "hcp_dec_to_double: 20,000 random decimal strings (1-900 digits, exponents -350..349) as glibc's "
       "strtod (%d wrong: %s)",
       bad, why);
    bad = 0;
    for (int i = 0; i < 20000; i++) { /* a double's exact value, and the halfway points next to it */
        uint64_t bb = rnd() & 0x7FEFFFFFFFFFFFFFu;
        double v;
        memcpy(&v, &bb, sizeof v);
        char t[1000];
        snprintf(t, sizeof t, "%.770e", v);
        bad += !check_parse(t, why, sizeof why);
        double up = nextafter(v, INFINITY);
        /* the midpoint's exact value: (v + up) / 2 has one more bit; %.800e prints it exactly via long double
         * where available, else skip */
        long double mid = ((long double)v + (long double)up) / 2;
        if (LDBL_MANT_DIG > DBL_MANT_DIG && (double)mid != v + 0.0 * up) {
            snprintf(t, sizeof t, "%.800Le", mid);
            bad += !check_parse(t, why, sizeof why);
        }
    }
    ok(!bad, "hcp_dec_to_double: 20,000 doubles' exact values and the halfway points above them (%d wrong: %s)", bad,
       why);
    return tap_done();
}
