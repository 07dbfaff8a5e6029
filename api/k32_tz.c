/* api/k32_tz.c — KERNEL32's time conversions and the time zone (api/README.md "Time zone"):
 * FILETIME <-> SYSTEMTIME, local time by a fixed zone of the table below (UTC unless the run
 * names another: hcp_process_opts.timezone, --timezone), MS-DOS dates, the system's times and the
 * interrupt time, all from the virtual clock. */
#include <stdio.h>
#include <strings.h>

#include "api/exports_gen.h"
#include "api/files_int.h"

#define TICKS_PER_SEC UINT64_C(10000000)
#define TICKS_PER_DAY (UINT64_C(86400) * TICKS_PER_SEC)
#define TIME_ZONE_ID_UNKNOWN 0u
#define TIME_ZONE_ID_STANDARD 1u
#define TIME_ZONE_ID_DAYLIGHT 2u
#define TZI_SIZE 172u /* TIME_ZONE_INFORMATION */

/* A transition rule as TIME_ZONE_INFORMATION holds it: the wDay-th (5: last) wDayOfWeek of
 * wMonth at wHour, local time (month 0: no daylight saving time). */
typedef struct tz_rule {
    uint16_t month, dow, day, hour;
} tz_rule;

typedef struct tz_zone {
    const char *name, *alias; /* Windows' key name; the IANA name of the same rules */
    int32_t bias;             /* minutes: UTC = local + bias */
    const char *std_name, *dst_name;
    tz_rule std, dst; /* when standard time and daylight time begin */
    int32_t dst_bias;
} tz_zone;

/* The zones (Windows' registry values for them, rules of 2007 on). */
static const tz_zone zones[] = {
    {"UTC", "Etc/UTC", 0, "Coordinated Universal Time", "Coordinated Universal Time", {0}, {0}, 0},
    {"GMT Standard Time",
     "Europe/London",
     0,
     "GMT Standard Time",
     "GMT Daylight Time",
     {10, 0, 5, 2},
     {3, 0, 5, 1},
     -60},
    {"W. Europe Standard Time",
     "Europe/Berlin",
     -60,
     "W. Europe Standard Time",
     "W. Europe Daylight Time",
     {10, 0, 5, 3},
     {3, 0, 5, 2},
     -60},
    {"Eastern Standard Time",
     "America/New_York",
     300,
     "Eastern Standard Time",
     "Eastern Daylight Time",
     {11, 0, 1, 2},
     {3, 0, 2, 2},
     -60},
    {"Pacific Standard Time",
     "America/Los_Angeles",
     480,
     "Pacific Standard Time",
     "Pacific Daylight Time",
     {11, 0, 1, 2},
     {3, 0, 2, 2},
     -60},
    {"India Standard Time", "Asia/Kolkata", -330, "India Standard Time", "India Daylight Time", {0}, {0}, 0},
    {"Tokyo Standard Time", "Asia/Tokyo", -540, "Tokyo Standard Time", "Tokyo Daylight Time", {0}, {0}, 0},
    {"AUS Eastern Standard Time",
     "Australia/Sydney",
     -600,
     "AUS Eastern Standard Time",
     "AUS Eastern Daylight Time",
     {4, 0, 1, 3},
     {10, 0, 1, 2},
     -60},
};
#define NZONES (int)(sizeof zones / sizeof zones[0])

int hcp_tz_index(const char *name) {
    for (int i = 0; i < NZONES; i++)
        if (strcasecmp(name, zones[i].name) == 0 || strcasecmp(name, zones[i].alias) == 0) return i;
    return -1;
}
bool hcp_tz_known(const char *name) { return hcp_tz_index(name) >= 0; }
bool hcp_timezone_known(const char *name) { return hcp_tz_known(name); }
const char *hcp_timezone_names(void) { return hcp_tz_names(); }
const char *hcp_tz_names(void) {
    static char list[1024];
    if (!list[0]) {
        size_t k = 0;
        for (int i = 0; i < NZONES; i++)
            k += (size_t)snprintf(list + k, sizeof list - k, "%s'%s' (%s)", i ? ", " : "", zones[i].name,
                                  zones[i].alias);
    }
    return list;
}

/* ---- calendar ---- */

static bool leap(unsigned y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }
static unsigned month_days(unsigned y, unsigned m) {
    static const unsigned d[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return d[m - 1] + (m == 2 && leap(y));
}
/* Days from 1601-01-01 to y-m-d (proleptic Gregorian). */
static uint64_t days_of(unsigned y, unsigned m, unsigned d) {
    uint64_t yy = y - 1601u;
    uint64_t days = yy * 365 + yy / 4 - yy / 100 + yy / 400;
    for (unsigned k = 1; k < m; k++) days += month_days(y, k);
    return days + d - 1;
}

typedef struct systime {
    unsigned year, month, dow, day, hour, minute, second, ms;
} systime;

static systime to_systime(uint64_t ft) {
    systime s;
    uint64_t days = ft / TICKS_PER_DAY, rest = ft % TICKS_PER_DAY;
    s.dow = (unsigned)((days + 1) % 7); /* 1601-01-01 was a Monday */
    unsigned y = 1601 + (unsigned)(days / 146097) * 400;
    days %= 146097;
    while (days >= (leap(y) ? 366u : 365u)) days -= leap(y) ? 366u : 365u, y++;
    unsigned m = 1;
    while (days >= month_days(y, m)) days -= month_days(y, m), m++;
    s.year = y;
    s.month = m;
    s.day = (unsigned)days + 1;
    s.hour = (unsigned)(rest / (3600 * TICKS_PER_SEC));
    s.minute = (unsigned)(rest / (60 * TICKS_PER_SEC) % 60);
    s.second = (unsigned)(rest / TICKS_PER_SEC % 60);
    s.ms = (unsigned)(rest / 10000 % 1000);
    return s;
}

static bool valid_systime(const systime *s) {
    return s->year >= 1601 && s->year <= 30827 && s->month >= 1 && s->month <= 12 && s->day >= 1 &&
           s->day <= month_days(s->year, s->month) && s->hour <= 23 && s->minute <= 59 && s->second <= 59 &&
           s->ms <= 999;
}
static uint64_t from_systime(const systime *s) {
    return ((days_of(s->year, s->month, s->day) * 24 + s->hour) * 60 + s->minute) * 60 * TICKS_PER_SEC +
           (uint64_t)s->second * TICKS_PER_SEC + (uint64_t)s->ms * 10000;
}

static bool read_systime(hcp_ctx *c, uint64_t at, systime *s) {
    uint8_t b[16];
    if (!hcp_rd(c, at, b, 16)) return false;
    *s = (systime){hcp_get16(b),     hcp_get16(b + 2),  hcp_get16(b + 4),  hcp_get16(b + 6),
                   hcp_get16(b + 8), hcp_get16(b + 10), hcp_get16(b + 12), hcp_get16(b + 14)};
    return true;
}
static void put_systime(uint8_t *b, const systime *s) {
    const unsigned v[8] = {s->year, s->month, s->dow, s->day, s->hour, s->minute, s->second, s->ms};
    for (int i = 0; i < 8; i++) hcp_put16(b + 2 * i, (uint16_t)v[i]);
}
static bool write_systime(hcp_ctx *c, uint64_t at, const systime *s) {
    uint8_t b[16];
    put_systime(b, s);
    return hcp_wr(c, at, b, 16);
}
static bool read_ft(hcp_ctx *c, uint64_t at, uint64_t *ft) {
    uint8_t b[8];
    if (!hcp_rd(c, at, b, 8)) return false;
    *ft = hcp_get32(b) | (uint64_t)hcp_get32(b + 4) << 32;
    return true;
}
static bool write_ft(hcp_ctx *c, uint64_t at, uint64_t ft) {
    uint8_t b[8];
    hcp_put32(b, (uint32_t)ft);
    hcp_put32(b + 4, (uint32_t)(ft >> 32));
    return hcp_wr(c, at, b, 8);
}

/* ---- zones and their rules ---- */

typedef struct tzinfo {
    int32_t bias, std_bias, dst_bias;
    tz_rule std, dst;
} tzinfo;

static tzinfo zone_info(int i) {
    const tz_zone *z = &zones[i < 0 || i >= NZONES ? 0 : i];
    return (tzinfo){z->bias, 0, z->dst_bias, z->std, z->dst};
}

/* The local FILETIME of a rule's transition in year y (the n-th weekday of its month; 5: last). */
static uint64_t rule_time(const tz_rule *r, unsigned y) {
    unsigned first_dow = (unsigned)((days_of(y, r->month, 1) + 1) % 7);
    unsigned day = 1 + (7 + r->dow - first_dow) % 7 + 7 * (r->day - 1u);
    while (day > month_days(y, r->month)) day -= 7;
    return (days_of(y, r->month, day) * 24 + r->hour) * 3600 * TICKS_PER_SEC;
}

/* Whether daylight saving time is in force at UTC time t (the transitions: daylight time begins at
 * its rule's standard local time, standard time at its rule's daylight local time). */
static bool in_dst(const tzinfo *z, uint64_t utc) {
    if (!z->dst.month || !z->std.month || z->dst.day < 1 || z->dst.day > 5 || z->std.day < 1 || z->std.day > 5 ||
        z->dst.month > 12 || z->std.month > 12)
        return false;
    unsigned y = to_systime(utc).year;
    int64_t to_utc_std = (int64_t)(z->bias + z->std_bias) * 60 * (int64_t)TICKS_PER_SEC;
    int64_t to_utc_dst = (int64_t)(z->bias + z->dst_bias) * 60 * (int64_t)TICKS_PER_SEC;
    int64_t dst_start = (int64_t)rule_time(&z->dst, y) + to_utc_std;
    int64_t std_start = (int64_t)rule_time(&z->std, y) + to_utc_dst;
    int64_t t = (int64_t)utc;
    if (dst_start < std_start) return t >= dst_start && t < std_start; /* northern hemisphere */
    return t < std_start || t >= dst_start;                            /* southern */
}

static int32_t bias_at(const tzinfo *z, uint64_t utc, bool *dst) {
    bool d = in_dst(z, utc);
    if (dst) *dst = d;
    return z->bias + (d ? z->dst_bias : z->std_bias);
}

int32_t hcp_tz_bias_at(hcp_process *p, uint64_t utc, bool *dst) {
    tzinfo z = zone_info(p->x->tz);
    return bias_at(&z, utc, dst);
}

void hcp_tz_zone(hcp_process *p, int32_t *bias, int32_t *dst_bias, bool *has_dst, const char **std_name,
                 const char **dst_name) {
    int i = p->x->tz;
    const tz_zone *z = &zones[i < 0 || i >= NZONES ? 0 : i];
    *bias = z->bias;
    *dst_bias = z->dst_bias;
    *has_dst = z->dst.month != 0;
    *std_name = z->std_name;
    *dst_name = z->dst_name;
}

/* 100-ns units since boot on the calling CPU's clock; the system time (a clock tick's). */
static uint64_t now_100ns(hcp_ctx *c) {
    return sim_mul_div(sim_clock(c->m), 10000000u, sim_machine_config(c->m)->frequency);
}
static uint64_t system_time(hcp_ctx *c) {
    uint32_t tick = sim_machine_config(c->m)->tick;
    return sim_machine_config(c->m)->boot_time + now_100ns(c) / tick * tick;
}

/* ---- the functions ---- */

uint64_t hcp_k32_FileTimeToSystemTime(hcp_ctx *c, const hcp_k32_FileTimeToSystemTime_args *a) {
    uint64_t ft;
    if (!read_ft(c, a->lpFileTime, &ft)) return 0;
    if (ft >> 63) return hcp_fail(c, ERROR_INVALID_PARAMETER);
    systime s = to_systime(ft);
    return write_systime(c, a->lpSystemTime, &s) ? 1 : 0;
}

uint64_t hcp_k32_GetSystemTime(hcp_ctx *c, const hcp_k32_GetSystemTime_args *a) {
    systime s = to_systime(system_time(c));
    write_systime(c, a->lpSystemTime, &s);
    return 0;
}
uint64_t hcp_k32_GetLocalTime(hcp_ctx *c, const hcp_k32_GetLocalTime_args *a) {
    uint64_t t = system_time(c);
    int32_t bias = hcp_tz_bias_at(c->p, t, NULL);
    systime s = to_systime((uint64_t)((int64_t)t - (int64_t)bias * 60 * (int64_t)TICKS_PER_SEC));
    write_systime(c, a->lpSystemTime, &s);
    return 0;
}

static bool read_tzi(hcp_ctx *c, uint64_t at, tzinfo *z) {
    uint8_t b[TZI_SIZE];
    if (!hcp_rd(c, at, b, TZI_SIZE)) return false;
    z->bias = (int32_t)hcp_get32(b);
    z->std = (tz_rule){hcp_get16(b + 68 + 2), hcp_get16(b + 68 + 4), hcp_get16(b + 68 + 6), hcp_get16(b + 68 + 8)};
    z->std_bias = (int32_t)hcp_get32(b + 84);
    z->dst = (tz_rule){hcp_get16(b + 152 + 2), hcp_get16(b + 152 + 4), hcp_get16(b + 152 + 6), hcp_get16(b + 152 + 8)};
    z->dst_bias = (int32_t)hcp_get32(b + 168);
    return true;
}

uint64_t hcp_k32_SystemTimeToTzSpecificLocalTime(hcp_ctx *c, const hcp_k32_SystemTimeToTzSpecificLocalTime_args *a) {
    tzinfo z = zone_info(c->p->x->tz);
    if (a->lpTimeZoneInformation && !read_tzi(c, a->lpTimeZoneInformation, &z)) return 0;
    systime s;
    if (!read_systime(c, a->lpUniversalTime, &s)) return 0;
    if (!valid_systime(&s)) return hcp_fail(c, ERROR_INVALID_PARAMETER);
    uint64_t utc = from_systime(&s);
    int64_t local = (int64_t)utc - (int64_t)bias_at(&z, utc, NULL) * 60 * (int64_t)TICKS_PER_SEC;
    if (local < 0) return hcp_fail(c, ERROR_INVALID_PARAMETER);
    systime l = to_systime((uint64_t)local);
    return write_systime(c, a->lpLocalTime, &l) ? 1 : 0;
}

/* TIME_ZONE_INFORMATION of the process's zone; TIME_ZONE_ID_UNKNOWN for a zone without daylight
 * saving time, else STANDARD or DAYLIGHT by the current system time. */
uint64_t hcp_k32_GetTimeZoneInformation(hcp_ctx *c, const hcp_k32_GetTimeZoneInformation_args *a) {
    int i = c->p->x->tz < 0 || c->p->x->tz >= NZONES ? 0 : c->p->x->tz;
    const tz_zone *zz = &zones[i];
    tzinfo z = zone_info(i);
    uint8_t b[TZI_SIZE] = {0};
    hcp_put32(b, (uint32_t)zz->bias);
    for (int k = 0; k < 31 && zz->std_name[k]; k++) hcp_put16(b + 4 + 2 * k, (uint8_t)zz->std_name[k]);
    systime sd = {0, zz->std.month, zz->std.dow, zz->std.day, zz->std.hour, 0, 0, 0};
    systime dd = {0, zz->dst.month, zz->dst.dow, zz->dst.day, zz->dst.hour, 0, 0, 0};
    put_systime(b + 68, &sd);
    hcp_put32(b + 84, 0);
    for (int k = 0; k < 31 && zz->dst_name[k]; k++) hcp_put16(b + 88 + 2 * k, (uint8_t)zz->dst_name[k]);
    put_systime(b + 152, &dd);
    hcp_put32(b + 168, (uint32_t)zz->dst_bias);
    if (!hcp_wr(c, a->lpTimeZoneInformation, b, TZI_SIZE)) return 0;
    if (!zz->dst.month) return TIME_ZONE_ID_UNKNOWN;
    return in_dst(&z, system_time(c)) ? TIME_ZONE_ID_DAYLIGHT : TIME_ZONE_ID_STANDARD;
}

/* The current bias, daylight saving time included when it is in force now (as Windows documents:
 * the conversion does not look at the time converted). */
static int64_t current_bias_ticks(hcp_ctx *c) {
    return (int64_t)hcp_tz_bias_at(c->p, system_time(c), NULL) * 60 * (int64_t)TICKS_PER_SEC;
}
uint64_t hcp_k32_FileTimeToLocalFileTime(hcp_ctx *c, const hcp_k32_FileTimeToLocalFileTime_args *a) {
    uint64_t ft;
    if (!read_ft(c, a->lpFileTime, &ft)) return 0;
    return write_ft(c, a->lpLocalFileTime, (uint64_t)((int64_t)ft - current_bias_ticks(c))) ? 1 : 0;
}
uint64_t hcp_k32_LocalFileTimeToFileTime(hcp_ctx *c, const hcp_k32_LocalFileTimeToFileTime_args *a) {
    uint64_t ft;
    if (!read_ft(c, a->lpLocalFileTime, &ft)) return 0;
    return write_ft(c, a->lpFileTime, (uint64_t)((int64_t)ft + current_bias_ticks(c))) ? 1 : 0;
}

/* MS-DOS date: bits 0-4 day, 5-8 month, 9-15 years since 1980; time: 0-4 seconds / 2, 5-10
 * minutes, 11-15 hours.  The FILETIME is the same (local) time. */
uint64_t hcp_k32_DosDateTimeToFileTime(hcp_ctx *c, const hcp_k32_DosDateTimeToFileTime_args *a) {
    uint32_t d = a->wFatDate & 0xFFFFu, t = a->wFatTime & 0xFFFFu;
    systime s = {1980 + (d >> 9), (d >> 5) & 15, 0, d & 31, t >> 11, (t >> 5) & 63, 2 * (t & 31), 0};
    if (!valid_systime(&s)) return hcp_fail(c, ERROR_INVALID_PARAMETER);
    return write_ft(c, a->lpFileTime, from_systime(&s)) ? 1 : 0;
}
uint64_t hcp_k32_FileTimeToDosDateTime(hcp_ctx *c, const hcp_k32_FileTimeToDosDateTime_args *a) {
    uint64_t ft;
    if (!read_ft(c, a->lpFileTime, &ft)) return 0;
    systime s = to_systime(ft);
    if ((ft >> 63) || s.year < 1980 || s.year > 2107) return hcp_fail(c, ERROR_INVALID_PARAMETER);
    uint16_t d = (uint16_t)((s.year - 1980) << 9 | s.month << 5 | s.day);
    uint16_t t = (uint16_t)(s.hour << 11 | s.minute << 5 | s.second / 2);
    if (a->lpFatDate && !hcp_wr16(c, a->lpFatDate, d)) return 0;
    if (a->lpFatTime && !hcp_wr16(c, a->lpFatTime, t)) return 0;
    return 1;
}

uint64_t hcp_k32_CompareFileTime(hcp_ctx *c, const hcp_k32_CompareFileTime_args *a) {
    uint64_t x, y;
    if (!read_ft(c, a->lpFileTime1, &x) || !read_ft(c, a->lpFileTime2, &y)) return 0;
    return (uint32_t)(x < y ? -1 : x > y ? 1 : 0);
}

/* The whole machine's times in 100-ns units: idle = the CPUs' idle time; kernel = idle time,
 * every thread's kernel work (API calls) and the clock interrupts; user = every thread's user
 * work.  Windows counts idle time in the kernel time too. */
uint64_t hcp_k32_GetSystemTimes(hcp_ctx *c, const hcp_k32_GetSystemTimes_args *a) {
    uint64_t idle = 0, intr = 0, kernel = 0, user = 0, f = sim_machine_config(c->m)->frequency;
    for (int i = 0; i < sim_cpu_count(c->m); i++) {
        sim_cpu_stats st;
        sim_cpu_stats_of(c->m, i, &st);
        idle += st.idle;
        intr += st.interrupt;
    }
    for (int i = 0; i < sim_thread_count(c->m); i++) {
        const pmu_bank *b = sim_thread_bank(sim_thread_at(c->m, i));
        user += b->ev[PMU_EV_CYCLES];
        kernel += b->kev[PMU_EV_CYCLES] - b->intr_cycles;
    }
    uint64_t t_idle = sim_mul_div(idle, 10000000u, f), t_kernel = sim_mul_div(idle + kernel + intr, 10000000u, f),
             t_user = sim_mul_div(user, 10000000u, f);
    if (a->lpIdleTime && !write_ft(c, a->lpIdleTime, t_idle)) return 0;
    if (a->lpKernelTime && !write_ft(c, a->lpKernelTime, t_kernel)) return 0;
    if (a->lpUserTime && !write_ft(c, a->lpUserTime, t_user)) return 0;
    return 1;
}

/* The interrupt time: 100-ns units since boot as the last clock interrupt set it; the precise one
 * from the clock itself.  No sleep is simulated, so the unbiased time is the same. */
uint64_t hcp_k32_QueryUnbiasedInterruptTime(hcp_ctx *c, const hcp_k32_QueryUnbiasedInterruptTime_args *a) {
    uint32_t tick = sim_machine_config(c->m)->tick;
    if (!a->UnbiasedTime) return hcp_fail(c, ERROR_INVALID_PARAMETER);
    return hcp_wr64(c, a->UnbiasedTime, now_100ns(c) / tick * tick) ? 1 : 0;
}
uint64_t hcp_k32_QueryInterruptTime(hcp_ctx *c, const hcp_k32_QueryInterruptTime_args *a) {
    uint32_t tick = sim_machine_config(c->m)->tick;
    hcp_wr64(c, a->lpInterruptTime, now_100ns(c) / tick * tick);
    return 0;
}
uint64_t hcp_k32_QueryInterruptTimePrecise(hcp_ctx *c, const hcp_k32_QueryInterruptTimePrecise_args *a) {
    hcp_wr64(c, a->lpInterruptTimePrecise, now_100ns(c));
    return 0;
}
