/* api/tests/layout_test.c — structure layouts, constants and the NTSTATUS ->
 * Win32 table, against HCP-SPEC §3.1, §3.3, §5 and edge cases 1-3, 57, 58. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "api/hcp_api.h"
#include "api/layouts.h"
#include "conformance/tap.h"

/* The guest layouts' rows (api/layouts.h) as static assertions in C for mingw-w64: each row its
 * headers name compiles only when the offset (or size) is theirs, for the ISA it is compiled for
 * (scenarios/tests/pe_layouts.sh compiles it with both compilers). */
static void mingw_asserts(void) {
    printf("#include <stddef.h>\n#include <stdio.h>\n#include <windows.h>\n#include <winternl.h>\n");
    printf("#ifdef _WIN64\n#define ISA(x64, x86) (x64)\n#else\n#define ISA(x64, x86) (x86)\n#endif\n");
    for (int i = 0; i < HCP_L_COUNT; i++) {
        const hcp_lay_row *r = &hcp_lay_rows[i];
        if (!r->mingw[0]) continue;
        printf("_Static_assert(%s == ISA(%u, %u), \"%s.%s\");\n", r->mingw, r->off[1], r->off[0], r->structure,
               r->field);
    }
}

/* The table's own rules: a field ends inside its structure when the table gives the structure's
 * size, and no two fields of a structure overlap. */
static void table_rules(void) {
    tap_clause("API-GUEST-LAYOUTS");
    for (int isa = 0; isa < 2; isa++) {
        int bad = 0;
        for (int i = 0; i < HCP_L_COUNT; i++) {
            const hcp_lay_row *a = &hcp_lay_rows[i];
            for (int j = 0; j < HCP_L_COUNT; j++) {
                const hcp_lay_row *b = &hcp_lay_rows[j];
                if (i == j || strcmp(a->structure, b->structure) != 0) continue;
                if (!strcmp(b->field, "_size") && a->off[isa] + a->size[isa] > b->off[isa]) bad++;
                if (strcmp(a->field, "_size") && strcmp(b->field, "_size") &&
                    a->off[isa] < b->off[isa] + b->size[isa] && b->off[isa] < a->off[isa] + a->size[isa])
                    bad++;
            }
        }
        is_u64((uint64_t)bad, 0,
               isa ? "x64: every field inside its structure, none overlapping another"
                   : "x86: every field inside its structure, none overlapping another");
    }
    uint8_t b[48];
    memset(b, 0xEE, sizeof b);
    hcp_lay_put(b, HCP_L_MBI_RegionSize, false, UINT64_C(0x1122334455667788));
    is_u64(hcp_get32(b + 12) | (uint64_t)b[16] << 32, UINT64_C(0xEE55667788),
           "hcp_lay_put writes the field's size alone (x86 RegionSize: 4 bytes at 12)");
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "--mingw") == 0) {
        mingw_asserts();
        return 0;
    }
    table_rules();
    tap_clause("HCP-LAYOUT-PERFORMANCE-DATA");
    is_u64(sizeof(PERFORMANCE_DATA), 288, "sizeof(PERFORMANCE_DATA)");
    is_u64(offsetof(PERFORMANCE_DATA, Size), 0, "Size");
    is_u64(offsetof(PERFORMANCE_DATA, Version), 2, "Version");
    is_u64(offsetof(PERFORMANCE_DATA, HwCountersCount), 3, "HwCountersCount");
    is_u64(offsetof(PERFORMANCE_DATA, ContextSwitchCount), 4, "ContextSwitchCount");
    is_u64(offsetof(PERFORMANCE_DATA, WaitReasonBitMap), 8, "WaitReasonBitMap");
    is_u64(offsetof(PERFORMANCE_DATA, CycleTime), 16, "CycleTime");
    is_u64(offsetof(PERFORMANCE_DATA, RetryCount), 24, "RetryCount");
    is_u64(offsetof(PERFORMANCE_DATA, Reserved), 28, "Reserved");
    is_u64(offsetof(PERFORMANCE_DATA, HwCounters), 32, "HwCounters");
    is_u64(offsetof(PERFORMANCE_DATA, HwCounters[15]), 272, "HwCounters[15]");
    is_u64(HCP_PERFORMANCE_DATA_SIZE, 288, "the Size Read requires");
    tap_clause("HCP-LAYOUT-HARDWARE-COUNTER");
    is_u64(sizeof(HARDWARE_COUNTER_DATA), 16, "sizeof(HARDWARE_COUNTER_DATA)");
    is_u64(offsetof(HARDWARE_COUNTER_DATA, Reserved), 4, "HARDWARE_COUNTER_DATA.Reserved");
    is_u64(offsetof(HARDWARE_COUNTER_DATA, Value), 8, "HARDWARE_COUNTER_DATA.Value");
    is_u64(sizeof(HARDWARE_COUNTER), 16, "sizeof(HARDWARE_COUNTER)");
    is_u64(offsetof(HARDWARE_COUNTER, Index), 8, "HARDWARE_COUNTER.Index");

    tap_clause("HCP-CONSTANTS");
    is_u64(MAX_HW_COUNTERS, 16, "MAX_HW_COUNTERS");
    is_u64(THREAD_PROFILING_FLAG_DISPATCH, 1, "THREAD_PROFILING_FLAG_DISPATCH");
    is_u64(PERFORMANCE_DATA_VERSION, 1, "PERFORMANCE_DATA_VERSION");
    is_u64(READ_THREAD_PROFILING_FLAG_DISPATCHING, 1, "READ_THREAD_PROFILING_FLAG_DISPATCHING");
    is_u64(READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS, 2, "READ_THREAD_PROFILING_FLAG_HARDWARE_COUNTERS");
    is_u64(PMCCounter, 0, "PMCCounter");
    is_u64(MaxHardwareCounterType, 1, "MaxHardwareCounterType");
    is_u64(THREAD_SET_INFORMATION, 0x20, "THREAD_SET_INFORMATION");
    is_u64(THREAD_QUERY_INFORMATION, 0x40, "THREAD_QUERY_INFORMATION");
    is_u64(THREAD_QUERY_LIMITED_INFORMATION, 0x800, "THREAD_QUERY_LIMITED_INFORMATION");

    tap_clause("HCP-ERROR-TRANSLATION");
    static const struct {
        uint32_t st, win;
    } map[] = {
        {0x00000000u, 0},    {0x80000002u, 998},  {0xC0000002u, 1},    {0xC0000004u, 24},  {0xC0000005u, 998},
        {0xC0000008u, 6},    {0xC000000Du, 87},   {0xC0000017u, 8},    {0xC0000022u, 5},   {0xC0000023u, 122},
        {0xC0000024u, 6},    {0xC00000BBu, 50},   {0xC00000EFu, 87},   {0xC00000F0u, 87},  {0xC00000F1u, 87},
        {0xC0000206u, 1784}, {0xC0000302u, 4212}, {0xC0000303u, 4206}, {0xC0DEC0DEu, 317},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        is_u64(hcp_nt_to_win32(map[i].st), map[i].win, "NTSTATUS 0x%08X -> %u", map[i].st, map[i].win);

    /* The table's statuses no HCP function produces, as RtlNtStatusToDosError maps them (HCP-SPEC
     * §5: W1, W3): what a Windows program's RtlNtStatusToDosError gets.  The "1:1" rows give the
     * status back unchanged.  0xC00000E8 gave 317 before it had a row. */
    tap_clause("HCP-ERROR-TRANSLATION-OTHER");
    static const struct {
        uint32_t st, win;
    } other[] = {
        {0xC00000E8u, 1784},        {0xC00000FDu, 1001},        {0xC0000095u, 534},         {0xC000001Du, 1},
        {0x80000003u, 0x80000003u}, {0x80000004u, 0x80000004u}, {0xC0000094u, 0xC0000094u}, {0xC0000096u, 0xC0000096u},
        {0xC000008Cu, 0xC000008Cu}, {0xC0000409u, 317},         {0xC0000420u, 317},
    };
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        if (other[i].win == other[i].st)
            is_u64(hcp_nt_to_win32(other[i].st), other[i].win, "NTSTATUS 0x%08X comes back unchanged", other[i].st);
        else
            is_u64(hcp_nt_to_win32(other[i].st), other[i].win, "NTSTATUS 0x%08X -> %u", other[i].st, other[i].win);
    }
    is_str(hcp_status_name(0xC00000E8u), "STATUS_INVALID_USER_BUFFER", "0xC00000E8 is STATUS_INVALID_USER_BUFFER");

    tap_clause("HCP-ERROR-TRANSLATION");
    is_str(hcp_status_name(0xC0000303u), "STATUS_WMI_ALREADY_ENABLED", "status names");
    is_str(hcp_error_name(1784), "ERROR_INVALID_USER_BUFFER", "error names");
    ok(hcp_status_name(0x12345678u) == NULL, "an unknown status has no name");

    tap_clause("SIM-ENCODING");
    uint8_t b[8];
    hcp_put64(b, UINT64_C(0x0102030405060708));
    ok(b[0] == 8 && b[7] == 1, "guest encoding is little-endian");
    is_u64(hcp_get64(b), UINT64_C(0x0102030405060708), "and round-trips");
    hcp_put16(b, 0x120);
    is_u64(hcp_get16(b), 288, "16-bit round trip");
    return tap_done();
}
