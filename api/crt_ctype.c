/* api/crt_ctype.c — character classes of the "C" locale: the narrow table msvcrt's ctype
 * functions and macros read (_ctype, _pctype, __pctype_func), the wide one (_wctype, _pwctype)
 * with the UCRT's changes, wide classes above U+00FF from Unicode 14's general categories
 * (crt_wctype.h, api/gen_wctype.py), and the functions (api/README.md "The C runtime": "ctype").
 * The class functions return the class bits they test, as msvcrt's do, not 1. */
#include "api/crt_int.h"
#include "api/crt_wctype.h"

#define C_UPPER 0x1
#define C_LOWER 0x2
#define C_DIGIT 0x4
#define C_SPACE 0x8
#define C_PUNCT 0x10
#define C_CNTRL 0x20
#define C_BLANK 0x40
#define C_HEX 0x80
#define C_ALPHA 0x103 /* _ALPHA: C1_ALPHA | _UPPER | _LOWER */
#define C1_ALPHA 0x100

/* The narrow table of the "C" locale, index c (0..255): ASCII classified, 128..255 nothing. */
static uint16_t narrow_class(int c) {
    if (c < 0 || c > 127) return 0;
    if (c < 32 || c == 127) return (uint16_t)(C_CNTRL | (c >= 9 && c <= 13 ? C_SPACE : 0));
    if (c == ' ') return C_SPACE | C_BLANK;
    if (c >= '0' && c <= '9') return C_DIGIT | C_HEX;
    if (c >= 'A' && c <= 'Z') return (uint16_t)(C_UPPER | (c <= 'F' ? C_HEX : 0));
    if (c >= 'a' && c <= 'z') return (uint16_t)(C_LOWER | (c <= 'f' ? C_HEX : 0));
    return C_PUNCT;
}

/* The wide classes of U+0000..U+00FF: msvcrt's _wctype table (Latin-1 letters alpha, the other
 * Latin-1 signs punctuation, ², ³, ¹ also digits), and the UCRT's, which drops the blank class
 * of tab and NBSP and makes U+0085 a space, ª µ º lower-case letters and the soft hyphen a control. */
static uint16_t latin1_wclass(unsigned c, bool ucrt) {
    uint16_t f;
    if (c < 128) {
        f = narrow_class((int)c);
        if (f & (C_UPPER | C_LOWER)) f |= C1_ALPHA;
        if (c == 9 && !ucrt) f |= C_BLANK;
    } else if (c < 0xA0) {
        f = C_CNTRL | (ucrt && c == 0x85 ? C_SPACE : 0);
    } else if (c == 0xA0) {
        f = (uint16_t)(C_SPACE | (ucrt ? 0 : C_BLANK));
    } else if (c < 0xC0) {
        f = C_PUNCT;
        if (c == 0xB2 || c == 0xB3 || c == 0xB9) f |= C_DIGIT;
        if (ucrt && (c == 0xAA || c == 0xB5 || c == 0xBA)) f |= C_LOWER | C1_ALPHA;
        if (ucrt && c == 0xAD) f |= C_CNTRL;
    } else if (c == 0xD7 || c == 0xF7) {
        f = C_PUNCT;
    } else {
        f = c < 0xDF ? C1_ALPHA | C_UPPER : C1_ALPHA | C_LOWER;
    }
    return f;
}

/* The classes of a UTF-16 unit (C1 bits; above U+00FF also C1_DEFINED 0x200 for an assigned one). */
uint16_t hcp_crt_wclass(uint16_t ch, bool ucrt) {
    if (ch < 0x100) return latin1_wclass(ch, ucrt);
    size_t lo = 0, hi = sizeof wctype_runs / sizeof wctype_runs[0];
    while (hi - lo > 1) { /* the last run starting at or below ch */
        size_t mid = (lo + hi) / 2;
        if (wctype_runs[mid][0] <= ch)
            lo = mid;
        else
            hi = mid;
    }
    return wctype_runs[lo][1];
}
bool hcp_crt_wspace(uint16_t ch) { return (hcp_crt_wclass(ch, false) & C_SPACE) != 0; }

/* ---- guest data: the tables and the pointers to them ---- */

/* _ctype (257 entries: EOF first), msvcrt's and the UCRT's _wctype (257 each), and the words
 * _pctype and _pwctype (their entry 0). */
size_t hcp_crt_ctype_data(uint8_t *b, uint64_t at, unsigned w, hcp_crt_addr *ad) {
    size_t k = 0;
    ad->ctype = at;
    for (int c = -1; c < 256; c++, k += 2) hcp_put16(b + k, c < 0 ? 0 : narrow_class(c));
    ad->wctype = at + k;
    for (int c = -1; c < 256; c++, k += 2) hcp_put16(b + k, c < 0 ? 0 : latin1_wclass((unsigned)c, false));
    ad->wctype_u = at + k;
    for (int c = -1; c < 256; c++, k += 2) hcp_put16(b + k, c < 0 ? 0 : latin1_wclass((unsigned)c, true));
    k = (k + 7) & ~(size_t)7;
    ad->pctype = at + k;
    hcp_put64(b + k, ad->ctype + 2);
    if (w == 4) hcp_put32(b + k, (uint32_t)(ad->ctype + 2));
    k += 8;
    ad->pwctype = at + k;
    hcp_put64(b + k, ad->wctype + 2);
    if (w == 4) hcp_put32(b + k, (uint32_t)(ad->wctype + 2));
    k += 8;
    return k;
}

/* ---- narrow ---- */

static uint64_t klass(int32_t c, uint16_t mask) {
    if (c < -1 || c > 255) return 0;
    return narrow_class(c) & mask;
}
uint64_t hcp_crt__isctype(hcp_ctx *c, const hcp_crt__isctype_args *a) {
    (void)c;
    return klass(a->_C, (uint16_t)a->_Type);
}
#define NARROW(name, mask)                                                                                             \
    uint64_t hcp_crt_##name(hcp_ctx *c, const hcp_crt_##name##_args *a) {                                              \
        (void)c;                                                                                                       \
        return klass(a->_C, (mask));                                                                                   \
    }
NARROW(isalpha, C_ALPHA)
NARROW(isupper, C_UPPER)
NARROW(islower, C_LOWER)
NARROW(isdigit, C_DIGIT)
NARROW(isxdigit, C_HEX)
NARROW(isspace, C_SPACE)
NARROW(ispunct, C_PUNCT)
NARROW(isalnum, C_ALPHA | C_DIGIT)
NARROW(isprint, C_BLANK | C_PUNCT | C_ALPHA | C_DIGIT)
NARROW(isgraph, C_PUNCT | C_ALPHA | C_DIGIT)
NARROW(iscntrl, C_CNTRL)
/* isblank, iswblank (the UCRT's): tab and the blank class */
uint64_t hcp_crt_isblank(hcp_ctx *c, const hcp_crt_isblank_args *a) {
    (void)c;
    return a->_C == '\t' || klass(a->_C, C_BLANK);
}
uint64_t hcp_crt_isleadbyte(hcp_ctx *c, const hcp_crt_isleadbyte_args *a) { /* no lead bytes in the "C" locale */
    (void)c;
    (void)a;
    return 0;
}
uint64_t hcp_crt___isascii(hcp_ctx *c, const hcp_crt___isascii_args *a) {
    (void)c;
    return (uint32_t)a->_C < 0x80;
}
uint64_t hcp_crt___toascii(hcp_ctx *c, const hcp_crt___toascii_args *a) {
    (void)c;
    return (uint32_t)a->_C & 0x7F;
}
uint64_t hcp_crt___iscsym(hcp_ctx *c, const hcp_crt___iscsym_args *a) { /* letter, digit or '_' */
    (void)c;
    return a->_C == '_' || klass(a->_C, C_ALPHA | C_DIGIT);
}
uint64_t hcp_crt___iscsymf(hcp_ctx *c, const hcp_crt___iscsymf_args *a) { /* letter or '_' */
    (void)c;
    return a->_C == '_' || klass(a->_C, C_ALPHA);
}
uint64_t hcp_crt_toupper(hcp_ctx *c, const hcp_crt_toupper_args *a) {
    (void)c;
    int32_t ch = a->_C;
    return (uint32_t)(ch >= 'a' && ch <= 'z' ? ch - 32 : ch);
}
uint64_t hcp_crt_tolower(hcp_ctx *c, const hcp_crt_tolower_args *a) {
    (void)c;
    int32_t ch = a->_C;
    return (uint32_t)(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
}
/* _toupper, _tolower: msvcrt's arithmetic, with no check of the argument */
uint64_t hcp_crt__toupper(hcp_ctx *c, const hcp_crt__toupper_args *a) {
    (void)c;
    return (uint32_t)(a->_C - 'a' + 'A');
}
uint64_t hcp_crt__tolower(hcp_ctx *c, const hcp_crt__tolower_args *a) {
    (void)c;
    return (uint32_t)(a->_C - 'A' + 'a');
}
uint64_t hcp_crt___pctype_func(hcp_ctx *c) {
    hcp_crt *r = hcp_crt_of(c);
    return r ? r->ad.ctype + 2 : 0;
}
uint64_t hcp_crt___pwctype_func(hcp_ctx *c) {
    hcp_crt *r = hcp_crt_of(c);
    return r ? (hcp_crt_is_ucrt(c) ? r->ad.wctype_u : r->ad.wctype) + 2 : 0;
}
uint64_t hcp_crt___p__pctype(hcp_ctx *c) {
    hcp_crt *r = hcp_crt_of(c);
    return r ? r->ad.pctype : 0;
}
uint64_t hcp_crt___p__pwctype(hcp_ctx *c) {
    hcp_crt *r = hcp_crt_of(c);
    return r ? r->ad.pwctype : 0;
}

/* ---- wide ---- */

#define WEOF_U 0xFFFFu
static uint64_t wklass(hcp_ctx *c, uint32_t ch, uint16_t mask) {
    uint16_t u = (uint16_t)ch;
    if (u == WEOF_U) return 0;
    return hcp_crt_wclass(u, hcp_crt_is_ucrt(c)) & mask;
}
uint64_t hcp_crt_iswctype(hcp_ctx *c, const hcp_crt_iswctype_args *a) { return wklass(c, a->_C, (uint16_t)a->_Type); }
#define WIDE(name, mask)                                                                                               \
    uint64_t hcp_crt_##name(hcp_ctx *c, const hcp_crt_##name##_args *a) { return wklass(c, a->_C, (mask)); }
WIDE(iswalpha, C_ALPHA)
WIDE(iswupper, C_UPPER)
WIDE(iswlower, C_LOWER)
WIDE(iswdigit, C_DIGIT)
WIDE(iswxdigit, C_HEX)
WIDE(iswspace, C_SPACE)
WIDE(iswpunct, C_PUNCT)
WIDE(iswalnum, C_ALPHA | C_DIGIT)
WIDE(iswprint, C_BLANK | C_PUNCT | C_ALPHA | C_DIGIT)
WIDE(iswgraph, C_PUNCT | C_ALPHA | C_DIGIT)
WIDE(iswcntrl, C_CNTRL)
uint64_t hcp_crt_iswblank(hcp_ctx *c, const hcp_crt_iswblank_args *a) {
    return (uint16_t)a->_C == '\t' || wklass(c, a->_C, C_BLANK);
}
uint64_t hcp_crt_iswascii(hcp_ctx *c, const hcp_crt_iswascii_args *a) {
    (void)c;
    return (uint16_t)a->_C < 0x80;
}
/* towupper, towlower: ASCII letters only in the "C" locale (msvcrt and, as Wine has it, the UCRT) */
uint64_t hcp_crt_towupper(hcp_ctx *c, const hcp_crt_towupper_args *a) {
    (void)c;
    uint16_t ch = (uint16_t)a->_C;
    return ch >= 'a' && ch <= 'z' ? ch - 32u : ch;
}
uint64_t hcp_crt_towlower(hcp_ctx *c, const hcp_crt_towlower_args *a) {
    (void)c;
    uint16_t ch = (uint16_t)a->_C;
    return ch >= 'A' && ch <= 'Z' ? ch + 32u : ch;
}
