/* crtcost.c — what a C runtime call whose work grows with its input costs (api/README.md "The C
 * runtime": "Cost"): the thread's cycle time (QueryThreadCycleTime) across memcpy, strlen and
 * sprintf of N bytes against the same call of 0 bytes, each window measured by the same code
 * after one call of each size.  Prints "NAME N: D", D the difference of the two windows' cycles. */
#include <stdio.h>
#include <string.h>
#include <windows.h>

typedef void *(*memcpy_fn)(void *, const void *, size_t);
typedef size_t (*strlen_fn)(const char *);
typedef int (*sprintf_fn)(char *, const char *, ...);

static char src[70000], dst[70000], empty[1];
static memcpy_fn cpy;
static strlen_fn len;
static sprintf_fn spr;

static unsigned long long now(void) {
    ULONG64 c = 0;
    QueryThreadCycleTime(GetCurrentThread(), &c);
    return c;
}
static __attribute__((noinline)) long long w_memcpy(size_t n) {
    unsigned long long a = now();
    cpy(dst, src, n);
    return (long long)(now() - a);
}
static __attribute__((noinline)) long long w_strlen(const char *s) {
    unsigned long long a = now();
    len(s);
    return (long long)(now() - a);
}
static __attribute__((noinline)) long long w_sprintf(const char *s) {
    unsigned long long a = now();
    spr(dst, "%s", s);
    return (long long)(now() - a);
}

int main(void) {
    HMODULE m = GetModuleHandleA("msvcrt.dll");
    cpy = (memcpy_fn)(void (*)(void))GetProcAddress(m, "memcpy");
    len = (strlen_fn)(void (*)(void))GetProcAddress(m, "strlen");
    spr = (sprintf_fn)(void (*)(void))GetProcAddress(m, "sprintf");
    static const size_t sizes[] = {1000, 65536};
    for (size_t k = 0; k < 2; k++) {
        size_t n = sizes[k];
        w_memcpy(0), w_memcpy(n);
        long long z = w_memcpy(0);
        printf("memcpy %u: %lld\n", (unsigned)n, w_memcpy(n) - z);
        memset(src, 'x', n);
        src[n] = 0;
        w_strlen(empty), w_strlen(src);
        z = w_strlen(empty);
        printf("strlen %u: %lld\n", (unsigned)n, w_strlen(src) - z);
        w_sprintf(empty), w_sprintf(src);
        z = w_sprintf(empty);
        printf("sprintf %u: %lld\n", (unsigned)n, w_sprintf(src) - z);
        memset(src, 0, n + 1);
    }
    return 0;
}
