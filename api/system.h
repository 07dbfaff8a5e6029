/* api/system.h — the one way to build a simulated Windows system: a platform
 * profile and machine options become the configured sim/ machine, its OS
 * (handles, profiling, ETW) and the call gate guest code enters it through.
 *
 * The option table (hcp_option_at) is the only place a machine option's name,
 * kind, range, unit and documentation live: the Lua binding validates
 * hcp.machine{} against it, the command line takes the same names, `hcpsim
 * describe` prints it, and its defaults are those hcp_system_opts_init
 * gives.  Structured options (pmc, cost, predictor, cache) are listed with
 * their syntax; their fields are checked by their owners (pmu_model/). */
#ifndef HCPSIM_SYSTEM_H
#define HCPSIM_SYSTEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api/hcp_api.h"
#include "api/platform.h"
#include "sim/sim.h"

typedef enum hcp_opt_kind {
    HCP_OPTK_INT,    /* an integer in lo..hi */
    HCP_OPTK_BOOL,   /* true or false */
    HCP_OPTK_NAME,   /* one name of a list (platform, semantics) */
    HCP_OPTK_EVENTS, /* a list of PMU event names (pmc) */
    HCP_OPTK_MODEL,  /* a name or a table of model parameters (cost, predictor, cache) */
} hcp_opt_kind;

typedef struct hcp_option {
    const char *name;
    hcp_opt_kind kind;
    int64_t lo, hi;     /* HCP_OPTK_INT: the range */
    const char *unit;   /* of an integer: "cycles", "bytes", ...; "" when none */
    const char *syntax; /* of a structured option: what it takes (platform: NULL, hcp_platform_names) */
    const char *doc;    /* one line */
    size_t offset;      /* HCP_OPTK_INT / BOOL: where in hcp_system_opts ... */
    unsigned size;      /* ... and its width in bytes (1: bool, 4, 8) */
} hcp_option;

/* The i-th machine option (in the order hcp.machine{} documents and checks
 * them), NULL past the end; the option called `name`, or NULL. */
const hcp_option *hcp_option_at(int i);
const hcp_option *hcp_option_find(const char *name);
/* The closest option name to `name` (a small edit away), or NULL. */
const char *hcp_option_suggest(const char *name);
/* The closest of names[0..n-1] to `name`: at most 1 edit (insertion, deletion, substitution,
 * swap of neighbours) away for names under 5 letters, 2 otherwise; the least by strcmp among
 * equally close ones; NULL when none is that close.  For "did you mean" in messages. */
const char *hcp_suggest(const char *name, const char *const *names, int n);

/* Defaults that are no simulator field's. */
#define HCP_DEFAULT_MAX_THREADS 10000
#define HCP_DEFAULT_MAX_MEMORY (UINT64_C(1) << 30)
#define HCP_DEFAULT_SEED 1

typedef struct hcp_system_opts {
    const hcp_platform *platform;
    hcp_semantics semantics;
    sim_config sim;         /* CPUs, clock, scheduler, PMCs, cost model, limits of sim/ */
    int etw_thread_version; /* Class.Version of the logger's Thread events (0-3) */
    int max_handles;        /* open handles at once */
    int max_threads;        /* threads created over the machine's life */
    uint64_t max_memory;    /* bytes of guest memory a scenario or program may place */
    int64_t seed;           /* the scenario seed (checked; the machine itself draws nothing) */
    bool cache_set;         /* the cache option was given (on or off) rather than left to the PMCs */
    /* Called once the machine exists, before the OS does (and so before any
     * thread): observers that must see everything attach here.  Nonzero fails
     * hcp_system_new with the message it wrote to msg. */
    int (*observe)(void *ud, sim_machine *m, char *msg, size_t msglen);
    void *observe_ud;
} hcp_system_opts;

/* Every option at its default for platform p (NULL: the default profile,
 * win10-x64): the profile's ISA and cost tables, its logger version. */
void hcp_system_opts_init(hcp_system_opts *o, const hcp_platform *p);
/* The value of an integer or boolean option, and setting one: 0, or -1 with
 * "'NAME' = V is out of range (LO..HI)" in msg. */
int64_t hcp_option_get(const hcp_system_opts *o, const hcp_option *opt);
int hcp_option_set(hcp_system_opts *o, const hcp_option *opt, int64_t v, char *msg, size_t msglen);
/* The events of PMC0, PMC1, ... by name ("instructions", "branches:u"): 0, or
 * -1 with the message naming the bad one (1-based, "pmc[2]"). */
int hcp_system_set_pmc(hcp_system_opts *o, const char *const *names, int n, char *msg, size_t msglen);
/* Turns the cache model on or off explicitly. */
void hcp_system_set_cache(hcp_system_opts *o, bool on);

typedef struct hcp_system {
    sim_machine *m;
    hcp_os *os;
    const hcp_platform *platform;
    int max_threads;
    uint64_t max_memory;
} hcp_system;

/* Builds the machine, its OS and gate from o: 0, or -1 with a message (no
 * prefix).  On failure *out keeps what was made: hcp_system_free frees it,
 * after the caller detached what its observe callback attached. */
int hcp_system_new(const hcp_system_opts *o, hcp_system *out, char *msg, size_t msglen);
/* Frees what hcp_system_new made (a zeroed system: nothing). */
void hcp_system_free(hcp_system *s);

#endif
