/* sim/wx.c — page protections of fixed mappings, and code written at run time (sim/README.md
 * "Written code").
 *
 * Every page of a mapping sim_map_fixed made (a loader's image, a VirtualAlloc region) has its
 * own protection (read, write, execute: the program's view), which sim_protect_pages changes and
 * which sim_mem_read/sim_mem_write obey.  Code that is placed or generated after the block
 * statistics and trap points were made must be counted exactly, so a page's old block statistics
 * are forgotten whenever it becomes executable, and its bytes scanned for trap points
 * (sim/README.md "Faults") on an ISA without guarded code; on x86 and x64 an executable page is
 * guarded code instead (read only to the engine, each instruction checked as it is translated:
 * sim/README.md "Guarded code").  A page both writable and executable is never both to the engine: it is
 * "code" (read + execute; its bytes scanned) or "data" (read + write), and the first store into a
 * code page or the first instruction fetched from a data page is a fault the machine takes
 * itself: the page changes state and the instruction runs again (the store or the fetch then
 * succeeds).  A store whose own block runs from the page it writes cannot be served so (the
 * instruction would fault forever): that ends the call with an error naming both addresses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_int.h"

#define PP_DATA 8u /* a writable and executable page in its data state */
#define WX (SIM_PROT_WRITE | SIM_PROT_EXEC)

/* The fixed region holding page `at` with its page array, or NULL. */
static region *fixed_at(sim_machine *m, uint64_t at) {
    region *r = (region *)sim_region_find(m, at);
    return r && r->pp ? r : NULL;
}

sim_err sim_wx_init_region(sim_machine *m, region *r, unsigned prot) {
    (void)m;
    size_t pages = (size_t)(r->size / SIM_PAGE);
    r->pp = malloc(pages ? pages : 1);
    if (!r->pp) return SIM_ERR_NOMEM;
    memset(r->pp, (int)(prot & 7u), pages);
    return SIM_OK;
}

/* Unicorn's protection of a page in its state: code is read + execute, or read only when guarded
 * (its fetches reach on_memerr as the engine translates it). */
static uint32_t uc_prot_of(const sim_machine *m, uint8_t pp) {
    if (pp & SIM_PROT_EXEC) {
        if (pp & PP_DATA) return UC_PROT_READ | UC_PROT_WRITE;
        return m->isa->guard_bad ? UC_PROT_READ : UC_PROT_READ | UC_PROT_EXEC;
    }
    return ((pp & SIM_PROT_READ) ? UC_PROT_READ : 0) | ((pp & SIM_PROT_WRITE) ? UC_PROT_WRITE : 0);
}

bool sim_wx_guarded(const sim_machine *m, uint64_t addr) {
    if (!m->isa->guard_bad) return false;
    region *r = fixed_at((sim_machine *)m, addr);
    if (!r) return false;
    uint8_t pp = r->pp[(addr - r->base) / SIM_PAGE];
    return (pp & SIM_PROT_EXEC) && !(pp & PP_DATA);
}

bool sim_wx_never_code(const region *r, uint64_t addr, size_t n) {
    if (!r->host || !n) return false;
    if (!r->pp) return r->kind != RK_CODE && !(r->prot & UC_PROT_EXEC);
    uint64_t first = (addr - r->base) / SIM_PAGE, last = (addr - r->base + n - 1) / SIM_PAGE;
    for (uint64_t i = first; i <= last; i++)
        if ((r->pp[i] & SIM_PROT_EXEC) && !(r->pp[i] & PP_DATA)) return false;
    return true;
}

/* Unicorn keeps a region for every run of pages of one protection: refuse to make more than its
 * limit (SIM_MAX_MAPPINGS_LIMIT). */
static bool room_for_split(sim_machine *m) {
    uc_mem_region *rs = NULL;
    uint32_t n = 0;
    if (uc_mem_regions(m->uc, &rs, &n) != UC_ERR_OK) return false;
    uc_free(rs);
    return n + 2 < SIM_MAX_MAPPINGS_LIMIT;
}

static sim_err set_uc(sim_machine *m, uint64_t page, uint32_t up) {
    if (!room_for_split(m)) return SIM_ERR_MAPPINGS;
    return uc_mem_protect(m->uc, page, SIM_PAGE, up) == UC_ERR_OK ? SIM_OK : SIM_ERR_UNICORN;
}

/* The page becomes code: its old blocks and translations go, its bytes are scanned for trap
 * points (guarded code needs none), then it is executable. */
static sim_err to_code(sim_machine *m, region *r, uint64_t page) {
    uint8_t *pp = &r->pp[(page - r->base) / SIM_PAGE];
    sim_cpu_forget_code(m, page, page + SIM_PAGE);
    if (!m->isa->guard_bad) {
        uint8_t bytes[SIM_PAGE];
        if (uc_mem_read(m->uc, page, bytes, SIM_PAGE) != UC_ERR_OK) return SIM_ERR_UNICORN;
        sim_err e = sim_cpu_code_traps(m, page, bytes, SIM_PAGE);
        if (e == SIM_OK) e = sim_cpu_exits_sync(m);
        if (e != SIM_OK) return e;
    }
    *pp &= (uint8_t)~PP_DATA;
    return set_uc(m, page, uc_prot_of(m, *pp));
}

/* The page becomes data: writable, not executable; what ran from it is forgotten. */
static sim_err to_data(sim_machine *m, region *r, uint64_t page) {
    uint8_t *pp = &r->pp[(page - r->base) / SIM_PAGE];
    sim_cpu_forget_code(m, page, page + SIM_PAGE);
    *pp |= PP_DATA;
    return set_uc(m, page, uc_prot_of(m, *pp));
}

bool sim_pages_fixed(const sim_machine *m, uint64_t addr, uint64_t size) {
    if (addr % SIM_PAGE || size % SIM_PAGE || !size || addr + size < addr) return false;
    for (uint64_t a = addr; a < addr + size; a += SIM_PAGE)
        if (!fixed_at((sim_machine *)m, a)) return false;
    return true;
}

/* Pages [lo, hi) of fixed regions, not becoming executable, get `prot`: the engine's protection
 * changes in one call for the whole run (a call per page would split Unicorn's region once per
 * page, copying what follows each time). */
static sim_err protect_run(sim_machine *m, uint64_t lo, uint64_t hi, unsigned prot) {
    if (lo == hi) return SIM_OK;
    if (!room_for_split(m)) return SIM_ERR_MAPPINGS;
    if (uc_mem_protect(m->uc, lo, hi - lo, uc_prot_of(m, (uint8_t)prot)) != UC_ERR_OK) return SIM_ERR_UNICORN;
    for (uint64_t a = lo; a < hi; a += SIM_PAGE) {
        region *r = fixed_at(m, a);
        uint8_t *pp = &r->pp[(a - r->base) / SIM_PAGE];
        if (*pp & SIM_PROT_EXEC) sim_cpu_forget_code(m, a, a + SIM_PAGE);
        *pp = (uint8_t)prot;
    }
    return SIM_OK;
}

sim_err sim_protect_pages(sim_machine *m, uint64_t addr, uint64_t size, unsigned prot) {
    if (prot > 7 || !sim_pages_fixed(m, addr, size)) return SIM_ERR_ARG;
    uint64_t run = addr; /* the pages [run, a) wait for one engine call */
    for (uint64_t a = addr; a < addr + size; a += SIM_PAGE) {
        region *r = fixed_at(m, a);
        uint8_t *pp = &r->pp[(a - r->base) / SIM_PAGE];
        uint8_t old = *pp;
        if (!(prot & SIM_PROT_EXEC) && uc_prot_of(m, old) != uc_prot_of(m, (uint8_t)prot)) continue; /* joins the run */
        sim_err e = protect_run(m, run, a, prot);
        if (e != SIM_OK) return e;
        run = a + SIM_PAGE;
        *pp = (uint8_t)prot;
        if (prot & SIM_PROT_EXEC)
            e = to_code(m, r, a); /* its bytes may be new */
        else if ((old & SIM_PROT_EXEC) && !(prot & SIM_PROT_EXEC))
            sim_cpu_forget_code(m, a, a + SIM_PAGE);
        if (e != SIM_OK) {
            *pp = old;
            return e;
        }
    }
    return protect_run(m, run, addr + size, prot);
}

int sim_page_prot(const sim_machine *m, uint64_t addr) {
    region *r = fixed_at((sim_machine *)m, addr & ~(uint64_t)(SIM_PAGE - 1));
    return r ? r->pp[(addr - r->base) / SIM_PAGE] & 7 : -1;
}

bool sim_wx_allows(const sim_machine *m, const region *r, uint64_t addr, size_t n, uint32_t need) {
    uint64_t last = addr + (n ? n - 1 : 0);
    for (uint64_t a = addr & ~(uint64_t)(SIM_PAGE - 1); a <= last; a += SIM_PAGE) {
        if (a < r->base || a - r->base >= r->size) return sim_region_find(m, a) != NULL; /* checked by the caller */
        if ((r->pp[(a - r->base) / SIM_PAGE] & need) != need) return false;
    }
    return true;
}

sim_err sim_wx_written(sim_machine *m, uint64_t addr, size_t n) {
    if (!n) return SIM_OK;
    uint64_t last = addr + n - 1;
    for (uint64_t a = addr & ~(uint64_t)(SIM_PAGE - 1); a <= last && a >= (addr & ~(uint64_t)(SIM_PAGE - 1));
         a += SIM_PAGE) {
        region *r = fixed_at(m, a);
        if (!r) continue;
        uint8_t pp = r->pp[(a - r->base) / SIM_PAGE];
        if ((pp & WX) == WX && !(pp & PP_DATA)) {
            sim_err e = to_data(m, r, a);
            if (e != SIM_OK) return e;
        }
    }
    return SIM_OK;
}

int sim_wx_fault(sim_machine *m, bool fetch, uint64_t addr, uint64_t rip, char *err, size_t cap) {
    uint64_t page = addr & ~(uint64_t)(SIM_PAGE - 1);
    region *r = fixed_at(m, page);
    if (!r) return 0;
    uint8_t pp = r->pp[(page - r->base) / SIM_PAGE];
    if ((pp & WX) != WX || fetch != ((pp & PP_DATA) != 0)) return 0; /* a real fault */
    sim_err e;
    if (fetch) {
        if (m->wx_armed && m->wx_page == page && m->wx_rip == rip) { /* the store's own block runs from there */
            snprintf(err, cap,
                     "self-modifying code: the store at 0x%llx writes the page 0x%llx its own block runs from",
                     (unsigned long long)rip, (unsigned long long)page);
            return -1;
        }
        m->wx_armed = false;
        e = to_code(m, r, page);
    } else {
        m->wx_armed = true; /* a fetch fault at this rip for this page next would be the same store again */
        m->wx_page = page;
        m->wx_rip = rip;
        e = to_data(m, r, page);
    }
    if (e != SIM_OK) {
        snprintf(err, cap, "changing the page 0x%llx of written code: %s", (unsigned long long)page,
                 sim_machine_strerror(m, e));
        return -1;
    }
    return 1;
}
