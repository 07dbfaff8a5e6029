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
    NTFN(rke, NtReleaseKeyedEvent, HANDLE, ULONG_PTR, BOOLEAN, PLARGE_INTEGER);
    nt_check("ntdll.dll!NtReleaseKeyedEvent: no waiter, a 0 timeout", rke(ke, 8, FALSE, &zero), 0x102,
             "STATUS_TIMEOUT");
    nt_check("ntdll.dll!NtReleaseKeyedEvent: an odd key", rke(ke, 9, FALSE, &zero), (NTSTATUS_)0xC00000EF,
             "STATUS_INVALID_PARAMETER_1");
    CloseHandle(ke);
    nt_check("ntdll.dll!NtQueueApcThread: a closed handle", qapc(closed_handle(), (void *)apc, 0, 0, 0),
             (NTSTATUS_)0xC0000008, "STATUS_INVALID_HANDLE");
    nt_check("ntdll.dll!NtQueryInformationThread: a closed handle", qit(closed_handle(), 0, info, 48, &len),
             (NTSTATUS_)0xC0000008, "STATUS_INVALID_HANDLE");
    NTFN(sit, NtSetInformationThread, HANDLE, int, void *, ULONG);
    LONG prio = 0;
    nt_check("ntdll.dll!NtSetInformationThread: ThreadBasePriority of a closed handle",
             sit(closed_handle(), 3, &prio, 4), (NTSTATUS_)0xC0000008, "STATUS_INVALID_HANDLE");
    nt_check("ntdll.dll!NtSignalAndWaitForSingleObject: a thread's handle to signal",
             snw(GetCurrentThread(), ev, FALSE, &zero), (NTSTATUS_)0xC0000024, "STATUS_OBJECT_TYPE_MISMATCH");
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
    INIT_ONCE fresh = INIT_ONCE_STATIC_INIT;
    nt_check("ntdll.dll!RtlRunOnceComplete: no initialization begun", roc(&fresh, 0, NULL), (NTSTATUS_)0xC0000001,
             "STATUS_UNSUCCESSFUL");
    NTFN(tryx, RtlTryAcquireSRWLockExclusive, SRWLOCK *);
    AcquireSRWLockShared(&srw);
    NTSTATUS_ got = tryx(&srw) & 0xFF;
    nt_check("ntdll.dll!RtlTryAcquireSRWLockExclusive: a lock held shared: FALSE", got, 0, "BUSY");
    ReleaseSRWLockShared(&srw);
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
        {0x00000000, 0, "STATUS_SUCCESS: ERROR_SUCCESS"},
        {0xC0000023, 122, "STATUS_BUFFER_TOO_SMALL: ERROR_INSUFFICIENT_BUFFER"},
        {0xC0000035, 183, "STATUS_OBJECT_NAME_COLLISION: ERROR_ALREADY_EXISTS"},
        {0xC000003A, 3, "STATUS_OBJECT_PATH_NOT_FOUND: ERROR_PATH_NOT_FOUND"},
        {0xC0000043, 32, "STATUS_SHARING_VIOLATION: ERROR_SHARING_VIOLATION"},
        {0xC0000046, 288, "STATUS_MUTANT_NOT_OWNED: ERROR_NOT_OWNER"},
        {0xC0000047, 298, "STATUS_SEMAPHORE_LIMIT_EXCEEDED: ERROR_TOO_MANY_POSTS"},
        {0x80000006, 18, "STATUS_NO_MORE_FILES: ERROR_NO_MORE_FILES"},
        {0xC0000011, 38, "STATUS_END_OF_FILE: ERROR_HANDLE_EOF"},
        {0xC0000101, 145, "STATUS_DIRECTORY_NOT_EMPTY: ERROR_DIR_NOT_EMPTY"},
        {0xC0000103, 267, "STATUS_NOT_A_DIRECTORY: ERROR_DIRECTORY"},
        {0xC0000004, 24, "STATUS_INFO_LENGTH_MISMATCH: ERROR_BAD_LENGTH"},
        {0xC0000002, 1, "STATUS_NOT_IMPLEMENTED: ERROR_INVALID_FUNCTION"},
        {0xC0000001, 31, "STATUS_UNSUCCESSFUL: ERROR_GEN_FAILURE"},
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

/* ---- round 2: files, threads, timers, modules, time, environment, heap, waits, strings ---- */
static DWORD WINAPI return_seven(LPVOID arg) {
    (void)arg;
    return 7;
}
/* a call that fails: its result and last error, the last error set to 0xDEAD before it */
#define LASTERR(call) (SetLastError(0xDEAD), (call))

static void files_outcomes(void) {
    DWORD e, n = 0;
    BOOL r;
    char buf[8];
    HANDLE h = CreateFileA("oc2_file.txt", GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
    WriteFile(h, "abcdef", 6, &n, NULL);
    r = LASTERR(ReadFile(h, buf, 1, &n, NULL));
    e = GetLastError();
    k32("KERNEL32.dll!ReadFile: a handle opened for writing only: FALSE, ERROR_ACCESS_DENIED", !r && e == 5, e);
    CloseHandle(h);
    HANDLE gone = closed_handle();
    r = LASTERR(WriteFile(gone, "x", 1, &n, NULL));
    e = GetLastError();
    k32("KERNEL32.dll!WriteFile: a closed handle: FALSE, ERROR_INVALID_HANDLE", !r && e == 6, e);
    gone = closed_handle();
    DWORD pos = LASTERR(SetFilePointer(gone, 0, NULL, FILE_BEGIN));
    e = GetLastError();
    k32("KERNEL32.dll!SetFilePointer: a closed handle: INVALID_SET_FILE_POINTER, ERROR_INVALID_HANDLE",
        pos == INVALID_SET_FILE_POINTER && e == 6, e);
    gone = closed_handle();
    DWORD high = 0, size = LASTERR(GetFileSize(gone, &high));
    e = GetLastError();
    k32("KERNEL32.dll!GetFileSize: a closed handle: INVALID_FILE_SIZE, ERROR_INVALID_HANDLE",
        size == INVALID_FILE_SIZE && e == 6, e);
    LARGE_INTEGER li;
    gone = closed_handle();
    r = LASTERR(GetFileSizeEx(gone, &li));
    e = GetLastError();
    k32("KERNEL32.dll!GetFileSizeEx: a closed handle: FALSE, ERROR_INVALID_HANDLE", !r && e == 6, e);
    BY_HANDLE_FILE_INFORMATION bhfi;
    gone = closed_handle();
    r = LASTERR(GetFileInformationByHandle(gone, &bhfi));
    e = GetLastError();
    k32("KERNEL32.dll!GetFileInformationByHandle: a closed handle: FALSE, ERROR_INVALID_HANDLE", !r && e == 6, e);
    gone = closed_handle();
    r = LASTERR(FlushFileBuffers(gone));
    e = GetLastError();
    k32("KERNEL32.dll!FlushFileBuffers: a closed handle: FALSE, ERROR_INVALID_HANDLE", !r && e == 6, e);
    WIN32_FIND_DATAA fd;
    r = LASTERR(FindNextFileA(INVALID_HANDLE_VALUE, &fd));
    e = GetLastError();
    k32("KERNEL32.dll!FindNextFileA: INVALID_HANDLE_VALUE: FALSE, ERROR_INVALID_HANDLE", !r && e == 6, e);
    HANDLE fh = FindFirstFileA("oc2_file.tx?", &fd);
    r = LASTERR(FindNextFileA(fh, &fd));
    e = GetLastError();
    k32("KERNEL32.dll!FindNextFileA: after the only match: FALSE, ERROR_NO_MORE_FILES",
        fh != INVALID_HANDLE_VALUE && !r && e == 18, e);
    FindClose(fh);
    r = LASTERR(MoveFileA("oc2_none.txt", "oc2_other.txt"));
    e = GetLastError();
    k32("KERNEL32.dll!MoveFileA: a source that does not exist: FALSE, ERROR_FILE_NOT_FOUND", !r && e == 2, e);
    CopyFileA("oc2_file.txt", "oc2_copy.txt", FALSE);
    r = LASTERR(MoveFileExA("oc2_file.txt", "oc2_copy.txt", 0));
    e = GetLastError();
    k32("KERNEL32.dll!MoveFileExA: onto an existing file without MOVEFILE_REPLACE_EXISTING: FALSE, "
        "ERROR_ALREADY_EXISTS",
        !r && e == 183, e);
    r = LASTERR(CopyFileA("oc2_none.txt", "oc2_other.txt", FALSE));
    e = GetLastError();
    k32("KERNEL32.dll!CopyFileA: a source that does not exist: FALSE, ERROR_FILE_NOT_FOUND", !r && e == 2, e);
    char full[MAX_PATH], small[4];
    DWORD len = GetFullPathNameA("oc2_file.txt", sizeof full, full, NULL);
    DWORD need = LASTERR(GetFullPathNameA("oc2_file.txt", sizeof small, small, NULL));
    k32("KERNEL32.dll!GetFullPathNameA: a buffer too small: the size needed with the terminator (REQUIRED_SIZE)",
        len > 0 && need == len + 1, need - len);
    r = LASTERR(CreateDirectoryA("oc2_none\\inner", NULL));
    e = GetLastError();
    k32("KERNEL32.dll!CreateDirectoryA: a parent that does not exist: FALSE, ERROR_PATH_NOT_FOUND", !r && e == 3, e);
    r = LASTERR(SetCurrentDirectoryA("oc2_none"));
    e = GetLastError();
    k32("KERNEL32.dll!SetCurrentDirectoryA: a folder that does not exist: FALSE, ERROR_FILE_NOT_FOUND", !r && e == 2,
        e);
    WIN32_FILE_ATTRIBUTE_DATA fad;
    r = LASTERR(GetFileAttributesExA("oc2_none.txt", GetFileExInfoStandard, &fad));
    e = GetLastError();
    k32("KERNEL32.dll!GetFileAttributesExA: a file that does not exist: FALSE, ERROR_FILE_NOT_FOUND", !r && e == 2, e);
    r = LASTERR(GetFileAttributesExA("oc2_none\\x.txt", GetFileExInfoStandard, &fad));
    e = GetLastError();
    k32("KERNEL32.dll!GetFileAttributesExA: a folder that does not exist: FALSE, ERROR_PATH_NOT_FOUND", !r && e == 3,
        e);
    CreateDirectoryA("oc2_dir", NULL);
    r = LASTERR(DeleteFileA("oc2_dir"));
    e = GetLastError();
    k32("KERNEL32.dll!DeleteFileA: a folder: FALSE, ERROR_ACCESS_DENIED", !r && e == 5, e);
    r = LASTERR(RemoveDirectoryA("oc2_file.txt"));
    e = GetLastError();
    k32("KERNEL32.dll!RemoveDirectoryA: a file: FALSE, ERROR_DIRECTORY", !r && e == 267, e);
    r = LASTERR(RemoveDirectoryA("oc2_none"));
    e = GetLastError();
    k32("KERNEL32.dll!RemoveDirectoryA: a folder that does not exist: FALSE, ERROR_FILE_NOT_FOUND", !r && e == 2, e);
    r = LASTERR(DeleteFileA("oc2_none\\x.txt"));
    e = GetLastError();
    k32("KERNEL32.dll!DeleteFileA: a folder that does not exist: FALSE, ERROR_PATH_NOT_FOUND", !r && e == 3, e);
    h = LASTERR(CreateFileA("oc2_dir", GENERIC_READ, FILE_SHARE_READ, NULL, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, NULL));
    e = GetLastError();
    k32("KERNEL32.dll!CreateFileA: CREATE_NEW of a folder's name: INVALID_HANDLE_VALUE, ERROR_FILE_EXISTS",
        h == INVALID_HANDLE_VALUE && e == 80, e);
    RemoveDirectoryA("oc2_dir");
    DeleteFileA("oc2_copy.txt");
    DeleteFileA("oc2_file.txt");
}

static void more_outcomes(void) {
    DWORD e, w;
    BOOL r;
    /* ---- threads ---- */
    HANDLE gone = closed_handle();
    DWORD sc = LASTERR(SuspendThread(gone));
    e = GetLastError();
    k32("KERNEL32.dll!SuspendThread: a closed handle: (DWORD)-1, ERROR_INVALID_HANDLE", sc == (DWORD)-1 && e == 6, e);
    gone = closed_handle();
    r = LASTERR(SetThreadPriority(gone, THREAD_PRIORITY_NORMAL));
    e = GetLastError();
    k32("KERNEL32.dll!SetThreadPriority: a closed handle: FALSE, ERROR_INVALID_HANDLE", !r && e == 6, e);
    gone = closed_handle();
    DWORD id = LASTERR(GetThreadId(gone));
    e = GetLastError();
    k32("KERNEL32.dll!GetThreadId: a closed handle: 0, ERROR_INVALID_HANDLE", id == 0 && e == 6, e);
    HANDLE ot = LASTERR(OpenThread(THREAD_ALL_ACCESS, FALSE, 0));
    e = GetLastError();
    k32("KERNEL32.dll!OpenThread: thread id 0: NULL, ERROR_INVALID_PARAMETER", !ot && e == 87, e);
    HANDLE t = CreateThread(NULL, 0, return_seven, NULL, 0, NULL);
    w = WaitForSingleObject(t, INFINITE);
    DWORD w0 = WaitForSingleObject(t, 0);
    k32("KERNEL32.dll!WaitForSingleObject: a thread that ended, a 0 timeout: WAIT_OBJECT_0, signalled for good",
        w == WAIT_OBJECT_0 && w0 == WAIT_OBJECT_0, w0);
    DWORD code = 0;
    r = GetExitCodeThread(t, &code);
    k32("KERNEL32.dll!GetExitCodeThread: a thread that returned 7: TRUE, its EXIT_CODE 7", r && code == 7, code);
    CloseHandle(t);
    /* ---- events, semaphores, timers by name ---- */
    HANDLE s1 = CreateSemaphoreA(NULL, 0, 1, "hcpsim-outcomes-sem");
    HANDLE s2 = LASTERR(CreateSemaphoreA(NULL, 0, 1, "hcpsim-outcomes-sem"));
    e = GetLastError();
    k32("KERNEL32.dll!CreateSemaphoreA: a name that exists: a handle, ERROR_ALREADY_EXISTS", s1 && s2 && e == 183, e);
    CloseHandle(s2);
    CloseHandle(s1);
    HANDLE os = LASTERR(OpenSemaphoreA(SYNCHRONIZE, FALSE, "hcpsim-outcomes-no-such-sem"));
    e = GetLastError();
    k32("KERNEL32.dll!OpenSemaphoreA: a name nobody made: NULL, ERROR_FILE_NOT_FOUND", !os && e == 2, e);
    HANDLE ev = CreateEventA(NULL, TRUE, FALSE, "hcpsim-outcomes-ev");
    HANDLE tm = LASTERR(CreateWaitableTimerA(NULL, TRUE, "hcpsim-outcomes-ev"));
    e = GetLastError();
    k32("KERNEL32.dll!CreateWaitableTimerA: a name an event holds: NULL, ERROR_INVALID_HANDLE", !tm && e == 6, e);
    HANDLE tm1 = CreateWaitableTimerA(NULL, TRUE, "hcpsim-outcomes-tm");
    HANDLE tm2 = LASTERR(CreateWaitableTimerA(NULL, TRUE, "hcpsim-outcomes-tm"));
    e = GetLastError();
    k32("KERNEL32.dll!CreateWaitableTimerA: a name that exists: a handle, ERROR_ALREADY_EXISTS", tm1 && tm2 && e == 183,
        e);
    w = WaitForSingleObject(tm1, 0);
    k32("KERNEL32.dll!CreateWaitableTimerA: a new timer is not signalled: WAIT_TIMEOUT (258)", w == WAIT_TIMEOUT, w);
    CloseHandle(tm2);
    CloseHandle(tm1);
    HANDLE otm = LASTERR(OpenWaitableTimerA(SYNCHRONIZE, FALSE, "hcpsim-outcomes-tm"));
    e = GetLastError();
    k32("KERNEL32.dll!OpenWaitableTimerA: a name whose last handle was closed: NULL, ERROR_FILE_NOT_FOUND",
        !otm && e == 2, e);
    LARGE_INTEGER due;
    due.QuadPart = -10000;
    r = LASTERR(SetWaitableTimer(ev, &due, 0, NULL, NULL, FALSE));
    e = GetLastError();
    k32("KERNEL32.dll!SetWaitableTimer: an event's handle: FALSE, ERROR_INVALID_HANDLE", !r && e == 6, e);
    r = LASTERR(CancelWaitableTimer(ev));
    e = GetLastError();
    k32("KERNEL32.dll!CancelWaitableTimer: an event's handle: FALSE, ERROR_INVALID_HANDLE", !r && e == 6, e);
    gone = closed_handle();
    r = LASTERR(PulseEvent(gone));
    e = GetLastError();
    k32("KERNEL32.dll!PulseEvent: a closed handle: FALSE, ERROR_INVALID_HANDLE", !r && e == 6, e);
    /* ---- waits ---- */
    QueueUserAPC(apc, GetCurrentThread(), 0);
    w = WaitForSingleObjectEx(ev, INFINITE, TRUE);
    k32("KERNEL32.dll!WaitForSingleObjectEx: alertable, an APC queued: WAIT_IO_COMPLETION (192)",
        w == WAIT_IO_COMPLETION, w);
    w = WaitForMultipleObjectsEx(1, &ev, FALSE, 0, FALSE);
    k32("KERNEL32.dll!WaitForMultipleObjectsEx: an unsignalled event, a 0 timeout: WAIT_TIMEOUT (258)",
        w == WAIT_TIMEOUT, w);
    gone = closed_handle();
    w = LASTERR(SignalObjectAndWait(gone, ev, 0, FALSE));
    e = GetLastError();
    k32("KERNEL32.dll!SignalObjectAndWait: a closed handle to signal: WAIT_FAILED, ERROR_INVALID_HANDLE",
        w == WAIT_FAILED && e == 6, e);
    HANDLE ev2 = CreateEventA(NULL, FALSE, FALSE, NULL);
    w = SignalObjectAndWait(ev2, ev, 0, FALSE);
    k32("KERNEL32.dll!SignalObjectAndWait: an unsignalled event, a 0 timeout: WAIT_TIMEOUT (258)", w == WAIT_TIMEOUT,
        w);
    CloseHandle(ev2);
    CloseHandle(ev);
    DWORD flags = 0;
    gone = closed_handle();
    r = LASTERR(GetHandleInformation(gone, &flags));
    e = GetLastError();
    k32("KERNEL32.dll!GetHandleInformation: a closed handle: FALSE, ERROR_INVALID_HANDLE", !r && e == 6, e);
    gone = closed_handle();
    r = LASTERR(SetHandleInformation(gone, HANDLE_FLAG_INHERIT, 0));
    e = GetLastError();
    k32("KERNEL32.dll!SetHandleInformation: a closed handle: FALSE, ERROR_INVALID_HANDLE", !r && e == 6, e);
    /* ---- condition variables, init once, wait on address: a 0 timeout ---- */
    CRITICAL_SECTION cs;
    CONDITION_VARIABLE cv = CONDITION_VARIABLE_INIT;
    InitializeCriticalSection(&cs);
    EnterCriticalSection(&cs);
    r = LASTERR(SleepConditionVariableCS(&cv, &cs, 0));
    e = GetLastError();
    k32("KERNEL32.dll!SleepConditionVariableCS: no wake, a 0 timeout: FALSE, ERROR_TIMEOUT", !r && e == 1460, e);
    LeaveCriticalSection(&cs);
    DeleteCriticalSection(&cs);
    SRWLOCK srw = SRWLOCK_INIT;
    AcquireSRWLockShared(&srw);
    r = LASTERR(SleepConditionVariableSRW(&cv, &srw, 0, CONDITION_VARIABLE_LOCKMODE_SHARED));
    e = GetLastError();
    k32("KERNEL32.dll!SleepConditionVariableSRW: no wake, a 0 timeout: FALSE, ERROR_TIMEOUT", !r && e == 1460, e);
    r = TryAcquireSRWLockExclusive(&srw);
    k32("KERNEL32.dll!TryAcquireSRWLockExclusive: a lock held shared: FALSE (BUSY)", !r, r);
    ReleaseSRWLockShared(&srw);
    INIT_ONCE once = INIT_ONCE_STATIC_INIT;
    BOOL pending = TRUE;
    void *ctx = NULL;
    r = LASTERR(InitOnceBeginInitialize(&once, INIT_ONCE_CHECK_ONLY, &pending, &ctx));
    e = GetLastError();
    k32("KERNEL32.dll!InitOnceBeginInitialize: INIT_ONCE_CHECK_ONLY before any initialization: FALSE, "
        "ERROR_GEN_FAILURE",
        !r && e == 31, e);
    INIT_ONCE fresh = INIT_ONCE_STATIC_INIT;
    r = LASTERR(InitOnceComplete(&fresh, 0, NULL));
    e = GetLastError();
    k32("KERNEL32.dll!InitOnceComplete: no initialization begun: FALSE, ERROR_GEN_FAILURE", !r && e == 31, e);
    /* ---- modules ---- */
    r = LASTERR(FreeLibrary(NULL));
    e = GetLastError();
    k32("KERNEL32.dll!FreeLibrary: a NULL module: FALSE, ERROR_INVALID_HANDLE", !r && e == 6, e);
    HMODULE hm = LASTERR(GetModuleHandleW(L"hcpsim-no-such.dll"));
    e = GetLastError();
    k32("KERNEL32.dll!GetModuleHandleW: a module not loaded: NULL, ERROR_MOD_NOT_FOUND", !hm && e == 126, e);
    hm = NULL;
    r = LASTERR(GetModuleHandleExA(0, "hcpsim-no-such.dll", &hm));
    e = GetLastError();
    k32("KERNEL32.dll!GetModuleHandleExA: a module not loaded: FALSE, ERROR_MOD_NOT_FOUND", !r && !hm && e == 126, e);
    hm = LASTERR(LoadLibraryW(L"hcpsim-no-such.dll"));
    e = GetLastError();
    k32("KERNEL32.dll!LoadLibraryW: a module that does not exist: NULL, ERROR_MOD_NOT_FOUND", !hm && e == 126, e);
    /* ---- time ---- */
    FILETIME ft = {0, 0x80000000};
    SYSTEMTIME st;
    r = LASTERR(FileTimeToSystemTime(&ft, &st));
    e = GetLastError();
    k32("KERNEL32.dll!FileTimeToSystemTime: a time of 0x8000000000000000 or more: FALSE, ERROR_INVALID_PARAMETER",
        !r && e == 87, e);
    memset(&st, 0, sizeof st);
    st.wYear = 2024, st.wMonth = 13, st.wDay = 1;
    r = LASTERR(SystemTimeToFileTime(&st, &ft));
    e = GetLastError();
    k32("KERNEL32.dll!SystemTimeToFileTime: month 13: FALSE, ERROR_INVALID_PARAMETER", !r && e == 87, e);
    st.wMonth = 2, st.wDay = 30;
    r = LASTERR(SystemTimeToFileTime(&st, &ft));
    e = GetLastError();
    k32("KERNEL32.dll!SystemTimeToFileTime: February 30: FALSE, ERROR_INVALID_PARAMETER", !r && e == 87, e);
    FILETIME a = {100, 1}, b = {200, 1};
    LONG c1 = CompareFileTime(&a, &b), c2 = CompareFileTime(&b, &a), c3 = CompareFileTime(&a, &a);
    k32("KERNEL32.dll!CompareFileTime: earlier, later, the same: -1 (EARLIER), 1 (LATER), 0 (EQUAL)",
        c1 == -1 && c2 == 1 && c3 == 0, (DWORD)c1);
    /* ---- environment ---- */
    SetEnvironmentVariableA("HCPSIM_OUTCOMES2", NULL);
    char small[4];
    DWORD len = LASTERR(GetEnvironmentVariableA("HCPSIM_OUTCOMES2", small, sizeof small));
    e = GetLastError();
    k32("KERNEL32.dll!SetEnvironmentVariableA: a NULL value deletes the name (DELETED): GetEnvironmentVariableA then "
        "finds none",
        len == 0 && e == 203, e);
    WCHAR wsmall[4];
    len = LASTERR(GetEnvironmentVariableW(L"HCPSIM_OUTCOMES2", wsmall, 4));
    e = GetLastError();
    k32("KERNEL32.dll!GetEnvironmentVariableW: a name that is not set: 0, ERROR_ENVVAR_NOT_FOUND", len == 0 && e == 203,
        e);
    SetEnvironmentVariableA("HCPSIM_OUTCOMES2", "abcdef");
    len = ExpandEnvironmentStringsA("<%HCPSIM_OUTCOMES2%>", small, sizeof small);
    k32("KERNEL32.dll!ExpandEnvironmentStringsA: a buffer too small: the size needed with the terminator "
        "(REQUIRED_SIZE)",
        len == 9, len);
    SetEnvironmentVariableA("HCPSIM_OUTCOMES2", NULL);
    /* ---- heap ---- */
    char stackbuf[32];
    HANDLE ph = GetProcessHeap();
    SIZE_T hs = LASTERR(HeapSize(ph, 0, stackbuf));
    e = GetLastError();
    k32("KERNEL32.dll!HeapSize: a pointer the heap did not give: (SIZE_T)-1 (FAILED), ERROR_INVALID_PARAMETER",
        hs == (SIZE_T)-1 && e == 87, e);
    void *ra = LASTERR(HeapReAlloc(ph, 0, stackbuf, 64));
    e = GetLastError();
    k32("KERNEL32.dll!HeapReAlloc: a pointer the heap did not give: NULL, ERROR_INVALID_PARAMETER", !ra && e == 87, e);
    HANDLE heap = HeapCreate(0, 0, 0);
    void *blk = HeapAlloc(heap, HEAP_ZERO_MEMORY, 16);
    k32("KERNEL32.dll!HeapCreate: a growable heap: a handle, HEAP_ZERO_MEMORY blocks from it zeroed (ZEROED)",
        heap && blk && !((char *)blk)[0] && !memcmp(blk, (char *)blk + 1, 15), 0);
    HeapFree(heap, 0, blk);
    r = HeapDestroy(heap);
    k32("KERNEL32.dll!HeapDestroy: a heap HeapCreate made: TRUE (DESTROYED)", r, 0);
    /* ---- strings and code pages ---- */
    WCHAR wbuf[4];
    int wn = LASTERR(MultiByteToWideChar(CP_ACP, 0, "abcdef", -1, wbuf, 4));
    e = GetLastError();
    k32("KERNEL32.dll!MultiByteToWideChar: a buffer too small: 0, ERROR_INSUFFICIENT_BUFFER", wn == 0 && e == 122, e);
    wn = LASTERR(MultiByteToWideChar(CP_ACP, 0, "abcdef", 0, wbuf, 4));
    e = GetLastError();
    k32("KERNEL32.dll!MultiByteToWideChar: cbMultiByte 0: 0, ERROR_INVALID_PARAMETER", wn == 0 && e == 87, e);
    int mn = LASTERR(WideCharToMultiByte(CP_ACP, 0, L"abcdef", 0, small, sizeof small, NULL, NULL));
    e = GetLastError();
    k32("KERNEL32.dll!WideCharToMultiByte: cchWideChar 0: 0, ERROR_INVALID_PARAMETER", mn == 0 && e == 87, e);
    mn = LASTERR(WideCharToMultiByte(CP_ACP, 0, L"abcdef", -1, small, sizeof small, NULL, NULL));
    e = GetLastError();
    k32("KERNEL32.dll!WideCharToMultiByte: a buffer too small: 0, ERROR_INSUFFICIENT_BUFFER", mn == 0 && e == 122, e);
    int ln = lstrlenA(NULL);
    k32("KERNEL32.dll!lstrlenA: NULL: 0 (NULL)", ln == 0, (DWORD)ln);
    char cp[8];
    memset(cp, '#', sizeof cp);
    LPSTR cr = lstrcpynA(cp, "abcdef", 4);
    k32("KERNEL32.dll!lstrcpynA: a source longer than iMaxLength: iMaxLength - 1 characters and a terminator "
        "(TRUNCATED)",
        cr == cp && !memcmp(cp, "abc\0#", 5), 0);
    char cn[64];
    DWORD cnlen = sizeof cn;
    GetComputerNameA(cn, &cnlen);
    DWORD tiny = 1;
    r = LASTERR(GetComputerNameA(cn, &tiny));
    e = GetLastError();
    k32("KERNEL32.dll!GetComputerNameA: a buffer too small: FALSE, ERROR_BUFFER_OVERFLOW, the size needed",
        !r && e == 111 && tiny == cnlen + 1, e);
    /* ---- processes and memory ---- */
    HANDLE op = LASTERR(OpenProcess(PROCESS_QUERY_INFORMATION, FALSE, 0));
    e = GetLastError();
    k32("KERNEL32.dll!OpenProcess: the System Idle Process (0): NULL, ERROR_INVALID_PARAMETER", !op && e == 87, e);
    DWORD pcode = 0;
    r = GetExitCodeProcess(GetCurrentProcess(), &pcode);
    k32("KERNEL32.dll!GetExitCodeProcess: this process, running: STILL_ACTIVE (259)", r && pcode == STILL_ACTIVE,
        pcode);
    gone = closed_handle();
    DWORD pid = LASTERR(GetProcessId(gone));
    e = GetLastError();
    k32("KERNEL32.dll!GetProcessId: a closed handle: 0, ERROR_INVALID_HANDLE", pid == 0 && e == 6, e);
    void *va = VirtualAlloc(NULL, 65536, MEM_RESERVE, PAGE_NOACCESS);
    r = LASTERR(VirtualFree(va, 0, 0));
    e = GetLastError();
    k32("KERNEL32.dll!VirtualFree: dwFreeType 0: FALSE, ERROR_INVALID_PARAMETER", !r && e == 87, e);
    VirtualFree(va, 0, MEM_RELEASE);
}

/* ---- round 3: SLists, FormatMessage, processors and groups, the W forms, vectored handlers,
 * thread pool timers, ntdll's SLists, SRW locks, keyed events and vectored handlers ---- */
static BOOL CALLBACK once_fails(PINIT_ONCE o, PVOID p, PVOID *c) {
    (void)o, (void)p, (void)c;
    return FALSE;
}
static LONG CALLBACK veh_none(EXCEPTION_POINTERS *ep) {
    (void)ep;
    return EXCEPTION_CONTINUE_SEARCH;
}
static void CALLBACK tp_timer_cb(PTP_CALLBACK_INSTANCE i, PVOID c, PTP_TIMER t) { (void)i, (void)c, (void)t; }
typedef struct {
    USHORT Length, MaximumLength;
    PWSTR Buffer;
} USTR_;
typedef struct {
    ULONG Length;
    HANDLE RootDirectory;
    USTR_ *ObjectName;
    ULONG Attributes;
    PVOID SecurityDescriptor, SecurityQualityOfService;
} OBJATTR_;
static void round3_outcomes(void) {
    DWORD e, n;
    BOOL r;
    HANDLE h;
    /* SLists */
    SLIST_HEADER sl;
    InitializeSListHead(&sl);
    PSLIST_ENTRY pe = InterlockedPopEntrySList(&sl);
    k32("KERNEL32.dll!InterlockedPopEntrySList: an empty list: NULL (EMPTY)", pe == NULL, 0);
    pe = InterlockedFlushSList(&sl);
    k32("KERNEL32.dll!InterlockedFlushSList: an empty list: NULL (EMPTY)", pe == NULL, 0);
    USHORT depth = QueryDepthSList(&sl);
    k32("KERNEL32.dll!QueryDepthSList: an empty list: 0 (EMPTY)", depth == 0, depth);
    static SLIST_ENTRY DECLSPEC_ALIGN(16) ent[2];
    pe = InterlockedPushEntrySList(&sl, &ent[0]);
    k32("KERNEL32.dll!InterlockedPushEntrySList: onto an empty list: NULL, the list's previous first entry (EMPTY)",
        pe == NULL, 0);
    pe = InterlockedPushEntrySList(&sl, &ent[1]);
    k32("KERNEL32.dll!InterlockedPushEntrySList: onto a list of one: the previous first entry (PREVIOUS)",
        pe == &ent[0], 0);
    InterlockedFlushSList(&sl);
    /* FormatMessage */
    char buf[64];
    WCHAR wbuf[64];
    n = LASTERR(FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, 0x2FFFFFFF, 0, buf,
                               sizeof buf, NULL));
    e = GetLastError();
    k32("KERNEL32.dll!FormatMessageA: a message id the system does not have: 0, ERROR_MR_MID_NOT_FOUND",
        n == 0 && e == 317, e);
    n = LASTERR(FormatMessageW(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, 0x2FFFFFFF, 0, wbuf,
                               64, NULL));
    e = GetLastError();
    k32("KERNEL32.dll!FormatMessageW: a message id the system does not have: 0, ERROR_MR_MID_NOT_FOUND",
        n == 0 && e == 317, e);
    n = LASTERR(FormatMessageA(FORMAT_MESSAGE_FROM_STRING, "a message longer than four", 0, 0, buf, 4, NULL));
    e = GetLastError();
    k32("KERNEL32.dll!FormatMessageA: a buffer too small: 0, ERROR_INSUFFICIENT_BUFFER", n == 0 && e == 122, e);
    n = LASTERR(FormatMessageW(FORMAT_MESSAGE_FROM_STRING, L"a message longer than four", 0, 0, wbuf, 4, NULL));
    e = GetLastError();
    k32("KERNEL32.dll!FormatMessageW: a buffer too small: 0, ERROR_INSUFFICIENT_BUFFER", n == 0 && e == 122, e);
    /* processors and groups */
    n = GetActiveProcessorCount(5);
    k32("KERNEL32.dll!GetActiveProcessorCount: a group that does not exist: 0 (FAILED)", n == 0, n);
    n = GetMaximumProcessorCount(5);
    k32("KERNEL32.dll!GetMaximumProcessorCount: a group that does not exist: 0 (FAILED)", n == 0, n);
    DWORD lplen = 8;
    BYTE lpbuf[8];
    r = LASTERR(GetLogicalProcessorInformationEx(RelationAll, (PSYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX)lpbuf, &lplen));
    e = GetLastError();
    k32("KERNEL32.dll!GetLogicalProcessorInformationEx: a buffer too small: FALSE, ERROR_INSUFFICIENT_BUFFER, the size "
        "needed",
        !r && e == 122 && lplen > 8, e);
    GROUP_AFFINITY ga;
    r = LASTERR(GetThreadGroupAffinity(closed_handle(), &ga));
    e = GetLastError();
    k32("KERNEL32.dll!GetThreadGroupAffinity: a closed handle: FALSE, ERROR_INVALID_HANDLE", !r && e == 6, e);
    DWORD_PTR pm, sm;
    r = LASTERR(GetProcessAffinityMask(closed_handle(), &pm, &sm));
    e = GetLastError();
    k32("KERNEL32.dll!GetProcessAffinityMask: a closed handle: FALSE, ERROR_INVALID_HANDLE", !r && e == 6, e);
    DWORD_PTR old = LASTERR(SetThreadAffinityMask(GetCurrentThread(), 0));
    e = GetLastError();
    k32("KERNEL32.dll!SetThreadAffinityMask: an empty mask: 0, ERROR_INVALID_PARAMETER", old == 0 && e == 87, e);
    n = LASTERR(SetThreadIdealProcessor(GetCurrentThread(), MAXIMUM_PROCESSORS + 1));
    e = GetLastError();
    k32("KERNEL32.dll!SetThreadIdealProcessor: a processor above MAXIMUM_PROCESSORS: (DWORD)-1, "
        "ERROR_INVALID_PARAMETER",
        n == (DWORD)-1 && e == 87, e);
    r = LASTERR(SetPriorityClass(GetCurrentProcess(), 0x12345));
    e = GetLastError();
    k32("KERNEL32.dll!SetPriorityClass: a class that is not one: FALSE, ERROR_INVALID_PARAMETER", !r && e == 87, e);
    n = LASTERR(GetPriorityClass(closed_handle()));
    e = GetLastError();
    k32("KERNEL32.dll!GetPriorityClass: a closed handle: 0, ERROR_INVALID_HANDLE", n == 0 && e == 6, e);
    ULONG64 cyc;
    r = LASTERR(QueryThreadCycleTime(closed_handle(), &cyc));
    e = GetLastError();
    k32("KERNEL32.dll!QueryThreadCycleTime: a closed handle: FALSE, ERROR_INVALID_HANDLE (Wine: "
        "ERROR_CALL_NOT_IMPLEMENTED)",
        !r && e == 6, e);
    FILETIME ft[4];
    r = LASTERR(GetThreadTimes(closed_handle(), &ft[0], &ft[1], &ft[2], &ft[3]));
    e = GetLastError();
    k32("KERNEL32.dll!GetThreadTimes: a closed handle: FALSE, ERROR_INVALID_HANDLE", !r && e == 6, e);
    BOOL wow;
    r = LASTERR(IsWow64Process(closed_handle(), &wow));
    e = GetLastError();
    k32("KERNEL32.dll!IsWow64Process: a closed handle: FALSE, ERROR_INVALID_HANDLE", !r && e == 6, e);
    h = LASTERR(GetStdHandle(12345));
    e = GetLastError();
    k32("KERNEL32.dll!GetStdHandle: a device that is not one: INVALID_HANDLE_VALUE, ERROR_INVALID_HANDLE",
        h == INVALID_HANDLE_VALUE && e == 6, e);
    /* synchronization */
    SRWLOCK srw = SRWLOCK_INIT;
    AcquireSRWLockExclusive(&srw);
    r = TryAcquireSRWLockShared(&srw);
    k32("KERNEL32.dll!TryAcquireSRWLockShared: a lock held exclusive: FALSE (BUSY)", !r, r);
    NTFN(trys, RtlTryAcquireSRWLockShared, SRWLOCK *);
    r = trys(&srw) & 0xFF;
    k32("ntdll.dll!RtlTryAcquireSRWLockShared: a lock held exclusive: FALSE (BUSY)", !r, r);
    ReleaseSRWLockExclusive(&srw);
    LONG word = 3, same = 3;
    BOOL(WINAPI * woa)
    (volatile VOID *, PVOID, SIZE_T, DWORD) = (BOOL(WINAPI *)(volatile VOID *, PVOID, SIZE_T, DWORD))(
        void (*)(void))GetProcAddress(GetModuleHandleA("kernel32.dll"), "WaitOnAddress");
    if (!woa) /* Wine's kernel32 does not export it (Windows' KernelBase does) */
        woa = (BOOL(WINAPI *)(volatile VOID *, PVOID, SIZE_T, DWORD))(void (*)(void))GetProcAddress(
            LoadLibraryA("kernelbase.dll"), "WaitOnAddress");
    r = woa ? LASTERR(woa(&word, &same, 4, 0)) : TRUE;
    e = GetLastError();
    k32("KERNEL32.dll!WaitOnAddress: the value unchanged, a 0 timeout: FALSE, ERROR_TIMEOUT", !r && e == 1460, e);
    INIT_ONCE once = INIT_ONCE_STATIC_INIT;
    r = InitOnceExecuteOnce(&once, once_fails, NULL, NULL);
    k32("KERNEL32.dll!InitOnceExecuteOnce: a callback that returns FALSE: FALSE (FAILED)", !r, r);
    /* named objects, the W forms */
    HANDLE a = CreateEventW(NULL, TRUE, FALSE, L"hcpsim_oc3_ev");
    h = LASTERR(CreateEventW(NULL, TRUE, FALSE, L"hcpsim_oc3_ev"));
    e = GetLastError();
    k32("KERNEL32.dll!CreateEventW: the name exists: the event, ERROR_ALREADY_EXISTS", h && e == 183, e);
    CloseHandle(h);
    CloseHandle(a);
    h = LASTERR(OpenEventW(EVENT_ALL_ACCESS, FALSE, L"hcpsim_oc3_none"));
    e = GetLastError();
    k32("KERNEL32.dll!OpenEventW: no event of that name: NULL, ERROR_FILE_NOT_FOUND", !h && e == 2, e);
    a = CreateMutexW(NULL, FALSE, L"hcpsim_oc3_mx");
    h = LASTERR(CreateMutexW(NULL, FALSE, L"hcpsim_oc3_mx"));
    e = GetLastError();
    k32("KERNEL32.dll!CreateMutexW: the name exists: the mutex, ERROR_ALREADY_EXISTS", h && e == 183, e);
    CloseHandle(h);
    CloseHandle(a);
    h = LASTERR(OpenMutexW(MUTEX_ALL_ACCESS, FALSE, L"hcpsim_oc3_none"));
    e = GetLastError();
    k32("KERNEL32.dll!OpenMutexW: no mutex of that name: NULL, ERROR_FILE_NOT_FOUND", !h && e == 2, e);
    h = LASTERR(CreateSemaphoreW(NULL, 3, 2, NULL));
    e = GetLastError();
    k32("KERNEL32.dll!CreateSemaphoreW: an initial count above the maximum: NULL, ERROR_INVALID_PARAMETER",
        !h && e == 87, e);
    h = LASTERR(OpenSemaphoreW(SEMAPHORE_ALL_ACCESS, FALSE, L"hcpsim_oc3_none"));
    e = GetLastError();
    k32("KERNEL32.dll!OpenSemaphoreW: no semaphore of that name: NULL, ERROR_FILE_NOT_FOUND", !h && e == 2, e);
    a = CreateWaitableTimerW(NULL, TRUE, L"hcpsim_oc3_tm");
    h = LASTERR(CreateWaitableTimerW(NULL, TRUE, L"hcpsim_oc3_tm"));
    e = GetLastError();
    k32("KERNEL32.dll!CreateWaitableTimerW: the name exists: the timer, ERROR_ALREADY_EXISTS", h && e == 183, e);
    CloseHandle(h);
    h = LASTERR(CreateWaitableTimerExW(NULL, L"hcpsim_oc3_tm", CREATE_WAITABLE_TIMER_MANUAL_RESET, TIMER_ALL_ACCESS));
    e = GetLastError();
    k32("KERNEL32.dll!CreateWaitableTimerExW: the name exists: the timer, ERROR_ALREADY_EXISTS", h && e == 183, e);
    CloseHandle(h);
    CloseHandle(a);
    h = LASTERR(OpenWaitableTimerW(TIMER_ALL_ACCESS, FALSE, L"hcpsim_oc3_none"));
    e = GetLastError();
    k32("KERNEL32.dll!OpenWaitableTimerW: no timer of that name: NULL, ERROR_FILE_NOT_FOUND", !h && e == 2, e);
    /* files, the W forms */
    h = LASTERR(CreateFileW(L"oc3_missing.txt", GENERIC_READ, 0, NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL));
    e = GetLastError();
    k32("KERNEL32.dll!CreateFileW: OPEN_EXISTING of a missing file: INVALID_HANDLE_VALUE, ERROR_FILE_NOT_FOUND",
        h == INVALID_HANDLE_VALUE && e == 2, e);
    a = CreateFileW(L"oc3_file.txt", GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
    CloseHandle(a);
    h = LASTERR(CreateFileW(L"oc3_file.txt", GENERIC_WRITE, 0, NULL, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, NULL));
    e = GetLastError();
    k32("KERNEL32.dll!CreateFileW: CREATE_NEW of a file that exists: INVALID_HANDLE_VALUE, ERROR_FILE_EXISTS",
        h == INVALID_HANDLE_VALUE && e == 80, e);
    h = LASTERR(CreateFileW(L"oc3_file.txt", GENERIC_WRITE, 0, NULL, OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL));
    e = GetLastError();
    k32("KERNEL32.dll!CreateFileW: OPEN_ALWAYS of a file that exists: the handle, ERROR_ALREADY_EXISTS",
        h != INVALID_HANDLE_VALUE && e == 183, e);
    CloseHandle(h);
    n = LASTERR(GetFileAttributesW(L"oc3_missing.txt"));
    e = GetLastError();
    k32("KERNEL32.dll!GetFileAttributesW: a missing file: INVALID_FILE_ATTRIBUTES (4294967295), ERROR_FILE_NOT_FOUND",
        n == INVALID_FILE_ATTRIBUTES && e == 2, e);
    WIN32_FIND_DATAW fd;
    h = LASTERR(FindFirstFileW(L"oc3_missing*.none", &fd));
    e = GetLastError();
    k32("KERNEL32.dll!FindFirstFileW: no matching file: INVALID_HANDLE_VALUE, ERROR_FILE_NOT_FOUND",
        h == INVALID_HANDLE_VALUE && e == 2, e);
    h = FindFirstFileW(L"oc3_file.txt", &fd);
    r = LASTERR(FindNextFileW(h, &fd));
    e = GetLastError();
    k32("KERNEL32.dll!FindNextFileW: past the last match: FALSE, ERROR_NO_MORE_FILES", !r && e == 18, e);
    FindClose(h);
    r = LASTERR(MoveFileExW(L"oc3_missing.txt", L"oc3_other.txt", 0));
    e = GetLastError();
    k32("KERNEL32.dll!MoveFileExW: a missing source: FALSE, ERROR_FILE_NOT_FOUND", !r && e == 2, e);
    r = LASTERR(SetCurrentDirectoryW(L"oc3_missing_dir"));
    e = GetLastError();
    k32("KERNEL32.dll!SetCurrentDirectoryW: a missing folder: FALSE, ERROR_FILE_NOT_FOUND", !r && e == 2, e);
    r = LASTERR(SetEndOfFile(closed_handle()));
    e = GetLastError();
    k32("KERNEL32.dll!SetEndOfFile: a closed handle: FALSE, ERROR_INVALID_HANDLE", !r && e == 6, e);
    DeleteFileW(L"oc3_file.txt");
    WCHAR wsmall[2], wfull[MAX_PATH];
    DWORD need = GetFullPathNameW(L"oc3_file.txt", 0, NULL, NULL);
    DWORD len = GetFullPathNameW(L"oc3_file.txt", MAX_PATH, wfull, NULL);
    k32("KERNEL32.dll!GetFullPathNameW: a buffer too small: the size needed with the terminator (REQUIRED_SIZE)",
        need == len + 1 && GetFullPathNameW(L"oc3_file.txt", 2, wsmall, NULL) == need, need - len);
    need = GetCurrentDirectoryW(0, NULL);
    len = GetCurrentDirectoryW(MAX_PATH, wfull);
    k32("KERNEL32.dll!GetCurrentDirectoryW: a buffer too small: the size needed with the terminator (REQUIRED_SIZE)",
        need == len + 1 && GetCurrentDirectoryW(2, wsmall) == need, need - len);
    need = GetTempPathW(0, NULL);
    len = GetTempPathW(MAX_PATH, wfull);
    k32("KERNEL32.dll!GetTempPathW: a buffer too small: the size needed with the terminator (REQUIRED_SIZE)",
        need == len + 1 && GetTempPathW(2, wsmall) == need, need - len);
    SetEnvironmentVariableW(L"HCPSIM_OC3", L"abcdef");
    len = ExpandEnvironmentStringsW(L"%HCPSIM_OC3%", wsmall, 2);
    k32("KERNEL32.dll!ExpandEnvironmentStringsW: a buffer too small: the size needed with the terminator "
        "(REQUIRED_SIZE)",
        len == 7, len);
    len = GetEnvironmentVariableW(L"HCPSIM_OC3", wsmall, 2);
    k32("KERNEL32.dll!GetEnvironmentVariableW: a buffer too small: the size needed with the terminator (REQUIRED_SIZE)",
        len == 7, len);
    r = LASTERR(SetEnvironmentVariableW(L"HCPSIM_OC3", NULL));
    len = LASTERR(GetEnvironmentVariableW(L"HCPSIM_OC3", wfull, MAX_PATH));
    e = GetLastError();
    k32("KERNEL32.dll!SetEnvironmentVariableW: a NULL value deletes the variable: TRUE, then ERROR_ENVVAR_NOT_FOUND "
        "(203)",
        r && len == 0 && e == 203, e);
    len = LASTERR(GetModuleFileNameW(NULL, wsmall, 2));
    e = GetLastError();
    k32("KERNEL32.dll!GetModuleFileNameW: a buffer too small: nSize, ERROR_INSUFFICIENT_BUFFER", len == 2 && e == 122,
        e);
    len = 2;
    r = LASTERR(GetComputerNameW(wsmall, &len));
    e = GetLastError();
    k32("KERNEL32.dll!GetComputerNameW: a buffer too small: FALSE, ERROR_BUFFER_OVERFLOW, the size needed",
        !r && e == 111 && len > 2, e);
    /* modules */
    HMODULE m = LASTERR(LoadLibraryExA("hcpsim-no-such.dll", NULL, 0));
    e = GetLastError();
    k32("KERNEL32.dll!LoadLibraryExA: a module that is nowhere: NULL, ERROR_MOD_NOT_FOUND", !m && e == 126, e);
    m = LASTERR(LoadLibraryExW(L"hcpsim-no-such.dll", NULL, 0));
    e = GetLastError();
    k32("KERNEL32.dll!LoadLibraryExW: a module that is nowhere: NULL, ERROR_MOD_NOT_FOUND", !m && e == 126, e);
    m = (HMODULE)1;
    r = LASTERR(GetModuleHandleExW(0, L"hcpsim-no-such.dll", &m));
    e = GetLastError();
    k32("KERNEL32.dll!GetModuleHandleExW: a module not loaded: FALSE, NULL, ERROR_MOD_NOT_FOUND", !r && !m && e == 126,
        e);
    /* strings */
    int sl2 = lstrlenW(NULL);
    k32("KERNEL32.dll!lstrlenW: NULL: 0 (NULL)", sl2 == 0, sl2);
    WCHAR w3[3] = L"xx";
    LPWSTR lp = lstrcpynW(w3, L"abcdef", 1);
    k32("KERNEL32.dll!lstrcpynW: a length of 1: an empty string (TRUNCATED)", lp == w3 && w3[0] == 0, w3[0]);
    /* vectored handlers: a handle no call gave */
    ULONG rv = RemoveVectoredExceptionHandler((PVOID)veh_none);
    k32("KERNEL32.dll!RemoveVectoredExceptionHandler: a handle no call gave: 0 (FAILED)", rv == 0, rv);
    rv = RemoveVectoredContinueHandler((PVOID)veh_none);
    k32("KERNEL32.dll!RemoveVectoredContinueHandler: a handle no call gave: 0 (FAILED)", rv == 0, rv);
    ULONG(WINAPI * rrveh)(PVOID) = NT(ULONG(WINAPI *)(PVOID), RtlRemoveVectoredExceptionHandler);
    rv = rrveh((PVOID)veh_none);
    k32("ntdll.dll!RtlRemoveVectoredExceptionHandler: a handle no call gave: 0 (FAILED)", rv == 0, rv);
    ULONG(WINAPI * rrvch)(PVOID) = NT(ULONG(WINAPI *)(PVOID), RtlRemoveVectoredContinueHandler);
    rv = rrvch((PVOID)veh_none);
    k32("ntdll.dll!RtlRemoveVectoredContinueHandler: a handle no call gave: 0 (FAILED)", rv == 0, rv);
    PVOID vh = AddVectoredExceptionHandler(0, veh_none);
    rv = RemoveVectoredExceptionHandler(vh);
    ULONG rv2 = RemoveVectoredExceptionHandler(vh);
    k32("KERNEL32.dll!RemoveVectoredExceptionHandler: a handle already removed: 0 (FAILED)", vh && rv && rv2 == 0, rv2);
    /* thread pool timers */
    PTP_TIMER tpt = CreateThreadpoolTimer(tp_timer_cb, NULL, NULL);
    r = IsThreadpoolTimerSet(tpt);
    k32("KERNEL32.dll!IsThreadpoolTimerSet: a timer never set: FALSE (NOT_SET)", tpt && !r, r);
    CloseThreadpoolTimer(tpt);
    /* ntdll: SLists, keyed events */
    PSLIST_ENTRY(WINAPI * rpop)(PSLIST_HEADER) = NT(PSLIST_ENTRY(WINAPI *)(PSLIST_HEADER), RtlInterlockedPopEntrySList);
    PSLIST_ENTRY(WINAPI * rflush)(PSLIST_HEADER) = NT(PSLIST_ENTRY(WINAPI *)(PSLIST_HEADER), RtlInterlockedFlushSList);
    PSLIST_ENTRY(WINAPI * rfirst)
    (const SLIST_HEADER *) = NT(PSLIST_ENTRY(WINAPI *)(const SLIST_HEADER *), RtlFirstEntrySList);
    WORD(WINAPI * rdepth)(PSLIST_HEADER) = NT(WORD(WINAPI *)(PSLIST_HEADER), RtlQueryDepthSList);
    InitializeSListHead(&sl);
    k32("ntdll.dll!RtlInterlockedPopEntrySList: an empty list: NULL (EMPTY)", rpop(&sl) == NULL, 0);
    k32("ntdll.dll!RtlInterlockedFlushSList: an empty list: NULL (EMPTY)", rflush(&sl) == NULL, 0);
    k32("ntdll.dll!RtlFirstEntrySList: an empty list: NULL (EMPTY)", rfirst(&sl) == NULL, 0);
    k32("ntdll.dll!RtlQueryDepthSList: an empty list: 0 (EMPTY)", rdepth(&sl) == 0, 0);
    NTFN(oke, NtOpenKeyedEvent, HANDLE *, ACCESS_MASK, OBJATTR_ *);
    WCHAR kname[] = L"\\BaseNamedObjects\\hcpsim_oc3_none";
    USTR_ us = {(USHORT)(sizeof kname - 2), (USHORT)sizeof kname, kname};
    OBJATTR_ oa = {sizeof oa, NULL, &us, 0, NULL, NULL};
    HANDLE ke = NULL;
    nt_check("ntdll.dll!NtOpenKeyedEvent: no keyed event of that name", oke(&ke, 0xF0003, &oa), (NTSTATUS_)0xC0000034,
             "STATUS_OBJECT_NAME_NOT_FOUND");
}

/* ---- round 3, second part: timer queues with a callback running, registered waits, critical
 * sections another thread holds, run-once failures, image lookups of an address in no image ---- */
static HANDLE tq_started, tq_release;
static void CALLBACK tq_blocking(PVOID p, BOOLEAN fired) {
    (void)p, (void)fired;
    SetEvent(tq_started);
    WaitForSingleObject(tq_release, INFINITE);
}
static CRITICAL_SECTION held_cs;
static HANDLE cs_entered, cs_leave;
static DWORD WINAPI hold_cs(LPVOID arg) {
    (void)arg;
    EnterCriticalSection(&held_cs);
    SetEvent(cs_entered);
    WaitForSingleObject(cs_leave, INFINITE);
    LeaveCriticalSection(&held_cs);
    return 0;
}
static ULONG WINAPI run_once_fails(void *once, void *p, void **ctx) {
    (void)once, (void)p, (void)ctx;
    return FALSE;
}
static void round3b_outcomes(void) {
    DWORD e;
    BOOL r;
    /* a timer-queue timer whose callback is running: no completion event, ERROR_IO_PENDING */
    tq_started = CreateEventA(NULL, FALSE, FALSE, NULL);
    tq_release = CreateEventA(NULL, TRUE, FALSE, NULL);
    HANDLE q = CreateTimerQueue(), t = NULL;
    CreateTimerQueueTimer(&t, q, tq_blocking, NULL, 0, 0, WT_EXECUTEONLYONCE);
    WaitForSingleObject(tq_started, INFINITE);
    r = LASTERR(DeleteTimerQueueTimer(q, t, NULL));
    e = GetLastError();
    k32("KERNEL32.dll!DeleteTimerQueueTimer: its callback running, no completion event: FALSE, ERROR_IO_PENDING",
        !r && e == ERROR_IO_PENDING, e);
    SetEvent(tq_release);
    DeleteTimerQueueEx(q, INVALID_HANDLE_VALUE); /* waits for the callback to return */
    ResetEvent(tq_release);
    q = CreateTimerQueue();
    CreateTimerQueueTimer(&t, q, tq_blocking, NULL, 0, 0, WT_EXECUTEONLYONCE);
    WaitForSingleObject(tq_started, INFINITE);
    r = LASTERR(DeleteTimerQueueEx(q, NULL));
    e = GetLastError();
    k32("KERNEL32.dll!DeleteTimerQueueEx: a timer's callback running, no completion event: FALSE, ERROR_IO_PENDING",
        !r && e == ERROR_IO_PENDING, e);
    SetEvent(tq_release);
    Sleep(10);
    r = LASTERR(UnregisterWait(NULL));
    e = GetLastError();
    k32("KERNEL32.dll!UnregisterWait: a NULL wait handle: FALSE, ERROR_INVALID_HANDLE", !r && e == 6, e);
    r = LASTERR(UnregisterWaitEx(NULL, NULL));
    e = GetLastError();
    k32("KERNEL32.dll!UnregisterWaitEx: a NULL wait handle: FALSE, ERROR_INVALID_HANDLE", !r && e == 6, e);
    /* a critical section another thread holds */
    InitializeCriticalSection(&held_cs);
    cs_entered = CreateEventA(NULL, FALSE, FALSE, NULL);
    cs_leave = CreateEventA(NULL, FALSE, FALSE, NULL);
    HANDLE th = CreateThread(NULL, 0, hold_cs, NULL, 0, NULL);
    WaitForSingleObject(cs_entered, INFINITE);
    r = TryEnterCriticalSection(&held_cs);
    k32("KERNEL32.dll!TryEnterCriticalSection: a section another thread holds: 0 (BUSY)", !r, r);
    BOOLEAN(WINAPI * rtry)(CRITICAL_SECTION *) = NT(BOOLEAN(WINAPI *)(CRITICAL_SECTION *), RtlTryEnterCriticalSection);
    r = rtry(&held_cs);
    k32("ntdll.dll!RtlTryEnterCriticalSection: a section another thread holds: 0 (BUSY)", !r, r);
    SetEvent(cs_leave);
    WaitForSingleObject(th, INFINITE);
    CloseHandle(th);
    DeleteCriticalSection(&held_cs);
    NTFN(roe, RtlRunOnceExecuteOnce, INIT_ONCE *, void *, void *, void **);
    INIT_ONCE once = INIT_ONCE_STATIC_INIT;
    nt_check("ntdll.dll!RtlRunOnceExecuteOnce: a callback that returns FALSE",
             roe(&once, (void *)run_once_fails, NULL, NULL), (NTSTATUS_)0xC0000001, "STATUS_UNSUCCESSFUL");
    /* an address in no image */
    void *va = VirtualAlloc(NULL, 4096, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE);
    PVOID(WINAPI * pcfh)(PVOID, PVOID *) = NT(PVOID(WINAPI *)(PVOID, PVOID *), RtlPcToFileHeader);
    PVOID base = (PVOID)1;
    PVOID got = pcfh(va, &base);
    k32("ntdll.dll!RtlPcToFileHeader: an address in no image: NULL, the base NULL (NULL)", !got && !base, 0);
#ifdef _WIN64
    base = (PVOID)1;
    got = RtlPcToFileHeader(va, &base);
    k32("KERNEL32.dll!RtlPcToFileHeader: an address in no image: NULL, the base NULL (NULL)", !got && !base, 0);
    DWORD64 ib = 1;
    PRUNTIME_FUNCTION rf = RtlLookupFunctionEntry((DWORD64)(ULONG_PTR)va, &ib, NULL);
    k32("KERNEL32.dll!RtlLookupFunctionEntry: an address in no image and no table: NULL (NULL)", !rf, 0);
    PRUNTIME_FUNCTION(WINAPI * nlfe)
    (DWORD64, DWORD64 *, void *) = NT(PRUNTIME_FUNCTION(WINAPI *)(DWORD64, DWORD64 *, void *), RtlLookupFunctionEntry);
    rf = nlfe((DWORD64)(ULONG_PTR)va, &ib, NULL);
    k32("ntdll.dll!RtlLookupFunctionEntry: an address in no image and no table: NULL (NULL)", !rf, 0);
#endif
    VirtualFree(va, 0, MEM_RELEASE);
}

/* ---- round 3, third part: group affinity, thread descriptions, DOS dates, temporary names ---- */
static void round3c_outcomes(void) {
    DWORD e;
    BOOL r;
    GROUP_AFFINITY ga = {0};
    ga.Group = 5;
    ga.Mask = 1;
    r = LASTERR(SetThreadGroupAffinity(GetCurrentThread(), &ga, NULL));
    e = GetLastError();
    k32("KERNEL32.dll!SetThreadGroupAffinity: a group that does not exist: FALSE, ERROR_INVALID_PARAMETER",
        !r && e == 87, e);
    HRESULT(WINAPI * gtd)
    (HANDLE, PWSTR *) = (HRESULT(WINAPI *)(HANDLE, PWSTR *))(void (*)(void))GetProcAddress(
        GetModuleHandleA("kernel32.dll"), "GetThreadDescription");
    HRESULT(WINAPI * std_)
    (HANDLE, PCWSTR) = (HRESULT(WINAPI *)(HANDLE, PCWSTR))(void (*)(void))GetProcAddress(
        GetModuleHandleA("kernel32.dll"), "SetThreadDescription");
    PWSTR desc = NULL;
    HRESULT hr = gtd(closed_handle(), &desc);
    k32("KERNEL32.dll!GetThreadDescription: a closed handle: HRESULT_FROM_NT(STATUS_INVALID_HANDLE) (0xD0000008)",
        hr == (HRESULT)0xD0000008, (DWORD)hr);
    hr = std_(closed_handle(), L"x");
    k32("KERNEL32.dll!SetThreadDescription: a closed handle: HRESULT_FROM_NT(STATUS_INVALID_HANDLE) (0xD0000008)",
        hr == (HRESULT)0xD0000008, (DWORD)hr);
    FILETIME ft = {0, 0}; /* 1601 */
    WORD dd = 1, dt = 1;
    r = LASTERR(FileTimeToDosDateTime(&ft, &dd, &dt));
    e = GetLastError();
    k32("KERNEL32.dll!FileTimeToDosDateTime: a time before 1980: FALSE, ERROR_INVALID_PARAMETER", !r && e == 87, e);
    char tmp[MAX_PATH];
    UINT u = LASTERR(GetTempFileNameA("oc3_missing_dir", "oc3", 0, tmp));
    e = GetLastError();
    k32("KERNEL32.dll!GetTempFileNameA: a folder that does not exist: 0, ERROR_DIRECTORY", u == 0 && e == 267, e);
}

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
    files_outcomes();
    more_outcomes();
    nt_outcomes();
    round3_outcomes();
    round3b_outcomes();
    round3c_outcomes();
    printf("%d failed\n", failed);
    return failed != 0;
}
