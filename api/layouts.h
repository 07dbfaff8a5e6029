/* api/layouts.h — the guest structures hcpsim writes, one table (api/README.md "Guest layouts").
 *
 * Each row: the structure, the field, its offset on x64 and on x86, its size on x64 and on x86,
 * and where mingw-w64's headers name it (a C expression of the structure's offset there, or
 * nothing when the headers keep it reserved: the row's source then says where it comes from).
 * A structure's row `_size` is its size.  The writers use hcp_lay_put; api/tests/layout_test.c
 * prints the rows as static assertions that scenarios/tests/pe_layouts.sh compiles with both
 * mingw-w64 compilers, so a wrong offset does not build. */
#ifndef HCP_LAYOUTS_H
#define HCP_LAYOUTS_H

#include <stdbool.h>
#include <stdint.h>

/* F(STRUCT, FIELD, off64, off32, size64, size32, "mingw-w64 expression" or "") */
#define HCP_LAYOUT_ROWS(F)                                                                                             \
    /* NT_TIB at the start of the TEB (winnt.h) */                                                                     \
    F(TEB, ExceptionList, 0x00, 0x00, 8, 4, "offsetof(NT_TIB, ExceptionList)")                                         \
    F(TEB, StackBase, 0x08, 0x04, 8, 4, "offsetof(NT_TIB, StackBase)")                                                 \
    F(TEB, StackLimit, 0x10, 0x08, 8, 4, "offsetof(NT_TIB, StackLimit)")                                               \
    F(TEB, Self, 0x30, 0x18, 8, 4, "offsetof(NT_TIB, Self)")                                                           \
    /* ClientId and the TLS pointer: reserved in winternl.h (TEB.Reserved1[8], [9], [11]) */                           \
    F(TEB, UniqueProcess, 0x40, 0x20, 8, 4, "offsetof(TEB, Reserved1[8])")                                             \
    F(TEB, UniqueThread, 0x48, 0x24, 8, 4, "offsetof(TEB, Reserved1[9])")                                              \
    F(TEB, ThreadLocalStoragePointer, 0x58, 0x2C, 8, 4, "offsetof(TEB, Reserved1[11])")                                \
    F(TEB, ProcessEnvironmentBlock, 0x60, 0x30, 8, 4, "offsetof(TEB, ProcessEnvironmentBlock)")                        \
    /* PEB (winternl.h): ImageBaseAddress is Reserved3[1] */                                                           \
    F(PEB, BeingDebugged, 0x02, 0x02, 1, 1, "offsetof(PEB, BeingDebugged)")                                            \
    F(PEB, ImageBaseAddress, 0x10, 0x08, 8, 4, "offsetof(PEB, Reserved3[1])")                                          \
    F(PEB, Ldr, 0x18, 0x0C, 8, 4, "offsetof(PEB, Ldr)")                                                                \
    F(PEB, ProcessParameters, 0x20, 0x10, 8, 4, "offsetof(PEB, ProcessParameters)")                                    \
    /* not named by winternl.h: Windows' public symbols (as Wine's winternl.h gives them) */                           \
    F(PEB, NumberOfProcessors, 0xB8, 0x64, 4, 4, "")                                                                   \
    F(PEB, OSMajorVersion, 0x118, 0xA4, 4, 4, "")                                                                      \
    /* RTL_USER_PROCESS_PARAMETERS (winternl.h names the two strings) */                                               \
    F(PP, MaximumLength, 0x00, 0x00, 4, 4, "offsetof(RTL_USER_PROCESS_PARAMETERS, Reserved1[0])")                      \
    F(PP, Length, 0x04, 0x04, 4, 4, "offsetof(RTL_USER_PROCESS_PARAMETERS, Reserved1[4])")                             \
    F(PP, Flags, 0x08, 0x08, 4, 4, "offsetof(RTL_USER_PROCESS_PARAMETERS, Reserved1[8])")                              \
    F(PP, StandardInput, 0x20, 0x18, 8, 4, "offsetof(RTL_USER_PROCESS_PARAMETERS, Reserved2[2])")                      \
    F(PP, StandardOutput, 0x28, 0x1C, 8, 4, "offsetof(RTL_USER_PROCESS_PARAMETERS, Reserved2[3])")                     \
    F(PP, StandardError, 0x30, 0x20, 8, 4, "offsetof(RTL_USER_PROCESS_PARAMETERS, Reserved2[4])")                      \
    F(PP, ImagePathName, 0x60, 0x38, 16, 8, "offsetof(RTL_USER_PROCESS_PARAMETERS, ImagePathName)")                    \
    F(PP, CommandLine, 0x70, 0x40, 16, 8, "offsetof(RTL_USER_PROCESS_PARAMETERS, CommandLine)")                        \
    F(PP, Environment, 0x80, 0x48, 8, 4, "")                                                                           \
    /* UNICODE_STRING (winternl.h) */                                                                                  \
    F(US, Length, 0, 0, 2, 2, "offsetof(UNICODE_STRING, Length)")                                                      \
    F(US, MaximumLength, 2, 2, 2, 2, "offsetof(UNICODE_STRING, MaximumLength)")                                        \
    F(US, Buffer, 8, 4, 8, 4, "offsetof(UNICODE_STRING, Buffer)")                                                      \
    F(US, _size, 16, 8, 0, 0, "sizeof(UNICODE_STRING)")                                                                \
    /* msvcrt's FILE (stdio.h without the UCRT) */                                                                     \
    F(FILE, _flag, 24, 12, 4, 4, "offsetof(FILE, _flag)")                                                              \
    F(FILE, _file, 28, 16, 4, 4, "offsetof(FILE, _file)")                                                              \
    F(FILE, _size, 48, 32, 0, 0, "sizeof(FILE)")                                                                       \
    /* MEMORY_BASIC_INFORMATION (winnt.h) */                                                                           \
    F(MBI, BaseAddress, 0, 0, 8, 4, "offsetof(MEMORY_BASIC_INFORMATION, BaseAddress)")                                 \
    F(MBI, AllocationBase, 8, 4, 8, 4, "offsetof(MEMORY_BASIC_INFORMATION, AllocationBase)")                           \
    F(MBI, AllocationProtect, 16, 8, 4, 4, "offsetof(MEMORY_BASIC_INFORMATION, AllocationProtect)")                    \
    F(MBI, RegionSize, 24, 12, 8, 4, "offsetof(MEMORY_BASIC_INFORMATION, RegionSize)")                                 \
    F(MBI, State, 32, 16, 4, 4, "offsetof(MEMORY_BASIC_INFORMATION, State)")                                           \
    F(MBI, Protect, 36, 20, 4, 4, "offsetof(MEMORY_BASIC_INFORMATION, Protect)")                                       \
    F(MBI, Type, 40, 24, 4, 4, "offsetof(MEMORY_BASIC_INFORMATION, Type)")                                             \
    F(MBI, _size, 48, 28, 0, 0, "sizeof(MEMORY_BASIC_INFORMATION)")                                                    \
    /* SYSTEM_INFO (sysinfoapi.h) */                                                                                   \
    F(SI, wProcessorArchitecture, 0, 0, 2, 2, "offsetof(SYSTEM_INFO, wProcessorArchitecture)")                         \
    F(SI, dwPageSize, 4, 4, 4, 4, "offsetof(SYSTEM_INFO, dwPageSize)")                                                 \
    F(SI, lpMinimumApplicationAddress, 8, 8, 8, 4, "offsetof(SYSTEM_INFO, lpMinimumApplicationAddress)")               \
    F(SI, lpMaximumApplicationAddress, 16, 12, 8, 4, "offsetof(SYSTEM_INFO, lpMaximumApplicationAddress)")             \
    F(SI, dwActiveProcessorMask, 24, 16, 8, 4, "offsetof(SYSTEM_INFO, dwActiveProcessorMask)")                         \
    F(SI, dwNumberOfProcessors, 32, 20, 4, 4, "offsetof(SYSTEM_INFO, dwNumberOfProcessors)")                           \
    F(SI, dwProcessorType, 36, 24, 4, 4, "offsetof(SYSTEM_INFO, dwProcessorType)")                                     \
    F(SI, dwAllocationGranularity, 40, 28, 4, 4, "offsetof(SYSTEM_INFO, dwAllocationGranularity)")                     \
    F(SI, wProcessorLevel, 44, 32, 2, 2, "offsetof(SYSTEM_INFO, wProcessorLevel)")                                     \
    F(SI, _size, 48, 36, 0, 0, "sizeof(SYSTEM_INFO)")                                                                  \
    /* STARTUPINFOA (processthreadsapi.h) */                                                                           \
    F(STARTUPINFOA, cb, 0, 0, 4, 4, "offsetof(STARTUPINFOA, cb)")                                                      \
    F(STARTUPINFOA, _size, 104, 68, 0, 0, "sizeof(STARTUPINFOA)")

typedef enum {
#define HCP_LAY_ENUM(S, F, o64, o32, s64, s32, mw) HCP_L_##S##_##F,
    HCP_LAYOUT_ROWS(HCP_LAY_ENUM)
#undef HCP_LAY_ENUM
        HCP_L_COUNT
} hcp_lay;

typedef struct {
    const char *structure, *field;
    uint16_t off[2], size[2]; /* [0] x86, [1] x64 */
    const char *mingw;
} hcp_lay_row;

extern const hcp_lay_row hcp_lay_rows[HCP_L_COUNT];

/* The field's offset (a `_size` row: the structure's size) and size on the ISA. */
static inline uint32_t hcp_lay_off(hcp_lay f, bool x64) { return hcp_lay_rows[f].off[x64]; }
static inline uint32_t hcp_lay_size(hcp_lay f, bool x64) { return hcp_lay_rows[f].size[x64]; }

/* Writes v, little-endian, in the field's size, into the structure's bytes at b. */
void hcp_lay_put(uint8_t *b, hcp_lay f, bool x64, uint64_t v);

#endif
