/* api/pe.c — the PE loader and the process it makes (api/README.md "Windows programs").
 *
 * hcp_pe_parse checks every header field the loader uses before the loader
 * uses it, so a malformed image gets one precise message, never a read out of
 * bounds.  hcp_process_load builds the image in host memory (headers and
 * sections at their RVAs), applies base relocations when the preferred base is
 * taken, writes each import's thunk address into the import address table,
 * then maps runs of pages of equal protection with sim_map_fixed.  The process
 * data (PEB, TEB, RTL_USER_PROCESS_PARAMETERS, the command line, a fixed
 * environment, msvcrt's variables) is one read/write block from sim_alloc;
 * nothing in it comes from the host. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/exports_int.h"
#include "api/files_int.h"
#include "api/sync_int.h"
#include "api/system.h"

#define IMAGE_FILE_RELOCS_STRIPPED 0x0001u
#define IMAGE_FILE_EXECUTABLE_IMAGE 0x0002u
#define IMAGE_FILE_DLL 0x2000u
#define SCN_CNT_UNINIT 0x00000080u
#define SCN_DISCARDABLE 0x02000000u
#define SCN_EXEC 0x20000000u
#define SCN_READ 0x40000000u
#define SCN_WRITE 0x80000000u
#define DIR_EXPORT 0
#define DIR_IMPORT 1
#define DIR_BASERELOC 5
#define DIR_TLS 9

static const char *const dir_names[16] = {
    "export", "import",       "resource",       "exception", "security",    "base relocation",
    "debug",  "architecture", "global pointer", "TLS",       "load config", "bound import",
    "IAT",    "delay import", "CLR runtime",    "reserved"};

static int fail(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t cap, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
    return -1;
}

static const char *machine_name(uint16_t m) {
    switch (m) {
    case 0x8664: return "x86-64";
    case 0x014C: return "i386";
    case 0xAA64: return "ARM64";
    case 0x01C4: return "ARMNT";
    case 0x01C0: return "ARM";
    case 0x0200: return "IA64";
    case 0x0000: return "unknown";
    default: return "not a known machine";
    }
}

int hcp_pe_parse(const uint8_t *img, size_t n, hcp_pe_info *o, char *err, size_t cap) {
    memset(o, 0, sizeof *o);
    if (n < 64) return fail(err, cap, "truncated DOS header: the file has %zu bytes, the header needs 64", n);
    if (img[0] != 'M' || img[1] != 'Z') return fail(err, cap, "not a PE image: no 'MZ' signature");
    uint32_t lfanew = hcp_get32(img + 0x3C);
    if (lfanew > n || n - lfanew < 24)
        return fail(err, cap, "truncated PE header: e_lfanew 0x%X leaves no 24-byte file header in %zu bytes", lfanew,
                    n);
    const uint8_t *ph = img + lfanew;
    if (memcmp(ph, "PE\0\0", 4) != 0) return fail(err, cap, "no 'PE\\0\\0' signature at e_lfanew 0x%X", lfanew);
    o->machine = hcp_get16(ph + 4);
    if (o->machine != HCP_PE_MACHINE_AMD64 && o->machine != HCP_PE_MACHINE_I386)
        return fail(err, cap,
                    "machine type 0x%04X (%s): hcpsim runs x86-64 (0x8664, win10-x64) and i386 (0x014C, win7-x86) "
                    "images only",
                    o->machine, machine_name(o->machine));
    unsigned nsec = hcp_get16(ph + 6);
    uint32_t optsize = hcp_get16(ph + 20);
    o->characteristics = hcp_get16(ph + 22);
    if (!(o->characteristics & IMAGE_FILE_EXECUTABLE_IMAGE))
        return fail(err, cap,
                    "not an executable image (IMAGE_FILE_EXECUTABLE_IMAGE is clear in Characteristics 0x%04X)",
                    o->characteristics);
    if (o->characteristics & IMAGE_FILE_DLL)
        return fail(err, cap, "a DLL, not a program (IMAGE_FILE_DLL is set in Characteristics 0x%04X)",
                    o->characteristics);
    size_t opt = (size_t)lfanew + 24;
    bool plus = o->machine == HCP_PE_MACHINE_AMD64;
    uint32_t need = plus ? 112 : 96; /* up to NumberOfRvaAndSizes */
    if (optsize < need)
        return fail(err, cap, "SizeOfOptionalHeader %u is too small: a PE32%s optional header needs at least %u",
                    optsize, plus ? "+" : "", need);
    if (n - opt < optsize)
        return fail(err, cap, "truncated optional header: %u bytes at 0x%zX, the file ends at 0x%zX", optsize, opt, n);
    const uint8_t *oh = img + opt;
    uint16_t magic = hcp_get16(oh);
    if (magic != (plus ? 0x20B : 0x10B))
        return fail(err, cap, "optional header magic 0x%03X does not match machine 0x%04X (it needs 0x%03X, PE32%s)",
                    magic, o->machine, plus ? 0x20B : 0x10B, plus ? "+" : "");
    o->pe32plus = plus;
    o->entry = hcp_get32(oh + 16);
    o->image_base = plus ? hcp_get64(oh + 24) : hcp_get32(oh + 28);
    o->section_align = hcp_get32(oh + 32);
    o->file_align = hcp_get32(oh + 36);
    o->size_of_image = hcp_get32(oh + 56);
    o->size_of_headers = hcp_get32(oh + 60);
    o->subsystem = hcp_get16(oh + 68);
    uint32_t ndir = hcp_get32(oh + (plus ? 108 : 92));
    if (o->section_align != 0x1000)
        return fail(err, cap, "SectionAlignment 0x%X: hcpsim maps 4 KiB pages and needs 0x1000", o->section_align);
    if (o->file_align < 0x200 || o->file_align > 0x10000 || (o->file_align & (o->file_align - 1)))
        return fail(err, cap, "FileAlignment 0x%X is not a power of two from 0x200 to 0x10000", o->file_align);
    if (o->image_base % 0x10000 || (!plus && o->image_base > 0x7FFF0000u) ||
        (plus && o->image_base >= UINT64_C(0x7FF000000000)))
        return fail(err, cap, "ImageBase 0x%llX is not a 64 KiB-aligned user-mode address",
                    (unsigned long long)o->image_base);
    if (o->size_of_image == 0 || o->size_of_image > HCP_PE_MAX_IMAGE)
        return fail(err, cap, "SizeOfImage 0x%X is 0 or larger than hcpsim's limit (0x%X)", o->size_of_image,
                    HCP_PE_MAX_IMAGE);
    if (o->size_of_headers == 0 || o->size_of_headers > o->size_of_image)
        return fail(err, cap, "SizeOfHeaders 0x%X is 0 or larger than SizeOfImage 0x%X", o->size_of_headers,
                    o->size_of_image);
    if (ndir > 16) return fail(err, cap, "NumberOfRvaAndSizes %u is larger than 16", ndir);
    if ((plus ? 112u : 96u) + 8 * ndir > optsize)
        return fail(err, cap, "NumberOfRvaAndSizes %u: the data directories run past SizeOfOptionalHeader %u", ndir,
                    optsize);
    for (uint32_t i = 0; i < ndir; i++) {
        o->dir_rva[i] = hcp_get32(oh + (plus ? 112 : 96) + 8 * i);
        o->dir_size[i] = hcp_get32(oh + (plus ? 116 : 100) + 8 * i);
        if (i == 4) continue; /* the security directory holds a file offset, not an RVA */
        if ((o->dir_rva[i] || o->dir_size[i]) &&
            (o->dir_rva[i] > o->size_of_image || o->dir_size[i] > o->size_of_image - o->dir_rva[i]))
            return fail(err, cap, "%s directory (RVA 0x%X, size 0x%X) lies outside the image (SizeOfImage 0x%X)",
                        dir_names[i], o->dir_rva[i], o->dir_size[i], o->size_of_image);
    }
    if (nsec == 0 || nsec > HCP_PE_MAX_SECTIONS)
        return fail(err, cap, "%u sections: hcpsim loads 1 to %u", nsec, HCP_PE_MAX_SECTIONS);
    size_t st = opt + optsize;
    if (st > n || (n - st) / 40 < nsec)
        return fail(err, cap, "truncated section table: %u sections of 40 bytes at 0x%zX, the file ends at 0x%zX", nsec,
                    st, n);
    if (o->size_of_headers > n)
        return fail(err, cap, "SizeOfHeaders 0x%X lies past the end of the file (0x%zX bytes)", o->size_of_headers, n);
    if (o->size_of_headers < st + 40 * (size_t)nsec)
        return fail(err, cap, "SizeOfHeaders 0x%X does not cover the section table (it ends at 0x%zX)",
                    o->size_of_headers, st + 40 * (size_t)nsec);
    uint32_t prev_end = (o->size_of_headers + 0xFFFu) & ~0xFFFu;
    for (unsigned i = 0; i < nsec; i++) {
        const uint8_t *s = img + st + 40 * i;
        hcp_pe_section *sc = &o->sec[i];
        for (int k = 0; k < 8; k++) sc->name[k] = (s[k] >= 0x20 && s[k] < 0x7F) ? (char)s[k] : (s[k] ? '?' : '\0');
        sc->name[8] = '\0';
        sc->vsize = hcp_get32(s + 8);
        sc->rva = hcp_get32(s + 12);
        sc->rawsize = hcp_get32(s + 16);
        sc->raw = hcp_get32(s + 20);
        sc->flags = hcp_get32(s + 36);
        uint32_t span = sc->vsize ? sc->vsize : sc->rawsize;
        if (sc->rva % 0x1000 || sc->rva < prev_end)
            return fail(err, cap, "section %u '%s' at RVA 0x%X is not page-aligned or overlaps what precedes it", i + 1,
                        sc->name, sc->rva);
        if (sc->rva > o->size_of_image || span > o->size_of_image - sc->rva)
            return fail(err, cap, "section %u '%s' (RVA 0x%X, size 0x%X) lies outside the image (SizeOfImage 0x%X)",
                        i + 1, sc->name, sc->rva, span, o->size_of_image);
        if (sc->rawsize && (sc->raw > n || sc->rawsize > n - sc->raw))
            return fail(err, cap, "section %u '%s': raw data 0x%X+0x%X lies past the end of the file (0x%zX bytes)",
                        i + 1, sc->name, sc->raw, sc->rawsize, n);
        prev_end = sc->rva + ((span + 0xFFFu) & ~0xFFFu);
    }
    o->nsections = (int)nsec;
    bool in_exec = false;
    for (int i = 0; i < o->nsections; i++) {
        const hcp_pe_section *sc = &o->sec[i];
        uint32_t span = sc->vsize ? sc->vsize : sc->rawsize;
        if (o->entry >= sc->rva && o->entry - sc->rva < span && (sc->flags & SCN_EXEC)) in_exec = true;
    }
    if (!in_exec) return fail(err, cap, "AddressOfEntryPoint 0x%X is not inside an executable section", o->entry);
    return 0;
}

/* ---- loading ---------------------------------------------------------------------------------- */

static unsigned ptrw(const hcp_process *p) { return p->pe.pe32plus ? 8 : 4; }

/* A NUL-terminated string at rva inside the built image, or NULL. */
static const char *image_str(const uint8_t *im, uint32_t size, uint32_t rva, size_t maxlen) {
    if (rva >= size) return NULL;
    const uint8_t *s = im + rva, *e = memchr(s, 0, size - rva < maxlen ? size - rva : maxlen);
    return e ? (const char *)s : NULL;
}

static int relocate(hcp_process *p, uint8_t *im, int64_t delta, char *err, size_t cap) {
    uint32_t rva = p->pe.dir_rva[DIR_BASERELOC], size = p->pe.dir_size[DIR_BASERELOC], off = 0;
    while (off + 8 <= size) {
        uint32_t page = hcp_get32(im + rva + off), bsize = hcp_get32(im + rva + off + 4);
        if (bsize < 8 || bsize > size - off || bsize % 2)
            return fail(err, cap,
                        "base relocation block at RVA 0x%X has size 0x%X (it must be 8 or more, even, and "
                        "inside the directory)",
                        rva + off, bsize);
        for (uint32_t k = 8; k < bsize; k += 2) {
            uint16_t e = hcp_get16(im + rva + off + k);
            unsigned type = e >> 12;
            uint32_t at = page + (e & 0xFFFu);
            if (type == 0) continue;                         /* IMAGE_REL_BASED_ABSOLUTE: padding */
            unsigned w = type == 10 ? 8 : type == 3 ? 4 : 0; /* DIR64, HIGHLOW */
            if (!w)
                return fail(err, cap, "base relocation type %u at RVA 0x%X is not supported (only 3 and 10)", type, at);
            if (at > p->pe.size_of_image || w > p->pe.size_of_image - at)
                return fail(err, cap, "base relocation at RVA 0x%X lies outside the image", at);
            if (w == 8)
                hcp_put64(im + at, hcp_get64(im + at) + (uint64_t)delta);
            else
                hcp_put32(im + at, hcp_get32(im + at) + (uint32_t)delta);
        }
        off += bsize;
    }
    return 0;
}

static int missing_service(hcp_process *p, const char *dll, const char *fn, char *err, size_t cap) {
    char full[96];
    snprintf(full, sizeof full, "%s!%s", dll, fn);
    for (int i = 0; i < p->nmissing; i++)
        if (strcmp(p->missing[i], full) == 0) return (int)HCP_SVC_MISSING + i;
    if (p->nmissing >= (int)HCP_MAX_MISSING)
        return fail(err, cap, "more than %u imports hcpsim does not implement", HCP_MAX_MISSING);
    if (!p->missing && !(p->missing = calloc(HCP_MAX_MISSING, sizeof *p->missing)))
        return fail(err, cap, "out of host memory");
    snprintf(p->missing[p->nmissing], sizeof p->missing[0], "%s", full);
    return (int)HCP_SVC_MISSING + p->nmissing++;
}

static int imports(hcp_process *p, uint8_t *im, char *err, size_t cap) {
    sim_machine *m = p->os->m;
    uint32_t size = p->pe.size_of_image, rva = p->pe.dir_rva[DIR_IMPORT], dsz = p->pe.dir_size[DIR_IMPORT];
    unsigned w = ptrw(p);
    if (!rva) return 0;
    for (uint32_t off = 0;; off += 20) {
        if (off + 20 > dsz || rva + off + 20 > size)
            return fail(err, cap, "import directory (RVA 0x%X, size 0x%X) has no terminating null descriptor", rva,
                        dsz);
        const uint8_t *d = im + rva + off;
        uint32_t ilt = hcp_get32(d), name = hcp_get32(d + 12), iat = hcp_get32(d + 16);
        if (!ilt && !name && !iat) break;
        const char *dll = image_str(im, size, name, 256);
        if (!dll || !*dll)
            return fail(err, cap, "import descriptor %u: its DLL name (RVA 0x%X) is not a string inside the image",
                        off / 20, name);
        if (!ilt) ilt = iat;
        for (uint32_t k = 0;; k++) {
            if ((uint64_t)ilt + (uint64_t)(k + 1) * w > size || (uint64_t)iat + (uint64_t)(k + 1) * w > size)
                return fail(err, cap, "imports of %s run past the end of the image (no null entry)", dll);
            if (k >= 65536) return fail(err, cap, "imports of %s: more than 65536 entries", dll);
            uint64_t e = w == 8 ? hcp_get64(im + ilt + k * w) : hcp_get32(im + ilt + k * w);
            if (!e) break;
            bool ordinal = w == 8 ? (e >> 63) != 0 : (e >> 31) != 0;
            char fn[80];
            const hcp_export *ex;
            if (ordinal) {
                ex = hcp_export_by_ordinal(dll, (unsigned)(e & 0xFFFFu));
                if (ex)
                    snprintf(fn, sizeof fn, "%s", ex->name);
                else
                    snprintf(fn, sizeof fn, "#%u", (unsigned)(e & 0xFFFFu));
            } else {
                const char *s = image_str(im, size, (uint32_t)(e & 0x7FFFFFFFu) + 2, 256);
                if ((e & 0x7FFFFFFFu) + 2 > size || !s || !*s)
                    return fail(err, cap, "import %u of %s: its name (RVA 0x%X) is not a string inside the image", k,
                                dll, (unsigned)(e & 0x7FFFFFFFu));
                snprintf(fn, sizeof fn, "%s", s);
                ex = hcp_export_find(dll, s);
            }
            uint64_t addr;
            if (ex && (ex->kind == HCP_EXPORT_DATA || ex->kind == HCP_EXPORT_GUEST)) {
                addr = hcp_export_address(p, ex);
            } else if (ex) { /* a function, or a stub: its own thunk names it when called */
                addr = hcp_export_thunk(p->os, ex);
            } else {
                int svc = missing_service(p, dll, fn, err, cap);
                if (svc < 0) return -1;
                addr = sim_gate_thunk(m, (uint32_t)svc);
            }
            if (w == 8)
                hcp_put64(im + iat + k * w, addr);
            else
                hcp_put32(im + iat + k * w, (uint32_t)addr);
        }
    }
    return 0;
}

static int tls(hcp_process *p, uint8_t *im, char *err, size_t cap) {
    uint32_t rva = p->pe.dir_rva[DIR_TLS], size = p->pe.size_of_image;
    unsigned w = ptrw(p);
    if (!rva) return 0;
    if (p->pe.dir_size[DIR_TLS] < 4 * w)
        return fail(err, cap, "TLS directory size 0x%X is too small", p->pe.dir_size[DIR_TLS]);
    uint64_t f[4];
    for (int i = 0; i < 4; i++) f[i] = w == 8 ? hcp_get64(im + rva + i * 8) : hcp_get32(im + rva + i * 4);
    /* StartAddressOfRawData, EndAddressOfRawData, AddressOfIndex, AddressOfCallBacks: VAs */
    for (int i = 0; i < 4; i++)
        if (f[i] && (f[i] < p->base || f[i] - p->base > size))
            return fail(err, cap, "TLS directory field %d (0x%llX) points outside the image", i,
                        (unsigned long long)f[i]);
    if (f[1] < f[0]) return fail(err, cap, "TLS directory: EndAddressOfRawData is below StartAddressOfRawData");
    if (f[2] && f[2] - p->base > size - 4) return fail(err, cap, "TLS AddressOfIndex lies outside the image");
    if (f[2]) hcp_put32(im + (f[2] - p->base), 0); /* the image's TLS index: slot 0 of the array */
    if (f[3]) {
        for (uint32_t k = 0;; k++) {
            uint64_t at = f[3] - p->base + (uint64_t)k * w;
            if (at + w > size) return fail(err, cap, "TLS callbacks run past the end of the image (no null entry)");
            uint64_t cb = w == 8 ? hcp_get64(im + at) : hcp_get32(im + at);
            if (!cb) break;
            if (k >= HCP_PE_MAX_TLS_CALLBACKS)
                return fail(err, cap, "more than %u TLS callbacks", HCP_PE_MAX_TLS_CALLBACKS);
            if (cb < p->base || cb - p->base >= size)
                return fail(err, cap, "TLS callback %u (0x%llX) points outside the image", k, (unsigned long long)cb);
            p->tls_cb[p->ntls_cb++] = cb;
        }
    }
    /* the thread's copy of the template (the main thread only: one block) */
    uint64_t len = f[1] - f[0];
    uint32_t zero = w == 8 ? hcp_get32(im + rva + 32) : hcp_get32(im + rva + 16);
    if (len + zero > 0x10000)
        return fail(err, cap, "TLS data of 0x%llX bytes: hcpsim supports 64 KiB", (unsigned long long)(len + zero));
    uint64_t block;
    if (sim_alloc(p->os->m, len + zero + 16, &block) != SIM_OK)
        return fail(err, cap, "no guest memory for the TLS block");
    if (len && sim_mem_write(p->os->m, block, im + (f[0] - p->base), len) != SIM_OK)
        return fail(err, cap, "no guest memory for the TLS block");
    uint8_t b[8];
    hcp_put64(b, block);
    sim_mem_write(p->os->m, p->d.tls_array, b, w);
    return 0;
}

/* The export directory: each named function that is not a forwarder (p.exports). */
static int exports(hcp_process *p, const uint8_t *im, char *err, size_t cap) {
    uint32_t rva = p->pe.dir_rva[DIR_EXPORT], dsz = p->pe.dir_size[DIR_EXPORT], size = p->pe.size_of_image;
    if (!rva) return 0;
    if (dsz < 40) return fail(err, cap, "export directory size 0x%X is too small (40 bytes)", dsz);
    uint32_t nfun = hcp_get32(im + rva + 20), nnames = hcp_get32(im + rva + 24), funs = hcp_get32(im + rva + 28),
             names = hcp_get32(im + rva + 32), ords = hcp_get32(im + rva + 36);
    if (nnames > 65536 || nfun > 65536) return fail(err, cap, "export directory: more than 65536 exports");
    if ((uint64_t)funs + 4ull * nfun > size || (uint64_t)names + 4ull * nnames > size ||
        (uint64_t)ords + 2ull * nnames > size)
        return fail(err, cap, "export directory: its tables lie outside the image");
    p->exports = calloc(nnames ? nnames : 1, sizeof *p->exports);
    if (!p->exports) return fail(err, cap, "out of host memory");
    for (uint32_t i = 0; i < nnames; i++) {
        uint16_t o = hcp_get16(im + ords + 2 * i);
        const char *nm = image_str(im, size, hcp_get32(im + names + 4 * i), 64);
        if (!nm || o >= nfun) return fail(err, cap, "export %u: its name or ordinal lies outside the image", i);
        uint32_t f = hcp_get32(im + funs + 4u * o);
        if (f >= rva && f - rva < dsz) continue; /* a forwarder ("DLL.Name"): not code of this image */
        if (f >= size) return fail(err, cap, "export '%s' (RVA 0x%X) lies outside the image", nm, f);
        hcp_image_export *e = &p->exports[p->nexports++];
        snprintf(e->name, sizeof e->name, "%s", nm);
        e->addr = p->base + f;
    }
    return 0;
}

/* Maps the built image: runs of pages with one protection each. */
static unsigned prot_of(uint32_t flags) {
    unsigned pr = SIM_PROT_READ;
    if (flags & SCN_WRITE) pr |= SIM_PROT_WRITE;
    if (flags & SCN_EXEC) pr |= SIM_PROT_EXEC;
    return pr;
}

static int map_image(hcp_process *p, const uint8_t *im, char *err, size_t cap) {
    uint32_t pages = p->pe.size_of_image / 0x1000 + (p->pe.size_of_image % 0x1000 != 0);
    unsigned *pr = calloc(pages, sizeof *pr);
    if (!pr) return fail(err, cap, "out of host memory");
    for (uint32_t i = 0; i < pages; i++) pr[i] = SIM_PROT_READ; /* headers and gaps: read-only */
    for (int s = 0; s < p->pe.nsections; s++) {
        const hcp_pe_section *sc = &p->pe.sec[s];
        uint32_t span = sc->vsize ? sc->vsize : sc->rawsize;
        for (uint32_t a = sc->rva; a < sc->rva + span && a / 0x1000 < pages; a += 0x1000)
            pr[a / 0x1000] = prot_of(sc->flags);
    }
    int rc = 0;
    for (uint32_t i = 0; i < pages && !rc;) {
        uint32_t j = i;
        while (j < pages && pr[j] == pr[i]) j++;
        uint64_t off = (uint64_t)i * 0x1000, len = (uint64_t)(j - i) * 0x1000;
        uint64_t have = p->pe.size_of_image > off ? p->pe.size_of_image - off : 0;
        sim_err e = sim_map_fixed(p->os->m, p->base + off, len, pr[i], im + off, have < len ? have : len);
        if (e != SIM_OK)
            rc = fail(err, cap, "mapping RVA 0x%llX+0x%llX: %s", (unsigned long long)off, (unsigned long long)len,
                      sim_machine_strerror(p->os->m, e));
        i = j;
    }
    free(pr);
    return rc;
}

/* A base for the image: its own when free, else the first free 16 MiB step above it. */
static bool choose_base(hcp_process *p) {
    uint64_t size = ((uint64_t)p->pe.size_of_image + 0xFFFu) & ~(uint64_t)0xFFFu;
    uint64_t b = p->pe.image_base;
    for (int k = 0; k < 1024; k++, b += 0x1000000) {
        if (!p->pe.pe32plus && b + size > 0x7FFF0000u) b = 0x00400000u + (uint64_t)k * 0x1000000 % 0x60000000u;
        if (sim_range_free(p->os->m, b, size)) {
            p->base = b;
            return true;
        }
    }
    return false;
}

/* ---- the process data block ---------------------------------------------------------------------- */

typedef struct blk {
    uint8_t *b;
    uint32_t used, cap;
    uint64_t base;
} blk;

static uint64_t put(blk *k, const void *bytes, uint32_t n, uint32_t align) {
    k->used = (k->used + align - 1) & ~(align - 1);
    if (n > k->cap - k->used) return 0;
    uint64_t at = k->base + k->used;
    if (bytes) memcpy(k->b + k->used, bytes, n);
    k->used += n;
    return at;
}
static uint64_t put_a(blk *k, const char *s) { return put(k, s, (uint32_t)strlen(s) + 1, 2); }
static uint64_t put_w(blk *k, const char *s, uint32_t *bytes) {
    uint32_t n = (uint32_t)strlen(s);
    uint64_t at = put(k, NULL, 2 * (n + 1), 2);
    if (!at) return 0;
    uint8_t *d = k->b + (at - k->base);
    for (uint32_t i = 0; i <= n; i++) hcp_put16(d + 2 * i, (uint8_t)s[i]);
    if (bytes) *bytes = 2 * n;
    return at;
}
static void wr(blk *k, uint64_t at, uint64_t v, unsigned w) {
    if (w == 8)
        hcp_put64(k->b + (at - k->base), v);
    else if (w == 4)
        hcp_put32(k->b + (at - k->base), (uint32_t)v);
    else
        hcp_put16(k->b + (at - k->base), (uint16_t)v);
}

static bool needs_quotes(const char *s) { return !*s || strpbrk(s, " \t\"") != NULL; }

#define DATA_BLOCK 0x10000u

static int build_data(hcp_process *p, const char *const *args, int nargs, char *err, size_t cap) {
    sim_machine *m = p->os->m;
    unsigned w = ptrw(p);
    bool x64 = w == 8;
    uint64_t base;
    /* The environment (k32_env.c), in ANSI and UTF-16 and as envp's strings: a larger block when
     * the variables the run added need it (the fixed environment fits the first 64 KiB). */
    size_t env_bytes = hcp_env_block_a(p, NULL, 0);
    int nenv = hcp_env_count(p);
    uint32_t block_size = DATA_BLOCK;
    if (env_bytes > 1024)
        block_size += (uint32_t)((4 * env_bytes + (size_t)w * (size_t)(nenv + 1) + 0xFFFF) & ~(size_t)0xFFFF);
    char *envb = malloc(env_bytes);
    if (!envb) return fail(err, cap, "out of host memory");
    hcp_env_block_a(p, envb, env_bytes);
    if (sim_alloc(m, block_size, &base) != SIM_OK) {
        free(envb);
        return fail(err, cap, "no guest memory for the process block");
    }
    blk k = {calloc(1, block_size), 0, block_size, base};
    if (!k.b) {
        free(envb);
        return fail(err, cap, "out of host memory");
    }
    hcp_proc_data *d = &p->d;
    d->base = base;
    d->peb = put(&k, NULL, 0x800, 16);
    d->teb = put(&k, NULL, 0x1000, 0x1000);
    d->params = put(&k, NULL, 0x400, 16);
    d->tls_array = put(&k, NULL, 8 * 8, 16);
    char path[96], cmd[4096];
    snprintf(path, sizeof path, "C:\\hcpsim\\%s", p->name);
    size_t c = (size_t)snprintf(cmd, sizeof cmd, "%s", path);
    for (int i = 0; i < nargs && c < sizeof cmd; i++)
        c += (size_t)snprintf(cmd + c, sizeof cmd - c, needs_quotes(args[i]) ? " \"%s\"" : " %s", args[i]);
    if (c >= sizeof cmd - 1) {
        free(k.b);
        free(envb);
        return fail(err, cap, "the command line is longer than %zu bytes", sizeof cmd - 2);
    }
    uint32_t cmd_bytes = 0, path_bytes = 0;
    d->cmdline_a = put_a(&k, cmd);
    d->cmdline_w = put_w(&k, cmd, &cmd_bytes);
    d->image_w = put_w(&k, path, &path_bytes);
    /* environment: "A=B\0C=D\0\0", ANSI and UTF-16 */
    size_t e = env_bytes;
    d->env_a = put(&k, envb, (uint32_t)e, 2);
    d->env_w = put(&k, NULL, (uint32_t)(2 * e), 2);
    for (size_t i = 0; i < e; i++) wr(&k, d->env_w + 2 * i, (uint8_t)envb[i], 2);
    /* argv and envp: pointer arrays, NULL-terminated */
    d->argv = put(&k, NULL, (uint32_t)(w * ((unsigned)nargs + 2)), 16);
    wr(&k, d->argv, put_a(&k, path), w);
    for (int i = 0; i < nargs; i++) wr(&k, d->argv + w * (unsigned)(i + 1), put_a(&k, args[i]), w);
    p->argc = nargs + 1;
    d->envp = put(&k, NULL, w * (unsigned)(nenv + 1), 16);
    uint64_t *envs = calloc((size_t)nenv + 1, sizeof *envs);
    for (size_t i = 0, at = 0; envs && (int)i < nenv; i++, at += strlen(envb + at) + 1) {
        envs[i] = put_a(&k, envb + at);
        wr(&k, d->envp + w * (unsigned)i, envs[i], w);
    }
    free(envb);
    if (!envs || hcp_crtenv_init(p, envs) != 0) {
        free(envs);
        free(k.b);
        return fail(err, cap, "out of host memory");
    }
    free(envs);
    /* msvcrt's variables */
    d->file_size = x64 ? 48 : 32;
    d->iob = put(&k, NULL, 20 * d->file_size, 16); /* _iob[20] (_IOB_ENTRIES); 0-2 are open */
    /* _flag: _IOREAD for stdin, _IOWRT for the others; _file = i */
    for (unsigned i = 0; i < 3; i++) {
        wr(&k, d->iob + i * d->file_size + (x64 ? 24 : 12), i == 0 ? 0x1 : 0x2, 4);
        wr(&k, d->iob + i * d->file_size + (x64 ? 28 : 16), i, 4);
    }
    d->v_initenv = put(&k, NULL, w, 16);
    wr(&k, d->v_initenv, d->envp, w);
    d->v_environ = put(&k, NULL, w, 16);
    wr(&k, d->v_environ, d->envp, w);
    p->x->v_wenviron = put(&k, NULL, w, 16); /* _wenviron: NULL until made (k32_env.c) */
    d->v_acmdln = put(&k, NULL, w, 16);
    wr(&k, d->v_acmdln, d->cmdline_a, w);
    d->v_argc = put(&k, NULL, 4, 16);
    wr(&k, d->v_argc, (uint32_t)p->argc, 4);
    d->v_argv = put(&k, NULL, w, 16);
    wr(&k, d->v_argv, d->argv, w);
    d->v_commode = put(&k, NULL, 4, 16);
    d->v_fmode = put(&k, NULL, 4, 16);
    d->v_mb_cur_max = put(&k, NULL, 4, 16);
    wr(&k, d->v_mb_cur_max, 1, 4);
    d->v_errno = put(&k, NULL, 4, 16);
    /* struct lconv of the "C" locale: decimal_point ".", the other strings "" and CHAR_MAX fields */
    uint64_t dot = put_a(&k, "."), empty = put_a(&k, "");
    d->lconv = put(&k, NULL, 10 * w + 8, 16);
    wr(&k, d->lconv, dot, w);
    for (unsigned i = 1; i < 10; i++) wr(&k, d->lconv + i * w, empty, w);
    memset(k.b + (d->lconv + 10 * w - base), 0x7F, 8);
    d->strerr = put(&k, NULL, 128, 16);
    d->clocale = put_a(&k, "C");
    /* RTL_USER_PROCESS_PARAMETERS: StandardInput/Output/Error, ImagePathName, CommandLine, Environment */
    uint64_t pp = d->params;
    wr(&k, pp + 0, 0x400, 4); /* MaximumLength */
    wr(&k, pp + 4, 0x400, 4); /* Length */
    wr(&k, pp + 8, 0x1, 4);   /* Flags: RTL_USER_PROC_PARAMS_NORMALIZED */
    for (unsigned i = 0; i < 3; i++) wr(&k, pp + (x64 ? 0x20 : 0x18) + i * w, 0, w);
    uint64_t img = pp + (x64 ? 0x60 : 0x38), cl = pp + (x64 ? 0x70 : 0x40);
    wr(&k, img, path_bytes, 2);
    wr(&k, img + 2, path_bytes + 2, 2);
    wr(&k, img + w, d->image_w, w);
    wr(&k, cl, cmd_bytes, 2);
    wr(&k, cl + 2, cmd_bytes + 2, 2);
    wr(&k, cl + w, d->cmdline_w, w);
    wr(&k, pp + (x64 ? 0x80 : 0x48), d->env_w, w);
    /* PEB: ImageBaseAddress, ProcessParameters, ProcessHeap (the runtime heap), NumberOfProcessors */
    wr(&k, d->peb + (x64 ? 0x10 : 0x08), p->base, w);
    wr(&k, d->peb + (x64 ? 0x20 : 0x10), pp, w);
    wr(&k, d->peb + (x64 ? 0xB8 : 0x64), (uint32_t)sim_cpu_count(m), 4);
    wr(&k, d->peb + (x64 ? 0x118 : 0xA4), 10, 4); /* OSMajorVersion */
    /* TEB: NT_TIB (ExceptionList, StackBase and StackLimit at each call, Self), ClientId, PEB, TLS array */
    wr(&k, d->teb, x64 ? 0 : 0xFFFFFFFFu, w);
    wr(&k, d->teb + (x64 ? 0x30 : 0x18), d->teb, w);
    wr(&k, d->teb + (x64 ? 0x40 : 0x20), HCP_ETW_PROCESS_ID, w);
    wr(&k, d->teb + (x64 ? 0x60 : 0x30), d->peb, w);
    wr(&k, d->teb + (x64 ? 0x58 : 0x2C), d->tls_array, w);
    sim_err se = sim_mem_write(m, base, k.b, k.used);
    free(k.b);
    if (se != SIM_OK) return fail(err, cap, "writing the process block: %s", sim_machine_strerror(m, se));
    return 0;
}

/* ---- the process --------------------------------------------------------------------------------- */

hcp_process *hcp_process_load(hcp_os *os, const char *name, const uint8_t *img, size_t n, const char *const *args,
                              int nargs, char *err, size_t cap) {
    return hcp_process_load_ex(os, name, img, n, args, nargs, NULL, err, cap);
}

hcp_process *hcp_process_load_ex(hcp_os *os, const char *name, const uint8_t *img, size_t n, const char *const *args,
                                 int nargs, const hcp_process_opts *opts, char *err, size_t cap) {
    char msg[384];
    const char *nm = name;
    for (const char *s = name; *s; s++)
        if (*s == '/' || *s == '\\') nm = s + 1;
    if (os->proc) {
        snprintf(err, cap, "%s: this machine already has a process (one per machine)", nm);
        return NULL;
    }
    hcp_process *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, cap, "%s: out of host memory", nm);
        return NULL;
    }
    p->os = os;
    p->mem_limit = HCP_DEFAULT_MAX_MEMORY;
    snprintf(p->name, sizeof p->name, "%s", nm);
    uint8_t *im = NULL;
    if (!(p->x = calloc(1, sizeof *p->x))) {
        free(p);
        snprintf(err, cap, "%s: out of host memory", nm);
        return NULL;
    }
    int rc = hcp_pe_parse(img, n, &p->pe, msg, sizeof msg);
    if (!rc) rc = hcp_process_options(p, opts, msg, sizeof msg);
    sim_arch arch = sim_machine_config(os->m)->arch;
    if (!rc && (arch == SIM_ARCH_X64) != p->pe.pe32plus)
        rc = fail(msg, sizeof msg, "a %s image cannot run on this machine (its guest is %s; platform %s runs it)",
                  machine_name(p->pe.machine), sim_arch_name(arch), p->pe.pe32plus ? "win10-x64" : "win7-x86");
    if (!rc && arch != SIM_ARCH_X64 && arch != SIM_ARCH_X86)
        rc = fail(msg, sizeof msg, "this machine's guest is %s: hcpsim loads images on x64 and x86 machines only",
                  sim_arch_name(arch));
    if (!rc && !(im = calloc(1, p->pe.size_of_image))) rc = fail(msg, sizeof msg, "out of host memory");
    if (!rc) {
        memcpy(im, img, p->pe.size_of_headers);
        for (int s = 0; s < p->pe.nsections; s++) {
            const hcp_pe_section *sc = &p->pe.sec[s];
            uint32_t len = sc->rawsize;
            if (sc->vsize && len > sc->vsize) len = sc->vsize;
            if (len > p->pe.size_of_image - sc->rva) len = p->pe.size_of_image - sc->rva;
            if (!(sc->flags & SCN_CNT_UNINIT) || sc->rawsize) memcpy(im + sc->rva, img + sc->raw, len);
        }
        if (!choose_base(p))
            rc = fail(msg, sizeof msg, "no free guest address range of 0x%X bytes for the image", p->pe.size_of_image);
    }
    if (!rc && p->base != p->pe.image_base) {
        if ((p->pe.characteristics & IMAGE_FILE_RELOCS_STRIPPED) || !p->pe.dir_rva[DIR_BASERELOC])
            rc = fail(msg, sizeof msg, "its preferred base 0x%llX is taken and it has no base relocations",
                      (unsigned long long)p->pe.image_base);
        else
            rc = relocate(p, im, (int64_t)(p->base - p->pe.image_base), msg, sizeof msg);
    }
    os->proc = p;
    if (!rc) rc = build_data(p, args, nargs, msg, sizeof msg);
    if (!rc) rc = tls(p, im, msg, sizeof msg);
    if (!rc && hcp_crt_guest_place(p) != SIM_OK) rc = fail(msg, sizeof msg, "no guest memory for the runtime's code");
    if (!rc && hcp_ucb_place(p) != SIM_OK) rc = fail(msg, sizeof msg, "no guest memory for the callback dispatcher");
    if (!rc) rc = imports(p, im, msg, sizeof msg);
    if (!rc) rc = exports(p, im, msg, sizeof msg);
    if (!rc) rc = map_image(p, im, msg, sizeof msg);
    free(im);
    if (rc) {
        os->proc = NULL;
        snprintf(err, cap, "%s: %s", nm, msg);
        hcp_process_free(p);
        return NULL;
    }
    p->entry = p->base + p->pe.entry;
    return p;
}

void hcp_process_free(hcp_process *p) {
    if (!p) return;
    if (p->x) {
        hcp_process_options_free(p);
        free(p->x);
    }
    free(p->missing);
    free(p->warned);
    free(p->teb_free);
    free(p->blocks);
    for (int i = 0; i < p->nthr; i++) free(p->thr[i].tls);
    free(p->thr);
    free(p->cs);
    free(p->named);
    for (int i = 0; i < p->nva; i++) free(p->va[i].pages);
    free(p->va);
    free(p->exports);
    hcp_xproc_free(p->sx);
    hcp_crt_state_free(p);
    free(p);
}

hcp_process *hcp_os_process(hcp_os *os) { return os ? os->proc : NULL; }
void hcp_process_set_output(hcp_process *p, hcp_output_fn fn, void *ud) {
    p->out = fn;
    p->out_ud = ud;
}
static hcp_pthread *thread_rec_new(hcp_process *p, sim_thread *t, uint64_t teb) {
    if (p->nthr == p->capthr) {
        int nc = p->capthr ? 2 * p->capthr : 8;
        hcp_pthread *n = realloc(p->thr, (size_t)nc * sizeof *n);
        if (!n) return NULL;
        p->thr = n;
        p->capthr = nc;
    }
    hcp_pthread *r = &p->thr[p->nthr++];
    memset(r, 0, sizeof *r);
    r->t = t;
    r->teb = teb;
    return r;
}

/* TEB fields of thread t: Self, ClientId (process 996, its id). */
static void teb_ids(hcp_process *p, uint64_t teb, sim_thread *t) {
    bool x64 = p->pe.pe32plus;
    uint8_t b[8];
    hcp_put64(b, teb);
    sim_mem_write(p->os->m, teb + (x64 ? 0x30 : 0x18), b, x64 ? 8 : 4);
    hcp_put64(b, sim_thread_id(t));
    sim_mem_write(p->os->m, teb + (x64 ? 0x48 : 0x24), b, x64 ? 8 : 4);
}

int hcp_process_attach_thread(hcp_process *p, sim_thread *t) {
    bool x64 = p->pe.pe32plus;
    if (!thread_rec_new(p, t, p->d.teb)) return -1;
    teb_ids(p, p->d.teb, t);
    return sim_thread_set_env(t, p->d.teb, x64 ? 8 : 4, x64 ? 16 : 8) == SIM_OK ? 0 : -1;
}

/* A page for a new thread's TEB: an exited thread's, else the next of an arena of TEB_ARENA pages
 * (one guest mapping for many threads: machine option max_mappings counts mappings). */
#define TEB_ARENA 64
static bool teb_page(hcp_process *p, uint64_t *teb) {
    if (p->nteb_free) {
        *teb = p->teb_free[--p->nteb_free];
        return true;
    }
    if (!p->teb_left) {
        if (sim_alloc(p->os->m, TEB_ARENA * 0x1000, &p->teb_next) != SIM_OK) return false;
        p->teb_left = TEB_ARENA;
    }
    *teb = p->teb_next;
    p->teb_next += 0x1000;
    p->teb_left--;
    return true;
}

int hcp_process_add_thread(hcp_process *p, sim_thread *t) {
    bool x64 = p->pe.pe32plus;
    uint64_t teb;
    uint8_t b[0x100];
    if (!teb_page(p, &teb)) return -1;
    if (sim_mem_read(p->os->m, p->d.teb, b, sizeof b) != SIM_OK || sim_mem_write(p->os->m, teb, b, sizeof b) != SIM_OK)
        return -1;
    if (!thread_rec_new(p, t, teb)) return -1;
    teb_ids(p, teb, t);
    return sim_thread_set_env(t, teb, x64 ? 8 : 4, x64 ? 16 : 8) == SIM_OK ? 0 : -1;
}

hcp_pthread *hcp_process_thread(hcp_process *p, const sim_thread *t) {
    for (int i = 0; p && t && i < p->nthr; i++)
        if (p->thr[i].t == t) return &p->thr[i];
    return NULL;
}

sim_thread *hcp_process_spawner(const hcp_process *p) { return p->spawner; }

uint64_t hcp_process_exit_callbacks(hcp_process *p, sim_thread *t, uint32_t code) {
    if (!p->ucb_entry || !hcp_fls_pending(p->os, p, t)) return 0;
    const uint64_t u[2] = {code, 0};
    return hcp_ucb_push_for(p->os, t, UCB_THREAD_EXIT, 0, u, 2) == 0 ? p->ucb_entry : 0;
}

void hcp_process_set_spawn(hcp_process *p, hcp_spawn_fn fn, void *ud) {
    p->spawn = fn;
    p->spawn_ud = ud;
}

bool hcp_process_thread_exited(hcp_process *p, const sim_thread *t, uint32_t *code) {
    hcp_pthread *r = hcp_process_thread(p, t);
    if (!r || !r->exit_req) return false;
    *code = r->exit_code;
    return true;
}

int hcp_process_live_threads(hcp_process *p) {
    int n = 0;
    for (int i = 0; i < p->nthr; i++) n += sim_thread_state_of(p->thr[i].t) != SIM_TS_TERMINATED;
    return n;
}

uint32_t hcp_process_image_size(const hcp_process *p) { return p->pe.size_of_image; }

bool hcp_process_export(const hcp_process *p, int i, const char **name, uint64_t *addr) {
    if (i < 0 || i >= p->nexports) return false;
    *name = p->exports[i].name;
    *addr = p->exports[i].addr;
    return true;
}

void hcp_process_set_exited(hcp_process *p, uint32_t code) {
    if (p->exited) return;
    p->exited = true;
    p->exit_code = code;
}

void hcp_process_where(const hcp_process *p, uint64_t a, char *out, size_t cap) {
    if (a >= p->base && a - p->base < p->pe.size_of_image)
        snprintf(out, cap, "%s+0x%llX", p->name, (unsigned long long)(a - p->base));
    else if (p->d.stubs && a >= p->d.stubs && a - p->d.stubs < 0x1000)
        snprintf(out, cap, "msvcrt.dll (hcpsim)");
    else if (p->ucb_entry && a >= (p->ucb_entry & ~(uint64_t)0xFFF) && a - (p->ucb_entry & ~(uint64_t)0xFFF) < 0x1000)
        snprintf(out, cap, "ntdll.dll (hcpsim)");
    else if (a >= sim_gate_thunk(p->os->m, 0) && a < sim_gate_thunk(p->os->m, SIM_GATE_SERVICES - 1) + 16)
        snprintf(out, cap, "KERNEL32.dll (hcpsim)");
    else
        snprintf(out, cap, "?");
}
uint64_t hcp_process_entry(const hcp_process *p) { return p->entry; }
uint64_t hcp_process_base(const hcp_process *p) { return p->base; }
int hcp_process_tls_callbacks(const hcp_process *p, uint64_t *out, int cap) {
    for (int i = 0; i < p->ntls_cb && i < cap; i++) out[i] = p->tls_cb[i];
    return p->ntls_cb;
}
bool hcp_process_exited(const hcp_process *p, uint32_t *code) {
    if (code) *code = p->exit_code;
    return p->exited;
}
const char *hcp_process_failure(const hcp_process *p) { return p->failure[0] ? p->failure : NULL; }
bool hcp_process_failure_missing(const hcp_process *p) { return p->failure[0] && p->failure_missing; }
void hcp_process_set_memory_limit(hcp_process *p, uint64_t bytes) { p->mem_limit = bytes; }
uint64_t hcp_process_memory_used(const hcp_process *p) { return p->mem_used; }

bool hcp_process_charge(hcp_process *p, uint64_t n) {
    if (n > p->mem_limit || p->mem_used > p->mem_limit - n) return false;
    p->mem_used += n;
    return true;
}
void hcp_process_uncharge(hcp_process *p, uint64_t n) { p->mem_used -= n < p->mem_used ? n : p->mem_used; }

void hcp_process_thread_gone(hcp_process *p, sim_thread *t) {
    hcp_pthread *r = hcp_process_thread(p, t);
    if (!r || !r->charged) return; /* the main thread's stack and TEB are the process's */
    hcp_process_uncharge(p, r->charged);
    r->charged = 0;
    if (p->nteb_free == p->capteb_free) { /* its TEB page serves the next thread */
        int nc = p->capteb_free ? 2 * p->capteb_free : 16;
        uint64_t *a = realloc(p->teb_free, (size_t)nc * sizeof *a);
        if (!a) return;
        p->teb_free = a;
        p->capteb_free = nc;
    }
    p->teb_free[p->nteb_free++] = r->teb;
}
void hcp_process_set_missing_fail(hcp_process *p, bool fail) { p->missing_fail = fail; }
const char *hcp_process_name(const hcp_process *p) { return p->name; }
