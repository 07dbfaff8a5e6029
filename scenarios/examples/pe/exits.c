/* exits.c — how a process ends when main does not return (scenarios/tests/pe_threads.sh):
 * `exits.exe`: a worker calls ExitProcess(17) while main waits forever on an event;
 * `exits.exe x`: main calls ExitThread(4) and the worker, the last thread, returns 9. */
#include <stdio.h>
#include <windows.h>

static DWORD WINAPI killer(LPVOID p) {
    Sleep(5);
    printf("worker exits the process\n");
    fflush(stdout);
    ExitProcess((UINT)(ULONG_PTR)p);
}

static DWORD WINAPI last(LPVOID p) {
    (void)p;
    Sleep(5);
    printf("last thread returns\n");
    fflush(stdout);
    return 9;
}

int main(int argc, char **argv) {
    (void)argv;
    if (argc > 1) {
        CreateThread(NULL, 0, last, NULL, 0, NULL);
        ExitThread(4);
    }
    HANDLE e = CreateEventA(NULL, TRUE, FALSE, NULL);
    CreateThread(NULL, 0, killer, (LPVOID)17, 0, NULL);
    WaitForSingleObject(e, INFINITE);
    return 1;
}
