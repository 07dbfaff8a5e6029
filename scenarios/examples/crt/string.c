/* string.c — the C runtime's memory, string and wide-string functions: each one's documented
 * results (C standard, Microsoft's documentation of the *_s forms and the _str and _wcs
 * extensions), one line per check (crt_test.h).  Pointers are shown as offsets into the buffer
 * they point into (-1: NULL). */
#include "crt_test.h"

#ifdef _UCRT /* mingw-w64 links the UCRT's _strcmpi to _stricmp */
#define STRCMPI "_stricmp"
#else
#define STRCMPI "_strcmpi"
#endif

#define OFF(p, base) ((p) ? (long)((const char *)(p) - (const char *)(base)) : -1L)
#define WOFF(p, base) ((p) ? (long)((p) - (base)) : -1L)

static void reset(char *b, size_t n) { memset(b, '#', n); }
static void wreset(wchar_t *b, size_t n) {
    for (size_t i = 0; i < n; i++) b[i] = L'#';
}

typedef int (*copy_s_fn)(void *, size_t, const void *, size_t);
static void memory(void) {
    copy_s_fn memcpy_s = CRT_FN(copy_s_fn, memcpy_s), memmove_s = CRT_FN(copy_s_fn, memmove_s);
    char b[32];
    reset(b, sizeof b);
    long o = OFF(memcpy(b, "hello", 5), b);
    printf(DLL "memcpy: returns dst %ld, copies 5 = %s\n", o, show(b, 7));
    memmove(b + 1, b, 5);
    printf(DLL "memmove: overlapping forward = %s\n", show(b, 7));
    strcpy(b, "abcdef");
    memmove(b, b + 2, 4);
    printf(DLL "memmove: overlapping backward = %s\n", show(b, 7));
    reset(b, sizeof b);
    o = OFF(memset(b, 0x17A, 4), b);
    printf(DLL "memset: returns dst %ld, 4 of 'z' (0x17A) = %s\n", o, show(b, 6));
    printf(DLL "memcmp: equal %d, less %d, greater %d, bytes unsigned %d, n 0 %d\n", memcmp("abc", "abc", 3),
           memcmp("abc", "abd", 3), memcmp("abd", "abc", 3), memcmp("\x80", "\x01", 1), memcmp("a", "b", 0));
    const char *s = "hello world";
    printf(DLL "memchr: 'o' at %ld, 'z' %ld, '\\0' within n %ld, n 0 %ld\n", OFF(memchr(s, 'o', 11), s),
           OFF(memchr(s, 'z', 11), s), OFF(memchr(s, 0, 12), s), OFF(memchr(s, 'h', 0), s));
    printf(DLL "_memicmp: %d %d %d\n", _memicmp("ABC", "abc", 3), _memicmp("abc", "abd", 3), _memicmp("b", "A", 1));
    reset(b, sizeof b);
    o = OFF(_memccpy(b, "abcdef", 'c', 6), b);
    printf(DLL "_memccpy: stops after 'c': %ld = %s; ", o, show(b, 5));
    printf("no 'x' in 4: %ld\n", OFF(_memccpy(b, "abcd", 'x', 4), b));
    reset(b, sizeof b);
    mark();
    int r = memcpy_s(b, 8, "abcd", 4);
    printf(DLL "memcpy_s: fits %d = %s, errno %d\n", r, show(b, 5), err());
    mark();
    r = memcpy_s(b, 3, "abcd", 4);
    printf(DLL "memcpy_s: count above size %d (ERANGE), destination zeroed = %s, errno %d\n", r, show(b, 5), err());
    reset(b, sizeof b);
    mark();
    r = memcpy_s(b, 4, NULL, 2);
    printf(DLL "memcpy_s: NULL source %d (EINVAL) = %s, errno %d\n", r, show(b, 5), err());
    mark();
    r = memcpy_s(NULL, 4, "ab", 2);
    printf(DLL "memcpy_s: NULL destination %d, errno %d; count 0 %d\n", r, err(), memcpy_s(NULL, 0, NULL, 0));
    reset(b, sizeof b);
    mark();
    r = memmove_s(b, 3, "abcd", 4);
    printf(DLL "memmove_s: count above size %d, destination kept = %s, errno %d\n", r, show(b, 4), err());
    r = memmove_s(b, 8, "abcd", 4);
    printf(DLL "memmove_s: fits %d = %s\n", r, show(b, 5));
}

static void narrow(void) {
    char b[32];
    printf(DLL "strlen: %u %u\n", (unsigned)strlen("hello"), (unsigned)strlen(""));
    size_t (*xstrnlen)(const char *, size_t) = CRT_FN(size_t(*)(const char *, size_t), strnlen);
    printf(DLL "strnlen: %u %u %u\n", (unsigned)xstrnlen("hello", 3), (unsigned)xstrnlen("hello", 10),
           (unsigned)xstrnlen("hello", 0));
    printf(DLL "strcmp: %d %d %d %d %d\n", strcmp("abc", "abc"), strcmp("abc", "abd"), strcmp("abd", "abc"),
           strcmp("ab", "abc"), strcmp("\xE9", "a"));
    printf(DLL "strncmp: %d %d %d (signs)\n", strncmp("abcx", "abcy", 3) == 0, strncmp("abcx", "abcy", 4) < 0,
           strncmp("b", "a", 5) > 0);
    printf("p " DLL "strncmp: raw %d %d\n", strncmp("abcx", "abcz", 4), strncmp("\xE9", "a", 1));
    printf(DLL "_stricmp: %d %d %d %d\n", _stricmp("Hello", "hELLO"), _stricmp("abc", "abd"), _stricmp("b", "A"),
           _stricmp("\xE9", "a"));
    printf(DLL "_strnicmp: %d %d %d\n", _strnicmp("ABCx", "abcy", 3), _strnicmp("ABCx", "abcy", 4),
           _strnicmp("a", "b", 0));
    printf(DLL STRCMPI ": %d; " DLL "_stricoll: %d; " DLL "strcoll: %d %d\n", _strcmpi("ABC", "abc"), _stricoll("ABC", "abd"),
           strcoll("abc", "abd"), strcoll("b", "a"));
    printf(DLL "_strncoll: %d %d; " DLL "_strnicoll: %d\n", _strncoll("abcx", "abcy", 3), _strncoll("abcx", "abcy", 4) < 0,
           _strnicoll("ABCx", "abcy", 3));
    reset(b, sizeof b);
    long o = OFF(strcpy(b, "copy"), b);
    printf(DLL "strcpy: returns dst %ld = %s\n", o, show(b, 6));
    o = OFF(strcat(b, "cat"), b);
    printf(DLL "strcat: returns dst %ld = %s\n", o, show(b, 9));
    reset(b, sizeof b);
    strncpy(b, "ab", 5);
    printf(DLL "strncpy: short source padded = %s\n", show(b, 6));
    reset(b, sizeof b);
    strncpy(b, "abcdef", 3);
    printf(DLL "strncpy: long source not terminated = %s\n", show(b, 5));
    strcpy(b, "ab");
    strncat(b, "cdef", 2);
    printf(DLL "strncat: at most 2 and a terminator = %s\n", show(b, 6));
    const char *s = "hello world";
    printf(DLL "strchr: 'o' %ld, 'z' %ld, '\\0' %ld, 0x16F ('o') %ld\n", OFF(strchr(s, 'o'), s), OFF(strchr(s, 'z'), s),
           OFF(strchr(s, 0), s), OFF(strchr(s, 0x16F), s));
    printf(DLL "strrchr: 'o' %ld, 'z' %ld, '\\0' %ld\n", OFF(strrchr(s, 'o'), s), OFF(strrchr(s, 'z'), s),
           OFF(strrchr(s, 0), s));
    printf(DLL "strstr: %ld %ld %ld %ld, at the end %ld\n", OFF(strstr(s, "wor"), s), OFF(strstr(s, "xyz"), s),
           OFF(strstr(s, ""), s), OFF(strstr("", "a"), ""), OFF(strstr(s, "rld"), s));
    printf(DLL "strspn: %u %u; " DLL "strcspn: %u %u\n", (unsigned)strspn("aabbc", "ab"), (unsigned)strspn("x", "ab"),
           (unsigned)strcspn("hello", "lo"), (unsigned)strcspn("hello", "xyz"));
    printf(DLL "strpbrk: %ld %ld\n", OFF(strpbrk(s, "ow"), s), OFF(strpbrk(s, "xyz"), s));
    strcpy(b, " a,b;;c ");
    char *t1 = strtok(b, " ,;"), *t2 = strtok(NULL, " ,;"), *t3 = strtok(NULL, " ,;"), *t4 = strtok(NULL, " ,;");
    printf(DLL "strtok: tokens at %ld %ld %ld, then %ld; buffer %s\n", OFF(t1, b), OFF(t2, b), OFF(t3, b), OFF(t4, b),
           show(b, 9));
    char *ctx = NULL;
    strcpy(b, "x=1&y=2");
    t1 = strtok_s(b, "&", &ctx);
    t2 = strtok_s(NULL, "&", &ctx);
    t3 = strtok_s(NULL, "&", &ctx);
    printf(DLL "strtok_s: %ld %ld %ld, context at end %ld\n", OFF(t1, b), OFF(t2, b), OFF(t3, b), OFF(ctx, b));
    mark();
    ctx = NULL;
    t1 = strtok_s(NULL, "&", &ctx);
    printf(DLL "strtok_s: NULL string and context %ld, errno %d\n", OFF(t1, b), err());
    char *d = _strdup("dup");
    printf(DLL "_strdup: %s; NULL %ld\n", d ? d : "(fail)", OFF(_strdup(NULL), b));
    free(d);
    strcpy(b, "MiXeD 1!");
    printf(DLL "_strlwr: %s\n", _strlwr(b));
    printf(DLL "_strupr: %s\n", _strupr(b));
    strcpy(b, "abc");
    mark();
    int r = _strlwr_s(b, 2);
    printf(DLL "_strlwr_s: unterminated in size %d = %s, errno %d\n", r, show(b, 4), err());
    strcpy(b, "ABC");
    r = _strlwr_s(b, 4);
    printf(DLL "_strlwr_s: %d = %s; ", r, b);
    r = _strupr_s(b, 4);
    printf(DLL "_strupr_s: %d = %s\n", r, b);
    strcpy(b, "abcd");
    printf(DLL "_strrev: %s; empty %s\n", _strrev(b), _strrev(strcpy(b + 10, "")));
    strcpy(b, "abcd");
    printf(DLL "_strset: %s\n", _strset(b, 'z'));
    strcpy(b, "abcd");
    printf(DLL "_strnset: returns %ld = %s\n", OFF(_strnset(b, 'y', 2), b), b);
    strcpy(b, "abcd");
    r = _strnset_s(b, 5, 'q', 3);
    printf(DLL "_strnset_s: %d = %s\n", r, b);
    reset(b, sizeof b);
    unsigned u = (unsigned)strxfrm(b, "xfrm", 10);
    printf(DLL "strxfrm: %u = %s; too small %u\n", u, show(b, 6), (unsigned)strxfrm(NULL, "xfrm", 0));
}

static void secure(void) {
    char b[16];
    int r;
    reset(b, sizeof b);
    mark();
    r = strcpy_s(b, 6, "hello");
    printf(DLL "strcpy_s: fits %d = %s, errno %d\n", r, show(b, 7), err());
    reset(b, sizeof b);
    mark();
    r = strcpy_s(b, 5, "hello");
    printf(DLL "strcpy_s: no room for the terminator %d (ERANGE) = %s, errno %d\n", r, show(b, 7), err());
    reset(b, sizeof b);
    mark();
    r = strcpy_s(b, 5, NULL);
    printf(DLL "strcpy_s: NULL source %d = %s, errno %d\n", r, show(b, 3), err());
    mark();
    r = strcpy_s(NULL, 5, "x");
    int e1 = err();
    mark();
    int r2 = strcpy_s(b, 0, "x");
    printf(DLL "strcpy_s: NULL destination %d errno %d; size 0 %d errno %d\n", r, e1, r2, err());
    strcpy(b, "ab");
    mark();
    r = strcat_s(b, 6, "cde");
    printf(DLL "strcat_s: fits %d = %s, errno %d\n", r, show(b, 7), err());
    strcpy(b, "ab");
    mark();
    r = strcat_s(b, 5, "cde");
    printf(DLL "strcat_s: too long %d = %s, errno %d\n", r, show(b, 4), err());
    memcpy(b, "abcd", 4);
    mark();
    r = strcat_s(b, 4, "x");
    printf(DLL "strcat_s: destination unterminated %d = %s, errno %d\n", r, show(b, 4), err());
    reset(b, sizeof b);
    mark();
    r = strncpy_s(b, 8, "abcdef", 3);
    printf(DLL "strncpy_s: count 3 %d = %s, errno %d\n", r, show(b, 5), err());
    reset(b, sizeof b);
    mark();
    r = strncpy_s(b, 4, "abcdef", _TRUNCATE);
    printf(DLL "strncpy_s: _TRUNCATE %d (STRUNCATE) = %s, errno %d\n", r, show(b, 5), err());
    reset(b, sizeof b);
    mark();
    r = strncpy_s(b, 4, "abcdef", 5);
    printf(DLL "strncpy_s: too long %d = %s\n", r, show(b, 5));
    reset(b, sizeof b);
    r = strncpy_s(b, 4, "abc", 0);
    printf(DLL "strncpy_s: count 0 %d = %s\n", r, show(b, 2));
    strcpy(b, "ab");
    mark();
    r = strncat_s(b, 8, "cdef", 2);
    printf(DLL "strncat_s: count 2 %d = %s, errno %d\n", r, show(b, 6), err());
    strcpy(b, "ab");
    r = strncat_s(b, 5, "cdef", _TRUNCATE);
    printf(DLL "strncat_s: _TRUNCATE %d = %s\n", r, show(b, 6));
    strcpy(b, "ab");
    mark();
    r = strncat_s(b, 5, "cdef", 4);
    printf(DLL "strncat_s: too long %d = %s, errno %d\n", r, show(b, 3), err());
}

static void wide(void) {
    size_t (*wcsnlen)(const wchar_t *, size_t) = CRT_FN(size_t(*)(const wchar_t *, size_t), wcsnlen);
    wchar_t b[32];
    const wchar_t *s = L"hello world";
    printf(DLL "wcslen: %u; " DLL "wcsnlen: %u %u\n", (unsigned)wcslen(s), (unsigned)wcsnlen(s, 4), (unsigned)wcsnlen(s, 40));
    printf(DLL "wcscmp: %d %d %d; " DLL "wcsncmp: %d %d\n", wcscmp(L"a", L"a"), wcscmp(L"a", L"b"), wcscmp(L"\x263A", L"a"),
           wcsncmp(L"abx", L"aby", 2), wcsncmp(L"abx", L"abz", 3));
    printf(DLL "_wcsicmp: %d %d; " DLL "_wcsnicmp: %d %d\n", _wcsicmp(L"HeLLo", L"hello"), _wcsicmp(L"a", L"C"),
           _wcsnicmp(L"ABx", L"aby", 2), _wcsnicmp(L"ABx", L"aby", 3));
    printf(DLL "_wcsicoll: %d; " DLL "wcscoll: %d %d; " DLL "_wcsncoll: %d; " DLL "_wcsnicoll: %d\n", _wcsicoll(L"A", L"a"), wcscoll(L"a", L"b"),
           wcscoll(L"b", L"a"), _wcsncoll(L"ax", L"ay", 1), _wcsnicoll(L"AX", L"ay", 1));
    wreset(b, 32);
    long o = WOFF(wcscpy(b, L"copy"), b);
    printf(DLL "wcscpy: %ld = %s\n", o, wshow(b, 6));
    o = WOFF(wcscat(b, L"cat"), b);
    printf(DLL "wcscat: %ld = %s\n", o, wshow(b, 9));
    wreset(b, 32);
    wcsncpy(b, L"ab", 4);
    printf(DLL "wcsncpy: padded = %s\n", wshow(b, 5));
    wcscpy(b, L"ab");
    wcsncat(b, L"cdef", 3);
    printf(DLL "wcsncat: = %s\n", wshow(b, 7));
    printf(DLL "wcschr: %ld %ld; " DLL "wcsrchr: %ld; " DLL "wcsstr: %ld %ld\n", WOFF(wcschr(s, L'o'), s), WOFF(wcschr(s, L'z'), s),
           WOFF(wcsrchr(s, L'o'), s), WOFF(wcsstr(s, L"wor"), s), WOFF(wcsstr(s, L"xyz"), s));
    printf(DLL "wcsspn: %u; " DLL "wcscspn: %u; " DLL "wcspbrk: %ld\n", (unsigned)wcsspn(L"aabc", L"ab"),
           (unsigned)wcscspn(L"hello", L"lo"), WOFF(wcspbrk(s, L"wd"), s));
    wcscpy(b, L"a b  c");
#ifdef _UCRT /* the UCRT's wcstok takes a context (NULL: the thread's own); mingw-w64 declares msvcrt's */
    wchar_t *(*wcstok3)(wchar_t *, const wchar_t *, wchar_t **) =
        CRT_FN(wchar_t * (*)(wchar_t *, const wchar_t *, wchar_t **), wcstok);
    wchar_t *t1 = wcstok3(b, L" ", NULL), *t2 = wcstok3(NULL, L" ", NULL);
#else
    wchar_t *t1 = wcstok(b, L" "), *t2 = wcstok(NULL, L" ");
#endif
    printf(DLL "wcstok: %ld %ld\n", WOFF(t1, b), WOFF(t2, b));
    wchar_t *ctx = NULL;
    wcscpy(b, L"k=v;x");
    t1 = wcstok_s(b, L";", &ctx);
    t2 = wcstok_s(NULL, L";", &ctx);
    printf(DLL "wcstok_s: %ld %ld\n", WOFF(t1, b), WOFF(t2, b));
    wchar_t *d = _wcsdup(L"dup");
    printf(DLL "_wcsdup: %s\n", d ? wshow(d, 4) : "(fail)");
    free(d);
    wcscpy(b, L"MiX\xC9");
    _wcslwr(b);
    printf(DLL "_wcslwr: %s; ", wshow(b, 4));
    _wcsupr(b);
    printf(DLL "_wcsupr: %s\n", wshow(b, 4));
    wcscpy(b, L"aBc");
    int r = _wcslwr_s(b, 4);
    printf(DLL "_wcslwr_s: %d %s; ", r, wshow(b, 3));
    r = _wcsupr_s(b, 4);
    printf(DLL "_wcsupr_s: %d %s\n", r, wshow(b, 3));
    wcscpy(b, L"abc");
    _wcsrev(b);
    printf(DLL "_wcsrev: %s; ", wshow(b, 3));
    _wcsset(b, L'x');
    printf(DLL "_wcsset: %s\n", wshow(b, 3));
    wcscpy(b, L"abc");
    _wcsnset(b, L'y', 2);
    printf(DLL "_wcsnset: %s; ", wshow(b, 3));
    r = _wcsnset_s(b, 4, L'z', 1);
    printf(DLL "_wcsnset_s: %d %s\n", r, wshow(b, 3));
    wreset(b, 32);
    unsigned u = (unsigned)wcsxfrm(b, L"xf", 5);
    printf(DLL "wcsxfrm: %u = %s\n", u, wshow(b, 3));
    wreset(b, 32);
    mark();
    r = wcscpy_s(b, 3, L"abc");
    printf(DLL "wcscpy_s: too long %d = %s, errno %d\n", r, wshow(b, 3), err());
    r = wcscpy_s(b, 4, L"abc");
    printf(DLL "wcscpy_s: fits %d = %s\n", r, wshow(b, 4));
    mark();
    r = wcscat_s(b, 5, L"de");
    printf(DLL "wcscat_s: too long %d = %s, errno %d\n", r, wshow(b, 2), err());
    wcscpy(b, L"ab");
    r = wcsncpy_s(b, 3, L"xyz", _TRUNCATE);
    printf(DLL "wcsncpy_s: _TRUNCATE %d = %s\n", r, wshow(b, 3));
    wcscpy(b, L"ab");
    r = wcsncat_s(b, 8, L"cdef", 2);
    printf(DLL "wcsncat_s: %d = %s\n", r, wshow(b, 5));
}

static void multibyte(void) {
    wint_t (*btowc)(int) = CRT_FN(wint_t(*)(int), btowc);
    int (*wctob)(wint_t) = CRT_FN(int (*)(wint_t), wctob);
    wchar_t w[8];
    char b[8];
    int r = mbtowc(w, "A", 1);
    printf(DLL "mbtowc: %d U+%04X; empty %d; NULL %d\n", r, (unsigned)w[0], mbtowc(w, "", 1), mbtowc(NULL, NULL, 0));
    printf(DLL "mblen: %d %d %d\n", mblen("x", 1), mblen("", 1), mblen(NULL, 0));
    reset(b, sizeof b);
    mark();
    r = wctomb(b, L'Z');
    int r2 = wctomb(b + 2, 0x263A);
    printf(DLL "wctomb: %d %s; U+263A %d errno %d\n", r, show(b, 1), r2, err());
    printf(DLL "btowc: %u %u; " DLL "wctob: %d %d\n", (unsigned)btowc('a'), (unsigned)btowc(EOF), wctob(L'a'), wctob(0x263A));
    wreset(w, 8);
    unsigned u = (unsigned)mbstowcs(w, "abc", 8);
    printf(DLL "mbstowcs: %u = %s; count only %u\n", u, wshow(w, 4), (unsigned)mbstowcs(NULL, "abcd", 0));
    reset(b, sizeof b);
    size_t n = wcstombs(b, L"xyz", 8);
    mark();
    size_t n2 = wcstombs(b + 4, L"a\x263A", 4);
    printf(DLL "wcstombs: %u = %s; unrepresentable %d errno %d\n", (unsigned)n, show(b, 4), (int)n2, err());
}

int main(void) {
    memory();
    narrow();
    secure();
    wide();
    multibyte();
    printf("string: done\n");
    return 0;
}
