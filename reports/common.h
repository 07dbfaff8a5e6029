/* reports/common.h — what the report and trace writers share (internal to reports/):
 * the names they print, text escaping for JSON strings, HTML and Markdown, and the
 * conversion of cycles to exact nanoseconds.  Everything here is integer arithmetic
 * and pure: the same input gives the same bytes. */
#ifndef HCPSIM_REPORTS_COMMON_H
#define HCPSIM_REPORTS_COMMON_H

#include <stdio.h>

#include "reports/reports.h"

#define REP_NS_PER_S UINT64_C(1000000000)

/* ---- names ---- */

/* The KTHREAD_STATE name of s (sim_thread_state_name), "Unknown" outside the table. */
const char *rep_state_name(int s);
/* KWAIT_REASON r clamped into 0..SIM_WAIT_REASONS-1, and its name. */
static inline int rep_wait_index(int r) { return r >= 0 && r < SIM_WAIT_REASONS ? r : SIM_WAIT_REASONS - 1; }
static inline const char *rep_wait_name(int r) { return sim_wait_reason_name(rep_wait_index(r)); }

/* What a thread did when a schedule interval ended. */
enum { NX_READY = 0, NX_WAITING, NX_TERMINATED, NX_RUNNING };
extern const char *const rep_next_names[4];

/* Switch-marker categories of the timeline, with their colours. */
enum { MK_QUANTUM = 0, MK_DELAY, MK_USER, MK_PREEMPT, MK_YIELD, MK_EXIT, MK_OTHER, MK__COUNT };
extern const char *const rep_mk_names[MK__COUNT];
extern const char *const rep_mk_colors[MK__COUNT];
/* The marker category of an interval that ended with wait reason `why` into `next` (NX_*). */
int rep_mk_of(int why, int next);

/* The counter's name in reports and traces: the event, with ":k" / ":uk" for kernel modes. */
void rep_counter_name(char *buf, size_t n, const pmu_config *pc, int i);

/* ---- text ---- */

char *rep_dup_str(const char *s);          /* a heap copy (NULL reads as ""), NULL when out of memory */
char *rep_clean_utf8(const char *s);       /* a heap copy that is valid UTF-8: bad bytes become U+FFFD */
void rep_put_html(FILE *f, const char *s); /* escaped for HTML/XML text and attributes */
void rep_put_md(FILE *f, const char *s);   /* escaped for a Markdown table cell */

/* ---- time and numbers ---- */

/* cycles * 10^9 / freq, rounded down, exact for any frequency. */
uint64_t rep_ns_of(uint64_t freq, uint64_t cycles);
/* "1234.567": microseconds with three decimals, exact. */
const char *rep_us_str(char *buf, size_t n, uint64_t ns);
/* "93.12": percent of part in whole, rounded down, from integer basis points. */
const char *rep_pct_str(char *buf, size_t n, uint64_t part, uint64_t whole);

/* "1,234,567": an integer with its digits grouped by three (tables and the diff). */
const char *rep_group_u64(char *buf, size_t n, uint64_t v);
const char *rep_group_i64(char *buf, size_t n, int64_t v);
/* rep_group_u64 into one of 16 rotating static buffers: at most 16 uses in one printf. */
const char *rep_g(uint64_t v);

#endif
