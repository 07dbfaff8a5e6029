/* scenarios/fuzz/fuzz.h — the fuzz targets of hcpsim (README.md in this folder).
 *
 * Each target is one function taking arbitrary bytes; it must return 0 and
 * never crash, hang or leak, whatever the bytes.  Built with libFuzzer (make
 * fuzz: -DHCPFZ_LIBFUZZER, one binary per target) or into regress_test.t with
 * the normal compiler, which replays regressions/ and seeds/ through the same
 * functions.  A target that finds a broken invariant (not a crash) calls
 * hcpfz_fail, which aborts with a message, so libFuzzer keeps the input. */
#ifndef HCPSIM_FUZZ_H
#define HCPSIM_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "scenarios/lhcp.h"

/* The targets. */
int hcpfz_lua(const uint8_t *data, size_t size);     /* Lua text as a scenario */
int hcpfz_api(const uint8_t *data, size_t size);     /* structured calls of every hcp/m/t method */
int hcpfz_marshal(const uint8_t *data, size_t size); /* api/ functions on arbitrary guest buffers */
int hcpfz_guest(const uint8_t *data, size_t size);   /* arbitrary guest machine code */
int hcpfz_pe(const uint8_t *data, size_t size);      /* arbitrary bytes as a Windows program (PE image) */
int hcpfz_exports(const uint8_t *data, size_t size); /* every export of api/exports.spec, typed arguments */
int hcpfz_paths(const uint8_t *data, size_t size);   /* a program's file calls against its folder's boundary */
int hcpfz_dll(const uint8_t *data, size_t size);     /* arbitrary bytes as a program's DLL and its unwind data */

/* Per-input limits: each input ends within milliseconds. */
#define HCPFZ_LUA_LIMIT 1000000        /* Lua instructions per input */
#define HCPFZ_MEMORY_LIMIT (64u << 20) /* bytes of Lua heap per input */
#define HCPFZ_MAX_CYCLES 1000000       /* guest cycles per machine (caps max_cycles options) */
#define HCPFZ_GUEST_CYCLES 300000      /* guest cycles per guest-code input */
#define HCPFZ_MAX_MAPPINGS                                                                                             \
    64 /* guest mappings per machine (caps max_mappings options): n of                                                 \
          them cost n^3; under ASan 822 took 50 s, and at 256 the                                                      \
          slowest 3% of api inputs took half the time */
#define HCPFZ_MAX_TRAPS                                                                                                \
    256 /* trap points per machine (caps max_trap_points options): each                                                \
           costs time on every guest call (sim/README.md "Faults") */

/* ---- fz_common.c ----------------------------------------------------------------------- */

/* Input bytes read front to back; reads past the end give zeros. */
typedef struct hcpfz_in {
    const uint8_t *p;
    size_t n;
} hcpfz_in;
uint8_t hcpfz_u8(hcpfz_in *in);
uint16_t hcpfz_u16(hcpfz_in *in);
uint32_t hcpfz_u32(hcpfz_in *in);
uint64_t hcpfz_u64(hcpfz_in *in);
/* Up to n bytes (fewer at the end of the input); *got says how many. */
const uint8_t *hcpfz_take(hcpfz_in *in, size_t n, size_t *got);

/* A scenario Lua state: the sandboxed runtime with the limits above, print
 * swallowed (its arguments still converted), warnings off, `arg` empty, and
 * hcp.machine / m:run capped at HCPFZ_MAX_CYCLES, hcp.machine at
 * HCPFZ_MAX_MAPPINGS.  NULL on host memory
 * exhaustion.  Close with lua_close. */
lua_State *hcpfz_lua_open(void);
/* Runs the function on top of L's stack as the main chunk (strict globals,
 * protected, then the TAP status), as hcpsim run does. */
void hcpfz_lua_main(lua_State *L);

/* The platform two input bits choose (k % 4): win10-x64, win11-arm64, win7-x86,
 * ce2.12-arm, one per guest ISA (targets guest and marshal). */
const struct hcp_platform *hcpfz_platform(unsigned k);

/* Aborts with "hcpsim fuzz: <target>: <message>" on stderr: a broken invariant. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noreturn, format(printf, 2, 3)))
#endif
void hcpfz_fail(const char *target, const char *fmt, ...);

#ifdef HCPFZ_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);
#define HCPFZ_ENTRY(fn)                                                                                                \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fn(data, size); }
#else
#define HCPFZ_ENTRY(fn)
#endif

#endif
