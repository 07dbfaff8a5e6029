/* scenarios/fuzz/fz_paths.c — target `paths`: a hostile program's file calls against the mapped
 * folder's boundary (api/fs.c, api/README.md "Files").
 *
 * Each input builds a fresh host tree in a private temporary folder:
 *     base/inside/            the program's folder (C:\hcpsim), holding sub/, a file, and
 *     base/inside/link-file   a host symbolic link to base/outside/secret
 *     base/inside/link-dir    a host symbolic link to base/outside
 *     base/outside/secret     the file the program must never reach
 * then runs the calls its bytes choose (open with each disposition, make and remove folders,
 * delete, move, copy, change the current directory, list, ask attributes and full paths) on paths
 * assembled from fragments that lead out ("..", "C:\", "D:", "\\?\", "\\.\", "\\server\share",
 * the links, '/' and '\', trailing dots and spaces, device names, case, long runs) and arbitrary
 * bytes.  Invariants: nothing appears next to base/inside, base/outside holds its one file with
 * its bytes and mode, and a call on a path whose full path (GetFullPathName's) is neither inside
 * C:\hcpsim nor a device never succeeds.  The tree is removed afterwards, links unfollowed. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/files_int.h"
#include "api/platform.h"
#include "api/system.h"
#include "scenarios/fuzz/fuzz.h"

static const char PT[] = "paths";
#define PATHS_CALLS 64

static const char *const paths_frags[] = {"..",
                                          ".",
                                          "...",
                                          "sub",
                                          "SUB",
                                          "f.txt",
                                          "F.TXT",
                                          "link-file",
                                          "link-dir",
                                          "secret",
                                          "new",
                                          "x.",
                                          "x ",
                                          "C:",
                                          "C:\\",
                                          "c:/",
                                          "D:",
                                          "\\\\?\\C:\\hcpsim",
                                          "\\\\?\\UNC\\srv\\s",
                                          "\\\\.\\",
                                          "\\\\.\\NUL",
                                          "\\\\server\\share",
                                          "\\",
                                          "/",
                                          "//",
                                          "hcpsim",
                                          "HCPSIM",
                                          "NUL",
                                          "con.txt",
                                          "COM1",
                                          "CONIN$",
                                          "*",
                                          "?",
                                          "a<b",
                                          "\xC3\xA9",
                                          "inside",
                                          "outside",
                                          "\\hcpsim\\",
                                          "C:\\hcpsim\\..",
                                          "C:\\Windows",
                                          "lpt9.x",
                                          "..\\..\\..",
                                          "\x01",
                                          "deep\\er"};
#define PATHS_NFRAGS (int)(sizeof paths_frags / sizeof paths_frags[0])

/* A path of 1-8 pieces (fragments, separators or raw bytes) as UTF-16. */
static uint16_t *paths_make(hcpfz_in *in, size_t *n) {
    char s[600];
    size_t k = 0;
    int pieces = 1 + hcpfz_u8(in) % 8;
    for (int i = 0; i < pieces && k < 500; i++) {
        uint8_t b = hcpfz_u8(in);
        if (b < 200) {
            const char *f = paths_frags[b % PATHS_NFRAGS];
            size_t fl = strlen(f);
            memcpy(s + k, f, fl);
            k += fl;
        } else {
            size_t got;
            const uint8_t *raw = hcpfz_take(in, b % 8u + 1u, &got);
            for (size_t j = 0; j < got; j++) s[k++] = raw[j] ? (char)raw[j] : 'z';
        }
        if (i + 1 < pieces) s[k++] = (hcpfz_u8(in) & 1) ? '\\' : '/';
    }
    s[k] = '\0';
    uint16_t *w = hcp_wfroma(s);
    *n = k;
    return w;
}

static void paths_put(int dir, const char *name, const char *text) {
    int fd = openat(dir, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) hcpfz_fail(PT, "making %s", name);
    if (write(fd, text, strlen(text)) != (ssize_t)strlen(text) || fchmod(fd, 0644)) hcpfz_fail(PT, "writing %s", name);
    close(fd);
}

/* Removes dir's tree (entries, then dir itself), links as links. */
static void paths_remove(int parent, const char *name, int depth) {
    struct stat st;
    if (depth > 64 || fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return;
    if (S_ISDIR(st.st_mode)) {
        int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
        DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
        struct dirent *e;
        char **names = NULL;
        size_t nn = 0;
        while (d && (e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            char **nl = realloc(names, (nn + 1) * sizeof *names);
            if (!nl) break;
            names = nl;
            names[nn++] = strdup(e->d_name);
        }
        for (size_t i = 0; i < nn; i++) {
            if (names[i]) paths_remove(dirfd(d), names[i], depth + 1);
            free(names[i]);
        }
        free(names);
        if (d)
            closedir(d);
        else if (fd >= 0)
            close(fd);
        unlinkat(parent, name, AT_REMOVEDIR);
    } else {
        unlinkat(parent, name, 0);
    }
}

/* The entries of a folder, sorted, as one string. */
static void paths_listing(int dir, char *out, size_t cap) {
    int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    char names[16][64];
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) && n < 16)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) snprintf(names[n++], 64, "%.63s", e->d_name);
    if (d) closedir(d);
    qsort(names, (size_t)n, 64, (int (*)(const void *, const void *))strcmp);
    out[0] = '\0';
    for (int i = 0; i < n; i++) snprintf(out + strlen(out), cap - strlen(out), "%s/", names[i]);
}

/* Whether full path f (GetFullPathName's) is C:\hcpsim or below it, or a device. */
static bool paths_reachable(hcp_process *p, const uint16_t *path, size_t n) {
    uint16_t *f;
    size_t fn;
    if (hcp_fs_fullpath(p, path, n, &f, &fn, NULL)) return false;
    static const uint16_t root[] = {'C', ':', '\\', 'H', 'C', 'P', 'S', 'I', 'M'};
    bool in = fn >= 9 && hcp_wcmp_ci(f, 9, root, 9) == 0 && (fn == 9 || f[9] == '\\');
    bool dev = fn >= 4 && f[0] == '\\' && f[1] == '\\' && f[2] == '.';
    /* a device name in any folder (NUL, CON, CONIN$, CONOUT$ and the ports, any extension) */
    size_t ls = fn;
    while (ls > 0 && f[ls - 1] != '\\') ls--;
    char last[16];
    size_t k = 0;
    for (size_t i = ls; i < fn && k < 15 && f[i] != '.' && f[i] != ':'; i++) last[k++] = (char)hcp_wupper(f[i]);
    while (k && last[k - 1] == ' ') k--;
    last[k] = '\0';
    dev = dev || !strcmp(last, "NUL") || !strcmp(last, "CON") || !strcmp(last, "CONIN$") || !strcmp(last, "CONOUT$");
    free(f);
    return in || dev;
}

int hcpfz_paths(const uint8_t *data, size_t size) {
    char tmpl[] = "/tmp/hcpfz-paths-XXXXXX";
    const char *tmpdir = getenv("TMPDIR");
    char base[512];
    snprintf(base, sizeof base, "%s/hcpfz-paths-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    if (!mkdtemp(base) && !(strcpy(base, tmpl), mkdtemp(base))) hcpfz_fail(PT, "no temporary folder");
    int bfd = open(base, O_RDONLY | O_DIRECTORY);
    if (bfd < 0 || mkdirat(bfd, "inside", 0755) || mkdirat(bfd, "outside", 0755)) hcpfz_fail(PT, "the tree");
    int ifd = openat(bfd, "inside", O_RDONLY | O_DIRECTORY), ofd = openat(bfd, "outside", O_RDONLY | O_DIRECTORY);
    paths_put(ofd, "secret", "secret\n");
    paths_put(ifd, "f.txt", "file\n");
    mkdirat(ifd, "sub", 0755);
    if (symlinkat("../outside/secret", ifd, "link-file") || symlinkat("../outside", ifd, "link-dir"))
        hcpfz_fail(PT, "the links");
    char inside[600];
    snprintf(inside, sizeof inside, "%s/inside", base);

    hcp_system_opts o;
    hcp_system_opts_init(&o, hcp_platform_find("win10-x64"));
    hcp_system sys;
    char msg[512];
    if (hcp_system_new(&o, &sys, msg, sizeof msg) != 0) hcpfz_fail(PT, "hcp_system_new failed: %s", msg);
    /* a process without an image: the file state a program's calls use */
    hcp_process *p = calloc(1, sizeof *p);
    if (!p || !(p->x = calloc(1, sizeof *p->x))) hcpfz_fail(PT, "out of memory");
    p->os = sys.os;
    if (hcp_env_init(p, NULL, 0, msg, sizeof msg) || hcp_fs_init(p, inside, msg, sizeof msg))
        hcpfz_fail(PT, "process set-up: %s", msg);
    hcp_ctx c;
    memset(&c, 0, sizeof c);
    c.os = sys.os;
    c.p = p;
    c.m = sys.m;
    c.w = 8;
    hcpfz_in in = {data, size};
    hcp_file *open_files[8] = {0};
    for (int call = 0; call < PATHS_CALLS && in.n; call++) {
        uint8_t op = hcpfz_u8(&in);
        size_t n, n2;
        uint16_t *a = paths_make(&in, &n), *b = NULL;
        if (!a) break;
        bool reach = paths_reachable(p, a, n);
        uint32_t e = 0;
        switch (op % 11) {
        case 0:
        case 1: {
            hcp_open od; /* read in order: an initializer list's order of evaluation is unspecified */
            od.access = hcpfz_u32(&in);
            od.share = hcpfz_u8(&in) & 7u;
            od.disposition = 1u + hcpfz_u8(&in) % 5u;
            od.flags = hcpfz_u32(&in) & 0x06000080u;
            int slot = hcpfz_u8(&in) % 8;
            bool existed;
            hcp_file *f = hcp_fs_open(&c, a, n, &od, &e, &existed);
            if (f) {
                uint8_t buf[64];
                uint32_t done;
                hcp_file_write(&c, f, (const uint8_t *)"written", 7, &done);
                hcp_file_read(&c, f, buf, sizeof buf, &done);
                if (open_files[slot]) hcp_file_unref(&c, open_files[slot]);
                open_files[slot] = f; /* kept open a while: share modes and delete-on-close */
            }
            break;
        }
        case 2: e = hcp_fs_mkdir(&c, a, n); break;
        case 3: e = hcp_fs_rmdir(&c, a, n); break;
        case 4: e = hcp_fs_delete(&c, a, n); break;
        case 5:
        case 6:
            b = paths_make(&in, &n2);
            if (!b) break;
            e = op % 11 == 5 ? hcp_fs_move(&c, a, n, b, n2, hcpfz_u8(&in) & 3u)
                             : hcp_fs_copy(&c, a, n, b, n2, hcpfz_u8(&in) & 1);
            if (!e && !paths_reachable(p, b, n2))
                hcpfz_fail(PT, "a move or copy to a path outside the folder succeeded");
            break;
        case 7: e = hcp_fs_chdir(&c, a, n); break;
        case 8: {
            hcp_find *f;
            e = hcp_fs_find(&c, a, n, &f);
            if (!e) {
                while (hcp_find_next(f)) {
                }
                hcp_find_free(f);
            }
            break;
        }
        case 9: {
            hcp_finfo fi;
            e = hcp_fs_attributes(&c, a, n, &fi);
            break;
        }
        default: {
            uint16_t *f;
            size_t fn, file;
            if (!hcp_fs_fullpath(p, a, n, &f, &fn, &file)) {
                if (file > fn) hcpfz_fail(PT, "a file part past the full path's end");
                free(f);
            }
            e = 1; /* no file touched */
            break;
        }
        }
        if (!e && !reach) hcpfz_fail(PT, "call %d (op %d) on a path outside the folder succeeded", call, op % 11);
        free(a);
        free(b);
    }
    for (int i = 0; i < 8; i++)
        if (open_files[i]) hcp_file_unref(&c, open_files[i]);
    hcp_process_options_free(p);
    free(p->x);
    free(p);
    hcp_system_free(&sys);

    /* the boundary held */
    char got[1024];
    paths_listing(bfd, got, sizeof got);
    if (strcmp(got, "inside/outside/")) hcpfz_fail(PT, "next to the folder: %s", got);
    paths_listing(ofd, got, sizeof got);
    if (strcmp(got, "secret/")) hcpfz_fail(PT, "outside the folder: %s", got);
    char sec[16] = "";
    int sfd = openat(ofd, "secret", O_RDONLY);
    ssize_t sl = sfd >= 0 ? read(sfd, sec, sizeof sec - 1) : -1;
    struct stat st;
    if (sfd < 0 || sl != 7 || memcmp(sec, "secret\n", 7) || fstat(sfd, &st) || (st.st_mode & 0777) != 0644)
        hcpfz_fail(PT, "the secret changed");
    close(sfd);
    close(ifd);
    close(ofd);
    char *slash = strrchr(base, '/');
    *slash = '\0';
    int tfd = open(base, O_RDONLY | O_DIRECTORY);
    paths_remove(tfd, slash + 1, 0);
    close(tfd);
    close(bfd);
    return 0;
}

HCPFZ_ENTRY(hcpfz_paths)
