/* api/k32_time.c — KERNEL32's clocks, all from the virtual clock (api/README.md
 * "Windows programs": "Time"). */
#include "api/exports_gen.h"

#define QPC_FREQUENCY 10000000u /* QueryPerformanceFrequency: 10 MHz */

/* 100-ns units since boot on the calling CPU's clock. */
static uint64_t now_100ns(hcp_ctx *c) {
    return sim_mul_div(sim_clock(c->m), 10000000u, sim_machine_config(c->m)->frequency);
}
static uint64_t now_ms(hcp_ctx *c) { return sim_mul_div(sim_clock(c->m), 1000u, sim_machine_config(c->m)->frequency); }

uint64_t hcp_k32_GetTickCount(hcp_ctx *c) { return (uint32_t)now_ms(c); }
uint64_t hcp_k32_GetTickCount64(hcp_ctx *c) { return now_ms(c); }

uint64_t hcp_k32_QueryPerformanceFrequency(hcp_ctx *c, const hcp_k32_QueryPerformanceFrequency_args *a) {
    return hcp_wr64(c, a->lpFrequency, QPC_FREQUENCY) ? 1 : 0;
}
uint64_t hcp_k32_QueryPerformanceCounter(hcp_ctx *c, const hcp_k32_QueryPerformanceCounter_args *a) {
    return hcp_wr64(c, a->lpPerformanceCount, now_100ns(c)) ? 1 : 0;
}

/* A FILETIME: dwLowDateTime, then dwHighDateTime. */
static void filetime_out(hcp_ctx *c, uint64_t at, uint64_t ft) {
    uint8_t b[8];
    hcp_put32(b, (uint32_t)ft);
    hcp_put32(b + 4, (uint32_t)(ft >> 32));
    hcp_wr(c, at, b, 8);
}
/* The system time as the clock interrupt last set it: whole ticks since boot. */
uint64_t hcp_k32_GetSystemTimeAsFileTime(hcp_ctx *c, const hcp_k32_GetSystemTimeAsFileTime_args *a) {
    uint32_t tick = sim_machine_config(c->m)->tick;
    filetime_out(c, a->lpSystemTimeAsFileTime, sim_machine_config(c->m)->boot_time + now_100ns(c) / tick * tick);
    return 0;
}
uint64_t hcp_k32_GetSystemTimePreciseAsFileTime(hcp_ctx *c, const hcp_k32_GetSystemTimePreciseAsFileTime_args *a) {
    filetime_out(c, a->lpSystemTimeAsFileTime, sim_machine_config(c->m)->boot_time + now_100ns(c));
    return 0;
}

static bool leap(unsigned y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

/* SYSTEMTIME (8 WORDs: year, month, day of week, day, hour, minute, second, ms) to a FILETIME;
 * years 1601..30827. */
uint64_t hcp_k32_SystemTimeToFileTime(hcp_ctx *c, const hcp_k32_SystemTimeToFileTime_args *a) {
    uint8_t b[16];
    if (!hcp_rd(c, a->lpSystemTime, b, 16)) return 0;
    unsigned y = hcp_get16(b), mo = hcp_get16(b + 2), d = hcp_get16(b + 6), h = hcp_get16(b + 8),
             mi = hcp_get16(b + 10), s = hcp_get16(b + 12), ms = hcp_get16(b + 14);
    static const unsigned mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (y < 1601 || y > 30827 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] + (mo == 2 && leap(y)) || h > 23 ||
        mi > 59 || s > 59 || ms > 999)
        return hcp_fail(c, ERROR_INVALID_PARAMETER);
    uint64_t days = 0;
    for (unsigned yy = 1601; yy < y; yy++) days += 365 + leap(yy);
    for (unsigned m = 1; m < mo; m++) days += mdays[m - 1] + (m == 2 && leap(y));
    days += d - 1;
    uint64_t ft = (((days * 24 + h) * 60 + mi) * 60 + s) * 10000000u + (uint64_t)ms * 10000u;
    uint8_t o[8];
    hcp_put32(o, (uint32_t)ft);
    hcp_put32(o + 4, (uint32_t)(ft >> 32));
    return hcp_wr(c, a->lpFileTime, o, 8) ? 1 : 0;
}
