/* outcomes.c — documented failure outcomes of kernel32 functions (api/outcomes.tsv lists them with
 * their sources; scenarios/tests/pe_outcomes.sh runs this on both ISAs and under Wine).  Each line
 * names the function and the last error it must leave. */
#include <stdio.h>
#include <windows.h>

static int failed;
static void check(const char *what, int ok, DWORD err) {
    printf("%s %s (error %lu)\n", ok ? "ok" : "not ok", what, (unsigned long)err);
    if (!ok) failed++;
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

int main(void) {
    DWORD e;
    /* ReleaseMutex by a thread that does not own it */
    mutex = CreateMutexA(NULL, TRUE, NULL);
    HANDLE t = CreateThread(NULL, 0, release_other, NULL, 0, NULL);
    WaitForSingleObject(t, INFINITE);
    CloseHandle(t);
    ReleaseMutex(mutex);
    /* ReleaseSemaphore past the maximum: FALSE, the count unchanged */
    HANDLE s = CreateSemaphoreA(NULL, 1, 2, NULL);
    LONG prev = -1;
    SetLastError(0);
    BOOL r = ReleaseSemaphore(s, 2, &prev);
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
    LPVOID v = TlsGetValue(5000);
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
    printf("%d failed\n", failed);
    return failed != 0;
}
