/* api/pe_image.c — the PE image loader: used for the program and for every DLL
 * (api/README.md "The loader").
 *
 * hcp_pe_parse checks every header field the loader uses before the loader
 * uses it, so a malformed image gets one precise message, never a read out of
 * bounds.  hcp_image_open lays the image out in host memory (headers and
 * sections at their RVAs); the caller chooses a base (hcp_image_choose_base),
 * applies the base relocations when it is not the preferred one, resolves the
 * imports through its own callback (the process: api/pe_process.c), copies the
 * export directory and the TLS directory into the module record, then maps
 * runs of pages of equal protection with sim_map_fixed. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/exports_int.h"

#define IMAGE_FILE_EXECUTABLE_IMAGE 0x0002u
#define IMAGE_FILE_DLL 0x2000u
#define SCN_CNT_UNINIT 0x00000080u
#define SCN_EXEC 0x20000000u
#define SCN_WRITE 0x80000000u

static const char *const dir_names[16] = {
    "export", "import",       "resource",       "exception", "security",    "base relocation",
    "debug",  "architecture", "global pointer", "TLS",       "load config", "bound import",
    "IAT",    "delay import", "CLR runtime",    "reserved"};

int hcp_pe_fail(char *err, size_t cap, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
    return -1;
}
#define fail hcp_pe_fail

const char *hcp_pe_machine_name(uint16_t m) {
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

/* hcp_pe_parse for a program (dll false: a DLL is refused) or a DLL (dll true: a program is). */
int hcp_pe_parse_kind(const uint8_t *img, size_t n, bool dll, hcp_pe_info *o, char *err, size_t cap) {
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
                    o->machine, hcp_pe_machine_name(o->machine));
    unsigned nsec = hcp_get16(ph + 6);
    uint32_t optsize = hcp_get16(ph + 20);
    o->characteristics = hcp_get16(ph + 22);
    if (!(o->characteristics & IMAGE_FILE_EXECUTABLE_IMAGE))
        return fail(err, cap,
                    "not an executable image (IMAGE_FILE_EXECUTABLE_IMAGE is clear in Characteristics 0x%04X)",
                    o->characteristics);
    if (!dll && (o->characteristics & IMAGE_FILE_DLL))
        return fail(err, cap, "a DLL, not a program (IMAGE_FILE_DLL is set in Characteristics 0x%04X)",
                    o->characteristics);
    if (dll && !(o->characteristics & IMAGE_FILE_DLL))
        return fail(err, cap, "a program, not a DLL (IMAGE_FILE_DLL is clear in Characteristics 0x%04X)",
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
    if (dll && o->entry == 0) return 0; /* a DLL without DllMain */
    bool in_exec = false;
    for (int i = 0; i < o->nsections; i++) {
        const hcp_pe_section *sc = &o->sec[i];
        uint32_t span = sc->vsize ? sc->vsize : sc->rawsize;
        if (o->entry >= sc->rva && o->entry - sc->rva < span && (sc->flags & SCN_EXEC)) in_exec = true;
    }
    if (!in_exec) return fail(err, cap, "AddressOfEntryPoint 0x%X is not inside an executable section", o->entry);
    return 0;
}

int hcp_pe_parse(const uint8_t *img, size_t n, hcp_pe_info *o, char *err, size_t cap) {
    return hcp_pe_parse_kind(img, n, false, o, err, cap);
}

/* ---- laying out, placing, relocating -------------------------------------------------------- */

int hcp_image_open(const uint8_t *file, size_t n, bool dll, hcp_image *im, char *err, size_t cap) {
    memset(im, 0, sizeof *im);
    if (hcp_pe_parse_kind(file, n, dll, &im->pe, err, cap) != 0) return -1;
    return 0;
}

int hcp_image_layout(const uint8_t *file, hcp_image *im, char *err, size_t cap) {
    const hcp_pe_info *pe = &im->pe;
    if (!(im->im = calloc(1, pe->size_of_image))) return fail(err, cap, "out of host memory");
    memcpy(im->im, file, pe->size_of_headers);
    for (int s = 0; s < pe->nsections; s++) {
        const hcp_pe_section *sc = &pe->sec[s];
        uint32_t len = sc->rawsize;
        if (sc->vsize && len > sc->vsize) len = sc->vsize;
        if (len > pe->size_of_image - sc->rva) len = pe->size_of_image - sc->rva;
        if (!(sc->flags & SCN_CNT_UNINIT) || sc->rawsize) memcpy(im->im + sc->rva, file + sc->raw, len);
    }
    return 0;
}

void hcp_image_close(hcp_image *im) {
    free(im->im);
    im->im = NULL;
}

/* Its preferred base when free, else the first free 16 MiB step above it (x86: wrapping below 2 GiB). */
bool hcp_image_choose_base(sim_machine *m, hcp_image *im, const hcp_process *p) {
    uint64_t size = ((uint64_t)im->pe.size_of_image + 0xFFFu) & ~(uint64_t)0xFFFu;
    uint64_t b = im->pe.image_base;
    for (int k = 0; k < 1024; k++, b += 0x1000000) {
        if (!im->pe.pe32plus && b + size > 0x7FFF0000u) b = 0x00400000u + (uint64_t)k * 0x1000000 % 0x60000000u;
        if (sim_range_free(m, b, size) && !hcp_dll_reserved(p, b, size)) {
            im->base = b;
            return true;
        }
    }
    return false;
}

/* A NUL-terminated string at rva inside the built image, or NULL. */
const char *hcp_image_str(const hcp_image *im, uint32_t rva, size_t maxlen) {
    uint32_t size = im->pe.size_of_image;
    if (rva >= size) return NULL;
    const uint8_t *s = im->im + rva, *e = memchr(s, 0, size - rva < maxlen ? size - rva : maxlen);
    return e ? (const char *)s : NULL;
}

int hcp_image_relocate(hcp_image *im, char *err, size_t cap) {
    const hcp_pe_info *pe = &im->pe;
    int64_t delta = (int64_t)(im->base - pe->image_base);
    uint32_t rva = pe->dir_rva[HCP_DIR_BASERELOC], size = pe->dir_size[HCP_DIR_BASERELOC], off = 0;
    while (off + 8 <= size) {
        uint32_t page = hcp_get32(im->im + rva + off), bsize = hcp_get32(im->im + rva + off + 4);
        if (bsize < 8 || bsize > size - off || bsize % 2)
            return fail(err, cap,
                        "base relocation block at RVA 0x%X has size 0x%X (it must be 8 or more, even, and "
                        "inside the directory)",
                        rva + off, bsize);
        for (uint32_t k = 8; k < bsize; k += 2) {
            uint16_t e = hcp_get16(im->im + rva + off + k);
            unsigned type = e >> 12;
            uint32_t at = page + (e & 0xFFFu);
            if (type == 0) continue;                         /* IMAGE_REL_BASED_ABSOLUTE: padding */
            unsigned w = type == 10 ? 8 : type == 3 ? 4 : 0; /* DIR64, HIGHLOW */
            if (!w)
                return fail(err, cap, "base relocation type %u at RVA 0x%X is not supported (only 3 and 10)", type, at);
            if (at > pe->size_of_image || w > pe->size_of_image - at)
                return fail(err, cap, "base relocation at RVA 0x%X lies outside the image", at);
            if (w == 8)
                hcp_put64(im->im + at, hcp_get64(im->im + at) + (uint64_t)delta);
            else
                hcp_put32(im->im + at, hcp_get32(im->im + at) + (uint32_t)delta);
        }
        off += bsize;
    }
    return 0;
}

/* ---- imports ---------------------------------------------------------------------------------- */

int hcp_image_imports(hcp_image *im, hcp_import_fn resolve, void *ud, char *err, size_t cap) {
    uint32_t size = im->pe.size_of_image, rva = im->pe.dir_rva[HCP_DIR_IMPORT], dsz = im->pe.dir_size[HCP_DIR_IMPORT];
    unsigned w = im->pe.pe32plus ? 8 : 4;
    if (!rva) return 0;
    for (uint32_t off = 0;; off += 20) {
        if (off + 20 > dsz || rva + off + 20 > size)
            return fail(err, cap, "import directory (RVA 0x%X, size 0x%X) has no terminating null descriptor", rva,
                        dsz);
        const uint8_t *d = im->im + rva + off;
        uint32_t ilt = hcp_get32(d), name = hcp_get32(d + 12), iat = hcp_get32(d + 16);
        if (!ilt && !name && !iat) break;
        const char *dll = hcp_image_str(im, name, 256);
        if (!dll || !*dll)
            return fail(err, cap, "import descriptor %u: its DLL name (RVA 0x%X) is not a string inside the image",
                        off / 20, name);
        if (!ilt) ilt = iat;
        for (uint32_t k = 0;; k++) {
            if ((uint64_t)ilt + (uint64_t)(k + 1) * w > size || (uint64_t)iat + (uint64_t)(k + 1) * w > size)
                return fail(err, cap, "imports of %s run past the end of the image (no null entry)", dll);
            if (k >= 65536) return fail(err, cap, "imports of %s: more than 65536 entries", dll);
            uint64_t e = w == 8 ? hcp_get64(im->im + ilt + k * w) : hcp_get32(im->im + ilt + k * w);
            if (!e) break;
            bool ordinal = w == 8 ? (e >> 63) != 0 : (e >> 31) != 0;
            const char *fn = NULL;
            if (!ordinal) {
                fn = hcp_image_str(im, (uint32_t)(e & 0x7FFFFFFFu) + 2, 256);
                if ((e & 0x7FFFFFFFu) + 2 > size || !fn || !*fn)
                    return fail(err, cap, "import %u of %s: its name (RVA 0x%X) is not a string inside the image", k,
                                dll, (unsigned)(e & 0x7FFFFFFFu));
            }
            uint64_t addr = 0;
            if (resolve(ud, dll, fn, ordinal ? (unsigned)(e & 0xFFFFu) : 0, &addr, err, cap) != 0) return -1;
            if (w == 8)
                hcp_put64(im->im + iat + k * w, addr);
            else
                hcp_put32(im->im + iat + k * w, (uint32_t)addr);
        }
    }
    return 0;
}

/* ---- exports ---------------------------------------------------------------------------------- */

static char *dup_str(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

/* The export directory, copied into the module: every function by ordinal (a forwarder as its
 * string) and the names in the directory's order. */
int hcp_image_exports(const hcp_image *im, hcp_module *mod, char *err, size_t cap) {
    uint32_t rva = im->pe.dir_rva[HCP_DIR_EXPORT], dsz = im->pe.dir_size[HCP_DIR_EXPORT], size = im->pe.size_of_image;
    const uint8_t *b = im->im;
    if (!rva) return 0;
    if (dsz < 40) return fail(err, cap, "export directory size 0x%X is too small (40 bytes)", dsz);
    uint32_t base = hcp_get32(b + rva + 16), nfun = hcp_get32(b + rva + 20), nnames = hcp_get32(b + rva + 24),
             funs = hcp_get32(b + rva + 28), names = hcp_get32(b + rva + 32), ords = hcp_get32(b + rva + 36);
    if (nnames > 65536 || nfun > 65536) return fail(err, cap, "export directory: more than 65536 exports");
    if ((uint64_t)funs + 4ull * nfun > size || (uint64_t)names + 4ull * nnames > size ||
        (uint64_t)ords + 2ull * nnames > size)
        return fail(err, cap, "export directory: its tables lie outside the image");
    mod->exp_base = base;
    mod->exp_nfun = nfun;
    mod->exp_rva = calloc(nfun ? nfun : 1, sizeof *mod->exp_rva);
    mod->exp_fwd = calloc(nfun ? nfun : 1, sizeof *mod->exp_fwd);
    mod->exp_name = calloc(nnames ? nnames : 1, sizeof *mod->exp_name);
    mod->exp_ord = calloc(nnames ? nnames : 1, sizeof *mod->exp_ord);
    if (!mod->exp_rva || !mod->exp_fwd || !mod->exp_name || !mod->exp_ord) return fail(err, cap, "out of host memory");
    for (uint32_t i = 0; i < nnames; i++) {
        uint16_t o = hcp_get16(b + ords + 2 * i);
        const char *nm = hcp_image_str(im, hcp_get32(b + names + 4 * i), 256);
        if (!nm || o >= nfun) return fail(err, cap, "export %u: its name or ordinal lies outside the image", i);
        uint32_t f = hcp_get32(b + funs + 4u * o);
        if (f >= size && !(f >= rva && f - rva < dsz))
            return fail(err, cap, "export '%s' (RVA 0x%X) lies outside the image", nm, f);
        if (!(mod->exp_name[i] = dup_str(nm))) return fail(err, cap, "out of host memory");
        mod->exp_ord[i] = o;
        mod->exp_nnames = i + 1;
    }
    mod->exp_sorted = true;
    for (uint32_t i = 1; i < nnames; i++)
        if (strcmp(mod->exp_name[i - 1], mod->exp_name[i]) >= 0) mod->exp_sorted = false;
    for (uint32_t o = 0; o < nfun; o++) {
        uint32_t f = hcp_get32(b + funs + 4u * o);
        if (f >= rva && f - rva < dsz) { /* a forwarder: "DLL.Name" or "DLL.#ordinal" inside the directory */
            const char *s = hcp_image_str(im, f, 256);
            if (!s || !strchr(s, '.'))
                return fail(err, cap, "export ordinal %u: its forwarder (RVA 0x%X) is not a string 'DLL.Name'",
                            base + o, f);
            if (!(mod->exp_fwd[o] = dup_str(s))) return fail(err, cap, "out of host memory");
        } else if (f >= size) {
            f = 0; /* an unnamed entry outside the image: no function there */
        }
        mod->exp_rva[o] = f;
    }
    return 0;
}

/* The index into exp_rva of export `name`, or -1. */
int hcp_module_export_index(const hcp_module *mod, const char *name) {
    if (mod->exp_sorted) {
        int lo = 0, hi = (int)mod->exp_nnames - 1;
        while (lo <= hi) {
            int mid = lo + (hi - lo) / 2, c = strcmp(mod->exp_name[mid], name);
            if (!c) return mod->exp_ord[mid];
            if (c < 0)
                lo = mid + 1;
            else
                hi = mid - 1;
        }
        return -1;
    }
    for (uint32_t i = 0; i < mod->exp_nnames; i++)
        if (strcmp(mod->exp_name[i], name) == 0) return mod->exp_ord[i];
    return -1;
}

/* ---- TLS ---------------------------------------------------------------------------------------- */

/* The TLS directory: its template (copied), where the image wants its TLS index (written there
 * now: mod->tls_slot), and its callbacks (VAs at mod's base). */
int hcp_image_tls(hcp_image *im, hcp_module *mod, char *err, size_t cap) {
    uint32_t rva = im->pe.dir_rva[HCP_DIR_TLS], size = im->pe.size_of_image;
    unsigned w = im->pe.pe32plus ? 8 : 4;
    uint64_t base = im->base;
    if (!rva) return 0;
    if (im->pe.dir_size[HCP_DIR_TLS] < 4 * w)
        return fail(err, cap, "TLS directory size 0x%X is too small", im->pe.dir_size[HCP_DIR_TLS]);
    uint64_t f[4];
    for (int i = 0; i < 4; i++) f[i] = w == 8 ? hcp_get64(im->im + rva + i * 8) : hcp_get32(im->im + rva + i * 4);
    /* StartAddressOfRawData, EndAddressOfRawData, AddressOfIndex, AddressOfCallBacks: VAs */
    for (int i = 0; i < 4; i++)
        if (f[i] && (f[i] < base || f[i] - base > size))
            return fail(err, cap, "TLS directory field %d (0x%llX) points outside the image", i,
                        (unsigned long long)f[i]);
    if (f[1] < f[0]) return fail(err, cap, "TLS directory: EndAddressOfRawData is below StartAddressOfRawData");
    if (f[2] && f[2] - base > size - 4) return fail(err, cap, "TLS AddressOfIndex lies outside the image");
    if (f[2]) hcp_put32(im->im + (f[2] - base), (uint32_t)mod->tls_slot); /* the image's TLS index */
    if (f[3]) {
        for (uint32_t k = 0;; k++) {
            uint64_t at = f[3] - base + (uint64_t)k * w;
            if (at + w > size) return fail(err, cap, "TLS callbacks run past the end of the image (no null entry)");
            uint64_t cb = w == 8 ? hcp_get64(im->im + at) : hcp_get32(im->im + at);
            if (!cb) break;
            if (k >= HCP_PE_MAX_TLS_CALLBACKS)
                return fail(err, cap, "more than %u TLS callbacks", HCP_PE_MAX_TLS_CALLBACKS);
            if (cb < base || cb - base >= size)
                return fail(err, cap, "TLS callback %u (0x%llX) points outside the image", k, (unsigned long long)cb);
            mod->tls_cb[mod->ntls_cb++] = cb;
        }
    }
    uint64_t len = f[1] - f[0];
    uint32_t zero = w == 8 ? hcp_get32(im->im + rva + 32) : hcp_get32(im->im + rva + 16);
    if (len + zero > 0x10000)
        return fail(err, cap, "TLS data of 0x%llX bytes: hcpsim supports 64 KiB", (unsigned long long)(len + zero));
    mod->has_tls = true;
    mod->tls_len = (uint32_t)len;
    mod->tls_zero = zero;
    if (len) {
        if (!(mod->tls_tmpl = malloc(len))) return fail(err, cap, "out of host memory");
        memcpy(mod->tls_tmpl, im->im + (f[0] - base), len);
    }
    return 0;
}

/* ---- mapping ------------------------------------------------------------------------------------ */

static unsigned prot_of(uint32_t flags) {
    unsigned pr = SIM_PROT_READ;
    if (flags & SCN_WRITE) pr |= SIM_PROT_WRITE;
    if (flags & SCN_EXEC) pr |= SIM_PROT_EXEC;
    return pr;
}

/* Maps the built image: runs of pages with one protection each. */
int hcp_image_map(sim_machine *m, const hcp_image *im, char *err, size_t cap) {
    uint32_t pages = im->pe.size_of_image / 0x1000 + (im->pe.size_of_image % 0x1000 != 0);
    unsigned *pr = calloc(pages, sizeof *pr);
    if (!pr) return fail(err, cap, "out of host memory");
    for (uint32_t i = 0; i < pages; i++) pr[i] = SIM_PROT_READ; /* headers and gaps: read-only */
    for (int s = 0; s < im->pe.nsections; s++) {
        const hcp_pe_section *sc = &im->pe.sec[s];
        uint32_t span = sc->vsize ? sc->vsize : sc->rawsize;
        for (uint32_t a = sc->rva; a < sc->rva + span && a / 0x1000 < pages; a += 0x1000)
            pr[a / 0x1000] = prot_of(sc->flags);
    }
    int rc = 0;
    for (uint32_t i = 0; i < pages && !rc;) {
        uint32_t j = i;
        while (j < pages && pr[j] == pr[i]) j++;
        uint64_t off = (uint64_t)i * 0x1000, len = (uint64_t)(j - i) * 0x1000;
        uint64_t have = im->pe.size_of_image > off ? im->pe.size_of_image - off : 0;
        sim_err e = sim_map_fixed(m, im->base + off, len, pr[i], im->im + off, have < len ? have : len);
        if (e != SIM_OK)
            rc = fail(err, cap, "mapping RVA 0x%llX+0x%llX: %s", (unsigned long long)off, (unsigned long long)len,
                      hcp_limit_strerror(m, e));
        i = j;
    }
    free(pr);
    return rc;
}

/* PAGE_* of a section's pages. */
static uint32_t section_page_prot(uint32_t flags) {
    bool w = flags & SCN_WRITE, x = flags & SCN_EXEC;
    return x ? (w ? 0x40u : 0x20u) : (w ? 0x04u : 0x02u); /* EXECUTE_READ(WRITE), READWRITE, READONLY */
}

int hcp_module_init_prot(hcp_module *mod) {
    uint32_t pages = (mod->pe.size_of_image + 0xFFFu) / 0x1000u;
    if (!(mod->pprot = malloc((pages ? pages : 1) * sizeof *mod->pprot))) return -1;
    for (uint32_t i = 0; i < pages; i++) mod->pprot[i] = 0x02; /* PAGE_READONLY: headers and gaps */
    for (int s = 0; s < mod->pe.nsections; s++) {
        const hcp_pe_section *sc = &mod->pe.sec[s];
        uint32_t span = sc->vsize ? sc->vsize : sc->rawsize;
        for (uint32_t a = sc->rva; a < sc->rva + span && a / 0x1000 < pages; a += 0x1000)
            mod->pprot[a / 0x1000] = section_page_prot(sc->flags);
    }
    return 0;
}

void hcp_module_free(hcp_module *mod) {
    free(mod->pprot);
    for (uint32_t i = 0; i < mod->exp_nnames; i++) free(mod->exp_name[i]);
    for (uint32_t i = 0; mod->exp_fwd && i < mod->exp_nfun; i++) free(mod->exp_fwd[i]);
    free(mod->exp_name);
    free(mod->exp_ord);
    free(mod->exp_rva);
    free(mod->exp_fwd);
    free(mod->tls_tmpl);
    free(mod->deps);
    memset(mod, 0, sizeof *mod);
}

const char *hcp_limit_strerror(sim_machine *m, sim_err e) {
    static char buf[256];
    const sim_config *c = m ? sim_machine_config(m) : NULL;
    if (c && e == SIM_ERR_TRAPS)
        snprintf(buf, sizeof buf,
                 "limit reached: %u trap points in guest code (machine option max_trap_points, hcpsim run "
                 "--max-trap-points N; at most %u, default %u)",
                 c->max_trap_points, SIM_MAX_TRAPS_LIMIT, SIM_MAX_TRAPS_DEFAULT);
    else if (c && e == SIM_ERR_MAPPINGS)
        snprintf(buf, sizeof buf,
                 "limit reached: %u guest memory mappings (machine option max_mappings, hcpsim run --max-mappings N; "
                 "at most %u, default %u)",
                 c->max_mappings, SIM_MAX_MAPPINGS_LIMIT, SIM_MAX_MAPPINGS_DEFAULT);
    else
        return sim_strerror(e);
    return buf;
}
