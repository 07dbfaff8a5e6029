/* sim/engine.c — where a machine's Unicorn engine comes from and goes to.
 *
 * By default each machine opens its own engine (uc_open) and closes it.  A
 * process that builds many short machines in a row (the fuzz targets of
 * scenarios/fuzz/) may ask for recycling instead: a closed machine's engine is
 * scrubbed and kept as a spare (up to 16), and the next machine takes one.  Opening
 * an engine costs about 0.5 ms, and 3-5 ms under AddressSanitizer (Unicorn's
 * first use builds its translation cache, hash tables and CPU), against well
 * under 0.1 ms for the scrub.
 *
 * Scrubbing gives the next machine an engine that looks as a fresh one does
 * to everything sim/ uses: the closing machine deletes its hooks (cpu.c),
 * then every mapping is removed, the translation cache is flushed (no block
 * translated with the old hooks or code survives), and the CPU state is
 * restored from the context the closing machine saved before any guest code
 * ran on the engine (the fresh state: a recycled engine is restored to it
 * before it is reused, so each machine's saved context is that same state).
 * A machine then registers its hooks, sets its exits and maps its memory
 * exactly as on a fresh engine.  What the scrub cannot reach (Unicorn's
 * internal allocations, its code buffer) carries no guest-visible state: the
 * same engine already serves every call of every thread of a machine in turn,
 * each starting from the saved context.  scenarios/fuzz/regress_test.c checks
 * that recycled and fresh engines give identical results, counters, clocks
 * and memory on every guest seed and regression.
 *
 * After SIM_ENGINE_MAX_USES machines an engine is closed anyway, which bounds
 * whatever Unicorn might accumulate from one mapping set to the next. */
#include "sim/sim_int.h"

#define SIM_ENGINE_MAX_USES 1000
#define SIM_ENGINE_SPARES 16 /* a scenario may hold several machines at once (conformance files: dozens) */

static bool recycling;
static int nspare;
static uc_engine *spare[SIM_ENGINE_SPARES];
static uc_arch spare_arch[SIM_ENGINE_SPARES];  /* what each spare emulates: only a machine of */
static uc_mode spare_mode[SIM_ENGINE_SPARES];  /* the same ISA takes it */
static unsigned spare_uses[SIM_ENGINE_SPARES]; /* machines each spare has served */
static unsigned long reuses;                   /* machines that took a spare */

void sim_engine_recycle(bool on) {
    recycling = on;
    pmu_cache_recycle(on); /* the cache model's tag arrays go the same way */
    while (!on && nspare > 0) uc_close(spare[--nspare]);
}

bool sim_engine_recycling(void) { return recycling; }

unsigned long sim_engine_reuses(void) { return reuses; }

sim_err sim_engine_open(uc_arch arch, uc_mode mode, uc_engine **uc, unsigned *uses) {
    for (int i = nspare - 1; i >= 0; i--) {
        if (spare_arch[i] != arch || spare_mode[i] != mode) continue;
        *uc = spare[i];
        *uses = spare_uses[i];
        for (int k = i; k + 1 < nspare; k++) { /* keep the others in their order */
            spare[k] = spare[k + 1];
            spare_uses[k] = spare_uses[k + 1];
            spare_arch[k] = spare_arch[k + 1];
            spare_mode[k] = spare_mode[k + 1];
        }
        nspare--;
        reuses++;
        return SIM_OK;
    }
    *uses = 0;
    return uc_open(arch, mode, uc) == UC_ERR_OK ? SIM_OK : SIM_ERR_UNICORN;
}

/* Every mapping removed, no translated block left, the CPU state `fresh`. */
static bool scrub(uc_engine *uc, uc_context *fresh) {
    uc_mem_region *r = NULL;
    uint32_t n = 0;
    if (uc_mem_regions(uc, &r, &n) != UC_ERR_OK) return false;
    bool ok = true;
    /* Translated blocks go with their memory: uc_mem_unmap drops them in Unicorn 2.0.1,
     * and they are invalidated here too, while still mapped, so that no version relies on
     * it (uc_ctl_flush_tlb instead would zero Unicorn's whole 1 GiB code buffer: 0.15 s).
     * Blocks exist only where the guest can execute; sim/ never changes a protection. */
    for (uint32_t i = 0; i < n && ok; i++) {
        if (r[i].perms & UC_PROT_EXEC) ok = uc_ctl_remove_cache(uc, r[i].begin, r[i].end + 1) == UC_ERR_OK;
        if (ok) ok = uc_mem_unmap(uc, r[i].begin, (size_t)(r[i].end - r[i].begin + 1)) == UC_ERR_OK;
    }
    uc_free(r);
    /* Unicorn frees deleted hooks when a run ends: one that stops at once (nothing is
     * mapped), so an engine holds no memory of the machine that used it. */
    if (ok) (void)uc_emu_start(uc, 0, 0, 0, 0); /* a count would add a hook and flush all translations */
    return ok && uc_context_restore(uc, fresh) == UC_ERR_OK;
}

void sim_engine_close(uc_arch arch, uc_mode mode, uc_engine *uc, unsigned uses, uc_context *fresh) {
    if (!uc) return;
    if (recycling && nspare < SIM_ENGINE_SPARES && fresh && uses + 1 < SIM_ENGINE_MAX_USES && scrub(uc, fresh)) {
        spare[nspare] = uc;
        spare_arch[nspare] = arch;
        spare_mode[nspare] = mode;
        spare_uses[nspare++] = uses + 1;
        return;
    }
    uc_close(uc);
}
