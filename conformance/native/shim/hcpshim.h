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

int hcpshim_ResetEvent(void *h);
void *hcpshim_CreateMutexA(void *attributes, int initial_owner, const char *name);
int hcpshim_ReleaseMutex(void *h);
void *hcpshim_CreateSemaphoreA(void *attributes, int32_t initial, int32_t maximum, const char *name);
int hcpshim_ReleaseSemaphore(void *h, int32_t count, int32_t *previous);
uint32_t hcpshim_WaitForMultipleObjects(uint32_t n, void *const *handles, int all, uint32_t ms);
int hcpshim_GetExitCodeThread(void *h, uint32_t *code);
_Noreturn void hcpshim_ExitThread(uint32_t code);
uint32_t hcpshim_GetThreadId(void *h);
int hcpshim_SetThreadPriority(void *h, int priority);
uintptr_t hcpshim_SetThreadAffinityMask(void *h, uintptr_t mask);
int hcpshim_GetProcessAffinityMask(void *process, uintptr_t *proc_mask, uintptr_t *sys_mask);
uint32_t hcpshim_ResumeThread(void *h);
uint32_t hcpshim_GetCurrentProcessorNumber(void);
int hcpshim_ReadProcessMemory(void *process, const void *address, void *buffer, size_t n, size_t *done);
int hcpshim_QueryPerformanceFrequency(int64_t *f);
int hcpshim_QueryPerformanceCounter(int64_t *c);
typedef struct SYSTEMTIME {
    uint16_t wYear, wMonth, wDayOfWeek, wDay, wHour, wMinute, wSecond, wMilliseconds;
} SHIM_SYSTEMTIME;
struct FILETIME;
int hcpshim_SystemTimeToFileTime(const SHIM_SYSTEMTIME *st, struct FILETIME *ft);
uint32_t hcpshim_GetCurrentProcessId(void);
uint32_t hcpshim_GetTempPathA(uint32_t n, char *buf);
int hcpshim_DeleteFileA(const char *path);
/* The simulator's NT Kernel Logger for hcpshim_etw.c (api/etw.c): each event's bytes (header and
 * payload) and processor go to sink(ud, ...) synchronously; the functions return Win32 errors. */
typedef void (*hcpshim_etw_sink)(void *ud, const uint8_t *data, size_t size, int cpu);
uint32_t hcpshim_etw_start(uint32_t flags, hcpshim_etw_sink sink, void *ud);
uint32_t hcpshim_etw_stop(void);
/* advapi32's ETW functions (StartTraceA, ControlTraceA, OpenTraceA, ProcessTrace, CloseTrace) for
 * GetProcAddress, or NULL. */
hcpshim_proc hcpshim_etw_export(const char *name);

/* The check program's entry point (hcpcheck.c), run in the first simulated thread. */
int hcpcheck_main(int argc, char **argv);

#endif
