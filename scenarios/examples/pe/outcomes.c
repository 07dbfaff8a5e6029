/* outcomes.c — documented failure outcomes of kernel32 and ntdll functions (api/outcomes.tsv lists
 * them with their sources; scenarios/tests/pe_outcomes.sh runs this on both ISAs and under Wine).
 * Each line names the function and the last error it must leave, or the NTSTATUS it must return:
 * closed, wrong-type, wrong-access and pseudo handles, 0 timeouts, sizes too small, freed slots. */
#include <stdio.h>
#include <string.h>
#include <windows.h>

static int failed;
/* a check whose line names a known difference of Wine's ("(Wine ...") is not counted under Wine:
 * scenarios/tests/pe_outcomes.sh leaves those lines out of its comparison with Wine */
static int known(const char *what) {
    return strstr(what, "(Wine") && GetProcAddress(GetModuleHandleA("ntdll.dll"), "wine_get_version");
}
static void check(const char *what, int ok, DWORD err) {
    printf("%s %s (error %lu)\n", ok ? "ok" : "not ok", what, (unsigned long)err);
    if (!ok && !known(what)) failed++;
}

static HANDLE mutex;
static DWORD WINAPI release_other(LPVOID arg) {
    (void)arg;
    SetLastError(0);
    BOOL r = ReleaseMutex(mutex);
    DWORD e = GetLastError();
    check("KERNEL32.dll!ReleaseMutex: a mutex another thread owns: FALSE, ERROR_NOT_OWNER", !r && e == 288, e);
    return 0;
}

static void CALLBACK apc(ULONG_PTR p) { (void)p; }

static HANDLE abandoned;
static DWORD WINAPI take_and_exit(LPVOID arg) {
    (void)arg;
    WaitForSingleObject(abandoned, INFINITE);
    return 0; /* ends owning the mutex */
}

/* ntdll's functions by their exports (mingw-w64's headers declare few of them) */
typedef LONG NTSTATUS_;
#define NT(type, name) ((type)(void (*)(void))GetProcAddress(GetModuleHandleA("ntdll.dll"), #name))
#define NTFN(var, name, ...) NTSTATUS_(WINAPI *var)(__VA_ARGS__) = NT(NTSTATUS_(WINAPI *)(__VA_ARGS__), name)
/* a handle just closed: no object was made since, so its value is not in use again */
static HANDLE closed_handle(void) {
    HANDLE h = CreateEventA(NULL, TRUE, TRUE, NULL);
    CloseHandle(h);
    return h;
}
static void nt_check(const char *what, NTSTATUS_ got, NTSTATUS_ want, const char *name) {
    int ok = got == want;
    printf("%s %s: %s (0x%08lX)\n", ok ? "ok" : "not ok", what, name, (unsigned long)got);
    if (!ok && !known(what)) failed++;
}

static void nt_outcomes(void) {
    LARGE_INTEGER zero = {{0, 0}};
    NTFN(wait1, NtWaitForSingleObject, HANDLE, BOOLEAN, PLARGE_INTEGER);
    NTFN(waitn, NtWaitForMultipleObjects, ULONG, const HANDLE *, int, BOOLEAN, PLARGE_INTEGER);
    ULONG(WINAPI * todos)(NTSTATUS_) = NT(ULONG(WINAPI *)(NTSTATUS_), RtlNtStatusToDosError);
    HANDLE ev = CreateEventA(NULL, TRUE, FALSE, NULL);
    nt_check("ntdll.dll!NtWaitForSingleObject: an unsignalled event, a 0 timeout", wait1(ev, FALSE, &zero), 0x102,
             "STATUS_TIMEOUT");
    HANDLE closed = CreateEventA(NULL, TRUE, TRUE, NULL);
    CloseHandle(closed);
    nt_check("ntdll.dll!NtWaitForSingleObject: a closed handle", wait1(closed, FALSE, &zero), (NTSTATUS_)0xC0000008,
             "STATUS_INVALID_HANDLE");
    nt_check("ntdll.dll!NtWaitForMultipleObjects: an unsignalled event, a 0 timeout", waitn(1, &ev, 1, FALSE, &zero),
             0x102, "STATUS_TIMEOUT");
    nt_check("ntdll.dll!NtWaitForMultipleObjects: 0 handles", waitn(0, &ev, 1, FALSE, &zero), (NTSTATUS_)0xC00000EF,
             "STATUS_INVALID_PARAMETER_1");
    nt_check("ntdll.dll!NtWaitForMultipleObjects: a closed handle", waitn(1, &closed, 1, FALSE, &zero),
             (NTSTATUS_)0xC0000008, "STATUS_INVALID_HANDLE");
    NTFN(snw, NtSignalAndWaitForSingleObject, HANDLE, HANDLE, BOOLEAN, PLARGE_INTEGER);
    nt_check("ntdll.dll!NtSignalAndWaitForSingleObject: a closed handle to signal", snw(closed, ev, FALSE, &zero),
             (NTSTATUS_)0xC0000008, "STATUS_INVALID_HANDLE");
    NTFN(qapc, NtQueueApcThread, HANDLE, void *, ULONG_PTR, ULONG_PTR, ULONG_PTR);
    nt_check("ntdll.dll!NtQueueApcThread: an event's handle", qapc(ev, (void *)apc, 0, 0, 0), (NTSTATUS_)0xC0000024,
             "STATUS_OBJECT_TYPE_MISMATCH");
    NTFN(qit, NtQueryInformationThread, HANDLE, int, void *, ULONG, ULONG *);
    char info[64];
    ULONG len = 0;
    nt_check("ntdll.dll!NtQueryInformationThread: a class that is not one (Wine: STATUS_NOT_IMPLEMENTED)",
             qit(GetCurrentThread(), 1000, info, 64, &len), (NTSTATUS_)0xC0000003, "STATUS_INVALID_INFO_CLASS");
    NTFN(cke, NtCreateKeyedEvent, HANDLE *, ACCESS_MASK, void *, ULONG);
    NTFN(wke, NtWaitForKeyedEvent, HANDLE, ULONG_PTR, BOOLEAN, PLARGE_INTEGER);
    HANDLE ke = NULL;
    cke(&ke, 0xF0003, NULL, 0);
    nt_check("ntdll.dll!NtWaitForKeyedEvent: no release, a 0 timeout", wke(ke, 8, FALSE, &zero), 0x102,
             "STATUS_TIMEOUT");
    nt_check("ntdll.dll!NtWaitForKeyedEvent: an odd key", wke(ke, 9, FALSE, &zero), (NTSTATUS_)0xC00000EF,
             "STATUS_INVALID_PARAMETER_1");
    CloseHandle(ke);
    NTFN(woa, RtlWaitOnAddress, const void *, const void *, SIZE_T, PLARGE_INTEGER);
    LONG word = 5, same = 5;
    nt_check("ntdll.dll!RtlWaitOnAddress: the value unchanged, a 0 timeout", woa(&word, &same, 4, &zero), 0x102,
             "STATUS_TIMEOUT");
    CRITICAL_SECTION cs;
    CONDITION_VARIABLE cv = CONDITION_VARIABLE_INIT;
    InitializeCriticalSection(&cs);
    EnterCriticalSection(&cs);
    NTFN(sleepcs, RtlSleepConditionVariableCS, CONDITION_VARIABLE *, CRITICAL_SECTION *, PLARGE_INTEGER);
    nt_check("ntdll.dll!RtlSleepConditionVariableCS: no wake, a 0 timeout", sleepcs(&cv, &cs, &zero), 0x102,
             "STATUS_TIMEOUT");
    LeaveCriticalSection(&cs);
    DeleteCriticalSection(&cs);
    SRWLOCK srw = SRWLOCK_INIT;
    AcquireSRWLockExclusive(&srw);
    NTFN(sleepsrw, RtlSleepConditionVariableSRW, CONDITION_VARIABLE *, SRWLOCK *, PLARGE_INTEGER, ULONG);
    nt_check("ntdll.dll!RtlSleepConditionVariableSRW: no wake, a 0 timeout", sleepsrw(&cv, &srw, &zero, 0), 0x102,
             "STATUS_TIMEOUT");
    ReleaseSRWLockExclusive(&srw);
    NTFN(rob, RtlRunOnceBeginInitialize, INIT_ONCE *, ULONG, void **);
    NTFN(roc, RtlRunOnceComplete, INIT_ONCE *, ULONG, void *);
    INIT_ONCE once = INIT_ONCE_STATIC_INIT;
    void *ctx = NULL;
    nt_check("ntdll.dll!RtlRunOnceBeginInitialize: RTL_RUN_ONCE_CHECK_ONLY before any initialization",
             rob(&once, INIT_ONCE_CHECK_ONLY, &ctx), (NTSTATUS_)0xC0000001, "STATUS_UNSUCCESSFUL");
    NTFN(wabt, NtWaitForAlertByThreadId, void *, PLARGE_INTEGER);
    nt_check("ntdll.dll!NtWaitForAlertByThreadId: no alert, a 0 timeout", wabt(&word, &zero), 0x102, "STATUS_TIMEOUT");
    CloseHandle(ev);
    /* RtlNtStatusToDosError: the table of KB 113996 ("Mapping NT Status Error Codes to Win32") */
    static const struct {
        ULONG st, dos;
        const char *what;
    } map[] = {
        {0xC0000008, 6, "STATUS_INVALID_HANDLE: ERROR_INVALID_HANDLE"},
        {0xC0000005, 998, "STATUS_ACCESS_VIOLATION: ERROR_NOACCESS"},
        {0xC0000022, 5, "STATUS_ACCESS_DENIED: ERROR_ACCESS_DENIED"},
        {0xC0000034, 2, "STATUS_OBJECT_NAME_NOT_FOUND: ERROR_FILE_NOT_FOUND"},
        {0xC000000D, 87, "STATUS_INVALID_PARAMETER: ERROR_INVALID_PARAMETER"},
        {0xC0000017, 8, "STATUS_NO_MEMORY: ERROR_NOT_ENOUGH_MEMORY"},
        {0xC0000024, 6, "STATUS_OBJECT_TYPE_MISMATCH: ERROR_INVALID_HANDLE"},
        {0x00000102, 1460, "STATUS_TIMEOUT: ERROR_TIMEOUT"},
        {0xC0DEC0DE, 317, "a status of no meaning: ERROR_MR_MID_NOT_FOUND"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        ULONG got = todos((NTSTATUS_)map[i].st);
        int ok = got == map[i].dos;
        printf("%s ntdll.dll!RtlNtStatusToDosError: %s (got %lu)\n", ok ? "ok" : "not ok", map[i].what,
               (unsigned long)got);
        if (!ok) failed++;
    }
}

/* a call's result and the last error it left, against the documented pair */
static void k32(const char *what, int ok, DWORD e) { check(what, ok, e); }

int main(void) {
    DWORD e;
    BOOL r;
    LPVOID v;
    HANDLE t;
    /* ReleaseMutex by a thread that does not own it */
    mutex = CreateMutexA(NULL, TRUE, NULL);
    t = CreateThread(NULL, 0, release_other, NULL, 0, NULL);
    WaitForSingleObject(t, INFINITE);
    CloseHandle(t);
    ReleaseMutex(mutex);
    /* ReleaseSemaphore past the maximum: FALSE, the count unchanged */
    HANDLE s = CreateSemaphoreA(NULL, 1, 2, NULL);
    LONG prev = -1;
    SetLastError(0);
    r = ReleaseSemaphore(s, 2, &prev);
    e = GetLastError();
    DWORD w1 = WaitForSingleObject(s, 0), w2 = WaitForSingleObject(s, 0);
    check("KERNEL32.dll!ReleaseSemaphore: past the maximum: FALSE, ERROR_TOO_MANY_POSTS, the count unchanged",
          !r && e == 298 && w1 == WAIT_OBJECT_0 && w2 == WAIT_TIMEOUT, e);
    CloseHandle(s);
    /* CreateSemaphoreA with an initial count above the maximum, or a maximum of 0 */
    SetLastError(0);
    HANDLE bad1 = CreateSemaphoreA(NULL, 3, 2, NULL);
    e = GetLastError();
    HANDLE bad2 = CreateSemaphoreA(NULL, 0, 0, NULL);
    DWORD e2 = GetLastError();
    check("KERNEL32.dll!CreateSemaphoreA: initial above maximum, or maximum 0: NULL, ERROR_INVALID_PARAMETER",
          !bad1 && !bad2 && e == 87 && e2 == 87, e);
    /* a named mutex created again: the same object, ERROR_ALREADY_EXISTS */
    HANDLE m1 = CreateMutexA(NULL, FALSE, "hcpsim-outcomes-mutex");
    SetLastError(0);
    HANDLE m2 = CreateMutexA(NULL, FALSE, "hcpsim-outcomes-mutex");
    e = GetLastError();
    check("KERNEL32.dll!CreateMutexA: a name that exists: a handle, ERROR_ALREADY_EXISTS", m1 && m2 && e == 183, e);
    CloseHandle(m2);
    CloseHandle(m1);
    /* OpenEventA of a name nobody made */
    SetLastError(0);
    HANDLE ev = OpenEventA(EVENT_ALL_ACCESS, FALSE, "hcpsim-outcomes-no-such-event");
    e = GetLastError();
    check("KERNEL32.dll!OpenEventA: a name nobody made: NULL, ERROR_FILE_NOT_FOUND", !ev && e == 2, e);
    /* TlsGetValue of an index beyond TLS_MINIMUM_AVAILABLE + the expansion slots (1088) */
    SetLastError(0);
    v = TlsGetValue(5000);
    e = GetLastError();
    check("KERNEL32.dll!TlsGetValue: an index past the slots: NULL, ERROR_INVALID_PARAMETER", !v && e == 87, e);
    /* WaitForMultipleObjects with no handles, or more than MAXIMUM_WAIT_OBJECTS */
    HANDLE hs[MAXIMUM_WAIT_OBJECTS + 1];
    HANDLE one = CreateEventA(NULL, TRUE, TRUE, NULL);
    for (int i = 0; i <= MAXIMUM_WAIT_OBJECTS; i++) hs[i] = one;
    SetLastError(0);
    DWORD w0 = WaitForMultipleObjects(0, hs, FALSE, 0);
    e = GetLastError();
    DWORD w65 = WaitForMultipleObjects(MAXIMUM_WAIT_OBJECTS + 1, hs, FALSE, 0);
    e2 = GetLastError();
    check("KERNEL32.dll!WaitForMultipleObjects: 0 handles, or 65: WAIT_FAILED, ERROR_INVALID_PARAMETER",
          w0 == WAIT_FAILED && w65 == WAIT_FAILED && e == 87 && e2 == 87, e);
    /* QueueUserAPC to a handle that is not a thread's */
    SetLastError(0);
    DWORD q = QueueUserAPC(apc, one, 0);
    e = GetLastError();
    check("KERNEL32.dll!QueueUserAPC: an event's handle: 0, ERROR_INVALID_HANDLE", q == 0 && e == 6, e);
    CloseHandle(one);
    /* VirtualQuery with a buffer smaller than MEMORY_BASIC_INFORMATION */
    MEMORY_BASIC_INFORMATION mbi;
    SetLastError(0);
    SIZE_T n = VirtualQuery(&mbi, &mbi, sizeof mbi - 1);
    e = GetLastError();
    check("KERNEL32.dll!VirtualQuery: a buffer one byte short: 0, ERROR_BAD_LENGTH", n == 0 && e == 24, e);

    /* ---- closed, wrong-type, wrong-access and pseudo handles ---- */
    SetLastError(0);
    DWORD w = WaitForSingleObject(closed_handle(), 0);
    e = GetLastError();
    k32("KERNEL32.dll!WaitForSingleObject: a closed handle: WAIT_FAILED, ERROR_INVALID_HANDLE",
        w == WAIT_FAILED && e == 6, e);
    HANDLE pair[2] = {CreateEventA(NULL, TRUE, TRUE, NULL), NULL};
    pair[1] = closed_handle();
    SetLastError(0);
    w = WaitForMultipleObjects(2, pair, FALSE, 0);
    e = GetLastError();
    k32("KERNEL32.dll!WaitForMultipleObjects: one handle closed: WAIT_FAILED, ERROR_INVALID_HANDLE",
        w == WAIT_FAILED && e == 6, e);
    CloseHandle(pair[0]);
    HANDLE gone = closed_handle();
    SetLastError(0);
    r = CloseHandle(gone);
    e = GetLastError();
    k32("KERNEL32.dll!CloseHandle: a handle closed before: FALSE, ERROR_INVALID_HANDLE", !r && e == 6, e);
    HANDLE mx = CreateMutexA(NULL, FALSE, NULL);
    SetLastError(0);
    r = SetEvent(mx);
    e = GetLastError();
    k32("KERNEL32.dll!SetEvent: a mutex's handle: FALSE, ERROR_INVALID_HANDLE", !r && e == 6, e);
    SetLastError(0);
    r = ResetEvent(mx);
    e = GetLastError();
    k32("KERNEL32.dll!ResetEvent: a mutex's handle: FALSE, ERROR_INVALID_HANDLE", !r && e == 6, e);
    HANDLE sev = CreateEventA(NULL, TRUE, FALSE, NULL);
    SetLastError(0);
    r = ReleaseMutex(sev);
    e = GetLastError();
    k32("KERNEL32.dll!ReleaseMutex: an event's handle: FALSE, ERROR_INVALID_HANDLE", !r && e == 6, e);
    SetLastError(0);
    r = ReleaseSemaphore(mx, 1, NULL);
    e = GetLastError();
    k32("KERNEL32.dll!ReleaseSemaphore: a mutex's handle: FALSE, ERROR_INVALID_HANDLE", !r && e == 6, e);
    CloseHandle(mx);
    CloseHandle(sev);
    /* a name another kind of object holds */
    HANDLE named = CreateMutexA(NULL, FALSE, "hcpsim-outcomes-kind");
    SetLastError(0);
    HANDLE other = CreateEventA(NULL, TRUE, FALSE, "hcpsim-outcomes-kind");
    e = GetLastError();
    k32("KERNEL32.dll!CreateEventA: a name a mutex holds: NULL, ERROR_INVALID_HANDLE", !other && e == 6, e);
    SetLastError(0);
    other = OpenEventA(EVENT_ALL_ACCESS, FALSE, "hcpsim-outcomes-kind");
    e = GetLastError();
    k32("KERNEL32.dll!OpenEventA: a name a mutex holds: NULL, ERROR_INVALID_HANDLE", !other && e == 6, e);
    CloseHandle(named);
    named = CreateEventA(NULL, TRUE, FALSE, "hcpsim-outcomes-kind2");
    SetLastError(0);
    other = CreateMutexA(NULL, FALSE, "hcpsim-outcomes-kind2");
    e = GetLastError();
    k32("KERNEL32.dll!CreateMutexA: a name an event holds: NULL, ERROR_INVALID_HANDLE", !other && e == 6, e);
    SetLastError(0);
    other = OpenMutexA(SYNCHRONIZE, FALSE, "hcpsim-outcomes-kind2");
    e = GetLastError();
    k32("KERNEL32.dll!OpenMutexA: a name an event holds: NULL, ERROR_INVALID_HANDLE", !other && e == 6, e);
    /* a handle without EVENT_MODIFY_STATE */
    HANDLE weak = OpenEventA(SYNCHRONIZE, FALSE, "hcpsim-outcomes-kind2");
    SetLastError(0);
    r = SetEvent(weak);
    e = GetLastError();
    k32("KERNEL32.dll!SetEvent: a handle opened with SYNCHRONIZE only: FALSE, ERROR_ACCESS_DENIED",
        weak && !r && e == 5, e);
    CloseHandle(weak);
    CloseHandle(named);
    /* the last error on success: a new name clears it */
    SetLastError(1234);
    named = CreateEventA(NULL, TRUE, FALSE, "hcpsim-outcomes-new");
    e = GetLastError();
    k32("KERNEL32.dll!CreateEventA: a new name: a handle, the last error ERROR_SUCCESS (0)", named && e == 0, e);
    CloseHandle(named);
    SetLastError(1234);
    named = CreateMutexA(NULL, FALSE, "hcpsim-outcomes-new");
    e = GetLastError();
    k32("KERNEL32.dll!CreateMutexA: a new name: a handle, the last error ERROR_SUCCESS (0)", named && e == 0, e);
    CloseHandle(named);
    /* the last handle closed: the name is gone with the object */
    SetLastError(0);
    named = OpenMutexA(SYNCHRONIZE, FALSE, "hcpsim-outcomes-new");
    e = GetLastError();
    k32("KERNEL32.dll!OpenMutexA: a name whose last handle was closed: NULL, ERROR_FILE_NOT_FOUND", !named && e == 2,
        e);
    /* a mutex whose owner ended without releasing it */
    abandoned = CreateMutexA(NULL, FALSE, NULL);
    t = CreateThread(NULL, 0, take_and_exit, NULL, 0, NULL);
    WaitForSingleObject(t, INFINITE);
    CloseHandle(t);
    w = WaitForSingleObject(abandoned, 0);
    k32("KERNEL32.dll!WaitForSingleObject: a mutex whose owner thread ended: WAIT_ABANDONED (128)", w == WAIT_ABANDONED,
        w);
    ReleaseMutex(abandoned);
    CloseHandle(abandoned);
    /* pseudo handles */
    HANDLE real = NULL;
    r = DuplicateHandle(GetCurrentProcess(), GetCurrentThread(), GetCurrentProcess(), &real, 0, FALSE,
                        DUPLICATE_SAME_ACCESS);
    k32("KERNEL32.dll!DuplicateHandle: the current thread's pseudo handle: a real handle (REAL_HANDLE) to this thread",
        r && real && real != GetCurrentThread() && GetThreadId(real) == GetCurrentThreadId(), GetLastError());
    CloseHandle(real);
    r = CloseHandle(GetCurrentThread());
    w = WaitForSingleObject(GetCurrentThread(), 0);
    k32("KERNEL32.dll!CloseHandle: the current thread's pseudo handle: TRUE (PSEUDO_HANDLE), the handle still usable",
        r && w == WAIT_TIMEOUT, w);
    SetLastError(0);
    DWORD sc = ResumeThread(closed_handle());
    e = GetLastError();
    k32("KERNEL32.dll!ResumeThread: a closed handle: (DWORD)-1, ERROR_INVALID_HANDLE", sc == (DWORD)-1 && e == 6, e);
    SetLastError(0);
    int pr = GetThreadPriority(closed_handle());
    e = GetLastError();
    k32("KERNEL32.dll!GetThreadPriority: a closed handle: THREAD_PRIORITY_ERROR_RETURN, ERROR_INVALID_HANDLE",
        pr == THREAD_PRIORITY_ERROR_RETURN && e == 6, e);
    DWORD code = 0;
    SetLastError(0);
    r = GetExitCodeThread(closed_handle(), &code);
    e = GetLastError();
    k32("KERNEL32.dll!GetExitCodeThread: a closed handle: FALSE, ERROR_INVALID_HANDLE", !r && e == 6, e);
    SetLastError(0);
    r = TerminateThread(closed_handle(), 0);
    e = GetLastError();
    k32("KERNEL32.dll!TerminateThread: a closed handle: FALSE, ERROR_INVALID_HANDLE", !r && e == 6, e);
    /* ---- TLS and FLS slots ---- */
    DWORD ti = TlsAlloc();
    TlsSetValue(ti, (LPVOID)42);
    SetLastError(1234);
    v = TlsGetValue(ti);
    e = GetLastError();
    k32("KERNEL32.dll!TlsGetValue: a value that is set: it, the last error cleared to ERROR_SUCCESS (0)",
        v == (LPVOID)42 && e == 0, e);
    TlsFree(ti);
    DWORD ti2 = TlsAlloc();
    SetLastError(1234);
    v = TlsGetValue(ti2);
    e = GetLastError();
    k32("KERNEL32.dll!TlsAlloc: a slot freed and given again: its value zeroed (ZEROED)",
        ti2 == ti && v == NULL && e == 0, e);
    TlsFree(ti2);
    SetLastError(0);
    r = TlsSetValue(5000, NULL);
    e = GetLastError();
    k32("KERNEL32.dll!TlsSetValue: an index past the slots: FALSE, ERROR_INVALID_PARAMETER", !r && e == 87, e);
    SetLastError(0);
    r = TlsFree(5000);
    e = GetLastError();
    k32("KERNEL32.dll!TlsFree: an index past the slots: FALSE, ERROR_INVALID_PARAMETER", !r && e == 87, e);
    SetLastError(0);
    v = FlsGetValue(5000);
    e = GetLastError();
    k32("KERNEL32.dll!FlsGetValue: an index past the slots: NULL, ERROR_INVALID_PARAMETER", !v && e == 87, e);
    SetLastError(0);
    r = FlsSetValue(5000, NULL);
    e = GetLastError();
    k32("KERNEL32.dll!FlsSetValue: an index past the slots: FALSE, ERROR_INVALID_PARAMETER", !r && e == 87, e);
    SetLastError(0);
    r = FlsFree(5000);
    e = GetLastError();
    k32("KERNEL32.dll!FlsFree: an index past the slots: FALSE, ERROR_INVALID_PARAMETER", !r && e == 87, e);
    /* ---- buffers too small: the size needed ---- */
    char small[4], full[MAX_PATH];
    SetLastError(0);
    DWORD len = GetModuleFileNameA(NULL, small, sizeof small);
    e = GetLastError();
    k32("KERNEL32.dll!GetModuleFileNameA: a buffer too small: nSize, truncated and ended, ERROR_INSUFFICIENT_BUFFER "
        "(Wine does not end it)",
        len == sizeof small && small[3] == 0 && e == 122, e);
    DWORD need = GetCurrentDirectoryA(0, NULL);
    len = GetCurrentDirectoryA(sizeof full, full);
    k32("KERNEL32.dll!GetCurrentDirectoryA: a buffer too small: the size needed with the terminator (REQUIRED_SIZE)",
        need == len + 1 && GetCurrentDirectoryA(2, small) == need, need - len);
    SetEnvironmentVariableA("HCPSIM_OUTCOMES", "abcdef");
    len = GetEnvironmentVariableA("HCPSIM_OUTCOMES", small, sizeof small);
    k32("KERNEL32.dll!GetEnvironmentVariableA: a buffer too small: the size needed with the terminator (REQUIRED_SIZE)",
        len == 7, len);
    need = GetTempPathA(0, NULL);
    len = GetTempPathA(sizeof full, full);
    k32("KERNEL32.dll!GetTempPathA: a buffer too small: the size needed with the terminator (REQUIRED_SIZE)",
        need == len + 1 && GetTempPathA(2, small) == need, need - len);
    SetLastError(0);
    HMODULE hm = GetModuleHandleA("hcpsim-no-such.dll");
    e = GetLastError();
    k32("KERNEL32.dll!GetModuleHandleA: a module not loaded: NULL, ERROR_MOD_NOT_FOUND", !hm && e == 126, e);
    /* ---- memory ---- */
    SetLastError(0);
    void *va = VirtualAlloc(NULL, 0, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE);
    e = GetLastError();
    k32("KERNEL32.dll!VirtualAlloc: size 0: NULL, ERROR_INVALID_PARAMETER", !va && e == 87, e);
    va = VirtualAlloc(NULL, 65536, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE);
    SetLastError(0);
    r = VirtualFree(va, 4096, MEM_RELEASE);
    e = GetLastError();
    k32("KERNEL32.dll!VirtualFree: MEM_RELEASE with a size: FALSE, ERROR_INVALID_PARAMETER", !r && e == 87, e);
    VirtualFree(va, 0, MEM_RELEASE);
    SetLastError(0);
    void *hp = HeapAlloc(GetProcessHeap(), 0, ~(SIZE_T)0 - 65536);
    k32("KERNEL32.dll!HeapAlloc: more than the heap can give: NULL (NULL)", hp == NULL, GetLastError());
    nt_outcomes();
    printf("%d failed\n", failed);
    return failed != 0;
}
