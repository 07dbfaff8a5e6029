/* printlock.c — two threads print lines to stdout at once (scenarios/tests/pe_stdio.sh).
 *
 * Thread A prints with mingw-w64's own printf, which formats in the program and writes one
 * character at a time with fputc, holding the stream's lock (_lock_file, that is msvcrt's
 * _lock(_STREAM_LOCKS + 1)) for the whole line; thread B writes whole lines with msvcrt's fputs,
 * which takes the same lock.  On two CPUs both run at once: msvcrt locks a stream for a call, so
 * every line comes out whole, never mixed with the other thread's (issue 29's symptom: lines
 * mixed character by character when _lock was a no-op).  Each line is "T nn: " and 40 copies of
 * the thread's letter. */
#define __USE_MINGW_ANSI_STDIO 1 /* mingw-w64's printf, not msvcrt's */
#include <stdio.h>
#include <string.h>
#include <windows.h>

#define LINES 40

static DWORD WINAPI thread_a(LPVOID p) {
    (void)p;
    for (int i = 0; i < LINES; i++) printf("A %02d: %s\n", i, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    return 0;
}

static DWORD WINAPI thread_b(LPVOID p) {
    (void)p;
    char line[64];
    for (int i = 0; i < LINES; i++) {
        snprintf(line, sizeof line, "B %02d: %s\n", i, "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
        fputs(line, stdout); /* msvcrt's, imported */
    }
    return 0;
}

int main(void) {
    HANDLE t[2] = {CreateThread(NULL, 0, thread_a, NULL, 0, NULL), CreateThread(NULL, 0, thread_b, NULL, 0, NULL)};
    WaitForMultipleObjects(2, t, TRUE, INFINITE);
    return 0;
}
