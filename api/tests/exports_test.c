/* api/tests/exports_test.c — the export table as data (api/README.md "The export spec"): what
 * every consumer of api/exports.spec relies on, checked for every row.
 *   - Each function row has an implementation or does nothing by declaration (nop, true); a stub
 *     has none; a data or guest-code row names its variable or code.
 *   - Ordinals are unique per DLL; each row is found by its DLL and name (the DLL in any case,
 *     with or without ".dll" and a folder) and by its DLL and ordinal; internal rows by neither.
 *   - The call gate's own imports are rows 0-20, in thunk order (their thunk addresses are
 *     documented), with the names hcp_import_name gives.
 *   - Each parameter has a name and a known type; `...` comes last; a stdcall row's argument
 *     words are its parameters' (a 64-bit or double parameter two words on x86).
 *   - The report decoder shows every row's call with each parameter's name (the spec's), so a
 *     program's calls read the same in --report and --trace.
 * Expected values: the spec's own rules (api/specgen.pl's line format), Windows' convention
 * (stdcall pops 4 bytes a word), nothing taken from a run. */
#include <string.h>

#include "api/exports.h"
#include "api/hcp_api.h"
#include "conformance/tap.h"
#include "reports/decode.h"

static const char *const gate[] = {"GetCurrentThread",
                                   "GetCurrentThreadId",
                                   "GetLastError",
                                   "SetLastError",
                                   "EnableThreadProfiling",
                                   "DisableThreadProfiling",
                                   "QueryThreadProfiling",
                                   "ReadThreadProfilingData",
                                   "QueryThreadCycleTime",
                                   "GetThreadTimes",
                                   "Sleep",
                                   "SwitchToThread",
                                   "SetEvent",
                                   "ResetEvent",
                                   "WaitForSingleObject",
                                   "WaitForMultipleObjects",
                                   "ReleaseMutex",
                                   "ReleaseSemaphore",
                                   "OpenThread",
                                   "CloseHandle",
                                   "GetExitCodeThread"};

/* Argument words of a type on a 32-bit guest. */
static int words32(hcp_type t) {
    return t == HCP_T_U64 || t == HCP_T_MASK64 || t == HCP_T_I64 || t == HCP_T_F64 ? 2 : 1;
}

int main(void) {
    tap_clause("PE-EXPORT-SPEC");
    int n = hcp_export_count();
    ok(n > 0 && hcp_export_at(n) == NULL && hcp_export_at(-1) == NULL, "the table has %d rows and ends there", n);

    int bad_impl = 0, bad_find = 0, bad_ord = 0, bad_params = 0, bad_words = 0, bad_decode = 0, bad_dup = 0;
    char first_bad[256] = "";
#define BAD(counter, ...)                                                                                              \
    do {                                                                                                               \
        if (!counter++ && !first_bad[0]) snprintf(first_bad, sizeof first_bad, __VA_ARGS__);                           \
    } while (0)
    for (int i = 0; i < n; i++) {
        const hcp_export *e = hcp_export_at(i);
        bool internal = (e->flags & HCP_EX_INTERNAL) != 0;
        /* an implementation, or a declared behaviour, by kind */
        bool does_nothing = (e->flags & (HCP_EX_NOP | HCP_EX_TRUE)) != 0;
        switch (e->kind) {
        case HCP_EXPORT_FUNCTION:
            if (!e->call == !does_nothing)
                BAD(bad_impl, "%s!%s: a function with %s", e->dll, e->name,
                    e->call ? "an implementation and nop/true" : "nothing to run");
            break;
        case HCP_EXPORT_STUB:
            if (e->call || strcmp(hcp_export_does(e), "stub"))
                BAD(bad_impl, "%s!%s: a stub that runs", e->dll, e->name);
            break;
        case HCP_EXPORT_DATA:
        case HCP_EXPORT_GUEST:
            if (e->call || e->index < 0) BAD(bad_impl, "%s!%s: data/guest row without its index", e->dll, e->name);
            break;
        }
        /* found by name (DLL spelt several ways) and by ordinal; internal rows by neither */
        char lower[64], folder[96];
        size_t k = 0;
        for (; e->dll[k] && k + 1 < sizeof lower; k++)
            lower[k] = (char)(e->dll[k] >= 'A' && e->dll[k] <= 'Z' ? e->dll[k] + 32 : e->dll[k]);
        lower[k] = '\0';
        snprintf(folder, sizeof folder, "C:\\Windows\\System32\\%s", e->dll);
        char bare[64];
        snprintf(bare, sizeof bare, "%s", e->dll);
        char *dot = strrchr(bare, '.');
        if (dot) *dot = '\0';
        const hcp_export *want = internal ? NULL : e;
        if (hcp_export_find(e->dll, e->name) != want || hcp_export_find(lower, e->name) != want ||
            hcp_export_find(folder, e->name) != want || hcp_export_find(bare, e->name) != want)
            BAD(bad_find, "%s!%s: not found by its DLL's spellings", e->dll, e->name);
        if (hcp_export_by_ordinal(e->dll, (unsigned)e->ordinal) != want)
            BAD(bad_ord, "%s #%d: the ordinal finds %s", e->dll, e->ordinal,
                hcp_export_by_ordinal(e->dll, (unsigned)e->ordinal)
                    ? hcp_export_by_ordinal(e->dll, (unsigned)e->ordinal)->name
                    : "nothing");
        for (int j = 0; j < i; j++) {
            const hcp_export *f = hcp_export_at(j);
            if (strcmp(f->dll, e->dll) == 0 && (f->ordinal == e->ordinal || strcmp(f->name, e->name) == 0))
                BAD(bad_dup, "%s: %s and %s share an ordinal or a name", e->dll, f->name, e->name);
        }
        /* parameters: named, typed, `...` last; x86 words */
        int words = 0;
        for (int p = 0; p < e->nparams; p++) {
            hcp_type t = e->params[p].type;
            if (!e->params[p].name || !*e->params[p].name || !strcmp(hcp_type_name(t), "?") ||
                (t == HCP_T_VARARGS && p != e->nparams - 1))
                BAD(bad_params, "%s!%s: parameter %d", e->dll, e->name, p);
            if (t != HCP_T_VARARGS) words += words32(t);
        }
        if (e->kind == HCP_EXPORT_FUNCTION && words != e->words)
            BAD(bad_words, "%s!%s: %d argument words, the table says %d", e->dll, e->name, words, e->words);
        if ((e->flags & HCP_EX_VARARGS) && e->conv == HCP_CC_STDCALL)
            BAD(bad_words, "%s!%s: a variadic stdcall function", e->dll, e->name);
        /* decoded with the spec's parameter names */
        if (e->kind == HCP_EXPORT_FUNCTION || e->kind == HCP_EXPORT_STUB) {
            json_t *args = json_array(), *res = json_array();
            int fixed = e->nparams - ((e->flags & HCP_EX_VARARGS) ? 1 : 0);
            for (int p = 0; p < fixed; p++) json_array_append_new(args, rep_guest_arg(NULL, e->params[p].type, 1));
            json_array_append_new(res, json_integer(0));
            char *text = rep_call_text(e->name, true, args, res, true);
            const hcp_export *named = hcp_export_named(e->name);
            for (int p = 0; text && named == e && p < fixed; p++) {
                char needle[80];
                snprintf(needle, sizeof needle, "%s%s=", p ? ", " : "(", e->params[p].name);
                if (!strstr(text, needle)) BAD(bad_decode, "%s: %s lacks %s", e->name, text, needle);
            }
            if (!text) BAD(bad_decode, "%s: no text", e->name);
            free(text);
            json_decref(args);
            json_decref(res);
        }
    }
    ok(!bad_impl,
       "every function row has an implementation or is declared nop/true; stubs, data and guest rows as declared (%d "
       "wrong)%s%s",
       bad_impl, bad_impl ? ": " : "", bad_impl ? first_bad : "");
    ok(!bad_dup, "ordinals and names are unique within each DLL (%d repeats)", bad_dup);
    ok(!bad_find,
       "every importable row is found by DLL and name, the DLL as KERNEL32.dll, kernel32.dll, KERNEL32 and in a "
       "folder; internal rows are not (%d wrong)",
       bad_find);
    ok(!bad_ord, "every importable row is found by its DLL and ordinal (%d wrong)", bad_ord);
    ok(!bad_params, "every parameter has a name and a known type, `...` last (%d wrong)", bad_params);
    ok(!bad_words,
       "x86 argument words: one a parameter, two for DWORD64/MASK64/INT64/DOUBLE; no variadic stdcall (%d wrong)",
       bad_words);
    ok(!bad_decode, "the report decoder names every parameter of every row as the spec does (%d wrong)", bad_decode);
    if (first_bad[0]) diag("first problem: %s", first_bad);

    /* the call gate's own imports: rows 0-20 in thunk order */
    int gate_ok = 1;
    for (int i = 0; i < (int)(sizeof gate / sizeof gate[0]); i++) {
        const hcp_export *e = hcp_export_at(i);
        gate_ok &= e && strcmp(e->dll, "KERNEL32.dll") == 0 && strcmp(e->name, gate[i]) == 0 && hcp_import_name(i) &&
                   strcmp(hcp_import_name(i), gate[i]) == 0 && e->ordinal == i + 1;
    }
    ok(gate_ok && hcp_import_name(21) == NULL,
       "rows 0-20 are the call gate's 21 imports in thunk order, ordinals 1-21");

    /* a few rows by their documented facts */
    const hcp_export *ct = hcp_export_find("kernel32", "CreateThread"), *pf = hcp_export_find("msvcrt.dll", "printf"),
                     *tc = hcp_export_find("KERNEL32.DLL", "GetTickCount64"),
                     *et = hcp_export_find("kernel32.dll", "EnableThreadProfiling");
    ok(ct && ct->conv == HCP_CC_STDCALL && ct->words == 6 && ct->ret == HCP_T_HANDLE && ct->nparams == 6 &&
           !strcmp(ct->params[2].name, "lpStartAddress"),
       "CreateThread: stdcall, 6 words (its x86 thunk pops 24 bytes), returns a HANDLE, parameter 3 lpStartAddress");
    ok(pf && pf->conv == HCP_CC_CDECL && (pf->flags & HCP_EX_VARARGS) && pf->params[0].type == HCP_T_STR,
       "printf: cdecl, variadic, its format an LPCSTR");
    ok(tc && tc->ret == HCP_T_U64, "GetTickCount64 returns a DWORD64 (edx:eax on x86)");
    ok(et && et->words == 5 && et->params[2].type == HCP_T_MASK64,
       "EnableThreadProfiling: HardwareCounters a DWORD64 mask, 5 words on x86 (pops 20 bytes)");
    ok(hcp_export_find("api-ms-win-core-synch-l1-2-0.dll", "WaitForSingleObject") ==
               hcp_export_find("KERNEL32.dll", "WaitForSingleObject") &&
           hcp_export_find("kernelbase.dll", "Sleep") == hcp_export_find("KERNEL32.dll", "Sleep"),
       "API sets and kernelbase resolve to KERNEL32.dll's rows");
    ok(!hcp_export_find("hcpsim", "onexit_next") && !hcp_export_find("KERNEL32.dll", "NoSuchFunction") &&
           !hcp_export_find("user32.dll", "MessageBoxA") && !hcp_export_dll("user32.dll"),
       "internal rows, unknown names and DLLs hcpsim does not simulate are not found");
    return tap_done();
}
