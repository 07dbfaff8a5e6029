/* cmdline.c — command lines split into arguments (scenarios/tests/pe_cmdline.sh; also under Wine).
 *
 * Without arguments: a table of command lines (blanks, tabs, quotes, backslashes before quotes,
 * doubled and tripled quotes, empty arguments, trailing backslashes, the program name's own rules)
 * through SHELL32.dll!CommandLineToArgvW, each printed as its arguments in brackets, then its
 * failures and the empty command line.  With arguments: the round trip of its own command line: the
 * C runtime's argv (msvcrt's __getmainargs, or the UCRT's) and CommandLineToArgvW of
 * GetCommandLineW, each argument in brackets, and whether the two agree; a UCRT build (-D_UCRT)
 * adds what _get_narrow_winmain_command_line and _get_wide_winmain_command_line return (the
 * command line after the program name).  With --random N SEED: N generated command lines (a, b,
 * blanks, tabs, quotes and backslashes) split the same way, for a comparison with Wine's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <windows.h>
#include <shellapi.h>

#define SH "SHELL32.dll!CommandLineToArgvW: "

/* ASCII as it is, a tab as \t, other units as \uXXXX: the output is the same bytes everywhere */
static void put_w(const wchar_t *s) {
    for (; *s; s++) {
        if (*s == '\t') fputs("\\t", stdout);
        else if (*s >= 32 && *s < 127) putchar((int)*s);
        else printf("\\u%04X", (unsigned)*s);
    }
}
static const wchar_t *base_w(const wchar_t *p) {
    const wchar_t *b = wcsrchr(p, '\\');
    return b ? b + 1 : p;
}
static const char *base_a(const char *p) {
    const char *b = strrchr(p, '\\');
    return b ? b + 1 : p;
}

static int failed;

static void table(void) {
    static const wchar_t *const cases[] = {
        L"exe a b",
        L"exe\ta\t\tb ",
        L"exe \"a b\" c",
        L"exe a\\b c\\\\d",
        L"exe a\\\"b",
        L"exe a\\\\\"b c\"",
        L"exe a\\\\\\\"b",
        L"exe \"a\\\\\" b",
        L"exe \"\" b \"\"",
        L"exe \"a\"\"b\"",
        L"exe \"a\"\"\"b\"",
        L"exe \"a\"\"\"\"b\"",
        L"exe a\"\"b",
        L"exe \"twelve\"\"\"\"\"\"\"\"\"\"\"\" quotes\" next",
        L"exe \"the crazy \\\\\"\"\"\\\\\" quotes",
        L"exe a\\",
        L"exe a\\\\ b",
        L"exe \"unterminated arg",
        L"exe   ",
        L"exe",
        L"\"spaced exe\" \"next arg\"",
        L"\"spaced exe\"\targ",
        L"exe\"file\"path arg1",
        L"exe\"path\\ arg1",
        L"\\\"exe \"arg one\"",
        L"\"exe\"arg\" one\" argtwo",
        L"\"spaced exe\\\"arg1 arg2",
        L"\"two\"\" arg1 ",
        L"\"three\"\"\" arg2",
        L"\"four\"\"\"\"arg1",
        L" \"arg\"one argtwo",
        L"\"unterminated exe",
        L"C:\\hcpsim\\x.exe --opt=\"v a\" \\\\server\\share\\",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int n = -1;
        SetLastError(0);
        wchar_t **argv = CommandLineToArgvW(cases[i], &n);
        fputs(SH "{", stdout);
        put_w(cases[i]);
        printf("} -> %d:", n);
        if (!argv) {
            printf(" NULL (error %lu)\n", (unsigned long)GetLastError());
            failed++;
            continue;
        }
        for (int k = 0; k < n; k++) {
            fputs(" [", stdout);
            put_w(argv[k]);
            putchar(']');
        }
        /* one block: the NULL-terminated pointer array, then the strings (Microsoft's page) */
        int inside = argv[n] == NULL;
        for (int k = 0; k < n; k++) inside &= (char *)argv[k] >= (char *)(argv + n + 1);
        printf("%s\n", inside ? "" : " (not one block)");
        if (!inside) failed++;
        if (LocalFree(argv) != NULL) {
            printf(SH "LocalFree of the array failed (error %lu)\n", (unsigned long)GetLastError());
            failed++;
        }
    }
    /* the failures: no pNumArgs */
    SetLastError(0);
    wchar_t **r = CommandLineToArgvW(L"exe a", NULL);
    DWORD e = GetLastError();
    printf(SH "pNumArgs NULL: %s, error %lu (ERROR_INVALID_PARAMETER)\n", r ? "not NULL" : "NULL", (unsigned long)e);
    SetLastError(0);
    r = CommandLineToArgvW(NULL, NULL);
    e = GetLastError();
    printf(SH "lpCmdLine and pNumArgs NULL: %s, error %lu (ERROR_INVALID_PARAMETER)\n", r ? "not NULL" : "NULL",
           (unsigned long)e);
    /* the empty command line: the program's own path */
    int n = -1;
    wchar_t **argv = CommandLineToArgvW(L"", &n);
    wchar_t path[MAX_PATH];
    GetModuleFileNameW(NULL, path, MAX_PATH);
    printf(SH "{} -> %d: [", n);
    put_w(argv && n > 0 ? base_w(argv[0]) : L"(none)");
    printf("], GetModuleFileNameW(NULL) %s\n", argv && n == 1 && !wcscmp(argv[0], path) ? "equal" : "different");
    if (argv) LocalFree(argv);
}

/* N command lines of 0-24 units drawn from a, b, blank, tab, quote and backslash by a fixed
 * generator (a 32-bit LCG from SEED), each split and printed as the table's lines are */
static void random_lines(unsigned n, unsigned seed) {
    static const wchar_t alphabet[] = L"ab \t\"\\";
    for (unsigned i = 0; i < n; i++) {
        wchar_t line[32];
        seed = seed * 1664525u + 1013904223u;
        unsigned len = (seed >> 16) % 25;
        for (unsigned k = 0; k < len; k++) {
            seed = seed * 1664525u + 1013904223u;
            line[k] = alphabet[(seed >> 16) % 6];
        }
        line[len] = 0;
        if (!len) continue; /* the empty line is the program's path: the table has it */
        int argc = -1;
        wchar_t **argv = CommandLineToArgvW(line, &argc);
        fputs(SH "{", stdout);
        put_w(line);
        printf("} -> %d:", argc);
        for (int k = 0; argv && k < argc; k++) {
            fputs(" [", stdout);
            put_w(argv[k]);
            putchar(']');
        }
        putchar('\n');
        if (!argv || LocalFree(argv) != NULL) failed++;
    }
}

static int round_trip(int argc, char **argv) {
    int n = -1;
    wchar_t **w = CommandLineToArgvW(GetCommandLineW(), &n);
    if (!w) {
        printf(SH "GetCommandLineW: NULL (error %lu)\n", (unsigned long)GetLastError());
        return 1;
    }
    printf("argc %d; " SH "%d\n", argc, n);
    printf("program [%s] [", base_a(argv[0]));
    put_w(base_w(w[0]));
    printf("]\n");
    for (int i = 1; i < argc || i < n; i++) {
        wchar_t a[1024] = L"(none)";
        if (i < argc) MultiByteToWideChar(CP_ACP, 0, argv[i], -1, a, 1024);
        printf("argv[%d] [", i);
        put_w(a);
        printf("] ");
        put_w(i < n ? L"[" : L"");
        put_w(i < n ? w[i] : L"(none)");
        put_w(i < n ? L"]" : L"");
        int same = i < argc && i < n && !wcscmp(a, w[i]);
        printf(" %s\n", same ? "same" : "DIFFERENT");
        if (!same) failed++;
    }
    LocalFree(w);
#ifdef _UCRT
    /* mingw-w64's import library leaves them out: the DLL's exports, as GetProcAddress finds them */
    HMODULE u = GetModuleHandleA("ucrtbase.dll");
    char *(__cdecl * narrow)(void) = (char *(__cdecl *)(void))(void (*)(void))GetProcAddress(u, "_get_narrow_winmain_command_line");
    wchar_t *(__cdecl * wide)(void) = (wchar_t * (__cdecl *)(void))(void (*)(void))GetProcAddress(u, "_get_wide_winmain_command_line");
    if (!narrow || !wide) {
        printf("ucrtbase.dll: _get_narrow_winmain_command_line or _get_wide_winmain_command_line not exported\n");
        return 1;
    }
    printf("ucrtbase.dll!_get_narrow_winmain_command_line: [%s]\n", narrow());
    fputs("ucrtbase.dll!_get_wide_winmain_command_line: [", stdout);
    put_w(wide());
    printf("]\n");
#endif
    return failed != 0;
}

int main(int argc, char **argv) {
    if (argc == 4 && !strcmp(argv[1], "--random")) {
        random_lines((unsigned)atoi(argv[2]), (unsigned)atoi(argv[3]));
        printf("%d failed\n", failed);
        return failed != 0;
    }
    if (argc > 1) return round_trip(argc, argv);
    table();
    printf("%d failed\n", failed);
    return failed != 0;
}
