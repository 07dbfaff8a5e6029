/* conformance/native/shim/hcpshim.h — the Windows functions the shim
 * provides, under their Windows names and in plain C types (the same types
 * windows.h in this folder gives the Windows names).  hcpshim.c defines them
 * on hcpsim's API (api/hcp_api.h) for the simulated thread that is running:
 * libhcpsim exports only prefixed names (hcp_Sleep, ...), so the Windows
 * names are free.  This header is the one declaration both translation units
 * see, hcpcheck.c through windows.h and hcpshim.c directly (it cannot include
 * windows.h: api/hcp_api.h defines some of the same types); the check program
 * never sees hcpsim. */
#ifndef HCPSIM_NATIVE_SHIM_H
#define HCPSIM_NATIVE_SHIM_H

#include <stddef.h>
#include <stdint.h>

typedef uint32_t (*hcpshim_start_fn)(void *arg);
typedef void (*hcpshim_proc)(void);

void *GetModuleHandleA(const char *name);
void *LoadLibraryA(const char *name);
hcpshim_proc GetProcAddress(void *module, const char *name);
void *GetCurrentThread(void);
void *GetCurrentProcess(void);
uint32_t GetCurrentThreadId(void);
uint32_t GetLastError(void);
void SetLastError(uint32_t code);
void *OpenThread(uint32_t access, int inherit, uint32_t thread_id);
int CloseHandle(void *h);
void *CreateEventA(void *attributes, int manual_reset, int initial_state, const char *name);
int SetEvent(void *h);
uint32_t WaitForSingleObject(void *h, uint32_t ms);
void Sleep(uint32_t ms);
int SwitchToThread(void);
void *CreateThread(void *attributes, size_t stack_size, hcpshim_start_fn start, void *arg, uint32_t flags,
                   uint32_t *thread_id);

int ResetEvent(void *h);
void *CreateMutexA(void *attributes, int initial_owner, const char *name);
int ReleaseMutex(void *h);
void *CreateSemaphoreA(void *attributes, int32_t initial, int32_t maximum, const char *name);
int ReleaseSemaphore(void *h, int32_t count, int32_t *previous);
uint32_t WaitForMultipleObjects(uint32_t n, void *const *handles, int all, uint32_t ms);
int GetExitCodeThread(void *h, uint32_t *code);
_Noreturn void ExitThread(uint32_t code);
uint32_t GetThreadId(void *h);
int SetThreadPriority(void *h, int priority);
uintptr_t SetThreadAffinityMask(void *h, uintptr_t mask);
int GetProcessAffinityMask(void *process, uintptr_t *proc_mask, uintptr_t *sys_mask);
uint32_t ResumeThread(void *h);
uint32_t GetCurrentProcessorNumber(void);
int ReadProcessMemory(void *process, const void *address, void *buffer, size_t n, size_t *done);
typedef union LARGE_INTEGER {
    struct {
        uint32_t LowPart;
        int32_t HighPart;
    } u;
    int64_t QuadPart;
} LARGE_INTEGER;
int QueryPerformanceFrequency(LARGE_INTEGER *f);
int QueryPerformanceCounter(LARGE_INTEGER *c);
typedef struct SYSTEMTIME {
    uint16_t wYear, wMonth, wDayOfWeek, wDay, wHour, wMinute, wSecond, wMilliseconds;
} SYSTEMTIME;
struct FILETIME;
int SystemTimeToFileTime(const SYSTEMTIME *st, struct FILETIME *ft);
uint32_t GetCurrentProcessId(void);
uint32_t GetTempPathA(uint32_t n, char *buf);
int DeleteFileA(const char *path);
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
