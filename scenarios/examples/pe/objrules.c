/* objrules.c — the rules Windows keeps for its objects (scenarios/tests/pe_objrules.sh; api/README.md
 * "Object rules"): a named object lives while a handle to it is open; generic access rights map to
 * each type's own; process handles, the pseudo handle and real ones, are waitable;
 * DuplicateHandle's access, inheritance and close-source rules; a CRITICAL_SECTION's fields as
 * Windows (Vista and later) keeps them.  Each line is "DLL!Function: what = value"; the expected
 * values are Microsoft's documentation's (the test file states each), not a run's.  Lines that
 * start with "cpu" depend on the machine's CPU count, lines with "[win7]" or "[win8+]" on the
 * Windows version the platform follows. */
#include <stdio.h>
#include <windows.h>

static DWORD WINAPI enter_and_leave(LPVOID p) {
    CRITICAL_SECTION *cs = p;
    EnterCriticalSection(cs); /* waits: main holds it */
    LeaveCriticalSection(cs);
    return 0;
}

int main(void) {
    /* ---- a named object lives while a handle to it is open ---- */
    HANDLE m = CreateMutexA(NULL, FALSE, "k33.mutex");
    CloseHandle(m);
    HANDLE o = OpenMutexA(SYNCHRONIZE, FALSE, "k33.mutex");
    printf("KERNEL32.dll!OpenMutexA: after the only handle closed, the name is gone: handle %d, error %lu\n", o != NULL,
           GetLastError());
    m = CreateMutexA(NULL, FALSE, "k33.mutex");
    printf("KERNEL32.dll!CreateMutexA: the name again makes a new mutex: last error %lu\n", GetLastError());
    CloseHandle(m);
    HANDLE e1 = CreateEventA(NULL, TRUE, FALSE, "k33.event");
    HANDLE e2 = OpenEventA(EVENT_ALL_ACCESS, FALSE, "k33.event");
    CloseHandle(e1);
    HANDLE e3 = OpenEventA(EVENT_ALL_ACCESS, FALSE, "k33.event");
    printf("KERNEL32.dll!OpenEventA: a second handle keeps the name: %d\n", e3 != NULL);
    CloseHandle(e2);
    CloseHandle(e3);
    e1 = OpenEventA(EVENT_ALL_ACCESS, FALSE, "k33.event");
    printf("KERNEL32.dll!CloseHandle: the last of three handles takes the name: handle %d, error %lu\n", e1 != NULL,
           GetLastError());
    HANDLE s1 = CreateSemaphoreA(NULL, 0, 1, "k33.sem"), s2;
    DuplicateHandle(GetCurrentProcess(), s1, GetCurrentProcess(), &s2, 0, FALSE, DUPLICATE_SAME_ACCESS);
    CloseHandle(s1);
    HANDLE s3 = OpenSemaphoreA(SYNCHRONIZE, FALSE, "k33.sem");
    printf("KERNEL32.dll!DuplicateHandle: a duplicate keeps a name: %d\n", s3 != NULL);
    CloseHandle(s2);
    CloseHandle(s3);
    s1 = CreateSemaphoreA(NULL, 0, 1, "k33.sem");
    printf("KERNEL32.dll!CreateSemaphoreA: after its last handle the name is new: last error %lu\n", GetLastError());
    CloseHandle(s1);

    /* ---- generic rights map to each type's own ---- */
    m = CreateMutexA(NULL, FALSE, "k33.generic");
    HANDLE gx = OpenMutexA(GENERIC_EXECUTE, FALSE, "k33.generic");
    printf("KERNEL32.dll!OpenMutexA: GENERIC_EXECUTE includes SYNCHRONIZE: wait %lu\n", WaitForSingleObject(gx, 0));
    ReleaseMutex(gx);
    HANDLE gr = OpenMutexA(GENERIC_READ, FALSE, "k33.generic");
    DWORD w = WaitForSingleObject(gr, 0);
    printf("KERNEL32.dll!OpenMutexA: GENERIC_READ has no SYNCHRONIZE: wait %lu, error %lu\n", w, GetLastError());
    CloseHandle(gx);
    CloseHandle(gr);
    CloseHandle(m);
    HANDLE ev = CreateEventA(NULL, TRUE, FALSE, "k33.gevent");
    HANDLE ew = OpenEventA(GENERIC_WRITE, FALSE, "k33.gevent");
    BOOL set = SetEvent(ew);
    w = WaitForSingleObject(ew, 0);
    printf("KERNEL32.dll!OpenEventA: GENERIC_WRITE gives EVENT_MODIFY_STATE (set %d) and no SYNCHRONIZE (wait %lu, "
           "error %lu)\n",
           set, w, GetLastError());
    HANDLE ea = OpenEventA(GENERIC_ALL, FALSE, "k33.gevent");
    printf("KERNEL32.dll!OpenEventA: GENERIC_ALL is EVENT_ALL_ACCESS: reset %d, wait %lu\n", ResetEvent(ea),
           WaitForSingleObject(ea, 0));
    HANDLE ex;
    DuplicateHandle(GetCurrentProcess(), ev, GetCurrentProcess(), &ex, GENERIC_EXECUTE, FALSE, 0);
    set = SetEvent(ex);
    DWORD err = GetLastError();
    printf("KERNEL32.dll!DuplicateHandle: GENERIC_EXECUTE maps for the new handle: set %d error %lu, wait %lu\n", set,
           err, WaitForSingleObject(ex, 0));
    CloseHandle(ew);
    CloseHandle(ea);
    CloseHandle(ex);
    CloseHandle(ev);
    HANDLE tr = OpenThread(GENERIC_READ, FALSE, GetCurrentThreadId());
    FILETIME ft[4];
    BOOL times = GetThreadTimes(tr, &ft[0], &ft[1], &ft[2], &ft[3]);
    w = WaitForSingleObject(tr, 0);
    printf("KERNEL32.dll!OpenThread: GENERIC_READ gives THREAD_QUERY_INFORMATION (times %d), no SYNCHRONIZE (wait "
           "%lu, error %lu)\n",
           times, w, GetLastError());
    CloseHandle(tr);
    HANDLE te = OpenThread(GENERIC_EXECUTE, FALSE, GetCurrentThreadId());
    printf("KERNEL32.dll!OpenThread: GENERIC_EXECUTE gives SYNCHRONIZE: wait %lu\n", WaitForSingleObject(te, 0));
    CloseHandle(te);

    /* ---- process handles are waitable ---- */
    printf("KERNEL32.dll!GetCurrentProcess: the pseudo handle waits: %lu\n",
           WaitForSingleObject(GetCurrentProcess(), 100));
    HANDLE ps = OpenProcess(SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION, FALSE, GetCurrentProcessId());
    DWORD code = 0;
    GetExitCodeProcess(ps, &code);
    printf("KERNEL32.dll!OpenProcess: a real handle waits %lu; KERNEL32.dll!GetProcessId: %d; "
           "KERNEL32.dll!GetExitCodeProcess: %lu\n",
           WaitForSingleObject(ps, 0), GetProcessId(ps) == GetCurrentProcessId(), code);
    HANDLE pq = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, GetCurrentProcessId());
    w = WaitForSingleObject(pq, 0);
    printf("KERNEL32.dll!OpenProcess: without SYNCHRONIZE: wait %lu error %lu\n", w, GetLastError());
    HANDLE none = OpenProcess(SYNCHRONIZE, FALSE, 0xFFFFFFF0u);
    printf("KERNEL32.dll!OpenProcess: an unknown id: handle %d, error %lu\n", none != NULL, GetLastError());
    HANDLE pd, sig = CreateEventA(NULL, TRUE, TRUE, NULL);
    DuplicateHandle(GetCurrentProcess(), GetCurrentProcess(), GetCurrentProcess(), &pd, 0, FALSE,
                    DUPLICATE_SAME_ACCESS);
    HANDLE two[2] = {pd, sig};
    printf("KERNEL32.dll!WaitForMultipleObjects: a duplicated process handle (pseudo %d) and a set event: %lu\n",
           pd == GetCurrentProcess(), WaitForMultipleObjects(2, two, FALSE, 0));
    CloseHandle(ps);
    CloseHandle(pq);
    CloseHandle(pd);

    /* ---- DuplicateHandle and inheritance ---- */
    HANDLE hi, hn;
    DWORD fi = 9, fn = 9;
    DuplicateHandle(GetCurrentProcess(), sig, GetCurrentProcess(), &hi, 0, TRUE, DUPLICATE_SAME_ACCESS);
    DuplicateHandle(GetCurrentProcess(), sig, GetCurrentProcess(), &hn, 0, FALSE, DUPLICATE_SAME_ACCESS);
    GetHandleInformation(hi, &fi);
    GetHandleInformation(hn, &fn);
    printf("KERNEL32.dll!GetHandleInformation: bInheritHandle TRUE %lu, FALSE %lu\n", fi, fn);
    SECURITY_ATTRIBUTES sa = {sizeof sa, NULL, TRUE};
    HANDLE inh = CreateEventA(&sa, FALSE, FALSE, NULL);
    DWORD fs = 9;
    GetHandleInformation(inh, &fs);
    printf("KERNEL32.dll!CreateEventA: SECURITY_ATTRIBUTES.bInheritHandle gives HANDLE_FLAG_INHERIT: %lu\n", fs);
    SetHandleInformation(hn, HANDLE_FLAG_PROTECT_FROM_CLOSE, HANDLE_FLAG_PROTECT_FROM_CLOSE);
    BOOL closed = CloseHandle(hn);
    err = GetLastError();
    SetHandleInformation(hn, HANDLE_FLAG_PROTECT_FROM_CLOSE, 0);
    printf("KERNEL32.dll!SetHandleInformation: a protected handle does not close (%d, error %lu), then does (%d)\n",
           closed, err, CloseHandle(hn));
    HANDLE dz;
    DuplicateHandle(GetCurrentProcess(), sig, GetCurrentProcess(), &dz, 0, FALSE, 0);
    w = WaitForSingleObject(dz, 0);
    printf("KERNEL32.dll!DuplicateHandle: access 0 without DUPLICATE_SAME_ACCESS: wait %lu error %lu\n", w,
           GetLastError());
    HANDLE lost = NULL;
    BOOL dup = DuplicateHandle(GetCurrentProcess(), hi, (HANDLE)(ULONG_PTR)0x7774, &lost, 0, FALSE,
                               DUPLICATE_SAME_ACCESS | DUPLICATE_CLOSE_SOURCE);
    err = GetLastError();
    printf("KERNEL32.dll!DuplicateHandle: DUPLICATE_CLOSE_SOURCE closes the source even when it fails (%d, error "
           "%lu): close again %d\n",
           dup, err, CloseHandle(hi));
    HANDLE th;
    DuplicateHandle(GetCurrentProcess(), GetCurrentThread(), GetCurrentProcess(), &th, 0, FALSE,
                    DUPLICATE_SAME_ACCESS);
    printf("KERNEL32.dll!DuplicateHandle: the thread pseudo handle gives a real handle to the caller: real %d, "
           "KERNEL32.dll!GetThreadId: the same thread %d\n",
           th != GetCurrentThread(), GetThreadId(th) == GetCurrentThreadId());
    CloseHandle(th);
    CloseHandle(dz);
    CloseHandle(inh);
    CloseHandle(sig);

    /* ---- a CRITICAL_SECTION's fields ---- */
    CRITICAL_SECTION cs;
    InitializeCriticalSection(&cs);
    if (cs.DebugInfo == (PRTL_CRITICAL_SECTION_DEBUG)-1)
        printf("KERNEL32.dll!InitializeCriticalSection: DebugInfo [win8+] (PRTL_CRITICAL_SECTION_DEBUG)-1\n");
    else
        printf("KERNEL32.dll!InitializeCriticalSection: DebugInfo [win7] a debug block naming it: %d\n",
               cs.DebugInfo && cs.DebugInfo->CriticalSection == &cs);
    printf("KERNEL32.dll!InitializeCriticalSection: LockCount %ld RecursionCount %ld OwningThread %d\n", cs.LockCount,
           cs.RecursionCount, cs.OwningThread != NULL);
    EnterCriticalSection(&cs);
    EnterCriticalSection(&cs);
    printf("KERNEL32.dll!EnterCriticalSection: held twice: LockCount %ld RecursionCount %ld OwningThread is the "
           "caller %d\n",
           cs.LockCount, cs.RecursionCount, (DWORD)(ULONG_PTR)cs.OwningThread == GetCurrentThreadId());
    HANDLE waiter = CreateThread(NULL, 0, enter_and_leave, &cs, 0, NULL);
    Sleep(50); /* the waiter blocks in EnterCriticalSection */
    printf("KERNEL32.dll!EnterCriticalSection: one thread waits: LockCount %ld\n", cs.LockCount);
    LeaveCriticalSection(&cs);
    LeaveCriticalSection(&cs);
    WaitForSingleObject(waiter, INFINITE);
    printf("KERNEL32.dll!LeaveCriticalSection: free again: LockCount %ld RecursionCount %ld OwningThread %d\n",
           cs.LockCount, cs.RecursionCount, cs.OwningThread != NULL);
    CloseHandle(waiter);
    BOOL got = TryEnterCriticalSection(&cs);
    printf("KERNEL32.dll!TryEnterCriticalSection: %d: LockCount %ld RecursionCount %ld\n", got, cs.LockCount,
           cs.RecursionCount);
    LeaveCriticalSection(&cs);
    DeleteCriticalSection(&cs);
    InitializeCriticalSectionAndSpinCount(&cs, 4000);
    printf("cpu KERNEL32.dll!InitializeCriticalSectionAndSpinCount: SpinCount %lu (0 on one CPU)\n",
           (unsigned long)cs.SpinCount);
    DeleteCriticalSection(&cs);
    return 0;
}
