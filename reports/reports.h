/* reports — report and trace writers of hcpsim.
 *
 * Writers read what sim/ and api/ publish (scheduler records, thread counter
 * banks) and write files; they are called by the CLI edge (scenarios/).
 * Output is a pure function of what the simulator recorded: no host time, no
 * pointers, integer arithmetic only, so two runs give byte-identical files.
 * Includes sim/ and api/; no Lua. */
#ifndef HCPSIM_REPORTS_H
#define HCPSIM_REPORTS_H

#include "sim/sim.h"

/* ---- Perfetto / Chrome trace-event JSON (reports/README.md describes the file) ---------- */

typedef struct rep_trace rep_trace;

/* Starts a trace that will be written to `path`.  The events go to
 * "PATH.tmp" (opened here, so an unwritable path fails before anything
 * runs); `path` itself appears only when rep_trace_close() succeeds.
 * Returns NULL with errno set when PATH.tmp cannot be opened or memory is
 * exhausted.  The writer owns a copy of `path`. */
rep_trace *rep_trace_open(const char *path);

/* Observes machine m from now on: one sim_observer slot of m.  Attach right
 * after sim_machine_new(), before any thread exists, so every thread is seen
 * from its creation.  Machines are numbered in the order they are attached
 * (machine k gets pids 2k+1 and 2k+2).  Returns 0, or -1 when m has no free
 * observer slot or host memory is exhausted (nothing is traced for m then). */
int rep_trace_attach(rep_trace *tr, sim_machine *m);

/* Ends the trace of m: closes the spans still open at m's final time (the
 * latest CPU clock), removes the observer.  Call before sim_machine_free(m);
 * after it the writer never touches m.  A machine that was not attached is
 * ignored. */
void rep_trace_detach(rep_trace *tr, sim_machine *m);

/* Completes the file: closes the spans of machines still attached at the
 * last time they recorded (without touching the machines), writes the
 * trailer, and renames PATH.tmp to PATH.  On a write or rename error,
 * PATH.tmp is removed.  Frees tr in every case.  Returns 0 or an errno value.
 * rep_trace_close(NULL) returns 0. */
int rep_trace_close(rep_trace *tr);

#endif
