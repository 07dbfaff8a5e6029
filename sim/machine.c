/* sim/machine.c — machine life cycle, guest memory map, guest heap, threads. */
#define _DEFAULT_SOURCE /* mmap's MAP_ANONYMOUS under -std=c17 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if !defined(_WIN32)
#include <sys/mman.h>
#if !defined(MAP_ANONYMOUS)
#define MAP_ANONYMOUS MAP_ANON
#endif
#endif

#include "sim/sim_int.h"

_Static_assert(SIM_MAX_MAPPINGS_DEFAULT == 1024u && SIM_MAX_MAPPINGS_LIMIT == 3900u,
               "sim_strerror's SIM_ERR_MAPPINGS text names both numbers");
_Static_assert(SIM_MAX_TRAPS_DEFAULT == 1024u && SIM_MAX_TRAPS_LIMIT == 16384u,
               "sim_strerror's SIM_ERR_TRAPS text names both numbers");

const char *sim_strerror(sim_err e) {
    switch (e) {
    case SIM_OK: return "success";
    case SIM_ERR_NOMEM: return "out of memory (host or guest address space)";
    case SIM_ERR_UNMAPPED: return "guest address not mapped";
    case SIM_ERR_PROT: return "guest access not permitted";
    case SIM_ERR_ARG: return "bad argument";
    case SIM_ERR_STATE: return "not valid in this state";
    case SIM_ERR_UNICORN: return "CPU emulator failure";
    case SIM_ERR_MAPPINGS: return "limit reached: guest memory mappings (machine option max_mappings)";
    case SIM_ERR_ARCH: return "guest instruction set not available in this version";
    case SIM_ERR_TRAPS: return "limit reached: trap points in guest code (machine option max_trap_points)";
    }
    return "unknown error";
}

const char *sim_machine_strerror(sim_machine *m, sim_err e) {
    if (!m || (e != SIM_ERR_MAPPINGS && e != SIM_ERR_TRAPS)) return sim_strerror(e);
    if (e == SIM_ERR_TRAPS)
        snprintf(m->errbuf, sizeof m->errbuf,
                 "limit reached: %u trap points in guest code (machine option max_trap_points, at most %u; each "
                 "costs host time on every guest call)",
                 m->cfg.max_trap_points, SIM_MAX_TRAPS_LIMIT);
    else
        snprintf(m->errbuf, sizeof m->errbuf,
                 "limit reached: %u guest memory mappings (machine option max_mappings, at most %u: Unicorn 2.0.1's "
                 "limit)",
                 m->cfg.max_mappings, SIM_MAX_MAPPINGS_LIMIT);
    return m->errbuf;
}

const char *sim_arch_name(sim_arch a) {
    switch (a) {
    case SIM_ARCH_X64: return "x64";
    case SIM_ARCH_X86: return "x86";
    case SIM_ARCH_ARM64: return "arm64";
    case SIM_ARCH_ARM: return "arm";
    }
    return NULL;
}

unsigned sim_arch_ptr_size(sim_arch a) { return a == SIM_ARCH_X86 || a == SIM_ARCH_ARM ? 4 : 8; }

void sim_config_default(sim_config *c) {
    memset(c, 0, sizeof *c);
    c->cpus = 1;
    c->frequency = 3000000000u;
    c->tick = 156250;
    c->quantum = 2;
    c->interrupt_cycles = 2000;
    c->slice = 10000;
    c->max_cycles = 0;
    c->stack_size = 256 * 1024;
    c->precise_faults = true;
    c->pmc.npmc = 3;
    c->pmc.pmc[0] = PMU_EV_INSTRUCTIONS;
    c->pmc.pmc[1] = PMU_EV_CYCLES;
    c->pmc.pmc[2] = PMU_EV_BRANCHES;
    pmu_cost_defaults(&c->cost, PMU_COST_PROFILE_DEFAULT);
    c->predictor = true;
    c->cache = false;
    c->boot_time = SIM_BOOT_TIME_DEFAULT;
}

/* a * b / c, rounded down, exact for every input: the 128-bit product is
 * formed from 32-bit halves and divided bit by bit (128 steps at most); the
 * result saturates at UINT64_MAX, and c = 0 gives UINT64_MAX. */
uint64_t sim_mul_div(uint64_t a, uint64_t b, uint64_t c) {
    if (c == 0) return UINT64_MAX;
    uint64_t al = a & 0xFFFFFFFFu, ah = a >> 32, bl = b & 0xFFFFFFFFu, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (lh & 0xFFFFFFFFu) + (hl & 0xFFFFFFFFu);
    uint64_t lo = (mid << 32) | (ll & 0xFFFFFFFFu);
    uint64_t hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
    if (hi >= c) return UINT64_MAX; /* the quotient needs more than 64 bits */
    if (hi == 0) return lo / c;
    uint64_t q = 0, r = hi; /* r < c throughout */
    for (int i = 63; i >= 0; i--) {
        bool carry = r >> 63;
        r = (r << 1) | ((lo >> i) & 1);
        q <<= 1;
        if (carry || r >= c) {
            r -= c;
            q |= 1;
        }
    }
    return q;
}

static uint64_t page_round(uint64_t n) { return (n + SIM_PAGE - 1) & ~(uint64_t)(SIM_PAGE - 1); }

/* A region's bytes: zero pages the host gives only as they are touched (the 64 MiB heap costs
 * nothing until used), page aligned; the engine maps them (uc_mem_map_ptr) and sim reads them. */
static uint8_t *host_alloc(uint64_t size, void **block) {
#if defined(_WIN32)
    if (size > SIZE_MAX - SIM_PAGE || !(*block = calloc(1, (size_t)size + SIM_PAGE))) return NULL;
    return (uint8_t *)(((uintptr_t)*block + (SIM_PAGE - 1)) & ~(uintptr_t)(SIM_PAGE - 1));
#else
    if (size > SIZE_MAX) return NULL;
    void *p = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    *block = p == MAP_FAILED ? NULL : p;
    return *block;
#endif
}

static void host_free(void *block, uint64_t size) {
#if defined(_WIN32)
    (void)size;
    free(block);
#else
    if (block) munmap(block, (size_t)size);
#endif
}

/* Region table, sorted by base. */
sim_err sim_region_add(sim_machine *m, uint64_t base, uint64_t size, uint32_t prot, region_kind k, int owner) {
    if (m->nregions == m->cap_regions) {
        int nc = m->cap_regions ? m->cap_regions * 2 : 64;
        region *r = realloc(m->regions, (size_t)nc * sizeof *r);
        if (!r) return SIM_ERR_NOMEM;
        m->regions = r;
        m->cap_regions = nc;
    }
    void *block = NULL;
    uint8_t *host = NULL;
    if (k != RK_GUARD) {
        if (k != RK_HEAP && (uint32_t)m->nmaps >= m->cfg.max_mappings) return SIM_ERR_MAPPINGS;
        if (!(host = host_alloc(size, &block))) return SIM_ERR_NOMEM;
    }
    if (k != RK_GUARD && k != RK_HEAP) { /* the heap is mapped as it is used (sim_heap_cover) */
        if (uc_mem_map_ptr(m->uc, base, (size_t)size, prot, host) != UC_ERR_OK) {
            host_free(block, size);
            return SIM_ERR_NOMEM;
        }
        m->nmaps++;
    }
    if (k == RK_HEAP) m->heap_host = host;
    int i = m->nregions;
    while (i > 0 && m->regions[i - 1].base > base) {
        m->regions[i] = m->regions[i - 1];
        i--;
    }
    m->regions[i] = (region){base, size, prot, k, owner, NULL, host, block};
    m->nregions++;
    return SIM_OK;
}

/* The OS heap is one read/write region of the table from the start, all of it
 * zeros until written, but Unicorn maps it only as far as something touched
 * it: a first 64 KiB chunk, then chunks that double the mapped size (at most
 * 11 mappings for 64 MiB, not counted against max_mappings: Unicorn's own
 * limit is about 190 mappings above it).  A machine that enables profiling on
 * a few threads then maps 64 KiB, not 64 MiB, which Unicorn unmaps page by page. */
#define SIM_HEAP_CHUNK0 (64u * 1024u)

bool sim_heap_cover(sim_machine *m, uint64_t addr, uint64_t n) {
    uint64_t lo = m->lay->heap, top = lo + m->lay->heap_size;
    if (n == 0 || addr >= top) return true;
    uint64_t last = n - 1 > UINT64_MAX - addr ? UINT64_MAX : addr + (n - 1);
    if (last < lo) return true;
    uint64_t end = last >= top ? top : last + 1; /* the heap's part of the range ends here */
    while (m->heap_mapped < end) {
        uint64_t used = m->heap_mapped - lo, k = used ? used : SIM_HEAP_CHUNK0;
        if (k > top - m->heap_mapped) k = top - m->heap_mapped;
        if (!m->heap_host || uc_mem_map_ptr(m->uc, m->heap_mapped, (size_t)k, UC_PROT_READ | UC_PROT_WRITE,
                                            m->heap_host + (m->heap_mapped - lo)) != UC_ERR_OK)
            return false;
        m->heap_mapped += k;
    }
    return true;
}

const region *sim_region_find(const sim_machine *m, uint64_t addr) {
    int lo = 0, hi = m->nregions - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        const region *r = &m->regions[mid];
        if (addr < r->base)
            hi = mid - 1;
        else if (addr - r->base >= r->size)
            lo = mid + 1;
        else
            return r;
    }
    return NULL;
}

sim_err sim_machine_new(const sim_config *c, sim_machine **out) {
    *out = NULL;
    const sim_isa *isa = sim_isa_of(c->arch);
    if (!isa) return SIM_ERR_ARCH;
    if (c->os_heap > isa->lay->heap_size || c->max_mappings > SIM_MAX_MAPPINGS_LIMIT ||
        c->max_trap_points > SIM_MAX_TRAPS_LIMIT)
        return SIM_ERR_ARG;
    if (!c->frequency || !c->tick || !c->quantum || c->cpus < 1 || c->cpus > SIM_MAX_CPUS || !c->slice ||
        pmu_cost_check(&c->cost) != PMU_OK)
        return SIM_ERR_ARG;
    sim_machine *m = calloc(1, sizeof *m);
    if (!m) return SIM_ERR_NOMEM;
    m->cfg = *c;
    m->isa = isa;
    if (!m->cfg.max_mappings) m->cfg.max_mappings = SIM_MAX_MAPPINGS_DEFAULT;
    if (!m->cfg.max_trap_points) m->cfg.max_trap_points = SIM_MAX_TRAPS_DEFAULT;
    m->lay = isa->lay;
    if (!m->cfg.stack_size) m->cfg.stack_size = 256 * 1024;
    m->cfg.stack_size = (uint32_t)page_round(m->cfg.stack_size);
    m->max_cycles = c->max_cycles ? c->max_cycles : SIM_DEFAULT_MAX_CYCLES;
    /* tick in cycles = tick (100 ns) x frequency / 10^7; quantum = quantum ticks of it */
    uint64_t tk = sim_mul_div(c->tick, c->frequency, 10000000u);
    m->tick_cycles = tk ? tk : 1;
    if (m->cfg.interrupt_cycles >= m->tick_cycles) m->cfg.interrupt_cycles = (uint32_t)(m->tick_cycles / 2);
    m->quantum_cycles = sim_mul_div(m->tick_cycles, c->quantum, 1);
    m->ncpus = c->cpus;
    m->next_data = m->lay->data;
    m->next_code = m->lay->code;
    m->heap_brk = m->lay->heap;
    m->heap_mapped = m->lay->heap;
    m->heap_end = m->lay->heap + (c->os_heap ? c->os_heap : m->lay->heap_size);
    sim_err e = SIM_OK;
    for (int i = 0; i < m->ncpus && e == SIM_OK; i++) { /* each CPU: its own predictor and caches */
        sim_cpu *cpu = &m->cpus[i];
        cpu->index = i;
        cpu->next_tick = m->tick_cycles;
        if (c->predictor && !(cpu->bp = pmu_bp_new(&c->cost.bp))) e = SIM_ERR_NOMEM;
        if (c->cache && !(cpu->cache = pmu_cache_new(&c->cost.cache))) e = SIM_ERR_NOMEM;
    }
    if (e == SIM_OK) e = sim_cpu_init(m);
    if (e == SIM_OK) e = sim_region_add(m, m->lay->heap, m->lay->heap_size, UC_PROT_READ | UC_PROT_WRITE, RK_HEAP, -1);
    if (e == SIM_OK && !sim_heap_cover(m, m->lay->heap, 1)) e = SIM_ERR_NOMEM;
    if (e == SIM_OK) e = sim_region_add(m, m->lay->sentinel, SIM_PAGE, UC_PROT_READ, RK_SENTINEL, -1);
    if (e == SIM_OK) e = sim_region_add(m, m->lay->scratch, SIM_PAGE, UC_PROT_READ | UC_PROT_WRITE, RK_SCRATCH, -1);
    if (e != SIM_OK) {
        sim_machine_free(m);
        return e;
    }
    *out = m;
    return SIM_OK;
}

void sim_machine_free(sim_machine *m) {
    if (!m) return;
    for (int i = 0; i < m->nthreads; i++) {
        if (m->threads[i]->ctx) uc_context_free(m->threads[i]->ctx);
        if (m->threads[i]->fault_ctx) uc_context_free(m->threads[i]->fault_ctx);
        free(m->threads[i]);
    }
    free(m->threads);
    sim_objects_free(m);
    sim_cpu_fini(m);
    for (int i = 0; i < SIM_MAX_CPUS; i++) {
        pmu_bp_free(m->cpus[i].bp);
        pmu_cache_free(m->cpus[i].cache);
    }
    for (int i = 0; i < m->nregions; i++) { /* after sim_cpu_fini: no mapping uses the bytes any more */
        free(m->regions[i].pp);
        host_free(m->regions[i].host_block, m->regions[i].size);
    }
    free(m->regions);
    free(m->heap_free);
    free(m->free_slots);
    free(m->blocks);
    free(m);
}

const sim_config *sim_machine_config(const sim_machine *m) { return &m->cfg; }
uint64_t sim_quantum_cycles(const sim_machine *m) { return m->quantum_cycles; }
void sim_set_max_cycles(sim_machine *m, uint64_t max_cycles) {
    m->max_cycles = max_cycles ? max_cycles : SIM_DEFAULT_MAX_CYCLES;
}
uint64_t sim_max_cycles(const sim_machine *m) { return m->max_cycles; }

int sim_fault_insn(sim_machine *m, const sim_fault *f, char *text, size_t cap) {
    if (cap) text[0] = '\0';
    cs_insn *in = NULL;
    if (f->nbytes <= 0 || cs_disasm(m->cs, f->bytes, (size_t)f->nbytes, f->address, 1, &in) != 1) return 0;
    int n = (int)in->size;
    if (cap) snprintf(text, cap, "%s%s%s", in->mnemonic, in->op_str[0] ? " " : "", in->op_str);
    cs_free(in, 1);
    return n;
}

/* ---- memory --------------------------------------------------------------------------- */

static bool fits(uint64_t cursor, uint64_t limit, size_t n) {
    uint64_t size = page_round(n ? n : 1);
    return size <= limit - cursor && limit - cursor - size >= SIM_PAGE;
}

/* Moves *cursor past every region that [*cursor, + n and a guard page) would
 * overlap (a fixed mapping, sim_map_fixed); each step passes one region. */
static void skip_taken(sim_machine *m, uint64_t *cursor, uint64_t limit, size_t n) {
    uint64_t size = page_round(n ? n : 1) + SIM_PAGE;
    for (int i = 0; i < m->nregions && fits(*cursor, limit, n); i++) {
        const region *r = &m->regions[i];
        if (r->base < *cursor + size && *cursor < r->base + r->size) *cursor = page_round(r->base + r->size) + SIM_PAGE;
    }
}

static sim_err place(sim_machine *m, uint64_t *cursor, uint64_t limit, size_t n, uint32_t prot, region_kind k,
                     uint64_t *addr) {
    uint64_t size = page_round(n ? n : 1);
    skip_taken(m, cursor, limit, n);
    if (!fits(*cursor, limit, n)) return SIM_ERR_NOMEM;
    uint64_t base = *cursor;
    sim_err e = sim_region_add(m, base, size, prot, k, -1);
    if (e != SIM_OK) return e;
    *cursor = base + size + SIM_PAGE; /* guard page stays unmapped */
    *addr = base;
    return SIM_OK;
}

sim_err sim_code(sim_machine *m, const void *bytes, size_t n, uint64_t *addr) {
    if (!n) return SIM_ERR_ARG;
    skip_taken(m, &m->next_code, m->lay->code_end, n); /* the address place() will choose */
    if (!fits(m->next_code, m->lay->code_end, n)) return SIM_ERR_NOMEM;
    /* Its trap points first, at the address place() will choose: code the
     * engine must not translate is never mapped without its exits. */
    int before = m->nexits;
    sim_err e = sim_cpu_code_traps(m, m->next_code, bytes, n);
    if (e == SIM_OK) e = place(m, &m->next_code, m->lay->code_end, n, UC_PROT_READ | UC_PROT_EXEC, RK_CODE, addr);
    if (e != SIM_OK) {
        m->nexits = before;
        return e;
    }
    e = sim_cpu_exits_sync(m);
    if (e == SIM_OK && uc_mem_write(m->uc, *addr, bytes, n) != UC_ERR_OK) e = SIM_ERR_UNICORN;
    return e;
}

/* ---- fixed mappings ------------------------------------------------------------------------- */

static bool overlaps(uint64_t a, uint64_t n, uint64_t b, uint64_t k) { return a < b + k && b < a + n; }

bool sim_range_free(const sim_machine *m, uint64_t base, uint64_t size) {
    const sim_layout *l = m->lay;
    uint64_t top = m->isa->ptr == 4 ? UINT64_C(0x100000000) : UINT64_C(0x800000000000);
    if (!size || base % SIM_PAGE || size % SIM_PAGE || base < 0x10000 || base >= top || size > top - base) return false;
    if (overlaps(base, size, l->heap, l->heap_size) ||
        overlaps(base, size, l->gate, (uint64_t)SIM_GATE_SERVICES * SIM_GATE_STRIDE) ||
        overlaps(base, size, l->stack, top - l->stack))
        return false;
    for (int i = 0; i < m->nregions; i++)
        if (overlaps(base, size, m->regions[i].base, m->regions[i].size)) return false;
    return true;
}

sim_err sim_map_fixed(sim_machine *m, uint64_t base, uint64_t size, unsigned prot, const void *bytes, size_t n) {
    if (!sim_range_free(m, base, size) || n > size || (n && !bytes) || prot > 7 || size % SIM_PAGE) return SIM_ERR_ARG;
    /* a writable and executable page starts as code: read + execute (wx.c); executable pages are
     * guarded code where the ISA has it (read only to the engine: sim/README.md "Guarded code"),
     * checked as the engine translates them, with no trap points; else trap points as for sim_code */
    bool guarded = (prot & SIM_PROT_EXEC) && m->isa->guard_bad;
    uint32_t up = ((prot & SIM_PROT_READ) ? UC_PROT_READ : 0) | ((prot & SIM_PROT_WRITE) ? UC_PROT_WRITE : 0);
    if (prot & SIM_PROT_EXEC) up = guarded ? UC_PROT_READ : UC_PROT_READ | UC_PROT_EXEC;
    int before = m->nexits;
    sim_err e = SIM_OK;
    if ((prot & SIM_PROT_EXEC) && !guarded && n) e = sim_cpu_code_traps(m, base, bytes, n);
    if (e == SIM_OK) e = sim_region_add(m, base, size, up, (prot & SIM_PROT_EXEC) ? RK_CODE : RK_DATA, -1);
    if (e != SIM_OK) {
        m->nexits = before;
        return e;
    }
    e = sim_wx_init_region(m, (region *)sim_region_find(m, base), prot);
    if (e != SIM_OK) return e;
    if ((prot & SIM_PROT_EXEC) && !guarded) e = sim_cpu_exits_sync(m);
    if (e == SIM_OK && n && uc_mem_write(m->uc, base, bytes, n) != UC_ERR_OK) e = SIM_ERR_UNICORN;
    return e;
}

uint64_t sim_mapped_bytes(const sim_machine *m) {
    uint64_t n = 0;
    for (int i = 0; i < m->nregions; i++) {
        const region *r = &m->regions[i];
        if (r->kind == RK_GUARD) continue;
        n += r->kind == RK_HEAP ? (m->heap_mapped > r->base ? m->heap_mapped - r->base : 0) : r->size;
    }
    return n;
}

sim_err sim_alloc(sim_machine *m, size_t n, uint64_t *addr) {
    return place(m, &m->next_data, m->lay->heap, n, UC_PROT_READ | UC_PROT_WRITE, RK_DATA, addr);
}

/* A valid range lies inside one region (allocations are separated by guards). */
static sim_err check_range_in(const sim_machine *m, uint64_t addr, size_t n, uint32_t need, const region **in) {
    if (n == 0) return SIM_OK;
    const region *r = sim_region_find(m, addr);
    *in = r;
    if (!r || r->kind == RK_GUARD) return SIM_ERR_UNMAPPED;
    if (n - 1 > r->base + r->size - 1 - addr) {
        /* runs past the region: report unmapped unless the next byte is mapped */
        return sim_region_find(m, r->base + r->size) ? SIM_ERR_PROT : SIM_ERR_UNMAPPED;
    }
    if (r->pp) return sim_wx_allows(m, r, addr, n, need) ? SIM_OK : SIM_ERR_PROT; /* per page */
    if ((r->prot & need) != need) return SIM_ERR_PROT;
    return SIM_OK;
}

static sim_err check_range(const sim_machine *m, uint64_t addr, size_t n, uint32_t need) {
    const region *r;
    return check_range_in(m, addr, n, need, &r);
}

sim_err sim_mem_probe(sim_machine *m, uint64_t addr, size_t n, bool write) {
    return check_range(m, addr, n, write ? (UC_PROT_READ | UC_PROT_WRITE) : UC_PROT_READ);
}

size_t sim_mem_peek(const sim_machine *m, uint64_t addr, void *buf, size_t n) {
    size_t got = 0;
    while (got < n) {
        const region *r = sim_region_find(m, addr);
        if (!r || !r->host) break;
        uint64_t end = r->base + r->size;
        if (r->kind == RK_HEAP && m->heap_mapped < end) end = m->heap_mapped;
        if (addr >= end) break;
        size_t k = n - got < end - addr ? n - got : (size_t)(end - addr);
        memcpy((uint8_t *)buf + got, r->host + (addr - r->base), k);
        got += k;
        addr += k;
    }
    return got;
}

/* A read copies from the region's host bytes (the engine's own memory: uc_mem_map_ptr), which
 * costs a few dozen host instructions where uc_mem_read costs about 700 (reports/bench). */
sim_err sim_mem_read(sim_machine *m, uint64_t addr, void *buf, size_t n) {
    const region *r = NULL;
    sim_err e = check_range_in(m, addr, n, UC_PROT_READ, &r);
    if (e != SIM_OK || !n) return e;
    if (!sim_heap_cover(m, addr, n)) return SIM_ERR_NOMEM;
    memcpy(buf, r->host + (addr - r->base), n); /* a checked range is in a mapped region: it has host bytes */
    return SIM_OK;
}

sim_err sim_mem_write(sim_machine *m, uint64_t addr, const void *buf, size_t n) {
    const region *r = NULL;
    sim_err e = check_range_in(m, addr, n, UC_PROT_READ | UC_PROT_WRITE, &r);
    if (e != SIM_OK || !n) return e;
    if (!sim_heap_cover(m, addr, n)) return SIM_ERR_NOMEM;
    e = sim_wx_written(m, addr, n); /* written code is code again only when run */
    if (e != SIM_OK) return e;
    /* bytes no translated block holds go straight into the host bytes; others through
     * uc_mem_write, which drops the blocks translated from them */
    if (sim_wx_never_code(r, addr, n)) {
        memcpy(r->host + (addr - r->base), buf, n);
        return SIM_OK;
    }
    return uc_mem_write(m->uc, addr, buf, n) == UC_ERR_OK ? SIM_OK : SIM_ERR_UNICORN;
}

sim_err sim_heap_alloc(sim_machine *m, uint32_t n, uint64_t *addr) {
    uint32_t size = (n + 15u) & ~15u;
    if (!size) size = 16;
    for (int i = m->heap_nfree - 1; i >= 0; i--) {
        if (m->heap_free[i].size == size) {
            *addr = m->heap_free[i].addr;
            memmove(&m->heap_free[i], &m->heap_free[i + 1], (size_t)(m->heap_nfree - 1 - i) * sizeof *m->heap_free);
            m->heap_nfree--;
            memset(m->heap_host + (*addr - m->lay->heap), 0, size); /* the heap is never code */
            return SIM_OK;
        }
    }
    if (size > m->heap_end - m->heap_brk || !sim_heap_cover(m, m->heap_brk, size)) return SIM_ERR_NOMEM;
    *addr = m->heap_brk;
    m->heap_brk += size;
    return SIM_OK;
}

void sim_heap_free(sim_machine *m, uint64_t addr, uint32_t n) {
    uint32_t size = (n + 15u) & ~15u;
    if (m->heap_nfree == m->heap_capfree) {
        int nc = m->heap_capfree ? m->heap_capfree * 2 : 16;
        struct heap_free *f = realloc(m->heap_free, (size_t)nc * sizeof *f);
        if (!f) return; /* the block leaks; never reused */
        m->heap_free = f;
        m->heap_capfree = nc;
    }
    m->heap_free[m->heap_nfree++] = (struct heap_free){addr, size ? size : 16};
}

/* ---- threads -------------------------------------------------------------------------- */

#define SIM_FIRST_TID 1000u

sim_err sim_thread_new(sim_machine *m, const char *name, int priority, uint64_t affinity, int ideal, sim_thread **out) {
    *out = NULL;
    uint64_t all = m->ncpus >= 64 ? UINT64_MAX : (UINT64_C(1) << m->ncpus) - 1;
    if (priority < 0 || priority > 31 || !(affinity & all) || ideal >= m->ncpus) return SIM_ERR_ARG;
    if (m->nthreads == m->capthreads) {
        int nc = m->capthreads ? m->capthreads * 2 : 16;
        sim_thread **t = realloc(m->threads, (size_t)nc * sizeof *t);
        if (!t) return SIM_ERR_NOMEM;
        m->threads = t;
        m->capthreads = nc;
    }
    sim_thread *t = calloc(1, sizeof *t);
    if (!t) return SIM_ERR_NOMEM;
    t->m = m;
    t->index = m->nthreads;
    t->id = SIM_FIRST_TID + 4u * (uint32_t)t->index;
    snprintf(t->name, sizeof t->name, "%s", name ? name : "");
    t->priority = priority;
    t->affinity = affinity & all;
    if (ideal < 0 || !((t->affinity >> ideal) & 1)) {
        /* round-robin over the machine's CPUs in creation order, moved into the affinity */
        int k = t->index % m->ncpus;
        while (!((t->affinity >> k) & 1)) k = (k + 1) % m->ncpus;
        ideal = k;
    }
    t->ideal = ideal;
    t->cpu = -1;
    t->exit_code = 259; /* STILL_ACTIVE */
    t->timer_pos = -1;
    t->timer_due = UINT64_MAX;
    t->stack_slot = -1;
    t->create_time = sim_clock(m); /* the time it becomes Ready at */
    m->threads[m->nthreads++] = t;
    m->nlive++;
    sim_sched_make_ready(t, SIM_READY_NEW);
    *out = t;
    return SIM_OK;
}

/* Stack slots: slot k is [guard page][stack] at the layout's stack + k x (stack +
 * page).  A thread holds one only during a guest call; freed slots are reused
 * last-in first-out, so the stack address of a call is deterministic.  The
 * guard page's region records the holder, for the stack guard fault. */
sim_err sim_stack_acquire(sim_thread *t) {
    sim_machine *m = t->m;
    if (t->stack_slot >= 0) return SIM_OK;
    uint64_t span = (uint64_t)m->cfg.stack_size + SIM_PAGE;
    int k;
    if (m->nfree_slots > 0) {
        k = m->free_slots[--m->nfree_slots];
    } else {
        k = m->nslots;
        uint64_t base = m->lay->stack + (uint64_t)k * span;
        if (base + span > m->lay->scratch) return SIM_ERR_NOMEM;
        if (m->nfree_slots == m->capfree_slots) { /* room to give it back later */
            int nc = m->capfree_slots ? m->capfree_slots * 2 : 64;
            int *f = realloc(m->free_slots, (size_t)nc * sizeof *f);
            if (!f) return SIM_ERR_NOMEM;
            m->free_slots = f;
            m->capfree_slots = nc;
        }
        sim_err e = sim_region_add(m, base + SIM_PAGE, m->cfg.stack_size, UC_PROT_READ | UC_PROT_WRITE, RK_STACK, -1);
        if (e == SIM_OK) e = sim_region_add(m, base, SIM_PAGE, 0, RK_GUARD, -1);
        if (e != SIM_OK) return e;
        m->nslots++;
    }
    uint64_t base = m->lay->stack + (uint64_t)k * span;
    t->stack_slot = k;
    t->stack_lo = base + SIM_PAGE;
    t->stack_hi = t->stack_lo + m->cfg.stack_size;
    region *g = (region *)sim_region_find(m, base);
    if (g) g->owner = t->index;
    return SIM_OK;
}

void sim_call_end(sim_thread *t) {
    t->in_call = false;
    sim_stack_release(t);
}

sim_err sim_stack_reclaim(sim_thread *t) {
    sim_machine *m = t->m;
    if (t->stack_slot >= 0) return SIM_OK;
    for (int i = m->nfree_slots - 1; i >= 0; i--) {
        if (m->free_slots[i] != t->last_slot) continue;
        memmove(&m->free_slots[i], &m->free_slots[i + 1], (size_t)(m->nfree_slots - 1 - i) * sizeof *m->free_slots);
        m->nfree_slots--;
        t->stack_slot = t->last_slot;
        region *g = (region *)sim_region_find(m, t->stack_lo - SIM_PAGE);
        if (g) g->owner = t->index;
        return SIM_OK;
    }
    return SIM_ERR_STATE; /* another call took it */
}

void sim_stack_release(sim_thread *t) {
    sim_machine *m = t->m;
    if (t->stack_slot < 0) return;
    t->last_slot = t->stack_slot;
    region *g = (region *)sim_region_find(m, t->stack_lo - SIM_PAGE);
    if (g) g->owner = -1;
    if (m->nfree_slots < m->capfree_slots) m->free_slots[m->nfree_slots++] = t->stack_slot;
    t->stack_slot = -1;
}

uint32_t sim_thread_id(const sim_thread *t) { return t->id; }
int sim_thread_index(const sim_thread *t) { return t->index; }
const char *sim_thread_name(const sim_thread *t) { return t->name; }
sim_thread_state sim_thread_state_of(const sim_thread *t) { return t->state; }
const pmu_bank *sim_thread_bank(const sim_thread *t) { return &t->bank; }
uint64_t sim_thread_scratch(sim_thread *t) { return t->m->lay->scratch; }
int sim_thread_priority(const sim_thread *t) { return t->priority; }
int sim_thread_cpu(const sim_thread *t) { return t->cpu; }
int sim_thread_ideal(const sim_thread *t) { return t->ideal; }
uint64_t sim_thread_affinity(const sim_thread *t) { return t->affinity; }
int sim_thread_wait_reason(const sim_thread *t) { return t->wait_reason; }
uint32_t sim_thread_exit_code(const sim_thread *t) { return t->exit_code; }
bool sim_thread_stack(const sim_thread *t, uint64_t *lo, uint64_t *hi) {
    bool held = t->stack_slot >= 0;
    *lo = held ? t->stack_lo : 0;
    *hi = held ? t->stack_hi : 0;
    return held;
}
uint64_t sim_thread_switches(const sim_thread *t) { return t->switches; }
int sim_thread_count(const sim_machine *m) { return m->nthreads; }
sim_thread *sim_thread_at(sim_machine *m, int index) {
    return index >= 0 && index < m->nthreads ? m->threads[index] : NULL;
}
sim_thread *sim_thread_by_id(sim_machine *m, uint32_t tid) {
    if (tid < SIM_FIRST_TID || (tid - SIM_FIRST_TID) % 4u) return NULL;
    return sim_thread_at(m, (int)((tid - SIM_FIRST_TID) / 4u));
}

sim_err sim_protect_fixed(sim_machine *m, uint64_t base, uint64_t size, unsigned prot) {
    region *r = (region *)sim_region_find(m, base);
    if (!r || r->base != base || r->size != size || !r->pp || r->owner != -1 ||
        (prot & ~(SIM_PROT_READ | SIM_PROT_WRITE)))
        return SIM_ERR_ARG;
    return sim_protect_pages(m, base, size, prot);
}
