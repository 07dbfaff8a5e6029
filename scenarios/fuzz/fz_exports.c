/* scenarios/fuzz/fz_exports.c — target `exports`: every function of the export spec
 * (api/exports.spec), called from guest code with arguments shaped by its parameter types.
 *
 * The first input byte picks the guest (x64 or x86: the ISAs that load programs) and the
 * machine is given a process, a minimal image built here, so every row is callable.  Then
 * each call takes a row (any function or stub of the spec, in spec order modulo the row
 * count) and, for each of its parameters, a value drawn by the parameter's type: a HANDLE
 * from pseudo handles, handles earlier calls returned and garbage; a DWORD, INT or mask from
 * boundary values and raw bytes; a TIMEOUT short (INFINITE rarely, so waits end); a pointer
 * or string into a writable buffer (at its start, its last bytes, misaligned), read-only
 * code, the call gate, NULL or unmapped memory; a string pointer to a NUL-terminated string
 * of the input's bytes (narrow or wide); SIZE_T small, the buffer's size or huge; variadic
 * calls get extra words.  The call is placed as guest code (x64: the four register
 * arguments, the stack arguments above the shadow space, FP parameters in xmm0-3 too; x86:
 * pushed, the thunk pops a stdcall row's words) and run on the process's main thread.
 *
 * Oracle: no crash, hang, leak or sanitizer report; a call ends as a return, a wait that the
 * scheduler resolves, the process's end, a stop with a message that names the image, or a
 * guest exception, never an emulator error; a stdcall thunk leaves the stack balanced (the
 * code checks esp after the call and faults with int3 otherwise). */
#include <string.h>

#include "api/exports.h"
#include "api/pe.h"
#include "api/platform.h"
#include "scenarios/fuzz/fuzz.h"

#define EX_MAX_CALLS 24
#define EX_STEPS 4000     /* scheduler passes per input */
#define EX_CYCLES 4000000 /* guest cycles per input */
#define BUF 0x2000        /* the writable buffer */

static const char X[] = "exports";

/* A minimal image: headers, one executable section holding `ret`, no imports. */
static size_t minimal_pe(bool x64, uint8_t *b, size_t cap) {
    if (cap < 0x400) return 0;
    memset(b, 0, 0x400);
    b[0] = 'M', b[1] = 'Z';
    b[0x3C] = 0x40;
    uint8_t *pe = b + 0x40, *fh = pe + 4, *oh = fh + 20;
    memcpy(pe, "PE\0\0", 4);
    hcp_put16(fh, x64 ? HCP_PE_MACHINE_AMD64 : HCP_PE_MACHINE_I386);
    hcp_put16(fh + 2, 1);                      /* one section */
    hcp_put16(fh + 16, x64 ? 0xF0 : 0xE0);     /* SizeOfOptionalHeader */
    hcp_put16(fh + 18, x64 ? 0x0022 : 0x0102); /* executable; large-address-aware / 32-bit */
    hcp_put16(oh, x64 ? 0x20B : 0x10B);
    hcp_put32(oh + 4, 0x200);   /* SizeOfCode */
    hcp_put32(oh + 16, 0x1000); /* AddressOfEntryPoint */
    hcp_put32(oh + 20, 0x1000); /* BaseOfCode */
    if (x64)
        hcp_put64(oh + 24, UINT64_C(0x140000000));
    else
        hcp_put32(oh + 28, 0x400000);
    hcp_put32(oh + 32, 0x1000); /* SectionAlignment */
    hcp_put32(oh + 36, 0x200);  /* FileAlignment */
    hcp_put16(oh + 40, 6);      /* OS version */
    hcp_put16(oh + 48, 6);      /* subsystem version */
    hcp_put32(oh + 56, 0x2000); /* SizeOfImage */
    hcp_put32(oh + 60, 0x200);  /* SizeOfHeaders */
    hcp_put16(oh + 68, 3);      /* console */
    unsigned nrva = x64 ? 108 : 92;
    hcp_put32(oh + nrva, 16); /* NumberOfRvaAndSizes */
    uint8_t *sh = oh + (x64 ? 0xF0 : 0xE0);
    memcpy(sh, ".text", 5);
    hcp_put32(sh + 8, 0x1000);  /* VirtualSize */
    hcp_put32(sh + 12, 0x1000); /* VirtualAddress */
    hcp_put32(sh + 16, 0x200);  /* SizeOfRawData */
    hcp_put32(sh + 20, 0x200);  /* PointerToRawData */
    hcp_put32(sh + 36, 0x60000020u);
    b[0x200] = 0xC3;
    return 0x400;
}

typedef struct ex_ctx {
    hcpfz_in in;
    sim_machine *m;
    bool x64;
    uint64_t buf, code_ro;
    uint64_t handles[8];
    int nh;
} ex_ctx;

static uint64_t pick_u32(ex_ctx *x) {
    static const uint32_t v[] = {0, 1, 2, 3, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu, 0xFFFFFFFEu, 64, 1024, 0x1000};
    uint8_t k = hcpfz_u8(&x->in);
    return k < 200 ? v[k % (sizeof v / sizeof v[0])] : hcpfz_u32(&x->in);
}

static uint64_t pick_ptr(ex_ctx *x) {
    uint8_t k = hcpfz_u8(&x->in) % 10;
    switch (k) {
    case 0: return 0;
    case 1: return x->buf;
    case 2: return x->buf + BUF - 8; /* its last 8 bytes */
    case 3: return x->buf + BUF - 1;
    case 4: return x->buf + 1 + hcpfz_u8(&x->in);                /* misaligned */
    case 5: return x->code_ro;                                   /* read-only code */
    case 6: return x->x64 ? UINT64_C(0x100000000) : 0x7FFE0000u; /* the call gate */
    case 7: return x->x64 ? UINT64_C(0x20000000) : 0x20000000u;  /* unmapped */
    case 8: return x->buf + (hcpfz_u16(&x->in) % BUF);
    default: return x->x64 ? hcpfz_u64(&x->in) : hcpfz_u32(&x->in);
    }
}

/* A NUL-terminated string of input bytes (wide: UTF-16 units) in the buffer's upper half. */
static uint64_t pick_str(ex_ctx *x, bool wide) {
    if (hcpfz_u8(&x->in) % 8 == 0) return pick_ptr(x);
    size_t got;
    const uint8_t *s = hcpfz_take(&x->in, hcpfz_u8(&x->in) % 48, &got);
    uint8_t tmp[100] = {0};
    size_t n = 0;
    for (size_t i = 0; i < got; i++) {
        uint8_t ch = s[i] ? s[i] : '_';
        tmp[n++] = ch;
        if (wide) tmp[n++] = 0;
    }
    uint64_t at = x->buf + BUF / 2 + (hcpfz_u8(&x->in) % 64) * 8;
    sim_mem_write(x->m, at, tmp, n + (wide ? 2 : 1));
    return at;
}

static uint64_t pick_handle(ex_ctx *x) {
    uint8_t k = hcpfz_u8(&x->in) % 6;
    if (k < 3 && x->nh) return x->handles[hcpfz_u8(&x->in) % x->nh];
    if (k == 3) return x->x64 ? UINT64_C(0xFFFFFFFFFFFFFFFE) : 0xFFFFFFFEu; /* the current thread */
    if (k == 4) return x->x64 ? UINT64_MAX : 0xFFFFFFFFu;                   /* the current process */
    return pick_u32(x);
}

/* The argument words of row e (and `extra` variadic words): w[], n words, fp[] the FP parameter
 * positions (x64: their values go to xmm too). */
static int gen_words(ex_ctx *x, const hcp_export *e, uint64_t *w, int cap, bool *isfp) {
    int n = 0;
    for (int i = 0; i < e->nparams && n + 2 < cap; i++) {
        hcp_type t = e->params[i].type;
        uint64_t v;
        bool two = !x->x64 && (t == HCP_T_U64 || t == HCP_T_MASK64 || t == HCP_T_I64 || t == HCP_T_F64);
        switch (t) {
        case HCP_T_HANDLE: v = pick_handle(x); break;
        case HCP_T_TIMEOUT: v = hcpfz_u8(&x->in) == 0xFF ? 0xFFFFFFFFu : hcpfz_u8(&x->in) % 4; break;
        case HCP_T_STR: v = pick_str(x, false); break;
        case HCP_T_WSTR: v = pick_str(x, true); break;
        case HCP_T_PTR:
        case HCP_T_VALIST: v = pick_ptr(x); break;
        case HCP_T_SIZE:
        case HCP_T_SSIZE: {
            uint8_t k = hcpfz_u8(&x->in) % 4;
            v = k == 0 ? hcpfz_u8(&x->in) : k == 1 ? BUF : k == 2 ? BUF + 1 : hcpfz_u64(&x->in);
            break;
        }
        case HCP_T_U64:
        case HCP_T_MASK64:
        case HCP_T_I64:
        case HCP_T_F64:
        case HCP_T_F32: v = hcpfz_u64(&x->in); break;
        case HCP_T_VARARGS: { /* a few more words, drawn as integers and pointers */
            int k = hcpfz_u8(&x->in) % 5;
            for (int j = 0; j < k && n < cap; j++) {
                isfp[n] = false;
                w[n++] = (hcpfz_u8(&x->in) & 1) ? pick_ptr(x) : pick_u32(x);
            }
            continue;
        }
        case HCP_T_DWORD:
        case HCP_T_MASK:
        case HCP_T_INT:
        case HCP_T_BOOL:
        case HCP_T_ERRCODE:
        case HCP_T_NTSTATUS:
        case HCP_T_WAITRES:
        case HCP_T_PFLAGS:
        case HCP_T_RFLAGS:
        case HCP_T_VOID:
        default:
            v = pick_u32(x);
            if (x->x64 && (hcpfz_u8(&x->in) & 3) == 0) v |= UINT64_C(0xDEAD) << 32; /* an undefined upper half */
            break;
        }
        isfp[n] = t == HCP_T_F64 || t == HCP_T_F32;
        if (two) {
            isfp[n + 1] = false;
            w[n++] = v & 0xFFFFFFFFu;
            w[n++] = v >> 32;
        } else {
            w[n++] = x->x64 ? v : v & 0xFFFFFFFFu;
        }
    }
    return n;
}

static size_t emit(uint8_t *c, size_t k, const void *b, size_t n) {
    memcpy(c + k, b, n);
    return k + n;
}

/* The guest code of one call: x64 `sub rsp, F; mov rax, w; mov [rsp+8k], rax ...; mov rcx.. r9;
 * movq xmm_i, reg for FP; mov rax, thunk; call rax; add rsp, F; ret`; x86 `push ...; mov eax,
 * thunk; call eax; add esp, cleanup; ret`, then checks esp came back (int3 otherwise). */
static size_t call_code(ex_ctx *x, const hcp_export *e, uint64_t thunk, const uint64_t *w, const bool *isfp, int n,
                        uint8_t *c) {
    size_t k = 0;
    if (x->x64) {
        uint32_t frame = (uint32_t)(0x20 + 8 * (n > 4 ? n - 4 : 0) + 8) | 8; /* keeps rsp 16-aligned at the call */
        k = emit(c, k, "\x48\x81\xEC", 3);
        k = emit(c, k, &frame, 4); /* sub rsp, frame */
        for (int i = 4; i < n; i++) {
            k = emit(c, k, "\x48\xB8", 2);
            k = emit(c, k, &w[i], 8); /* mov rax, imm64 */
            uint32_t off = (uint32_t)(0x20 + 8 * (i - 4));
            k = emit(c, k, "\x48\x89\x84\x24", 4);
            k = emit(c, k, &off, 4); /* mov [rsp+off], rax */
        }
        static const uint8_t movreg[4][2] = {
            {0x48, 0xB9}, {0x48, 0xBA}, {0x49, 0xB8}, {0x49, 0xB9}};        /* rcx rdx r8 r9 */
        static const uint8_t movq[4][5] = {{0x66, 0x48, 0x0F, 0x6E, 0xC1},  /* movq xmm0, rcx */
                                           {0x66, 0x48, 0x0F, 0x6E, 0xCA},  /* movq xmm1, rdx */
                                           {0x66, 0x49, 0x0F, 0x6E, 0xD0},  /* movq xmm2, r8 */
                                           {0x66, 0x49, 0x0F, 0x6E, 0xD9}}; /* movq xmm3, r9 */
        for (int i = 0; i < 4 && i < n; i++) {
            k = emit(c, k, movreg[i], 2);
            k = emit(c, k, &w[i], 8);
            if (isfp[i]) k = emit(c, k, movq[i], 5);
        }
        k = emit(c, k, "\x48\xB8", 2);
        k = emit(c, k, &thunk, 8);
        k = emit(c, k, "\xFF\xD0", 2); /* call rax */
        k = emit(c, k, "\x48\x81\xC4", 3);
        k = emit(c, k, &frame, 4); /* add rsp, frame */
        k = emit(c, k, "\xC3", 1);
        return k;
    }
    k = emit(c, k, "\x89\xE5", 2); /* mov ebp, esp: the stack before the call */
    for (int i = n - 1; i >= 0; i--) {
        uint32_t v = (uint32_t)w[i];
        k = emit(c, k, "\x68", 1);
        k = emit(c, k, &v, 4); /* push imm32 */
    }
    uint32_t t32 = (uint32_t)thunk;
    k = emit(c, k, "\xB8", 1);
    k = emit(c, k, &t32, 4);
    k = emit(c, k, "\xFF\xD0", 2); /* call eax */
    uint32_t clean = e->conv == HCP_CC_STDCALL ? 4u * (uint32_t)(n - e->words) : 4u * (uint32_t)n;
    if (clean) {
        k = emit(c, k, "\x81\xC4", 2);
        k = emit(c, k, &clean, 4); /* add esp, the words the callee did not pop */
    }
    k = emit(c, k, "\x39\xEC\x74\x01\xCC", 5); /* cmp esp, ebp; je +1; int3 */
    k = emit(c, k, "\xC3", 1);
    return k;
}

int hcpfz_exports(const uint8_t *data, size_t size) {
    ex_ctx x = {{data, size}, NULL, false, 0, 0, {0}, 0};
    x.x64 = !(hcpfz_u8(&x.in) & 1);
    const hcp_platform *plat = hcp_platform_find(x.x64 ? "win10-x64" : "win7-x86");
    hcp_system_opts o;
    hcp_system_opts_init(&o, plat);
    o.sim.max_cycles = EX_CYCLES;
    o.sim.max_trap_points = HCPFZ_MAX_TRAPS;
    hcp_system sys;
    char msg[512];
    if (hcp_system_new(&o, &sys, msg, sizeof msg) != 0) hcpfz_fail(X, "hcp_system_new failed: %s", msg);
    x.m = sys.m;
    uint8_t img[0x400];
    size_t n = minimal_pe(x.x64, img, sizeof img);
    hcp_process *p = hcp_process_load(sys.os, "fuzz.exe", img, n, NULL, 0, msg, sizeof msg);
    if (!p) hcpfz_fail(X, "the minimal image does not load: %s", msg);
    sim_thread *t;
    if (sim_thread_new(sys.m, "fuzz.exe", 8, ~UINT64_C(0), -1, &t) != SIM_OK || hcp_process_attach_thread(p, t) != 0)
        hcpfz_fail(X, "main thread set-up failed");
    static const uint8_t ret = 0xC3;
    if (sim_alloc(sys.m, BUF, &x.buf) != SIM_OK || sim_code(sys.m, &ret, 1, &x.code_ro) != SIM_OK)
        hcpfz_fail(X, "no guest memory for the buffers");

    int rows = hcp_export_count(), steps = 0;
    for (int call = 0; call < EX_MAX_CALLS && x.in.n && steps < EX_STEPS; call++) {
        const hcp_export *e = hcp_export_at((int)(hcpfz_u16(&x.in) % (unsigned)rows));
        if (e->kind != HCP_EXPORT_FUNCTION && e->kind != HCP_EXPORT_STUB) continue;
        if (e->flags & HCP_EX_INTERNAL) continue;
        uint64_t w[24];
        bool isfp[24];
        int nw = gen_words(&x, e, w, 20, isfp);
        uint64_t thunk = hcp_export_thunk(sys.os, e);
        uint8_t code[512];
        size_t len = call_code(&x, e, thunk, w, isfp, nw, code);
        uint64_t at;
        if (sim_code(sys.m, code, len, &at) != SIM_OK) break; /* trap points or guest memory used up */
        bool begun = false, done = false;
        while (!done && steps++ < EX_STEPS) {
            sim_thread *cur;
            if (sim_sched_next(sys.m, &cur) != SIM_RUN_THREAD) goto out; /* deadlock or the end */
            if (cur != t) hcpfz_fail(X, "a thread the input did not make runs");
            if (!begun) {
                if (sim_call_begin(cur, at, NULL, 0) != SIM_OK) goto out;
                begun = true;
            }
            sim_call_status st = sim_call_continue(cur);
            if (st == SIM_CALL_YIELD) continue;
            if (st == SIM_CALL_ERROR)
                hcpfz_fail(X, "%s!%s: an emulator error: %s", e->dll, e->name, sim_call_error(cur));
            const char *why = hcp_process_failure(p);
            if (why) {
                if (!memchr(why, 0, 256) || strncmp(why, "fuzz.exe", 8) != 0)
                    hcpfz_fail(X, "%s!%s: a stop whose message does not name the image", e->dll, e->name);
                goto out;
            }
            uint32_t code32;
            if (st != SIM_CALL_RETURNED || hcp_process_exited(p, &code32) || hcp_process_thread_exited(p, t, &code32))
                goto out; /* a guest exception, the limit, the process's or the thread's end */
            uint64_t r = sim_call_result(cur);
            if (r && x.nh < 8 && e->ret == HCP_T_HANDLE) x.handles[x.nh++] = r;
            done = true;
        }
    }
out:
    hcp_system_free(&sys);
    return 0;
}

HCPFZ_ENTRY(hcpfz_exports)
