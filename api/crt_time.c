/* api/crt_time.c — the C runtime's time functions, from the virtual clock (api/README.md "The
 * C runtime": "time").  The time zone is the process's (hcpsim run --timezone; UTC by default),
 * as GetTimeZoneInformation reports it; _timezone, _daylight and _tzname start as msvcrt's do
 * (Pacific time) until _tzset, which the local-time functions call as msvcrt calls it; local
 * times apply the zone's daylight saving rules of the time itself.  time() is GetSystemTimeAsFileTime's time in seconds
 * (whole clock ticks), clock() the milliseconds of virtual time since the process started.  Dates use the proleptic
 * Gregorian calendar; msvcrt's range is 1970-01-01 to 3000-12-31 23:59:59 UTC. */
#include <stdlib.h>

#include "api/crt_int.h"
#include "api/files_int.h"

#define TICKS_PER_SEC 10000000ull
#define EPOCH_1601_TO_1970 11644473600ll /* seconds */
#define MAX_TIME64 32535215999ll         /* _MAX__TIME64_T: 3000-12-31 23:59:59 */
#define MAX_TIME32 0x7FFFFFFFll

/* ---- the clock ---- */

static uint64_t now_100ns(hcp_ctx *c) {
    return sim_mul_div(sim_clock(c->m), 10000000u, sim_machine_config(c->m)->frequency);
}
/* GetSystemTimeAsFileTime's value: boot time + whole ticks */
static uint64_t system_filetime(hcp_ctx *c) {
    uint32_t tick = sim_machine_config(c->m)->tick;
    return sim_machine_config(c->m)->boot_time + now_100ns(c) / tick * tick;
}
static int64_t now_seconds(hcp_ctx *c) { return (int64_t)(system_filetime(c) / TICKS_PER_SEC) - EPOCH_1601_TO_1970; }

/* The width of time_t for the function called: _xxx32 4, _xxx64 8, the plain name the ISA's (msvcrt
 * on i386 keeps a 32-bit time_t). */
static unsigned tw(const hcp_ctx *c) {
    const char *n = c->ex->name;
    if (strstr(n, "64")) return 8;
    if (strstr(n, "32")) return 4;
    return c->w;
}
static bool rd_time(hcp_ctx *c, uint64_t at, unsigned w, int64_t *t) {
    uint8_t b[8];
    if (!hcp_rd(c, at, b, w)) return false;
    *t = w == 8 ? (int64_t)hcp_get64(b) : (int32_t)hcp_get32(b);
    return true;
}
static uint64_t ret_time(int64_t t, unsigned w) { return w == 8 ? (uint64_t)t : (uint32_t)(int32_t)t; }

/* time(t), _time32, _time64 */
uint64_t hcp_crt_time(hcp_ctx *c, const hcp_crt_time_args *a) {
    unsigned w = tw(c);
    int64_t t = now_seconds(c);
    if (a->_Time) {
        uint8_t b[8];
        hcp_put64(b, (uint64_t)t);
        hcp_wr(c, a->_Time, b, w);
    }
    return ret_time(t, w);
}

/* clock: milliseconds since the process's main thread was created */
uint64_t hcp_crt_clock(hcp_ctx *c) {
    uint64_t start = 0;
    if (c->p && c->p->nthr && c->p->thr[0].t)
        start = sim_mul_div(sim_thread_create_time(c->p->thr[0].t), 10000000u, sim_machine_config(c->m)->frequency);
    return (uint32_t)((now_100ns(c) - start) / 10000u);
}

/* difftime(t1, t0), _difftime32, _difftime64: t1 - t0 as a double */
uint64_t hcp_crt__difftime64(hcp_ctx *c, const hcp_crt__difftime64_args *a) {
    (void)c;
    double d = (double)(a->_Time1 - a->_Time2);
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}
uint64_t hcp_crt__difftime32(hcp_ctx *c, const hcp_crt__difftime32_args *a) {
    (void)c;
    double d = (double)((int64_t)a->_Time1 - a->_Time2);
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

/* ---- the calendar ---- */

static bool leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }
static const int mdays[2][12] = {{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31},
                                 {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}};

/* Days from 1970-01-01 to y-m-d (m 1..12), any y >= 1601. */
static int64_t days_from_civil(int64_t y, int m, int d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

typedef struct ctm { /* struct tm: nine ints */
    int32_t sec, min, hour, mday, mon, year, wday, yday, isdst;
} ctm;

/* The broken-down time of t seconds since 1970 (t >= 0). */
static void breakdown(int64_t t, ctm *o) {
    int64_t days = t / 86400, rem = t % 86400;
    o->hour = (int32_t)(rem / 3600);
    o->min = (int32_t)(rem % 3600 / 60);
    o->sec = (int32_t)(rem % 60);
    o->wday = (int32_t)((days + 4) % 7); /* 1970-01-01 was a Thursday */
    int64_t y = 1970;
    for (;;) { /* whole 400-year eras first, then years */
        if (days >= 146097) {
            int64_t k = days / 146097;
            days -= k * 146097;
            y += 400 * k;
            continue;
        }
        int64_t len = 365 + leap(y);
        if (days < len) break;
        days -= len;
        y++;
    }
    o->year = (int32_t)(y - 1900);
    o->yday = (int32_t)days;
    int m = 0;
    while (days >= mdays[leap(y)][m]) days -= mdays[leap(y)][m++];
    o->mon = m;
    o->mday = (int32_t)days + 1;
    o->isdst = 0;
}

static bool rd_tm(hcp_ctx *c, uint64_t at, ctm *t) {
    uint8_t b[36];
    if (!hcp_rd(c, at, b, 36)) return false;
    int32_t *f = &t->sec;
    for (int i = 0; i < 9; i++) f[i] = (int32_t)hcp_get32(b + 4 * i);
    return true;
}
static bool wr_tm(hcp_ctx *c, uint64_t at, const ctm *t) {
    uint8_t b[36];
    const int32_t *f = &t->sec;
    for (int i = 0; i < 9; i++) hcp_put32(b + 4 * i, (uint32_t)f[i]);
    return hcp_wr(c, at, b, 36);
}

/* ---- the time zone ---- */

/* _tzset: TZ is not in the simulated environment, so the system's zone, as msvcrt takes it from
 * GetTimeZoneInformation (hcpsim run --timezone; UTC by default): _timezone its bias in seconds,
 * _daylight whether it has daylight saving time, _dstbias the daylight bias in seconds (0
 * without), _tzname its standard and daylight names (at most 63 characters each). */
static void tzset(hcp_ctx *c) {
    hcp_crt *r = hcp_crt_of(c);
    if (!r) return;
    int32_t bias, dst_bias;
    bool has_dst;
    const char *names[2];
    hcp_tz_zone(c->p, &bias, &dst_bias, &has_dst, &names[0], &names[1]);
    hcp_wr32(c, r->ad.timezone, (uint32_t)(bias * 60));
    hcp_wr32(c, r->ad.daylight, has_dst);
    hcp_wr32(c, r->ad.dstbias, has_dst ? (uint32_t)(dst_bias * 60) : 0);
    for (int i = 0; i < 2; i++) {
        uint64_t s;
        char name[64];
        snprintf(name, sizeof name, "%s", names[i]);
        if (hcp_rdp(c, r->ad.tzname + (uint64_t)i * c->w, &s)) hcp_wr(c, s, name, strlen(name) + 1);
    }
    r->tz_set = true;
}

/* Local seconds of UTC seconds t in the process's zone, and whether daylight time is in force. */
static int64_t to_local(hcp_ctx *c, int64_t t, bool *dst) {
    uint64_t ft = (uint64_t)(t + EPOCH_1601_TO_1970) * TICKS_PER_SEC;
    return t - (int64_t)hcp_tz_bias_at(c->p, ft, dst) * 60;
}
static void tzset_once(hcp_ctx *c) {
    hcp_crt *r = hcp_crt_of(c);
    if (r && !r->tz_set) tzset(c);
}
uint64_t hcp_crt__tzset(hcp_ctx *c) {
    tzset(c);
    return 0;
}
static int32_t rd_var(hcp_ctx *c, uint64_t at) {
    uint8_t b[4] = {0};
    hcp_rd(c, at, b, 4);
    return (int32_t)hcp_get32(b);
}
uint64_t hcp_crt__get_timezone(hcp_ctx *c, const hcp_crt__get_timezone_args *a) {
    hcp_crt *r = hcp_crt_of(c);
    if (!a->_Seconds) return hcp_crt_invalid(c, CRT_EINVAL);
    hcp_wr32(c, a->_Seconds, r ? (uint32_t)rd_var(c, r->ad.timezone) : 0);
    return 0;
}
uint64_t hcp_crt__get_daylight(hcp_ctx *c, const hcp_crt__get_daylight_args *a) {
    hcp_crt *r = hcp_crt_of(c);
    if (!a->_Hours) return hcp_crt_invalid(c, CRT_EINVAL);
    hcp_wr32(c, a->_Hours, r ? (uint32_t)rd_var(c, r->ad.daylight) : 0);
    return 0;
}
uint64_t hcp_crt__get_dstbias(hcp_ctx *c, const hcp_crt__get_dstbias_args *a) {
    hcp_crt *r = hcp_crt_of(c);
    if (!a->_Seconds) return hcp_crt_invalid(c, CRT_EINVAL);
    hcp_wr32(c, a->_Seconds, r ? (uint32_t)rd_var(c, r->ad.dstbias) : 0);
    return 0;
}
/* _get_tzname(&len, buf, size, index): the name and its length with the terminator */
uint64_t hcp_crt__get_tzname(hcp_ctx *c, const hcp_crt__get_tzname_args *a) {
    hcp_crt *r = hcp_crt_of(c);
    if (!a->_ReturnValue || (!a->_Buffer && a->_SizeInBytes) || (a->_Buffer && !a->_SizeInBytes) ||
        (uint32_t)a->_Index > 1) {
        if (a->_ReturnValue) hcp_wr32(c, a->_ReturnValue, 0);
        return hcp_crt_invalid(c, CRT_EINVAL);
    }
    uint64_t s = 0;
    if (!r || !hcp_rdp(c, r->ad.tzname + (uint64_t)a->_Index * c->w, &s)) return 0;
    char *name = hcp_gstr(c, s, NULL);
    if (!name) return 0;
    size_t n = strlen(name) + 1;
    hcp_wr32(c, a->_ReturnValue, (uint32_t)n);
    uint32_t res = 0;
    if (a->_Buffer) {
        if (n > a->_SizeInBytes)
            res = CRT_ERANGE;
        else
            hcp_wr(c, a->_Buffer, name, n);
    }
    free(name);
    return res;
}
/* the UCRT's __daylight(), __timezone(), __dstbias(), __tzname(): the variables' addresses */
uint64_t hcp_ucrt___daylight(hcp_ctx *c) {
    hcp_crt *r = hcp_crt_of(c);
    return r ? r->ad.daylight : 0;
}
uint64_t hcp_ucrt___timezone(hcp_ctx *c) {
    hcp_crt *r = hcp_crt_of(c);
    return r ? r->ad.timezone : 0;
}
uint64_t hcp_ucrt___dstbias(hcp_ctx *c) {
    hcp_crt *r = hcp_crt_of(c);
    return r ? r->ad.dstbias : 0;
}
uint64_t hcp_ucrt___tzname(hcp_ctx *c) {
    hcp_crt *r = hcp_crt_of(c);
    return r ? r->ad.tzname : 0;
}

/* ---- broken-down times ---- */

/* The thread's struct tm (gmtime and localtime share it, as msvcrt's do). */
static uint64_t tm_buffer(hcp_ctx *c) {
    hcp_crt_thread *t = hcp_crt_thread_of(c);
    if (!t) return 0;
    if (!t->tm_at) t->tm_at = hcp_heap_alloc(c, 36);
    return t->tm_at;
}
/* msvcrt's _gmtime_s and _localtime_s fill a tm with -1 on a bad time */
static void invalid_tm(hcp_ctx *c, uint64_t at) {
    ctm t;
    memset(&t, 0xFF, sizeof t);
    wr_tm(c, at, &t);
}
/* a time's broken-down form, UTC or local (local = UTC here, after _tzset) */
static uint32_t to_tm(hcp_ctx *c, uint64_t res, uint64_t secs, bool local, unsigned w, bool buffer_form) {
    int64_t t;
    if (!secs) {
        if (res && !buffer_form) invalid_tm(c, res);
        return hcp_crt_invalid(c, CRT_EINVAL);
    }
    if (!rd_time(c, secs, w, &t)) return CRT_EINVAL;
    if (t < 0 || t > (w == 8 ? MAX_TIME64 : MAX_TIME32)) {
        if (res && !buffer_form) invalid_tm(c, res);
        if (!buffer_form) return hcp_crt_invalid(c, CRT_EINVAL);
        hcp_crt_set_errno(c, CRT_EINVAL);
        return CRT_EINVAL;
    }
    bool dst = false;
    if (local) {
        tzset_once(c);
        t = to_local(c, t, &dst);
    }
    ctm o;
    breakdown(t, &o);
    o.isdst = dst;
    wr_tm(c, res, &o);
    return 0;
}
uint64_t hcp_crt_gmtime(hcp_ctx *c, const hcp_crt_gmtime_args *a) { /* _gmtime32, _gmtime64 */
    uint64_t b = tm_buffer(c);
    return b && !to_tm(c, b, a->_Time, false, tw(c), true) ? b : 0;
}
uint64_t hcp_crt_localtime(hcp_ctx *c, const hcp_crt_localtime_args *a) { /* _localtime32, _localtime64 */
    uint64_t b = tm_buffer(c);
    return b && !to_tm(c, b, a->_Time, true, tw(c), true) ? b : 0;
}
uint64_t hcp_crt__gmtime64_s(hcp_ctx *c, const hcp_crt__gmtime64_s_args *a) { /* _gmtime32_s */
    if (!a->_Tm) return hcp_crt_invalid(c, CRT_EINVAL);
    return to_tm(c, a->_Tm, a->_Time, false, tw(c), false);
}
uint64_t hcp_crt__localtime64_s(hcp_ctx *c, const hcp_crt__localtime64_s_args *a) { /* _localtime32_s */
    if (!a->_Tm) return hcp_crt_invalid(c, CRT_EINVAL);
    return to_tm(c, a->_Tm, a->_Time, true, tw(c), false);
}

/* mktime, _mktime32, _mktime64 (local), _mkgmtime* (UTC): the fields normalised as msvcrt does
 * (the month first, then the rest as seconds added to the first of the month), the tm rewritten;
 * -1 and EINVAL outside 1970..3000 */
static uint64_t make_time(hcp_ctx *c, uint64_t at, bool local) {
    unsigned w = tw(c);
    ctm t;
    if (!at) { /* documented: the invalid-parameter handler, EINVAL, -1 */
        hcp_crt_invalid(c, CRT_EINVAL);
        return ret_time(-1, w);
    }
    if (!rd_tm(c, at, &t)) return 0;
    int64_t year = (int64_t)t.year + t.mon / 12;
    int mon = t.mon % 12;
    if (mon < 0) {
        mon += 12;
        year--;
    }
    if (year < 70 || year > 1100) {
        hcp_crt_set_errno(c, CRT_EINVAL);
        return ret_time(-1, w);
    }
    int64_t secs = days_from_civil(year + 1900, mon + 1, 1) * 86400 + (int64_t)t.sec + (int64_t)t.min * 60 +
                   (int64_t)t.hour * 3600 + ((int64_t)t.mday - 1) * 86400;
    if (local) {
        /* local to UTC as msvcrt's mktime does: the standard bias, and the daylight bias too when
         * tm_isdst > 0, or when it is negative and daylight time is in force then; the tm is
         * rewritten as localtime gives the result */
        tzset_once(c);
        hcp_crt *r = hcp_crt_of(c);
        int32_t zone = r ? rd_var(c, r->ad.timezone) : 0, dstbias = r ? rd_var(c, r->ad.dstbias) : 0;
        secs += zone;
        bool dst = t.isdst > 0;
        if (t.isdst < 0 && secs + dstbias >= -EPOCH_1601_TO_1970) to_local(c, secs + dstbias, &dst);
        if (dst) secs += dstbias;
        if (secs >= 0) {
            ctm o;
            bool now_dst = false;
            breakdown(to_local(c, secs, &now_dst), &o);
            o.isdst = now_dst;
            wr_tm(c, at, &o);
        }
    } else if (secs >= 0) {
        ctm o;
        breakdown(secs, &o);
        wr_tm(c, at, &o);
    }
    if (secs < 0) {
        hcp_crt_set_errno(c, CRT_EINVAL);
        return ret_time(-1, w);
    }
    if (w == 4 && secs > MAX_TIME32) return ret_time(-1, w); /* _mktime32 past 2038: -1, errno untouched */
    return ret_time(secs, w);
}
uint64_t hcp_crt_mktime(hcp_ctx *c, const hcp_crt_mktime_args *a) { return make_time(c, a->_Tm, true); }
uint64_t hcp_crt__mkgmtime(hcp_ctx *c, const hcp_crt__mkgmtime_args *a) { return make_time(c, a->_Tm, false); }

/* ---- text ---- */

static const char *const wday_s[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
static const char *const wday_l[] = {"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"};
static const char *const mon_s[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
static const char *const mon_l[] = {"January", "February", "March",     "April",   "May",      "June",
                                    "July",    "August",   "September", "October", "November", "December"};

/* asctime's 26 bytes: "Wed Jan 02 02:03:55 1980\n" (the UCRT pads the day with a space) */
static bool asc(hcp_ctx *c, const ctm *t, char out[26]) {
    if (t->sec < 0 || t->sec > 59 || t->min < 0 || t->min > 59 || t->hour < 0 || t->hour > 23 || t->mon < 0 ||
        t->mon > 11 || t->wday < 0 || t->wday > 6 || t->year < 0 || t->mday < 0 ||
        t->mday > mdays[leap(1900 + (int64_t)t->year)][t->mon])
        return false;
    snprintf(out, 26, hcp_crt_is_ucrt(c) ? "%s %s %2d %02d:%02d:%02d %c%03d\n" : "%s %s %02d %02d:%02d:%02d %c%03d\n",
             wday_s[t->wday], mon_s[t->mon], t->mday, t->hour, t->min, t->sec, '1' + (t->year + 900) / 1000,
             (t->year + 900) % 1000);
    return true;
}
static uint64_t asc_buffer(hcp_ctx *c) {
    hcp_crt_thread *t = hcp_crt_thread_of(c);
    if (!t) return 0;
    if (!t->asctime_at) t->asctime_at = hcp_heap_alloc(c, 64);
    return t->asctime_at;
}
static uint64_t asc_out(hcp_ctx *c, const ctm *t) {
    char s[26];
    if (!asc(c, t, s)) {
        hcp_crt_set_errno(c, CRT_EINVAL);
        return 0;
    }
    uint64_t b = asc_buffer(c);
    if (b) hcp_wr(c, b, s, 26);
    return b;
}
uint64_t hcp_crt_asctime(hcp_ctx *c, const hcp_crt_asctime_args *a) {
    ctm t;
    if (!a->_Tm) {
        hcp_crt_set_errno(c, CRT_EINVAL);
        return 0;
    }
    if (!rd_tm(c, a->_Tm, &t)) return 0;
    return asc_out(c, &t);
}
uint64_t hcp_crt_asctime_s(hcp_ctx *c, const hcp_crt_asctime_s_args *a) {
    if (!a->_Buf) return hcp_crt_invalid(c, CRT_EINVAL);
    if (a->_SizeInBytes) hcp_wr(c, a->_Buf, "", 1);
    if (a->_SizeInBytes < 26 || !a->_Tm) return hcp_crt_invalid(c, CRT_EINVAL);
    ctm t;
    char s[26];
    if (!rd_tm(c, a->_Tm, &t)) return 0;
    if (!asc(c, &t, s)) return hcp_crt_invalid(c, CRT_EINVAL);
    hcp_wr(c, a->_Buf, s, 26);
    return 0;
}
/* ctime, _ctime32, _ctime64: asctime(localtime(t)) */
uint64_t hcp_crt_ctime(hcp_ctx *c, const hcp_crt_ctime_args *a) {
    uint64_t b = tm_buffer(c);
    if (!b || to_tm(c, b, a->_Time, true, tw(c), true)) return 0;
    ctm t;
    if (!rd_tm(c, b, &t)) return 0;
    return asc_out(c, &t);
}
uint64_t hcp_crt__ctime64_s(hcp_ctx *c, const hcp_crt__ctime64_s_args *a) { /* _ctime32_s */
    unsigned w = tw(c);
    if (!a->_Buf || a->_SizeInBytes < 26) return hcp_crt_invalid(c, CRT_EINVAL);
    hcp_wr(c, a->_Buf, "", 1);
    int64_t tt;
    if (!a->_Time) return hcp_crt_invalid(c, CRT_EINVAL);
    if (!rd_time(c, a->_Time, w, &tt)) return 0;
    if (tt <= 0) return hcp_crt_invalid(c, CRT_EINVAL);
    uint64_t b = tm_buffer(c);
    if (!b || to_tm(c, b, a->_Time, true, w, true)) return CRT_EINVAL;
    ctm t;
    char s[26];
    if (!rd_tm(c, b, &t) || !asc(c, &t, s)) return CRT_EINVAL;
    hcp_wr(c, a->_Buf, s, 26);
    return 0;
}

/* _strdate, _strtime: "MM/DD/YY", "HH:MM:SS" of the local time now */
uint64_t hcp_crt__strdate(hcp_ctx *c, const hcp_crt__strdate_args *a) {
    ctm t;
    breakdown(now_seconds(c), &t);
    char s[40];
    snprintf(s, sizeof s, "%02d/%02d/%02d", t.mon + 1, t.mday, t.year % 100);
    hcp_wr(c, a->_Buffer, s, 9);
    return a->_Buffer;
}
uint64_t hcp_crt__strtime(hcp_ctx *c, const hcp_crt__strtime_args *a) {
    ctm t;
    breakdown(now_seconds(c), &t);
    char s[40];
    snprintf(s, sizeof s, "%02d:%02d:%02d", t.hour, t.min, t.sec);
    hcp_wr(c, a->_Buffer, s, 9);
    return a->_Buffer;
}

/* _ftime, _ftime32, _ftime64: struct timeb {time_t time; unsigned short millitm; short timezone (minutes
 * west); short dstflag} */
uint64_t hcp_crt__ftime64(hcp_ctx *c, const hcp_crt__ftime64_args *a) {
    unsigned w = tw(c);
    tzset_once(c);
    uint64_t ft = system_filetime(c);
    int64_t t = (int64_t)(ft / TICKS_PER_SEC) - EPOCH_1601_TO_1970;
    uint8_t b[16] = {0};
    hcp_put64(b, (uint64_t)t);
    hcp_put16(b + w, (uint16_t)(ft % TICKS_PER_SEC / 10000));
    hcp_put16(b + w + 2, 0);
    hcp_put16(b + w + 4, 0);
    hcp_wr(c, a->_Time, b, w + 6);
    return 0;
}

/* ---- strftime ---- */

typedef struct sout {
    char *b;
    size_t n, max;
} sout;
static bool put(sout *o, const char *s) {
    for (; *s; s++) {
        if (o->n >= o->max) return false;
        o->b[o->n++] = *s;
    }
    return true;
}
/* a number in [lo, hi] with `digits` zero-padded digits (0: none); outside: EINVAL */
static int num(hcp_ctx *c, sout *o, int64_t v, int digits, int64_t lo, int64_t hi) {
    if (v < lo || v > hi) {
        hcp_crt_invalid(c, CRT_EINVAL);
        return -1;
    }
    char s[24];
    snprintf(s, sizeof s, "%0*lld", digits, (long long)v);
    return put(o, s) ? 1 : 0;
}

/* One conversion; 1 done, 0 no room, -1 invalid. */
static int conv(hcp_ctx *c, sout *o, char f, bool alt, const ctm *t, bool ucrt) {
    int d2 = alt ? 0 : 2;
    int64_t year = (int64_t)t->year + 1900;
    char s[64];
    int r;
    switch (f) {
    case 'a':
    case 'A':
        if (t->wday < 0 || t->wday > 6) return hcp_crt_invalid(c, CRT_EINVAL), -1;
        return put(o, f == 'a' ? wday_s[t->wday] : wday_l[t->wday]);
    case 'b':
    case 'B':
    case 'h':
        if (f == 'h' && !ucrt) break;
        if (t->mon < 0 || t->mon > 11) return hcp_crt_invalid(c, CRT_EINVAL), -1;
        return put(o, f == 'B' ? mon_l[t->mon] : mon_s[t->mon]);
    case 'c':
        if (ucrt && !alt) { /* the UCRT's C locale: "%a %b %e %T %Y" */
            if ((r = conv(c, o, 'a', false, t, ucrt)) != 1 || !put(o, " ") ||
                (r = conv(c, o, 'b', false, t, ucrt)) != 1 || !put(o, " ") ||
                (r = conv(c, o, 'e', false, t, ucrt)) != 1 || !put(o, " ") ||
                (r = conv(c, o, 'T', false, t, ucrt)) != 1 || !put(o, " "))
                return r < 0 ? -1 : 0;
            return conv(c, o, 'Y', false, t, ucrt);
        }
        if ((r = conv(c, o, 'x', alt, t, ucrt)) != 1) return r;
        if (!put(o, " ")) return 0;
        return conv(c, o, 'X', false, t, ucrt);
    case 'x': /* "MM/dd/yy", or "dddd, MMMM dd, yyyy" with '#' */
        if (alt) {
            if ((r = conv(c, o, 'A', false, t, ucrt)) != 1 || !put(o, ", ") ||
                (r = conv(c, o, 'B', false, t, ucrt)) != 1 || !put(o, " ") || (r = num(c, o, t->mday, 2, 1, 31)) != 1 ||
                !put(o, ", "))
                return r < 0 ? -1 : 0;
            return num(c, o, year, 4, 0, 9999);
        }
        if ((r = num(c, o, t->mon + 1, 2, 1, 12)) != 1 || !put(o, "/") || (r = num(c, o, t->mday, 2, 1, 31)) != 1 ||
            !put(o, "/"))
            return r < 0 ? -1 : 0;
        return num(c, o, year % 100, 2, 0, 99);
    case 'X':
    case 'T':
        if (f == 'T' && !ucrt) break;
        if ((r = num(c, o, t->hour, f == 'T' ? d2 : 2, 0, 23)) != 1 || !put(o, ":") ||
            (r = num(c, o, t->min, f == 'T' ? d2 : 2, 0, 59)) != 1 || !put(o, ":"))
            return r < 0 ? -1 : 0;
        return num(c, o, t->sec, f == 'T' ? d2 : 2, 0, 60);
    case 'd': return num(c, o, t->mday, d2, 1, 31);
    case 'e': {
        if (!ucrt) break;
        size_t at = o->n;
        if ((r = num(c, o, t->mday, d2, 1, 31)) != 1) return r;
        if (!alt && o->n - at == 2 && o->b[at] == '0') o->b[at] = ' ';
        return 1;
    }
    case 'H': return num(c, o, t->hour, d2, 0, 23);
    case 'I':
        if (t->hour < 0 || t->hour > 23) return hcp_crt_invalid(c, CRT_EINVAL), -1;
        return num(c, o, (t->hour + 11) % 12 + 1, d2, 1, 12);
    case 'j': return num(c, o, (int64_t)t->yday + 1, alt ? 0 : 3, 1, 366);
    case 'm': return num(c, o, (int64_t)t->mon + 1, d2, 1, 12);
    case 'M': return num(c, o, t->min, d2, 0, 59);
    case 'p':
        if (t->hour < 0 || t->hour > 23) return hcp_crt_invalid(c, CRT_EINVAL), -1;
        return put(o, t->hour < 12 ? "AM" : "PM");
    case 'S': return num(c, o, t->sec, d2, 0, 60);
    case 'w': return num(c, o, t->wday, 0, 0, 6);
    case 'y':
        if (ucrt ? (year < 0 || year > 9999) : year < 1900) return hcp_crt_invalid(c, CRT_EINVAL), -1;
        return num(c, o, year % 100, d2, 0, 99);
    case 'Y': return num(c, o, year, alt ? 0 : 4, 0, 9999);
    case 'U':
    case 'W': {
        if (t->wday < 0 || t->wday > 6 || t->yday < 0 || t->yday > 365) return hcp_crt_invalid(c, CRT_EINVAL), -1;
        int k = f == 'U' ? t->wday : (t->wday ? t->wday - 1 : 6);
        return num(c, o, t->yday / 7 + (k <= t->yday % 7), d2, 0, 53);
    }
    case 'z':
        if (ucrt) { /* the UCRT: +hhmm */
            tzset(c);
            hcp_crt *rr = hcp_crt_of(c);
            int32_t tz = rr ? rd_var(c, rr->ad.timezone) + (t->isdst ? rd_var(c, rr->ad.dstbias) : 0) : 0;
            /* the UCRT's sign: '+' for a zone east of UTC (a negative _timezone), else '-': UTC is -0000 */
            snprintf(s, sizeof s, "%c%02d%02d", tz < 0 ? '+' : '-', abs(tz) / 3600 % 100, abs(tz) / 60 % 60);
            return put(o, s);
        }
        /* msvcrt's %z is the zone's name, as %Z */
        /* fall through */
    case 'Z': {
        tzset(c);
        hcp_crt *rr = hcp_crt_of(c);
        uint64_t sp = 0;
        if (!rr || !hcp_rdp(c, rr->ad.tzname + (t->isdst ? c->w : 0), &sp)) return 0;
        char *name = hcp_gstr(c, sp, NULL);
        if (!name) return 0;
        bool ok = put(o, name);
        free(name);
        return ok;
    }
    case '%': return put(o, "%");
    case 'n':
        if (!ucrt) break;
        return put(o, "\n");
    case 't':
        if (!ucrt) break;
        return put(o, "\t");
    case 'C':
        if (!ucrt) break;
        if (year < 0 || year > 9999) return hcp_crt_invalid(c, CRT_EINVAL), -1;
        return num(c, o, year / 100, d2, 0, 99);
    case 'D':
        if (!ucrt) break;
        if (year < 0 || year > 9999) return hcp_crt_invalid(c, CRT_EINVAL), -1;
        if ((r = num(c, o, (int64_t)t->mon + 1, d2, 1, 12)) != 1 || !put(o, "/") ||
            (r = num(c, o, t->mday, d2, 1, 31)) != 1 || !put(o, "/"))
            return r < 0 ? -1 : 0;
        return num(c, o, year % 100, d2, 0, 99);
    case 'F':
        if (!ucrt) break;
        if ((r = num(c, o, year, alt ? 0 : 4, 0, 9999)) != 1 || !put(o, "-") ||
            (r = num(c, o, (int64_t)t->mon + 1, d2, 1, 12)) != 1 || !put(o, "-"))
            return r < 0 ? -1 : 0;
        return num(c, o, t->mday, d2, 1, 31);
    case 'R':
        if (!ucrt) break;
        if ((r = num(c, o, t->hour, d2, 0, 23)) != 1 || !put(o, ":")) return r < 0 ? -1 : 0;
        return num(c, o, t->min, d2, 0, 59);
    case 'r':
        if (!ucrt) break;
        if ((r = conv(c, o, 'I', alt, t, ucrt)) != 1 || !put(o, ":") || (r = num(c, o, t->min, d2, 0, 59)) != 1 ||
            !put(o, ":") || (r = num(c, o, t->sec, d2, 0, 60)) != 1 || !put(o, " "))
            return r < 0 ? -1 : 0;
        return conv(c, o, 'p', false, t, ucrt);
    case 'u':
        if (!ucrt) break;
        if (t->wday < 0 || t->wday > 6) return hcp_crt_invalid(c, CRT_EINVAL), -1;
        return num(c, o, t->wday ? t->wday : 7, 0, 1, 7);
    case 'g':
    case 'G':
    case 'V': {
        if (!ucrt) break;
        if (f != 'V' && (year < 0 || year > 9999)) return hcp_crt_invalid(c, CRT_EINVAL), -1;
        int64_t iy = year;
        int64_t id = (int64_t)t->yday - (t->wday ? t->wday : 7) + 4;
        if (id < 0) {
            iy--;
            id += 365 + leap(iy);
        } else if (id >= 365 + leap(iy)) {
            id -= 365 + leap(iy);
            iy++;
        }
        if (f == 'G') return num(c, o, iy, 4, 0, 9999);
        if (f == 'g') return num(c, o, iy % 100, 2, 0, 99);
        return num(c, o, id / 7 + 1, d2, 0, 53);
    }
    default: break;
    }
    hcp_crt_invalid(c, CRT_EINVAL); /* an unknown conversion */
    return -1;
}

/* strftime(str, max, format, tm); wcsftime the same in UTF-16 (its text is ASCII here) */
uint64_t hcp_crt_strftime(hcp_ctx *c, const hcp_crt_strftime_args *a) {
    bool wide = c->ex->name[0] == 'w', ucrt = hcp_crt_is_ucrt(c);
    unsigned w = wide ? 2 : 1;
    if (!a->_Buf || !a->_SizeInBytes) return hcp_crt_invalid(c, CRT_EINVAL), 0;
    uint16_t z = 0;
    if (!a->_Format) {
        hcp_wr(c, a->_Buf, &z, w);
        return hcp_crt_invalid(c, CRT_EINVAL), 0;
    }
    size_t flen = 0;
    char *f = NULL;
    if (wide) {
        uint16_t u[1024];
        for (;;) { /* ASCII formats: a wide one is read unit by unit */
            uint8_t b[2];
            if (flen >= 1023 || !hcp_rd(c, a->_Format + 2 * flen, b, 2)) break;
            u[flen] = hcp_get16(b);
            if (!u[flen]) break;
            flen++;
        }
        f = malloc(flen + 1);
        if (f) {
            for (size_t i = 0; i < flen; i++) f[i] = u[i] < 128 ? (char)u[i] : '?';
            f[flen] = 0;
        }
    } else {
        f = hcp_gstr(c, a->_Format, &flen);
    }
    if (!f) return 0;
    ctm t;
    memset(&t, 0, sizeof t);
    bool have_tm = a->_Tm && rd_tm(c, a->_Tm, &t);
    sout o = {malloc(a->_SizeInBytes > 65536 ? 65536 : (size_t)a->_SizeInBytes), 0,
              a->_SizeInBytes > 65536 ? 65536 : (size_t)a->_SizeInBytes};
    int r = 1;
    for (const char *p = f; *p && o.b && o.n < o.max; p++) {
        if (*p != '%') {
            o.b[o.n++] = *p;
            continue;
        }
        p++;
        bool alt = *p == '#';
        if (alt) p++;
        if (ucrt && (*p == 'E' || *p == 'O')) p++; /* the UCRT skips ISO's E and O modifiers */
        if (!have_tm) {
            r = -1;
            hcp_crt_invalid(c, CRT_EINVAL);
            break;
        }
        r = conv(c, &o, *p, alt, &t, ucrt);
        if (r <= 0) break;
        if (!*p) break;
    }
    uint64_t res = 0;
    if (!o.b) {
        res = 0;
    } else if (r < 0) { /* invalid: an empty string */
        hcp_wr(c, a->_Buf, &z, w);
    } else if (r == 0 || o.n >= o.max) { /* no room for the terminator */
        hcp_wr(c, a->_Buf, &z, w);
        hcp_crt_set_errno(c, CRT_ERANGE);
    } else {
        uint8_t *b = malloc((o.n + 1) * w);
        if (b) {
            for (size_t i = 0; i <= o.n; i++) {
                uint8_t ch = i < o.n ? (uint8_t)o.b[i] : 0;
                if (wide)
                    hcp_put16(b + 2 * i, ch);
                else
                    b[i] = ch;
            }
            hcp_wr(c, a->_Buf, b, (o.n + 1) * w);
            free(b);
        }
        res = o.n;
    }
    free(o.b);
    free(f);
    return res;
}
