/* conformance/native/shim/hcpshim.h — the functions the Windows shim
 * (windows.h in this folder) maps the Windows names to, in plain C types.
 * hcpshim.c implements them with hcpsim's API (api/hcp_api.h) for the
 * simulated thread that is running; the check program never sees hcpsim. */
#ifndef HCPSIM_NATIVE_SHIM_H
#define HCPSIM_NATIVE_SHIM_H

#include <stddef.h>
#include <stdint.h>

typedef uint32_t (*hcpshim_start_fn)(void *arg);
typedef void (*hcpshim_proc)(void);

void *hcpshim_GetModuleHandleA(const char *name);
void *hcpshim_LoadLibraryA(const char *name);
hcpshim_proc hcpshim_GetProcAddress(void *module, const char *name);
void *hcpshim_GetCurrentThread(void);
void *hcpshim_GetCurrentProcess(void);
uint32_t hcpshim_GetCurrentThreadId(void);
uint32_t hcpshim_GetLastError(void);
void hcpshim_SetLastError(uint32_t code);
void *hcpshim_OpenThread(uint32_t access, int inherit, uint32_t thread_id);
int hcpshim_CloseHandle(void *h);
void *hcpshim_CreateEventA(void *attributes, int manual_reset, int initial_state, const char *name);
int hcpshim_SetEvent(void *h);
uint32_t hcpshim_WaitForSingleObject(void *h, uint32_t ms);
void hcpshim_Sleep(uint32_t ms);
int hcpshim_SwitchToThread(void);
void *hcpshim_CreateThread(void *attributes, size_t stack_size, hcpshim_start_fn start, void *arg, uint32_t flags,
                           uint32_t *thread_id);

/* The check program's entry point (hcpcheck.c), run in the first simulated thread. */
int hcpcheck_main(int argc, char **argv);

#endif
