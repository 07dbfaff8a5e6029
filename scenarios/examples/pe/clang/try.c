/* try.c — __try, __except and __finally as clang compiles them for x86-64 Windows
 * (scenarios/tests/pe_seh.sh; clang -target x86_64-w64-mingw32 -fms-extensions, linked by
 * mingw-w64): the compiler's scope tables in .xdata, read by msvcrt's __C_specific_handler
 * during hcpsim's dispatch and unwind (api/README.md "Exceptions").  Clang catches what a call
 * inside a __try raises (its SEH is synchronous), so each fault is in a called function.  Each
 * line is "ok WHAT" or "not ok WHAT (got ...)"; the expected values are the C language extension's
 * documented semantics (Microsoft's "try-except statement", "try-finally statement"), and what
 * the same program prints under Wine (pe_seh.sh compares).  The last line counts the failures. */
#include <stdio.h>
#include <string.h>
#include <windows.h>

static int failed;
static void check(const char *what, int ok, const char *got) {
    if (ok) {
        printf("ok %s\n", what);
    } else {
        printf("not ok %s (got %s)\n", what, got);
        failed++;
    }
}

static char trail[64];
static void note(char c) {
    size_t n = strlen(trail);
    if (n + 1 < sizeof trail) trail[n] = c, trail[n + 1] = 0;
}

static volatile int *volatile nullp; /* NULL, unknown to the compiler */
__attribute__((noinline)) static void poke(void) { *nullp = 1; }
__attribute__((noinline)) static int divide(int a, int b) { return a / b; }
__attribute__((noinline)) static void raise_it(DWORD code) { RaiseException(code, 0, 0, NULL); }

static ULONG_PTR av_info[2];
static DWORD av_flags, av_params;
static int av_filter(EXCEPTION_POINTERS *ep) {
    EXCEPTION_RECORD *r = ep->ExceptionRecord;
    if (r->ExceptionCode != EXCEPTION_ACCESS_VIOLATION) return EXCEPTION_CONTINUE_SEARCH;
    av_flags = r->ExceptionFlags;
    av_params = r->NumberParameters;
    av_info[0] = r->ExceptionInformation[0];
    av_info[1] = r->ExceptionInformation[1];
    return EXCEPTION_EXECUTE_HANDLER;
}

static int filter_note(char c, int result) {
    note(c);
    return result;
}

/* an exception passes through two frames' __finally blocks to an outer __except */
__attribute__((noinline)) static void inner(void) {
    __try {
        raise_it(0xE0000011u);
    } __finally {
        note(AbnormalTermination() ? 'f' : 'F');
    }
}
__attribute__((noinline)) static void middle(void) {
    __try {
        inner();
    } __except (filter_note('m', EXCEPTION_CONTINUE_SEARCH)) {
        note('X');
    }
}

int main(int argc, char **argv) {
    (void)argv;
    char got[96];
    int r = 0;

    __try {
        poke();
        r = 1;
    } __except (av_filter(GetExceptionInformation())) {
        r = 2;
    }
    snprintf(got, sizeof got, "r %d flags %lu params %lu info %lu %lu", r, (unsigned long)av_flags,
             (unsigned long)av_params, (unsigned long)av_info[0], (unsigned long)av_info[1]);
    check("__except catches an access violation in a called function: writing address 0, 2 parameters", r == 2 &&
              av_flags == 0 && av_params == 2 && av_info[0] == 1 && av_info[1] == 0, got);

    DWORD code = 0;
    __try {
        r = divide(7, argc - 1);
    } __except (code = GetExceptionCode(), EXCEPTION_EXECUTE_HANDLER) {
        r = -1;
    }
    snprintf(got, sizeof got, "r %d code 0x%lX", r, (unsigned long)code);
    check("__except catches a division by zero: GetExceptionCode() is EXCEPTION_INT_DIVIDE_BY_ZERO",
          r == -1 && code == EXCEPTION_INT_DIVIDE_BY_ZERO, got);

    trail[0] = 0;
    __try {
        middle();
    } __except (filter_note('o', GetExceptionCode() == 0xE0000011u ? EXCEPTION_EXECUTE_HANDLER
                                                                    : EXCEPTION_CONTINUE_SEARCH)) {
        note('O');
    }
    check("the filters run innermost first (m, o), then the __finally blocks during the unwind (abnormal), then "
          "the handler: trail \"mofO\"",
          strcmp(trail, "mofO") == 0, trail);

    trail[0] = 0;
    __try {
        note('t');
    } __finally {
        note(AbnormalTermination() ? 'f' : 'F');
    }
    check("__finally after a normal exit: AbnormalTermination() is 0", strcmp(trail, "tF") == 0, trail);

    trail[0] = 0;
    __try {
        note('a');
        __leave;
        note('b');
    } __finally {
        note(AbnormalTermination() ? 'f' : 'F');
    }
    check("__leave ends the __try block normally", strcmp(trail, "aF") == 0, trail);

    trail[0] = 0;
    __try {
        __try {
            raise_it(0xE0000012u);
        } __except (filter_note('1', EXCEPTION_CONTINUE_EXECUTION)) {
            note('X');
        }
        note('c');
    } __except (EXCEPTION_EXECUTE_HANDLER) {
        note('Y');
    }
    check("EXCEPTION_CONTINUE_EXECUTION from a filter: RaiseException returns and the code goes on",
          strcmp(trail, "1c") == 0, trail);

    trail[0] = 0;
    __try { /* a constant filter: the scope table's HandlerAddress is 1, no filter function runs */
        raise_it(0xE0000013u);
        note('n');
    } __except (EXCEPTION_EXECUTE_HANDLER) {
        note('Z');
    }
    check("__except (EXCEPTION_EXECUTE_HANDLER): the constant filter catches without a filter function", strcmp(trail, "Z") == 0,
          trail);

    printf("%d failed\n", failed);
    return failed;
}
