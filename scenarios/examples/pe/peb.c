/* peb.c — the process data a program reads from its TEB and PEB, read through mingw-w64's own
 * structures (winnt.h's NT_TIB, winternl.h's TEB, PEB and RTL_USER_PROCESS_PARAMETERS), checked
 * against what the documented functions say (scenarios/tests/pe_layouts.sh runs it under hcpsim
 * on both ISAs and under Wine).  Fields winternl.h keeps reserved are read at the offsets of
 * Windows' public symbols: ClientId is TEB.Reserved1[8] and [9], the TLS pointer Reserved1[11],
 * ImageBaseAddress PEB.Reserved3[1], NumberOfProcessors 0xB8 (x64) or 0x64 (x86). */
#include <stdio.h>
#include <string.h>
#include <wchar.h>
#include <windows.h>
#include <winternl.h>

static int failed;
static void check(const char *what, int ok) {
    printf("%s %s\n", ok ? "ok" : "not ok", what);
    if (!ok) failed++;
}

static volatile LONG seen_thread;
static DWORD WINAPI thread_main(LPVOID arg) {
    (void)arg;
    TEB *teb = NtCurrentTeb();
    NT_TIB *tib = (NT_TIB *)teb;
    int local = 0;
    int ok = tib->Self == (NT_TIB *)teb && (DWORD)(ULONG_PTR)teb->Reserved1[9] == GetCurrentThreadId() &&
             (char *)&local < (char *)tib->StackBase && (char *)&local >= (char *)tib->StackLimit &&
             teb->ProcessEnvironmentBlock == (PEB *)((TEB *)(ULONG_PTR)arg)->ProcessEnvironmentBlock;
    InterlockedExchange(&seen_thread, ok ? 1 : 2);
    return 0;
}

int main(void) {
    TEB *teb = NtCurrentTeb();
    NT_TIB *tib = (NT_TIB *)teb;
    PEB *peb = teb->ProcessEnvironmentBlock;
    RTL_USER_PROCESS_PARAMETERS *pp = peb->ProcessParameters;
    int local = 0;
    check("TEB: NtCurrentTeb() is NT_TIB.Self", tib->Self == (NT_TIB *)teb);
    check("TEB: NT_TIB.StackLimit <= a local < NT_TIB.StackBase",
          (char *)&local < (char *)tib->StackBase && (char *)&local >= (char *)tib->StackLimit);
    check("TEB: ClientId.UniqueProcess is GetCurrentProcessId()",
          (DWORD)(ULONG_PTR)teb->Reserved1[8] == GetCurrentProcessId());
    check("TEB: ClientId.UniqueThread is GetCurrentThreadId()",
          (DWORD)(ULONG_PTR)teb->Reserved1[9] == GetCurrentThreadId());
    check("TEB: ProcessEnvironmentBlock is set", peb != NULL);
    check("PEB: BeingDebugged 0, as IsDebuggerPresent() says", peb->BeingDebugged == 0 && !IsDebuggerPresent());
    check("PEB: ImageBaseAddress is GetModuleHandleW(NULL)", peb->Reserved3[1] == (PVOID)GetModuleHandleW(NULL));
    SYSTEM_INFO si;
    GetSystemInfo(&si);
    ULONG ncpu = *(ULONG *)((char *)peb + (sizeof(void *) == 8 ? 0xB8 : 0x64));
    check("PEB: NumberOfProcessors is GetSystemInfo's dwNumberOfProcessors", ncpu == si.dwNumberOfProcessors);
    check("RTL_USER_PROCESS_PARAMETERS: CommandLine is GetCommandLineW()",
          pp->CommandLine.Buffer && wcscmp(pp->CommandLine.Buffer, GetCommandLineW()) == 0 &&
              pp->CommandLine.Length == wcslen(GetCommandLineW()) * sizeof(WCHAR));
    WCHAR path[MAX_PATH];
    DWORD n = GetModuleFileNameW(NULL, path, MAX_PATH);
    check("RTL_USER_PROCESS_PARAMETERS: ImagePathName is GetModuleFileNameW(NULL)",
          n && pp->ImagePathName.Buffer && pp->ImagePathName.Length == n * sizeof(WCHAR) &&
              wcsncmp(pp->ImagePathName.Buffer, path, n) == 0);
    check("TEB: ThreadLocalStoragePointer is set (the image's TLS directory gives a block)",
          teb->Reserved1[11] != NULL);
    HANDLE h = CreateThread(NULL, 0, thread_main, teb, 0, NULL);
    WaitForSingleObject(h, INFINITE);
    CloseHandle(h);
    check("a created thread: its own TEB (Self, ClientId.UniqueThread, its stack's bounds), the same PEB",
          seen_thread == 1);
    printf("%d failed\n", failed);
    return failed != 0;
}
