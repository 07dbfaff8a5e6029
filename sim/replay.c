/* sim/replay.c — exact data faults without a memory hook (sim/README.md "Precise faults").
 *
 * Unicorn 2.0.1 stops a translated block at a faulting data access with every register as of the
 * faulting instruction's start and the instructions before it done, but reports the block's start
 * as the PC unless a memory hook exists when the block is translated, and any memory hook sends
 * every data access of every block down the engine's slow path.  So no memory hook is installed
 * (unless a model needs one: the cache model), and when a data fault happens the instruction that
 * raised it is found here, in the last counted block:
 *
 *   - the block's only instruction that reads or writes data memory;
 *   - or (an `otest` block: sim_replay_analyse) the first memory instruction that, run alone from
 *     the fault's state, faults the same way;
 *   - or the one where the block, run again from its entry state for as many instructions as it
 *     has, gives the same fault.  The entry state is the fault's registers with those the block
 *     changed before its last memory access and that decide an address put back: the block hook
 *     saved them at each entry (SAVE_REGS, or the whole context, SAVE_ALL), for the blocks the
 *     analysis marks, the only ones that pay anything.  A memory hook journals every access of
 *     the replay and the bytes each store replaced (undone afterwards); with the count's code hook
 *     it makes Unicorn give the PC of each.  A read of bytes the block stores to later reads, in
 *     the replay, the later value: when that decides an address, the replay runs again with what
 *     it read set from the fault's registers (replay_block); atomic instructions, which call no
 *     memory hook, are run by hand (atomic_step).  Failing that, the `otest` answer.
 *
 * Afterwards the engine holds exactly the fault's state again (registers, memory, the translated
 * blocks of the replay removed) with the PC at the faulting instruction: what the engine's own
 * precise mode (sim_config.precise_hook) leaves. */
#include <stdlib.h>
#include <string.h>

#include "sim/sim_int.h"

/* One access of a replay: where, and for a store the bytes it replaced. */
struct replay_access {
    uint64_t addr, pc;
    uint32_t size;
    bool write;
    uint8_t old[64];
};

/* A block's instructions: their addresses and replay facts. */
typedef struct decoded {
    int n;
    uint64_t *pc;
    replay_insn *ri;
} decoded;

static void decoded_free(decoded *d) {
    free(d->pc);
    free(d->ri);
}

/* The block's instructions and their replay facts (at most one per byte); false when its bytes
 * cannot be read or there is no host memory. */
static bool decode_block(sim_machine *m, uint64_t addr, uint32_t size, decoded *d) {
    d->n = 0;
    d->pc = malloc((size ? size : 1) * sizeof *d->pc);
    d->ri = malloc((size ? size : 1) * sizeof *d->ri);
    uint8_t stackbuf[256];
    uint8_t *buf = size <= sizeof stackbuf ? stackbuf : malloc(size);
    bool ok = d->pc && d->ri && buf && sim_mem_peek(m, addr, buf, size) == size;
    if (ok) {
        const uint8_t *p = buf;
        size_t left = size;
        uint64_t a = addr;
        cs_insn *in = cs_malloc(m->cs);
        while (in && left) {
            if (cs_disasm_iter(m->cs, &p, &left, &a, in)) {
                d->pc[d->n] = in->address;
                m->isa->replay_of(m->cs, in, &d->ri[d->n]);
            } else if (m->isa->cs_arch == CS_ARCH_ARM64 && left >= 4) {
                /* a word capstone does not decode (the engine may: an UNPREDICTABLE form): it may
                 * touch anything */
                uint64_t other = UINT64_C(1) << (m->isa->nreplay_regs + 1);
                d->pc[d->n] = a;
                d->ri[d->n] = (replay_insn){.rd = other, .wr = other, .fault = other, .data = other, .mem = true};
                p += 4, left -= 4, a += 4;
            } else {
                break; /* x86: no way to know where the next instruction starts */
            }
            d->n++;
        }
        if (in) cs_free(in, 1);
    }
    if (buf != stackbuf) free(buf);
    if (!ok) decoded_free(d);
    return ok;
}

/* x86 writes of all six arithmetic flags (replay_insn.kill) leave the direction flag as it was: in
 * a block with an instruction that reads it (a string instruction reads the flags and moves a
 * pointer), the flags are never dead. */
static void keep_flags(const sim_machine *m, decoded *d) {
    int fl = m->isa->replay_flags;
    if (fl < 0) return;
    uint64_t f = UINT64_C(1) << fl;
    bool df = false;
    for (int i = 0; i < d->n; i++)
        if ((d->ri[i].rd & f) && d->ri[i].mem) df = true;
    for (int i = 0; df && i < d->n; i++) d->ri[i].kill &= ~f;
}

/* An instruction a data fault can come from. */
static bool can_fault(const replay_insn *r) { return r->mem; }

/* Whether the first instruction that faults the same way alone from the fault's state is the one
 * that faulted (replay.c's header): for every pair i < j of memory instructions where a register of
 * i's address may change between them, both address the same base register, no index, at
 * displacements whose bytes cannot overlap (from one state they never give the same address, so i
 * alone from j's fault state cannot fault there).  A pair where i's address registers stay as they
 * are needs nothing: i alone from the fault's state accesses what it accessed, and did not fault. */
static bool decided_alone(const decoded *d) {
    for (int j = 0; j < d->n; j++) {
        if (!can_fault(&d->ri[j])) continue;
        uint64_t written = 0;
        for (int i = j - 1; i >= 0; i--) {
            const replay_insn *a = &d->ri[i], *z = &d->ri[j];
            written |= a->wr;
            if (!can_fault(a) || !(a->fault & written)) continue;
            bool apart = a->simple && z->simple && a->base_bit == z->base_bit &&
                         ((int64_t)a->disp + a->size <= z->disp || (int64_t)z->disp + z->size <= a->disp);
            if (!apart || a->atomic || z->atomic) return false;
        }
    }
    return true;
}

void sim_replay_analyse(sim_machine *m, block_entry *b) {
    b->save = SAVE_NONE;
    b->otest = 0;
    b->save_mask = 0;
    decoded dd, *d = &dd;
    if (!decode_block(m, b->addr, b->size, d)) return;
    int last = -1, nmem = 0;
    for (int i = 0; i < d->n; i++)
        if (can_fault(&d->ri[i])) last = i, nmem++;
    keep_flags(m, d);
    if (nmem >= 2 && decided_alone(d)) {
        b->otest = 1;
    } else if (nmem >= 2) {
        /* Backwards from the last memory instruction: the registers whose value at the block's
         * entry decides an address (or a divisor, a rep count) before it. */
        uint64_t need = 0, written = 0;
        for (int i = last; i >= 0; i--) {
            const replay_insn *r = &d->ri[i];
            uint64_t uses = r->fault | ((r->wr & need) ? r->rd : 0);
            need = (need & ~r->kill) | uses;
        }
        for (int i = 0; i < last; i++) written |= d->ri[i].wr;
        /* Those the block may change before a later fault: the fault's state no longer has them;
         * and flags the fault's state does not keep (x86). */
        uint64_t save = need & written;
        if (m->isa->replay_flags >= 0) save |= need & UINT64_C(1) << m->isa->replay_flags;
        int n = m->isa->nreplay_regs;
        if (save >> n) {
            b->save = SAVE_ALL; /* a segment or other register: only the whole context restores it */
        } else if (save) {
            b->save = SAVE_REGS;
            b->save_mask = save;
        }
    }
    decoded_free(d);
}

void sim_replay_save(sim_machine *m, const block_entry *b) {
    m->saved_block = b;
    if (b->save == SAVE_ALL) {
        if (m->saved_ctx || uc_context_alloc(m->uc, &m->saved_ctx) == UC_ERR_OK)
            uc_context_save(m->uc, m->saved_ctx);
        else
            m->saved_block = NULL;
        return;
    }
    int ids[64];
    void *vals[64];
    int k = 0;
    for (uint64_t s = b->save_mask; s; s &= s - 1) {
        int bit = __builtin_ctzll(s);
        ids[k] = m->isa->replay_regs[bit];
        vals[k] = &m->saved_regs[bit];
        m->saved_regs[bit] = 0; /* a 32-bit register fills 4 bytes */
        k++;
    }
    uc_reg_read_batch(m->uc, ids, vals, k);
}

/* ---- the replay ------------------------------------------------------------------------------- */

static void on_journal(uc_engine *uc, uc_mem_type type, uint64_t addr, int size, int64_t value, void *ud) {
    (void)value;
    sim_machine *m = ud;
    if (m->njournal == m->capjournal) {
        int nc = m->capjournal ? 2 * m->capjournal : 64;
        struct replay_access *j = nc <= 1 << 20 ? realloc(m->journal, (size_t)nc * sizeof *j) : NULL;
        if (!j) { /* no room to undo what follows: stop here (the replay then fails) */
            m->replay_refused = true;
            uc_emu_stop(uc);
            return;
        }
        m->journal = j;
        m->capjournal = nc;
    }
    if (type == UC_MEM_WRITE && (size <= 0 || size > (int)sizeof m->journal[0].old)) {
        m->replay_refused = true; /* a store it could not undo (Unicorn splits them into 8 bytes or less) */
        uc_emu_stop(uc);
        return;
    }
    struct replay_access *a = &m->journal[m->njournal++];
    a->addr = addr;
    a->size = size > 0 && size <= (int)sizeof a->old ? (uint32_t)size : 1;
    a->write = type == UC_MEM_WRITE;
    a->pc = 0;
    uc_reg_read(uc, m->isa->reg_pc, &a->pc);
    if (a->write && uc_mem_read(uc, addr, a->old, a->size) != UC_ERR_OK)
        m->njournal--; /* an unmapped store (the hook comes before the check): it faults, nothing to undo */
}

/* The journal's stores undone, newest first. */
static void undo(sim_machine *m) {
    for (int i = m->njournal - 1; i >= 0; i--)
        if (m->journal[i].write) uc_mem_write(m->uc, m->journal[i].addr, m->journal[i].old, m->journal[i].size);
    m->njournal = 0;
}

/* The index of the instruction at pc, or -1. */
static int index_of(const decoded *d, uint64_t pc) {
    for (int i = 0; i < d->n; i++)
        if (d->pc[i] == pc) return i;
    return -1;
}

/* Unicorn takes hook callbacks as void * (as cpu.c's HOOK). */
typedef void (*any_fn)(void);
static void *hook_fn(any_fn f) {
    void *p;
    memcpy(&p, &f, sizeof p);
    return p;
}

/* One run of `count` instructions from `pc` with the journal on (the engine's registers set, the
 * block hook off), then the translations it made removed, with those of [lo, hi) made before it.
 * The flags the fault's state does not keep (x86): as the block's entry saved them (else sane) for
 * a run from the entry, kept for a run that continues a replay, sane for one instruction tried
 * alone.  True when it stopped on a data fault: its type, address and PC.  The journal grows; the
 * caller undoes it. */
enum { FLAGS_KEEP, FLAGS_ENTRY, FLAGS_SANE };

static bool run_journaled(sim_machine *m, const block_entry *b, uint64_t pc, uint64_t lo, uint64_t hi, uint64_t count,
                          int *type, uint64_t *addr, uint64_t *fault_pc, int flags) {
    int fl = m->isa->replay_flags;
    if (fl >= 0 && flags != FLAGS_KEEP) {
        bool saved = flags == FLAGS_ENTRY && m->saved_block == b && b->save == SAVE_REGS && (b->save_mask >> fl & 1);
        uint64_t v = saved ? m->saved_regs[fl] : m->isa->replay_flags_start;
        uc_reg_write(m->uc, m->isa->replay_regs[fl], &v);
    }
    m->replay_type = 0;
    m->replay_addr = 0;
    m->replay_refused = false;
    uc_ctl_remove_cache(m->uc, lo, hi);
    uc_hook h;
    if (uc_hook_add(m->uc, &h, UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE, hook_fn((any_fn)on_journal), m, 1, 0) != UC_ERR_OK)
        return false;
    m->replaying = true;
    uc_err e = uc_emu_start(m->uc, pc, m->lay->sentinel, 0, count);
    m->replaying = false;
    uint64_t end = sim_reg(m, m->isa->reg_pc);
    uc_hook_del(m->uc, h);
    uc_ctl_remove_cache(m->uc, lo, hi);
    if (end < lo || end >= hi) uc_ctl_remove_cache(m->uc, end, end + 1);
    *type = m->replay_type;
    *addr = m->replay_addr;
    *fault_pc = end;
    bool data_fault =
        e == UC_ERR_READ_UNMAPPED || e == UC_ERR_WRITE_UNMAPPED || e == UC_ERR_READ_PROT || e == UC_ERR_WRITE_PROT;
    return data_fault && !m->replay_refused;
}

/* The store journal[j] (after the read journal[i] by instruction a) stores back what a loaded: its
 * instruction stores a register a loaded, not written in between, over exactly the bytes read,
 * and nothing stores there after it. */
static bool stores_back(const sim_machine *m, const decoded *d, int i, int j, int a) {
    const struct replay_access *r = &m->journal[i], *w = &m->journal[j];
    int b = index_of(d, w->pc);
    if (b <= a || w->addr != r->addr || w->size != r->size) return false;
    uint64_t reg = d->ri[b].src & d->ri[a].data;
    if (!reg) return false;
    for (int c = a + 1; c < b; c++)
        if (d->ri[c].wr & reg) return false;
    for (int k = j + 1; k < m->njournal; k++) {
        const struct replay_access *x = &m->journal[k];
        if (x->write && x->addr < w->addr + w->size && w->addr < x->addr + x->size) return false;
    }
    return true;
}

/* The reads of the replay that can make it differ from the original run, as flags by instruction:
 * instruction a read bytes that the block wrote afterwards (the replay's journal shows the write;
 * the original read them before it, the replay after), and what it read goes to a register that
 * decides a fault (an address, a divisor) at or before instruction k.  A later store is harmless
 * when it stores, unchanged, a register that instruction a loaded (pop r; push r), and no store
 * follows it: the bytes are then the ones the original read.  Reads already patched are left out.
 * False when there is no room. */
static bool hazards(const sim_machine *m, const decoded *d, int k, const uint8_t *patched, uint8_t *out) {
    uint8_t *matters = calloc((size_t)d->n, 1);
    if (!matters) return false;
    /* a string instruction needs the direction flag alone, which only popf loads from memory */
    uint64_t df_only = 0;
    if (m->isa->replay_flags >= 0) {
        df_only = UINT64_C(1) << m->isa->replay_flags;
        for (int i = 0; i < d->n; i++)
            if (d->ri[i].df == 2) df_only = 0;
    }
    uint64_t need = d->ri[k].fault & ~(d->ri[k].df == 1 ? df_only : 0);
    for (int i = k - 1; i >= 0; i--) {
        const replay_insn *r = &d->ri[i];
        matters[i] = (r->data & need) != 0;
        need = (need & ~r->kill) | (r->fault & ~(r->df == 1 ? df_only : 0)) | ((r->wr & need) ? r->rd : 0);
    }
    memset(out, 0, (size_t)d->n);
    for (int i = 0; i < m->njournal; i++) {
        const struct replay_access *r = &m->journal[i];
        int a = index_of(d, r->pc);
        if (r->write || a < 0 || a >= k || !matters[a] || patched[a] || out[a]) continue;
        for (int j = i + 1; j < m->njournal && !out[a]; j++) {
            const struct replay_access *w = &m->journal[j];
            if (!w->write || w->addr >= r->addr + r->size || r->addr >= w->addr + w->size) continue;
            out[a] = !stores_back(m, d, i, j, a);
        }
    }
    free(matters);
    return true;
}

/* A hazard read at instruction a can be patched when what it read goes to general registers only:
 * the fault's state holds the values the original read as long as the original faulted after a
 * (the replay, exact up to a, did not fault before it) and no later instruction of the block wrote
 * those registers before the fault.  Returns the index of the first such later write (d->n: none):
 * the patch holds for a fault up to that instruction; -1 when it cannot be patched. */
static int patch_limit(const sim_machine *m, const decoded *d, int a) {
    uint64_t gprs = (UINT64_C(1) << m->isa->nreplay_regs) - 1;
    if (m->isa->replay_flags >= 0) gprs &= ~(UINT64_C(1) << m->isa->replay_flags);
    uint64_t data = d->ri[a].data;
    if (data & ~gprs) return -1;
    for (int i = a + 1; i < d->n; i++)
        if (d->ri[i].wr & data) return i;
    return d->n;
}

/* The data address and size of the atomic instruction at pc, from the engine's registers. */
static bool atomic_access(sim_machine *m, uint64_t pc, uint64_t *ea, uint32_t *size) {
    uint8_t buf[16];
    size_t n = sim_mem_peek(m, pc, buf, sizeof buf); /* it may end a mapping */
    const uint8_t *p = buf;
    uint64_t a = pc;
    cs_insn *in = cs_malloc(m->cs);
    bool ok = in && n && cs_disasm_iter(m->cs, &p, &n, &a, in) && m->isa->replay_ea(m, in, ea, size);
    if (in) cs_free(in, 1);
    return ok;
}

/* An atomic instruction of the replay at its turn (Unicorn journals none of its accesses and
 * reports no PC for its fault).  True with *faulted when its access is one the guest may not make
 * (the fault then is its own when `addr` lies in it); else it runs, its access journaled by hand. */
static bool atomic_step(sim_machine *m, const block_entry *b, const decoded *d, int i, uint64_t lo, uint64_t hi,
                        uint64_t addr, bool *faulted, bool *mine) {
    uint64_t ea;
    uint32_t size;
    *faulted = *mine = false;
    if (!atomic_access(m, d->pc[i], &ea, &size) || size > sizeof m->journal[0].old) return false;
    if (sim_mem_probe(m, ea, size, true) != SIM_OK) {
        *faulted = true;
        *mine = addr >= ea && addr - ea < size;
        return true;
    }
    for (int w = 0; w < 2; w++) { /* a read, then a write of the same bytes */
        if (m->njournal == m->capjournal) {
            int nc = m->capjournal ? 2 * m->capjournal : 64;
            struct replay_access *j = realloc(m->journal, (size_t)nc * sizeof *j);
            if (!j) return false;
            m->journal = j;
            m->capjournal = nc;
        }
        struct replay_access *a = &m->journal[m->njournal];
        *a = (struct replay_access){.addr = ea, .pc = d->pc[i], .size = size, .write = w == 1};
        if (w && (!sim_heap_cover(m, ea, size) || uc_mem_read(m->uc, ea, a->old, size) != UC_ERR_OK)) return false;
        m->njournal++;
    }
    int t;
    uint64_t fa, pc;
    bool f = run_journaled(m, b, d->pc[i], lo, hi, 1, &t, &fa, &pc, FLAGS_KEEP);
    return !f && !m->replay_refused && (i + 1 >= d->n || pc == d->pc[i + 1]);
}

/* The block's entry state in the engine: the fault's registers k, those the entry saved. */
static void enter(sim_machine *m, const block_entry *b, uc_context *k) {
    uc_context_restore(m->uc, k);
    if (b->save == SAVE_ALL) {
        uc_context_restore(m->uc, m->saved_ctx);
        return;
    }
    for (uint64_t s = b->save_mask; s; s &= s - 1) {
        int bit = __builtin_ctzll(s);
        uc_reg_write(m->uc, m->isa->replay_regs[bit], &m->saved_regs[bit]);
    }
}

/* One replay of the block from its entry, in runs that end after each patched read (patch[i]),
 * whose registers then get the fault's values.  The index of the instruction where it gave the
 * original's fault (same access, same address), else -1.  The journal holds its accesses; the
 * caller undoes them. */
static int replay_once(sim_machine *m, const block_entry *b, const decoded *d, uc_context *k, uint64_t lo, uint64_t hi,
                       int type, uint64_t addr, const uint8_t *patch) {
    int n = d->n, pos = 0, kk = -1, t = 0;
    uint64_t a = 0, pc = 0;
    bool stopped = false;
    enter(m, b, k);
    m->njournal = 0;
    while (pos < n && !stopped) {
        int last = pos;
        if (d->ri[pos].atomic) { /* by hand; the flags are set for it at the entry */
            bool faulted, mine;
            int fl = m->isa->replay_flags;
            if (!pos && fl >= 0) {
                bool sv = m->saved_block == b && b->save == SAVE_REGS && (b->save_mask >> fl & 1);
                uint64_t v = sv ? m->saved_regs[fl] : m->isa->replay_flags_start;
                uc_reg_write(m->uc, m->isa->replay_regs[fl], &v);
            }
            if (!atomic_step(m, b, d, pos, lo, hi, addr, &faulted, &mine) || faulted) {
                kk = faulted && mine ? pos : -1;
                break;
            }
        } else {
            while (last < n - 1 && !patch[last] && !d->ri[last + 1].atomic) last++;
            bool f = run_journaled(m, b, d->pc[pos], lo, hi, (uint64_t)(last - pos + 1), &t, &a, &pc,
                                   pos ? FLAGS_KEEP : FLAGS_ENTRY);
            if (f) {
                kk = t == type && a == addr ? index_of(d, pc) : -1;
                break;
            }
            if (m->replay_refused || last == n - 1 || pc != d->pc[last + 1]) break; /* elsewhere, or through */
        }
        if (last == n - 1) break;
        for (uint64_t s = patch[last] ? d->ri[last].data : 0; s; s &= s - 1) {
            uint64_t v = 0;
            int reg = m->isa->replay_regs[__builtin_ctzll(s)];
            uc_context_reg_read(k, reg, &v);
            uc_reg_write(m->uc, reg, &v);
        }
        pos = last + 1;
    }
    return kk >= 0 && can_fault(&d->ri[kk]) ? kk : -1;
}

/* The faulting instruction's index by replays, or -1.  First the plain replay; each round patches
 * the reads that the journal shows made it differ, as long as what they read goes to general
 * registers (patch_limit), and runs again.  Failing that, the plain replay's answer when it gave
 * the fault; when it faulted elsewhere (before reaching the store that would show why), each
 * memory instruction j in turn is supposed the faulting one: every read before it whose registers
 * the block does not write again before j gets the fault's values (right if j faulted), and j is
 * the one when that replay faults there. */
static int replay_block(sim_machine *m, const block_entry *b, const decoded *d, uc_context *k, uint64_t lo, uint64_t hi,
                        int type, uint64_t addr) {
    int n = d->n, found = -1, first = -1, holds = n; /* the patches hold for a fault up to `holds` */
    uint8_t *patch = calloc((size_t)n, 2);
    if (!patch) return -1;
    uint8_t *fresh = patch + n;
    for (int round = 0; round <= n; round++) {
        int kk = replay_once(m, b, d, k, lo, hi, type, addr, patch);
        bool more = false, ok = hazards(m, d, kk >= 0 ? kk : n - 1, patch, fresh);
        for (int i = 0; ok && i < n; i++)
            if (fresh[i]) {
                int lim = patch_limit(m, d, i);
                more = true;
                ok = lim >= 0;
                if (ok) patch[i] = 1, holds = lim < holds ? lim : holds;
            }
        undo(m);
        if (round == 0) first = kk;
        if (ok && !more && kk >= 0 && kk <= holds) found = kk;
        if (!ok || !more) break;
    }
    for (int j = 0; found < 0 && first < 0 && j < n; j++) {
        if (!can_fault(&d->ri[j])) continue;
        for (int i = 0; i < j; i++) patch[i] = d->ri[i].data && patch_limit(m, d, i) >= j;
        memset(patch + j, 0, (size_t)(n - j));
        if (replay_once(m, b, d, k, lo, hi, type, addr, patch) == j) found = j;
        undo(m);
    }
    free(patch);
    uc_context_restore(m->uc, k);
    return found >= 0 ? found : first;
}

uint64_t sim_replay_fault(sim_machine *m, int type, uint64_t addr) {
    const block_entry *b = m->last_block;
    if (!b) return UINT64_MAX;
    uint64_t base = m->last_block_addr, lo = base, hi = base + b->size;
    decoded dd, *d = &dd;
    if (!decode_block(m, base, b->size, d)) return UINT64_MAX;
    keep_flags(m, d);
    uint64_t at = UINT64_MAX;
    int nmem = 0, only = -1;
    for (int i = 0; i < d->n; i++)
        if (can_fault(&d->ri[i])) nmem++, only = i;
    if (nmem == 1) {
        at = d->pc[only];
    } else if (nmem > 1) {
        uc_context *k = NULL;
        if (uc_context_alloc(m->uc, &k) == UC_ERR_OK && uc_context_save(m->uc, k) == UC_ERR_OK &&
            sim_cpu_block_hook(m, false) == SIM_OK) {
            m->replays++;
            /* the block from its entry: the fault's registers, with those the entry saved */
            if (!b->otest && (b->save == SAVE_NONE || m->saved_block == b)) {
                int kk = replay_block(m, b, d, k, lo, hi, type, addr);
                if (kk >= 0) at = d->pc[kk];
            }
            /* each memory instruction alone, from the fault's state: the answer for an otest block,
             * else the fallback */
            if (at == UINT64_MAX && !b->otest) m->replay_fallbacks++;
            for (int i = 0; at == UINT64_MAX && i < d->n; i++) {
                if (!can_fault(&d->ri[i])) continue;
                int t;
                uint64_t a, pc, ea;
                uint32_t size;
                uc_context_restore(m->uc, k);
                if (d->ri[i].atomic) { /* not run: its stores would not be journaled */
                    if (atomic_access(m, d->pc[i], &ea, &size) && sim_mem_probe(m, ea, size, true) != SIM_OK &&
                        addr >= ea && addr - ea < size)
                        at = d->pc[i];
                    continue;
                }
                m->njournal = 0;
                bool f = run_journaled(m, b, d->pc[i], lo, hi, 1, &t, &a, &pc, FLAGS_SANE);
                undo(m);
                if (f && t == type && a == addr && pc == d->pc[i]) at = d->pc[i];
            }
            sim_cpu_block_hook(m, true);
        }
        if (k) {
            uc_context_restore(m->uc, k);
            uc_context_free(k);
        }
    }
    if (at != UINT64_MAX) sim_reg_set(m, m->isa->reg_pc, at);
    decoded_free(d);
    return at;
}

void sim_replay_fini(sim_machine *m) {
    free(m->journal);
    m->journal = NULL;
    m->njournal = m->capjournal = 0;
    if (m->saved_ctx) uc_context_free(m->saved_ctx);
    m->saved_ctx = NULL;
    m->saved_block = NULL;
}
