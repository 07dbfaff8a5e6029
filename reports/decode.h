/* reports/decode.h — API calls as a person reads them (reports/decode.c): the Markdown and HTML
 * reports' decoded calls and the trace's call spans. */
#ifndef HCPSIM_REPORTS_DECODE_H
#define HCPSIM_REPORTS_DECODE_H

#include <jansson.h>
#include <stdbool.h>

#include "api/exports.h"
#include "sim/sim.h"

/* An API call as text with parameter names and decoded values (decode.c): heap, NULL when out of memory. */
char *rep_call_text(const char *fn, bool guest, const json_t *args, const json_t *results, bool done);
/* A guest call's argument as reports keep it (SCHEMA.md "api"): by its export-spec type, an input
 * string as its text read from m (its pointer when unreadable or m is NULL), a floating-point value
 * as "%.17g", INT as its signed value, anything else as the normalised integer. */
json_t *rep_guest_arg(sim_machine *m, hcp_type type, uint64_t v);

#endif
