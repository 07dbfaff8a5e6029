/* dlluse.c — a program with its own DLLs (scenarios/tests/pe_dll.sh): hcpdll.dll, which it imports
 * (a data export, a function, an export by ordinal only, forwarders, TLS data), and hcpdll2.dll,
 * which it loads and frees while it runs.  Lines "ok DLL!Name: what" check one documented result
 * each (Microsoft's documentation of the loader and of the functions); the DLLs print when their
 * DllMain and TLS callback run, in the order Windows documents, and pe_dll.sh compares the whole
 * output with Wine's. */
#define __USE_MINGW_ANSI_STDIO 0
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <windows.h>

__declspec(dllimport) extern int hcpdll_data;
__declspec(dllimport) int hcpdll_add(int, int);
__declspec(dllimport) int hcpdll_secret(void);
__declspec(dllimport) int fwd_add(int, int);
__declspec(dllimport) DWORD fwd_pid(void);
__declspec(dllimport) int hcpdll_tls_get(void);
__declspec(dllimport) void hcpdll_tls_set(int);

static int failed;
static void check(const char *what, int ok, const char *fmt, ...) {
    char got[256] = "";
    va_list ap;
    va_start(ap, fmt);
    vsprintf(got, fmt, ap);
    va_end(ap);
    if (!ok) failed++;
    printf(ok ? "ok %s\n" : "not ok %s (got %s)\n", what, got);
    fflush(stdout);
}
#define K "KERNEL32.dll!"

static int thread_saw;
static DWORD WINAPI worker(LPVOID p) {
    (void)p;
    thread_saw = hcpdll_tls_get(); /* its own copy of the template */
    hcpdll_tls_set(99);
    printf("worker: runs\n");
    fflush(stdout);
    return 0;
}

int main(void) {
    printf("main: starts\n");
    fflush(stdout);
    check("a data export: the import address table holds the variable's address", hcpdll_data == 1234, "%d",
          hcpdll_data);
    check("a function export", hcpdll_add(2, 3) == 5, "%d", hcpdll_add(2, 3));
    check("an export known by its ordinal only (@7 NONAME), imported by ordinal", hcpdll_secret() == 77, "%d",
          hcpdll_secret());
    check("a forwarder to the DLL's own export (hcpdll.hcpdll_add)", fwd_add(4, 5) == 9, "%d", fwd_add(4, 5));
    check("a forwarder to KERNEL32 (KERNEL32.GetCurrentProcessId)", fwd_pid() == GetCurrentProcessId(), "%lu",
          (unsigned long)fwd_pid());

    HMODULE h = GetModuleHandleA("hcpdll.dll"), h2 = GetModuleHandleA("HCPDLL");
    check(K "GetModuleHandleA: the DLL by its file name, any case, without .dll", h != NULL && h == h2, "%p %p",
          (void *)h, (void *)h2);
    FARPROC add = GetProcAddress(h, "hcpdll_add"), sec = GetProcAddress(h, MAKEINTRESOURCEA(7));
    SetLastError(0);
    FARPROC none = GetProcAddress(h, "hcpdll_secret");
    DWORD err = GetLastError();
    check(K "GetProcAddress: by name, by ordinal (7), and a name the DLL does not export (ERROR_PROC_NOT_FOUND)",
          add == (FARPROC)hcpdll_add && sec == (FARPROC)hcpdll_secret && !none && err == ERROR_PROC_NOT_FOUND,
          "%p %p %p %lu", (void *)add, (void *)sec, (void *)none, err);
    FARPROC pid = GetProcAddress(h, "fwd_pid"), kpid = GetProcAddress(GetModuleHandleA("kernel32"), "GetCurrentProcessId");
    check(K "GetProcAddress: a forwarder resolves to the function it names", pid == kpid, "%p %p", (void *)pid,
          (void *)kpid);
    char path[MAX_PATH];
    DWORD n = GetModuleFileNameA(h, path, sizeof path);
    const char *base = NULL; /* strrchr: not every runtime hcpsim runs has it */
    for (const char *q = path; *q; q++)
        if (*q == '\\') base = q;
    check(K "GetModuleFileNameA: the DLL's path, ending in \\hcpdll.dll", n == strlen(path) && base && !strcmp(base, "\\hcpdll.dll"),
          "%lu %s", n, path);
    char small[4];
    SetLastError(0);
    n = GetModuleFileNameA(h, small, sizeof small);
    err = GetLastError();
    check(K "GetModuleFileNameA: a buffer too small: returns nSize, ERROR_INSUFFICIENT_BUFFER",
          n == 4 && err == ERROR_INSUFFICIENT_BUFFER, "%lu %lu", n, err);
    char exact[MAX_PATH];
    DWORD plen = (DWORD)strlen(path);
    SetLastError(0);
    n = GetModuleFileNameA(h, exact, plen); /* room for the name, none for its NUL */
    err = GetLastError();
    check(K "GetModuleFileNameA: a buffer of exactly the name's length is too small: returns nSize, "
          "ERROR_INSUFFICIENT_BUFFER",
          n == plen && err == ERROR_INSUFFICIENT_BUFFER, "%lu %lu (length %lu)", n, err, plen);
    /* Windows (Vista and later) ends the truncated name with a NUL; Wine 8.0 does not: pe_dll.sh
     * checks this line against the documentation, not against Wine */
    printf("note: the truncated name ends in a NUL: %s\n", small[3] == 0 ? "yes" : "no");
    HMODULE byaddr = NULL;
    BOOL ok = GetModuleHandleExA(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                                 (LPCSTR)(void *)hcpdll_add, &byaddr);
    check(K "GetModuleHandleExA: FROM_ADDRESS: the module holding an address", ok && byaddr == h, "%d %p", ok,
          (void *)byaddr);

    hcpdll_tls_set(1);
    HANDLE t = CreateThread(NULL, 0, worker, NULL, 0, NULL);
    WaitForSingleObject(t, INFINITE);
    CloseHandle(t);
    check("TLS data of a DLL: a new thread starts with the template's value, the main thread keeps its own",
          thread_saw == 5 && hcpdll_tls_get() == 1, "%d %d", thread_saw, hcpdll_tls_get());

    HMODULE byname = NULL;
    ok = GetModuleHandleExW(0, L"hcpdll.dll", &byname);
    check(K "GetModuleHandleExW: by name, a reference taken", ok && byname == h, "%d %p", ok, (void *)byname);
    FreeLibrary(byname);
    WCHAR wpath[MAX_PATH];
    n = GetModuleFileNameW(h, wpath, MAX_PATH);
    int same = n == strlen(path); /* the ANSI path's characters, as UTF-16 */
    for (DWORD i = 0; same && i <= n; i++) same = wpath[i] == (WCHAR)(unsigned char)path[i];
    check(K "GetModuleFileNameW: the same path in UTF-16", same, "%lu", n);

    HMODULE h3 = LoadLibraryA("hcpdll2.dll");
    int (*twice)(void) = h3 ? (int (*)(void))(void *)GetProcAddress(h3, "hcpdll2_twice_data") : NULL;
    check(K "LoadLibraryA: loads a DLL (its DllMain runs first), which uses the data of one already loaded",
          h3 && twice && twice() == 2468, "%p %p", (void *)h3, (void *)twice);
    SetLastError(0);
    BOOL tls_refused = DisableThreadLibraryCalls(h);
    err = GetLastError();
    check(K "DisableThreadLibraryCalls: FALSE for a DLL with static TLS (hcpdll), ERROR_MOD_NOT_FOUND", !tls_refused &&
          err == ERROR_MOD_NOT_FOUND, "%d %lu", tls_refused, err);
    BOOL noth = DisableThreadLibraryCalls(h3);
    t = CreateThread(NULL, 0, worker, NULL, 0, NULL); /* hcpdll2 is not told of this thread */
    WaitForSingleObject(t, INFINITE);
    CloseHandle(t);
    check(K "DisableThreadLibraryCalls: TRUE for hcpdll2 (no TLS); its DllMain sees no DLL_THREAD_ATTACH or DETACH from then on", noth,
          "%d", noth);
    BOOL freed = FreeLibrary(h3);
    check(K "FreeLibrary: its DllMain sees DLL_PROCESS_DETACH, the module is gone",
          freed && GetModuleHandleA("hcpdll2.dll") == NULL, "%d", freed);
    HMODULE again = LoadLibraryA("hcpdll.dll");
    check(K "LoadLibraryA: a DLL already loaded: its handle, no DllMain", again == h, "%p", (void *)again);
    check(K "FreeLibrary: of a DLL the program imports: TRUE, it stays", FreeLibrary(again) && GetModuleHandleA("hcpdll.dll") == h,
          "gone");
    HMODULE ex = LoadLibraryExA("hcpdll2.dll", NULL, 0);
    BOOL exfree = FreeLibrary(ex);
    check(K "LoadLibraryExA: flags 0: as LoadLibraryA (DllMain runs), FreeLibrary detaches it", ex && exfree, "%p",
          (void *)ex);
    HMODULE raw = LoadLibraryExW(L"hcpdll2.dll", NULL, DONT_RESOLVE_DLL_REFERENCES);
    BOOL rawfree = FreeLibrary(raw);
    check(K "LoadLibraryExW: DONT_RESOLVE_DLL_REFERENCES: loaded without calling DllMain, freed without it too",
          raw && rawfree, "%p", (void *)raw);
    /* Two DLLs told of one thread: DLL_THREAD_ATTACH in initialization order (hcpdll, then hcpdll2
     * loaded after it), DLL_THREAD_DETACH in the reverse order (hcpdll2 first), as Windows and Wine
     * walk the initialization-order list backwards for a detach. */
    HMODULE both = LoadLibraryA("hcpdll2.dll");
    t = CreateThread(NULL, 0, worker, NULL, 0, NULL);
    WaitForSingleObject(t, INFINITE);
    CloseHandle(t);
    HMODULE ref = NULL;
    BOOL refok = GetModuleHandleExA(0, "hcpdll2.dll", &ref);
    BOOL bothfree = FreeLibrary(both);
    BOOL stays = GetModuleHandleA("hcpdll2.dll") == both; /* the reference GetModuleHandleExA took holds it */
    BOOL reffree = FreeLibrary(ref);
    check(K "CreateThread: a thread while hcpdll2 is loaded again: both DLLs told of it (the order: pe_dll.sh)",
          both && bothfree, "%p", (void *)both);
    check(K "GetModuleHandleExA: flags 0 takes a reference: hcpdll2 stays loaded after one FreeLibrary, the second "
          "detaches it",
          refok && ref == both && stays && reffree && !GetModuleHandleA("hcpdll2.dll"), "%d %p %d %d", refok,
          (void *)ref, stays, reffree);
    SetLastError(0);
    HMODULE missing = LoadLibraryA("no_such_dll.dll");
    err = GetLastError();
    check(K "LoadLibraryA: a DLL no folder has: NULL, ERROR_MOD_NOT_FOUND", !missing && err == ERROR_MOD_NOT_FOUND,
          "%p %lu", (void *)missing, err);
    printf("main: %d failed\n", failed);
    fflush(stdout);
    return failed;
}
