/* ctype.c — the character classes of the "C" locale: every narrow function on every value -1..255
 * (one line per function: the values where it is true, as ranges, with the bits it returns), the
 * table _pctype points to, toupper/tolower/_toupper/_tolower, and the wide functions on U+0000..U+00FF
 * and a sample of code points beyond (letters, digits and spaces of other scripts, symbols, private
 * use, unassigned). */
#include <ctype.h>
#include <wctype.h>

#include "crt_test.h"

/* "a-b:v c:v ..." of the values in [lo, hi] where f is non-zero, runs of equal results merged */
static void runs(const char *name, int (*f)(int), int lo, int hi) {
    printf(DLL "%s:", name);
    int start = lo, prev = f(lo);
    for (int c = lo + 1; c <= hi + 1; c++) {
        int v = c <= hi ? f(c) : ~prev;
        if (v != prev) {
            if (prev && start == c - 1) printf(" %d:%X", start, (unsigned)prev);
            if (prev && start != c - 1) printf(" %d-%d:%X", start, c - 1, (unsigned)prev);
            start = c;
            prev = v;
        }
    }
    printf("\n");
}
static void wruns(const char *name, int (*f)(wint_t), unsigned lo, unsigned hi) {
    printf(DLL "%s:", name);
    unsigned start = lo;
    int prev = f((wint_t)lo);
    for (unsigned c = lo + 1; c <= hi + 1; c++) {
        int v = c <= hi ? f((wint_t)c) : ~prev;
        if (v != prev) {
            if (prev && start == c - 1) printf(" %X:%X", start, (unsigned)prev);
            if (prev && start != c - 1) printf(" %X-%X:%X", start, c - 1, (unsigned)prev);
            start = c;
            prev = v;
        }
    }
    printf("\n");
}
static int isctype_all(int c) { return _isctype(c, 0xFFFF); }
static int toascii_(int c) { return __toascii(c) != c; }
static int iscsym_(int c) { return __iscsym(c); }
static int iscsymf_(int c) { return __iscsymf(c); }
static int isascii_(int c) { return __isascii(c); }
static int iswctype_all(wint_t c) { return iswctype(c, 0xFFFF); }

int main(void) {
    static const struct {
        const char *name;
        int (*f)(int);
    } nf[] = {{"isalpha", isalpha}, {"isupper", isupper}, {"islower", islower}, {"isdigit", isdigit},
              {"isxdigit", isxdigit}, {"isspace", isspace}, {"ispunct", ispunct}, {"isalnum", isalnum},
              {"isprint", isprint}, {"isgraph", isgraph}, {"iscntrl", iscntrl}, {"_isctype", isctype_all},
              {"__iscsym", iscsym_}, {"__iscsymf", iscsymf_}, {"__isascii", isascii_}, {"isleadbyte", isleadbyte}};
    for (size_t i = 0; i < sizeof nf / sizeof nf[0]; i++) runs(nf[i].name, nf[i].f, -1, 255);
#ifdef _UCRT
    int (*isblank_)(int) = CRT_FN(int (*)(int), isblank);
    runs("isblank", isblank_, -1, 255);
#endif
    runs("__toascii", toascii_, 0, 300);
    printf(DLL "toupper: 'a' %d 'z' %d 'A' %d 0xE9 %d -1 %d 300 %d\n", toupper('a'), toupper('z'), toupper('A'),
           toupper(0xE9), toupper(-1), toupper(300));
    printf(DLL "tolower: 'A' %d 'Z' %d 'a' %d 0xC9 %d -1 %d\n", tolower('A'), tolower('Z'), tolower('a'), tolower(0xC9),
           tolower(-1));
    printf(DLL "_toupper: 'a' %d '1' %d; " DLL "_tolower: 'A' %d '1' %d\n", _toupper('a'), _toupper('1'), _tolower('A'),
           _tolower('1'));
    const unsigned short *t = __pctype_func();
    printf(DLL "__pctype_func: [-1] %X ['A'] %X ['a'] %X ['0'] %X [' '] %X ['\\t'] %X [0x80] %X [0xE9] %X\n", t[-1],
           t['A'], t['a'], t['0'], t[' '], t['\t'], t[0x80], t[0xE9]);
#ifndef _UCRT
    printf(DLL "_pctype: the same table %d\n", _pctype == t);
    /* msvcrt's variables: _ctype (EOF first), _wctype (the same for wide characters), _pctype and
     * _pwctype (pointers to entry 0) and the functions giving their addresses */
    const unsigned short *ct = (const unsigned short *)crt_fn("_ctype");
    const unsigned short *wct = (const unsigned short *)crt_fn("_wctype");
    const unsigned short **pwp = (const unsigned short **)crt_fn("_pwctype");
    printf(DLL "_ctype: [EOF] %X ['A'] %X, entry 0 is _pctype's %d; " DLL "_wctype: [EOF] %X ['A'] %X; " DLL
               "_pwctype: ['A'] %X, __pwctype_func's %d\n",
           ct[0], ct[1 + 'A'], ct + 1 == t, wct[0], wct[1 + 'A'], (*pwp)['A'],
           *pwp == CRT_FN(const unsigned short *(*)(void), __pwctype_func)());
#ifdef _WIN64 /* i386's msvcrt.dll only (Wine's msvcrt.spec: -arch=i386) */
    printf("i386 only: __p__pctype, __p__pwctype\n");
#else
    printf(DLL "__p__pctype: _pctype's cell %d; " DLL "__p__pwctype: _pwctype's cell %d\n",
           CRT_FN(const unsigned short **(*)(void), __p__pctype)() == (const unsigned short **)crt_fn("_pctype"),
           CRT_FN(const unsigned short **(*)(void), __p__pwctype)() == pwp);
#endif
#endif
    const unsigned short *wt = CRT_FN(const unsigned short *(*)(void), __pwctype_func)();
    printf(DLL "__pwctype_func: [-1] %X ['A'] %X [0x09] %X [0xA0] %X [0xAA] %X [0xB5] %X [0x85] %X [0xE9] %X\n", wt[-1],
           wt['A'], wt[9], wt[0xA0], wt[0xAA], wt[0xB5], wt[0x85], wt[0xE9]);
    static const struct {
        const char *name;
        int (*f)(wint_t);
    } wf[] = {{"iswalpha", iswalpha}, {"iswupper", iswupper}, {"iswlower", iswlower}, {"iswdigit", iswdigit},
              {"iswxdigit", iswxdigit}, {"iswspace", iswspace}, {"iswpunct", iswpunct}, {"iswalnum", iswalnum},
              {"iswprint", iswprint}, {"iswgraph", iswgraph}, {"iswcntrl", iswcntrl}, {"iswctype", iswctype_all}};
    for (size_t i = 0; i < sizeof wf / sizeof wf[0]; i++) wruns(wf[i].name, wf[i].f, 0, 0xFF);
    int (*iswascii_)(wint_t) = CRT_FN(int (*)(wint_t), iswascii);
    wruns("iswascii", iswascii_, 0, 0x1FF);
#ifdef _UCRT
    int (*iswblank_)(wint_t) = CRT_FN(int (*)(wint_t), iswblank);
    wruns("iswblank", iswblank_, 0, 0x3000);
#endif
    static const unsigned sample[] = {0x100,  0x101,  0x1C5,  0x2B0,  0x2C2,  0x300,  0x37E,  0x386,  0x3A9,
                                      0x3C9,  0x410,  0x430,  0x482,  0x5D0,  0x620,  0x660,  0x6F0,  0x966,
                                      0x1680, 0x16EE, 0x2000, 0x2028, 0x2029, 0x2071, 0x20AC, 0x2160, 0x2200,
                                      0x3000, 0x3007, 0x4E00, 0xAC00, 0xD800, 0xE000, 0xFEFF, 0xFF10, 0xFF21,
                                      0xFF41, 0xFF47, 0xFFFD, 0xFFFE, 0x0378, 0x0CF3};
    printf(DLL "iswctype: beyond Latin-1");
    for (size_t i = 0; i < sizeof sample / sizeof sample[0]; i++)
        printf(" %X:%X", sample[i], (unsigned)iswctype((wint_t)sample[i], 0xFFFF));
    printf("\n");
    printf(DLL "is_wctype: %X %X\n", (unsigned)CRT_FN(int (*)(wint_t, wctype_t), is_wctype)(L'A', 0xFFFF),
           (unsigned)CRT_FN(int (*)(wint_t, wctype_t), is_wctype)(0x263A, 0xFFFF));
    printf(DLL "towupper: %X %X %X %X; " DLL "towlower: %X %X %X\n", (unsigned)towupper(L'a'), (unsigned)towupper(0xE9),
           (unsigned)towupper(0x3B1), (unsigned)towupper(0xFFFF), (unsigned)towlower(L'A'), (unsigned)towlower(0xC9),
           (unsigned)towlower(0x391));
    printf(DLL "iswalpha: WEOF %d\n", iswalpha(WEOF));
    printf("ctype: done\n");
    return 0;
}
