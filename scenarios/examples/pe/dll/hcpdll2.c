/* hcpdll2.c — a DLL dlluse.c loads with LoadLibrary and unloads with FreeLibrary
 * (scenarios/tests/pe_dll.sh); it imports hcpdll's data, so it needs hcpdll loaded first.  Built
 * without the C runtime's start-up code (DllMain is its entry point): no TLS directory. */
#define __USE_MINGW_ANSI_STDIO 0
#include <stdio.h>
#include <windows.h>

__declspec(dllimport) extern int hcpdll_data;

__declspec(dllexport) int hcpdll2_twice_data(void) { return 2 * hcpdll_data; }

BOOL WINAPI DllMain(HINSTANCE h, DWORD reason, LPVOID reserved) {
    (void)h;
    static const char *const names[] = {"DLL_PROCESS_DETACH", "DLL_PROCESS_ATTACH", "DLL_THREAD_ATTACH",
                                        "DLL_THREAD_DETACH"};
    printf("hcpdll2: DllMain %s, lpReserved %s\n", reason < 4 ? names[reason] : "?", reserved ? "non-NULL" : "NULL");
    fflush(stdout);
    return TRUE;
}
