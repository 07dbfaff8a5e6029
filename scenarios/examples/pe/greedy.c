/* greedy.c — a program that takes memory until there is none (scenarios/tests/pe_memory.sh): the
 * heap grows as Windows' does, a large buffer works, an allocation past the memory budget fails
 * (NULL, errno ENOMEM) and the program goes on, and so do CreateThread (NULL,
 * ERROR_NOT_ENOUGH_MEMORY) and VirtualAlloc (NULL, ERROR_COMMITMENT_LIMIT).  With the argument
 * "threads" it only creates threads, with "virtual" it only commits virtual memory. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

static HANDLE stop;
static DWORD WINAPI waiter(LPVOID p) {
    (void)p;
    WaitForSingleObject(stop, INFINITE);
    return 0;
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "threads") == 0) {
        stop = CreateEventA(NULL, TRUE, FALSE, NULL);
        HANDLE h[4096];
        int n = 0;
        while (n < 4096 && (h[n] = CreateThread(NULL, 0, waiter, NULL, 0, NULL)) != NULL) n++;
        DWORD err = GetLastError();
        printf("threads: %d, then NULL with last error %lu\n", n, err);
        SetEvent(stop);
        for (int i = 0; i < n; i++) WaitForSingleObject(h[i], INFINITE), CloseHandle(h[i]);
        HANDLE again = CreateThread(NULL, 0, waiter, NULL, 0, NULL);
        printf("after they ended, another: %s\n", again ? "yes" : "no");
        if (again) WaitForSingleObject(again, INFINITE);
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "virtual") == 0) {
        static char *r[1024];
        int n = 0;
        while (n < 1024 && (r[n] = VirtualAlloc(NULL, 16u << 20, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE)) != NULL)
            r[n++][0] = 1;
        DWORD err = GetLastError();
        printf("committed 16 MiB regions: %d, then NULL with last error %lu\n", n, err);
        char *big = VirtualAlloc(NULL, 64u << 20, MEM_RESERVE, PAGE_NOACCESS);
        printf("reserve 64 MiB: %s\n", big ? "ok" : "NULL");
        VirtualFree(r[0], 0, MEM_RELEASE);
        char *again = VirtualAlloc(NULL, 16u << 20, MEM_COMMIT, PAGE_READWRITE);
        printf("after releasing one, commit 16 MiB: %s\n", again ? "ok" : "NULL");
        return 0;
    }
    /* a 256 MiB buffer, its first and last bytes written */
    size_t big = 256u << 20;
    char *b = malloc(big);
    if (b) b[0] = 1, b[big - 1] = 2;
    printf("malloc 256 MiB: %s\n", b ? "ok" : "NULL");
    free(b);
    char *hb = HeapAlloc(GetProcessHeap(), HEAP_ZERO_MEMORY, 64u << 20);
    printf("HeapAlloc 64 MiB, zeroed: %s\n", hb && !hb[0] && !hb[(64u << 20) - 1] ? "ok" : "NULL");
    HeapFree(GetProcessHeap(), 0, hb);
    /* 1 MiB blocks until there is no more */
    static char *blocks[8192];
    int n = 0;
    while (n < 8192 && (blocks[n] = malloc(1u << 20)) != NULL) blocks[n++][0] = 1;
    int e = errno;
    printf("1 MiB blocks: %d, then NULL with errno %d\n", n, e);
    for (int i = 0; i < n; i++) free(blocks[i]);
    b = malloc(big);
    printf("after freeing them, 256 MiB again: %s\n", b ? "ok" : "NULL");
    free(b);
    return 0;
}
