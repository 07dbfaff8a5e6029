/* scenarios/fuzz/fz_dll.c — target `dll`: arbitrary bytes as a program's DLL (api/pe_dll.c) and its
 * unwind data (api/seh_x64.c).  The bytes are written as fz.dll into a private dll_folder; a program
 * this file builds (x86-64, or i386 when the bytes' machine field says so) imports fz.dll's
 * ordinal 1 and calls it.  The load must succeed or be refused with a message naming the program;
 * a loaded process then makes the loader's calls (the DLL's TLS callbacks and DllMain for
 * DLL_PROCESS_ATTACH) and runs the program's entry point for at most DLL_CYCLES cycles: every
 * guest call must end as a return, a guest exception, a stop that names its cause, or the cycle
 * limit, never an emulator error, a host crash or a hang.  A fault in the DLL's code goes through
 * the exception dispatch, which walks the DLL's .pdata and .xdata (x86-64) as the bytes give them.
 * Seeds: the DLLs the Makefile builds (build/pe/dll64/, dll32/, copied by run.sh). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/pe.h"
#include "api/platform.h"
#include "api/system.h"
#include "scenarios/fuzz/fuzz.h"

#define DLL_STEPS 2000
#define DLL_CYCLES 2000000

static const char DLLP[] = "dll";

static void dll_put16(uint8_t *b, uint32_t v) {
    b[0] = (uint8_t)v;
    b[1] = (uint8_t)(v >> 8);
}
static void dll_put32(uint8_t *b, uint32_t v) {
    dll_put16(b, v);
    dll_put16(b + 2, v >> 16);
}
static void dll_put64(uint8_t *b, uint64_t v) {
    dll_put32(b, (uint32_t)v);
    dll_put32(b + 4, (uint32_t)(v >> 32));
}

/* A program of 0x600 bytes: headers, .text at RVA 0x1000 (calls the import, returns), .idata at
 * RVA 0x2000 (fz.dll, ordinal 1). */
static void dll_program(uint8_t img[0x600], bool x64) {
    memset(img, 0, 0x600);
    img[0] = 'M';
    img[1] = 'Z';
    dll_put32(img + 0x3C, 0x40);
    uint8_t *ph = img + 0x40, *oh = ph + 24;
    memcpy(ph, "PE\0\0", 4);
    dll_put16(ph + 4, x64 ? 0x8664 : 0x014C);
    dll_put16(ph + 6, 2);
    dll_put16(ph + 20, x64 ? 0xF0 : 0xE0);
    dll_put16(ph + 22, x64 ? 0x0022 : 0x0102);
    uint64_t base = x64 ? UINT64_C(0x140000000) : 0x400000u;
    dll_put16(oh, x64 ? 0x20B : 0x10B);
    dll_put32(oh + 16, 0x1000); /* AddressOfEntryPoint */
    if (x64)
        dll_put64(oh + 24, base);
    else
        dll_put32(oh + 28, (uint32_t)base);
    dll_put32(oh + 32, 0x1000);
    dll_put32(oh + 36, 0x200);
    dll_put32(oh + 56, 0x3000); /* SizeOfImage */
    dll_put32(oh + 60, 0x200);  /* SizeOfHeaders */
    dll_put16(oh + 68, 3);      /* console */
    uint8_t *dirs = oh + (x64 ? 112 : 96);
    dll_put32(oh + (x64 ? 108 : 92), 16);
    dll_put32(dirs + 8, 0x2000); /* the import directory */
    dll_put32(dirs + 12, 40);
    uint8_t *st = oh + (x64 ? 0xF0 : 0xE0);
    memcpy(st, ".text", 5);
    dll_put32(st + 8, 0x200);
    dll_put32(st + 12, 0x1000);
    dll_put32(st + 16, 0x200);
    dll_put32(st + 20, 0x200);
    dll_put32(st + 36, 0x60000020u);
    memcpy(st + 40, ".idata", 6);
    dll_put32(st + 48, 0x200);
    dll_put32(st + 52, 0x2000);
    dll_put32(st + 56, 0x200);
    dll_put32(st + 60, 0x400);
    dll_put32(st + 76, 0xC0000040u);
    uint8_t *code = img + 0x200;
    if (x64) { /* sub rsp, 0x28; call [rip + IAT]; add rsp, 0x28; ret */
        static const uint8_t c[] = {0x48, 0x83, 0xEC, 0x28, 0xFF, 0x15, 0, 0, 0, 0, 0x48, 0x83, 0xC4, 0x28, 0xC3};
        memcpy(code, c, sizeof c);
        dll_put32(code + 6, 0x2040u - 0x100Au);
    } else { /* call [IAT]; ret */
        code[0] = 0xFF;
        code[1] = 0x15;
        dll_put32(code + 2, (uint32_t)base + 0x2040u);
        code[6] = 0xC3;
    }
    uint8_t *id = img + 0x400;
    dll_put32(id, 0x2030);      /* OriginalFirstThunk */
    dll_put32(id + 12, 0x2060); /* Name */
    dll_put32(id + 16, 0x2040); /* FirstThunk */
    uint64_t ord = x64 ? (UINT64_C(1) << 63) | 1 : 0x80000001u;
    if (x64) {
        dll_put64(id + 0x30, ord);
        dll_put64(id + 0x40, ord);
    } else {
        dll_put32(id + 0x30, (uint32_t)ord);
        dll_put32(id + 0x40, (uint32_t)ord);
    }
    memcpy(id + 0x60, "fz.dll", 7);
}

static char dll_folder[64];

/* Runs one guest call on the process's main thread; false when the run must stop. */
static bool dll_run_call(hcp_system *sys, hcp_process *p, uint64_t fn, const uint64_t *a, int n, int *steps) {
    bool begun = false;
    for (; *steps < DLL_STEPS; (*steps)++) {
        sim_thread *cur;
        if (sim_sched_next(sys->m, &cur) != SIM_RUN_THREAD) return false;
        if (!begun) {
            begun = true;
            if (sim_call_begin(cur, fn, a, n) != SIM_OK) return false;
        }
        sim_call_status st = sim_call_continue(cur);
        if (st == SIM_CALL_YIELD) continue;
        if (st != SIM_CALL_RETURNED && st != SIM_CALL_FAULTED && st != SIM_CALL_LIMIT)
            hcpfz_fail(DLLP, "a guest call ended in an emulator error: %s", sim_call_error(cur));
        const char *why = hcp_process_failure(p);
        if (why && !memchr(why, 0, 768)) hcpfz_fail(DLLP, "an unterminated failure message");
        uint32_t code;
        return st == SIM_CALL_RETURNED && !why && !hcp_process_exited(p, &code);
    }
    return false;
}

int hcpfz_dll(const uint8_t *data, size_t size) {
    if (!dll_folder[0]) {
        snprintf(dll_folder, sizeof dll_folder, "/tmp/hcpfz-dll-XXXXXX");
        if (!mkdtemp(dll_folder)) hcpfz_fail(DLLP, "no temporary dll_folder");
    }
    char path[128];
    snprintf(path, sizeof path, "%s/fz.dll", dll_folder);
    FILE *f = fopen(path, "wb");
    if (!f) hcpfz_fail(DLLP, "cannot write %s", path);
    if (size) fwrite(data, 1, size, f);
    fclose(f);
    bool x64 = true; /* the program's machine: the bytes' own, when they name i386 */
    if (size >= 0x40) {
        uint32_t lf =
            (uint32_t)data[0x3C] | (uint32_t)data[0x3D] << 8 | (uint32_t)data[0x3E] << 16 | (uint32_t)data[0x3F] << 24;
        if (lf < size && size - lf >= 6 && data[lf + 4] == 0x4C && data[lf + 5] == 0x01) x64 = false;
    }
    uint8_t img[0x600];
    dll_program(img, x64);
    const hcp_platform *plat = hcp_platform_find(x64 ? "win10-x64" : "win7-x86");
    hcp_system_opts o;
    hcp_system_opts_init(&o, plat);
    o.sim.max_cycles = DLL_CYCLES;
    o.sim.max_trap_points = HCPFZ_MAX_TRAPS;
    hcp_system sys;
    char msg[768];
    if (hcp_system_new(&o, &sys, msg, sizeof msg) != 0) hcpfz_fail(DLLP, "hcp_system_new failed: %s", msg);
    uint32_t status = 0;
    hcp_process_opts po = {0};
    po.dll_dir = dll_folder;
    po.status = &status;
    hcp_process *p = hcp_process_load_ex(sys.os, "fuzz.exe", img, sizeof img, NULL, 0, &po, msg, sizeof msg);
    if (!p) {
        if (strncmp(msg, "fuzz.exe: ", 10) != 0 || !msg[10])
            hcpfz_fail(DLLP, "a refused load whose message does not name the program: '%s'", msg);
        hcp_system_free(&sys);
        return 0;
    }
    sim_thread *t;
    if (sim_thread_new(sys.m, "fuzz.exe", 8, ~UINT64_C(0), -1, &t) != SIM_OK || hcp_process_attach_thread(p, t) != 0)
        hcpfz_fail(DLLP, "main thread set-up failed");
    hcp_loader_call *calls = NULL;
    int n = hcp_process_loader_calls(p, HCP_DLL_PROCESS_ATTACH, &calls), steps = 0;
    bool go = n >= 0;
    for (int i = 0; go && i < n; i++) go = dll_run_call(&sys, p, calls[i].fn, calls[i].a, 3, &steps);
    free(calls);
    if (go) dll_run_call(&sys, p, hcp_process_entry(p), NULL, 0, &steps);
    hcp_system_free(&sys);
    return 0;
}

HCPFZ_ENTRY(hcpfz_dll)
