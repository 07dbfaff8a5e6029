/* fallback.c — a program that handles functions its Windows lacks (scenarios/tests/pe_missing.sh):
 * KERNEL32.dll!Beep (a stub of hcpsim's export spec: known, not implemented) and
 * msvcrt.dll!_resetstkoflw (not in the spec at all).  Under `hcpsim run --missing-imports fail`
 * each returns failure as a function missing from a Windows DLL does (0, and for Beep the last
 * error ERROR_CALL_NOT_IMPLEMENTED, 120), and the program goes on to its own exit code 7; under
 * the default, the run stops at Beep. */
#include <malloc.h>
#include <stdio.h>
#include <windows.h>

int main(void) {
    SetLastError(0xDEADBEEF);
    BOOL beeped = Beep(750, 10);
    printf("Beep: %d, last error %lu\n", beeped, GetLastError());
    int reset = _resetstkoflw(); /* nonzero on success */
    printf("_resetstkoflw: %d\n", reset);
    SetLastError(0xDEADBEEF);
    BOOL again = Beep(440, 10);
    printf("Beep again: %d, last error %lu\n", again, GetLastError());
    return beeped || reset ? 1 : 7;
}
