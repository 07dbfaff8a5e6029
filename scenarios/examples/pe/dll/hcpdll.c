/* hcpdll.c — a DLL of the program dlluse.c (scenarios/tests/pe_dll.sh): a DllMain and a TLS
 * callback that say when they run, a data export, ordinary exports, an export known only by its
 * ordinal, forwarders (hcpdll.def) and thread-local data of its own TLS directory, read the way
 * MSVC's __declspec(thread) code reads it (the TEB's TLS array, this module's _tls_index). */
#define __USE_MINGW_ANSI_STDIO 0
#include <stdio.h>
#include <windows.h>

static const char *reason_name(DWORD r) {
    static const char *const names[] = {"DLL_PROCESS_DETACH", "DLL_PROCESS_ATTACH", "DLL_THREAD_ATTACH",
                                        "DLL_THREAD_DETACH"};
    return r < 4 ? names[r] : "?";
}

int hcpdll_data = 1234;
int hcpdll_add(int a, int b) { return a + b; }
int hcpdll_secret(void) { return 77; } /* exported as ordinal 7 only */

/* TLS data: the template holds 5; each thread's copy is its own. */
extern char _tls_start; /* mingw-w64's tlssup.c: the first byte of the .tls section */
extern ULONG _tls_index;
__attribute__((section(".tls$HCP"))) int tls_counter = 5;
static int *tls_slot(void) {
    char **array;
#ifdef _WIN64
    __asm__ volatile("mov %%gs:0x58, %0" : "=r"(array));
#else
    __asm__ volatile("mov %%fs:0x2C, %0" : "=r"(array));
#endif
    return (int *)(array[_tls_index] + ((char *)&tls_counter - &_tls_start));
}
int hcpdll_tls_get(void) { return *tls_slot(); }
void hcpdll_tls_set(int v) { *tls_slot() = v; }

static void NTAPI tls_callback(PVOID h, DWORD reason, PVOID reserved) {
    (void)h, (void)reserved;
    printf("hcpdll: TLS callback %s\n", reason_name(reason));
    fflush(stdout);
}
__attribute__((section(".CRT$XLY"), used)) PIMAGE_TLS_CALLBACK hcpdll_tls_cb = tls_callback;

BOOL WINAPI DllMain(HINSTANCE h, DWORD reason, LPVOID reserved) {
    (void)h;
    printf("hcpdll: DllMain %s, lpReserved %s\n", reason_name(reason), reserved ? "non-NULL" : "NULL");
    fflush(stdout);
    return TRUE;
}
