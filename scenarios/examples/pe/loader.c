/* loader.c — what the loader does before main (scenarios/tests/pe_loader.sh): a TLS callback runs
 * before the entry point (before the C runtime's constructors) with the image's base and
 * DLL_PROCESS_ATTACH; absolute addresses in data (a table of strings, a table of functions) are
 * right wherever the image is placed, so the test runs it at its preferred base and, with that
 * range taken, relocated, and compares the output. */
#define __USE_MINGW_ANSI_STDIO 0
#include <stdio.h>
#include <windows.h>

static int seq, tls_at, ctor_at;
static DWORD tls_reason;
static PVOID tls_base;

static void NTAPI on_tls(PVOID base, DWORD reason, PVOID reserved) {
    (void)reserved;
    if (!tls_at) tls_at = ++seq;
    tls_reason = reason;
    tls_base = base;
}
/* .CRT$XLB: between the C runtime's __xl_a and __xl_z, so in the TLS directory's callback array */
__attribute__((section(".CRT$XLB"), used)) const PIMAGE_TLS_CALLBACK loader_tls_callback = on_tls;

__attribute__((constructor)) static void ctor(void) { ctor_at = ++seq; }

static int twice(int x) { return 2 * x; }
static int square(int x) { return x * x; }
static const char *const words[] = {"zero", "one", "two"};
static int (*const ops[])(int) = {twice, square};
static int counter = 40;
static int *const counter_at = &counter;

int main(void) {
    extern IMAGE_DOS_HEADER __ImageBase;
    char *base = (char *)GetModuleHandleA(NULL);
    printf("tls callback: call %d, reason %lu, base is the image's: %s\n", tls_at, tls_reason,
           tls_base == (PVOID)base && base == (char *)&__ImageBase ? "yes" : "no");
    printf("constructor: call %d\n", ctor_at);
    printf("words: %s %s %s\n", words[0], words[1], words[2]);
    printf("ops: %d %d\n", ops[0](21), ops[1](12));
    *counter_at += 2;
    printf("counter: %d\n", counter);
    printf("rva of main: 0x%lX\n", (unsigned long)((char *)main - base));
    return 0;
}
