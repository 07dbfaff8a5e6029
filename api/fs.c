/* api/fs.c — the process's files: Windows paths on a mapped host folder (api/README.md "Files").
 *
 * Drive C: has one folder a program can reach, C:\hcpsim, its current directory at start: a host
 * folder (hcpsim run's start folder, --cwd DIR, m:process{cwd = ...}).  A path is first made a
 * full path by Windows' rules (GetFullPathName: the current directory, drive-relative and rooted
 * forms, '\' and '/', "." and "..", trailing dots and spaces), then located: inside C:\hcpsim its
 * components are looked up in the host folder one by one, case-insensitively, never following a
 * host symbolic link and never crossing into another host file system.  What lies outside is
 * refused the same way whatever the host holds there, so nothing about the host leaks:
 *   - elsewhere on C: (C:\, C:\Windows, "..\.." past C:\hcpsim), a host symbolic link, a mount
 *     point, a FIFO, socket or device node: ERROR_ACCESS_DENIED (5), as a folder the user may not
 *     read (those paths exist on every Windows: "not found" would be a lie about C:);
 *   - another drive (D:, ...): ERROR_PATH_NOT_FOUND (3), as Windows answers for a drive that is
 *     not there; a network path (\\server\share, \\?\UNC\...): ERROR_BAD_NETPATH (53).
 * Reserved device names (NUL, CON, CONIN$, CONOUT$ in any folder, with any extension) are the
 * devices; PRN, AUX, COM1-9, LPT1-9 are devices this machine lacks (ERROR_FILE_NOT_FOUND).
 *
 * Determinism: a file's times are virtual (the system time when the program created or wrote it;
 * boot time for a file it has not touched), its index a number given in the order the program
 * first meets it, the volume serial fixed; directory listings are sorted as NTFS sorts them
 * (upper-cased UTF-16, "." and ".." first); no host path, owner, inode, permission bit (but
 * read-only) or host time reaches the program.
 *
 * Longer than 800 lines: path resolution, the host lookup and the open-file table are one
 * security boundary (nothing outside C:\hcpsim reachable), kept in one file to be reviewed as one.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/files_int.h"

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif
#ifndef O_NOFOLLOW
#define O_NOFOLLOW 0
#endif
#ifndef O_DIRECTORY
#define O_DIRECTORY 0
#endif

#define ROOT_NAME "hcpsim"                    /* C:\hcpsim */
#define MAX_PATH_UNITS 32767u                 /* a path's length, as the \\?\ form allows */
#define MAX_DIR_ENTRIES 100000                /* entries a directory search reads */
#define MAX_OPEN_FILES 8192                   /* open file objects of the process */
#define MAX_FILE_SIZE (UINT64_C(1) << 32) - 1 /* a file grows at most to 4 GiB - 1 (ERROR_DISK_FULL) */
#define FIND_HANDLE_BASE 0x00F00000u          /* FindFirstFile handles: below every kernel handle */
#define MAX_FINDS 65536

#define GENERIC_READ 0x80000000u
#define GENERIC_WRITE 0x40000000u
#define GENERIC_EXECUTE 0x20000000u
#define GENERIC_ALL 0x10000000u
#define FILE_READ_DATA 0x0001u
#define FILE_WRITE_DATA 0x0002u
#define FILE_APPEND_DATA 0x0004u
#define FILE_READ_ATTRIBUTES 0x0080u
#define DELETE_ACCESS 0x00010000u
#define FILE_GENERIC_READ 0x00120089u
#define FILE_GENERIC_WRITE 0x00120116u
#define FILE_GENERIC_EXECUTE 0x001200A0u
#define FILE_ALL_ACCESS 0x001F01FFu
#define FILE_SHARE_READ 1u
#define FILE_SHARE_WRITE 2u
#define FILE_SHARE_DELETE 4u
#define CREATE_NEW 1u
#define CREATE_ALWAYS 2u
#define OPEN_EXISTING 3u
#define OPEN_ALWAYS 4u
#define TRUNCATE_EXISTING 5u
#define FILE_ATTRIBUTE_READONLY 0x1u
#define FILE_ATTRIBUTE_DIRECTORY 0x10u
#define FILE_ATTRIBUTE_ARCHIVE 0x20u
#define FILE_ATTRIBUTE_NORMAL 0x80u
#define FILE_ATTRIBUTE_REPARSE_POINT 0x400u
#define FILE_FLAG_BACKUP_SEMANTICS 0x02000000u
#define FILE_FLAG_DELETE_ON_CLOSE 0x04000000u
#define IO_REPARSE_TAG_SYMLINK 0xA000000Cu

enum { FK_DISK, FK_DIR, FK_NUL, FK_CONIN, FK_CONOUT, FK_CONERR };

struct hcp_file {
    int kind;
    int fd;
    dev_t dev;
    ino_t ino;
    uint32_t access, share;
    uint64_t pos;
    int refs;
    bool delete_on_close;
    uint16_t *path; /* its full Windows path (for delete-on-close and the share checks of paths) */
    size_t pathn;
};

typedef struct ftimes { /* what the program did to a host file: its times and index */
    dev_t dev;
    ino_t ino;
    uint64_t ctime, atime, mtime, index;
} ftimes;

struct hcp_find {
    hcp_fentry *e;
    int n, next;
};

struct hcp_fs {
    int root; /* host descriptor of the mapped folder; -1: none */
    dev_t root_dev;
    ino_t root_ino;
    uint16_t *cwd;
    size_t cwdn;
    hcp_file **open;
    int nopen, capopen;
    ftimes *times;
    int ntimes, captimes;
    uint64_t next_index;
    hcp_file std[3];
    hcp_find **finds;
    int nfinds;
};

/* ---- set-up ---- */

static const uint16_t root_path[] = {'C', ':', '\\', 'h', 'c', 'p', 's', 'i', 'm', 0};
#define ROOT_PATH_N 9

int hcp_fs_init(hcp_process *p, const char *host_dir, char *err, size_t cap) {
    hcp_fs *fs = calloc(1, sizeof *fs);
    if (!fs) return snprintf(err, cap, "out of host memory"), -1;
    p->x->fs = fs;
    fs->root = -1;
    fs->next_index = 1;
    fs->cwd = hcp_wdup(root_path, ROOT_PATH_N);
    fs->cwdn = ROOT_PATH_N;
    if (!fs->cwd) return snprintf(err, cap, "out of host memory"), -1;
    for (int i = 0; i < 3; i++)
        fs->std[i] = (hcp_file){i == 0   ? FK_CONIN
                                : i == 1 ? FK_CONOUT
                                         : FK_CONERR,
                                -1,
                                0,
                                0,
                                i == 0 ? FILE_GENERIC_READ : FILE_GENERIC_WRITE,
                                7u,
                                0,
                                1,
                                false,
                                NULL,
                                0};
    if (!host_dir) return 0;
    int fd = open(host_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, cap, "%s: cannot use it as the program's folder: %s", host_dir,
                 fd < 0 ? strerror(errno) : "not a directory");
        if (fd >= 0) close(fd);
        return -1;
    }
    fs->root = fd;
    fs->root_dev = st.st_dev;
    fs->root_ino = st.st_ino;
    return 0;
}

static void file_close_host(hcp_file *f) {
    if (f->fd >= 0) close(f->fd);
    f->fd = -1;
}

void hcp_fs_free(hcp_process *p) {
    hcp_fs *fs = p->x->fs;
    if (!fs) return;
    for (int i = 0; i < fs->nopen; i++) {
        file_close_host(fs->open[i]);
        free(fs->open[i]->path);
        free(fs->open[i]);
    }
    for (int i = 0; i < fs->nfinds; i++) hcp_find_free(fs->finds[i]);
    free(fs->finds);
    free(fs->open);
    free(fs->times);
    free(fs->cwd);
    if (fs->root >= 0) close(fs->root);
    free(fs);
    p->x->fs = NULL;
}

hcp_file *hcp_fs_std(hcp_process *p, int which) { return &p->x->fs->std[which]; }

/* ---- times and indices ---- */

static uint64_t now_ft(hcp_ctx *c) { /* the system time, as a clock tick set it */
    const sim_config *cfg = sim_machine_config(c->m);
    uint64_t t = sim_mul_div(sim_clock(c->m), 10000000u, cfg->frequency);
    return cfg->boot_time + t / cfg->tick * cfg->tick;
}

static ftimes *times_of(hcp_ctx *c, dev_t dev, ino_t ino, bool make) {
    hcp_fs *fs = c->p->x->fs;
    for (int i = 0; i < fs->ntimes; i++)
        if (fs->times[i].dev == dev && fs->times[i].ino == ino) return &fs->times[i];
    if (!make) return NULL;
    if (fs->ntimes == fs->captimes) {
        int nc = fs->captimes ? 2 * fs->captimes : 64;
        ftimes *n = realloc(fs->times, (size_t)nc * sizeof *n);
        if (!n) return NULL;
        fs->times = n;
        fs->captimes = nc;
    }
    uint64_t boot = sim_machine_config(c->m)->boot_time;
    ftimes *t = &fs->times[fs->ntimes++];
    *t = (ftimes){dev, ino, boot, boot, boot, fs->next_index++};
    return t;
}

static void touch(hcp_ctx *c, dev_t dev, ino_t ino, bool created) {
    ftimes *t = times_of(c, dev, ino, true);
    if (!t) return;
    uint64_t now = now_ft(c);
    if (created) t->ctime = now;
    t->atime = t->mtime = now;
}

/* A host file's attributes and times as the program sees them. */
static void info_of(hcp_ctx *c, const struct stat *st, hcp_finfo *o) {
    memset(o, 0, sizeof *o);
    if (S_ISLNK(st->st_mode)) {
        o->attr = FILE_ATTRIBUTE_REPARSE_POINT | FILE_ATTRIBUTE_ARCHIVE;
    } else if (S_ISDIR(st->st_mode)) {
        o->attr = FILE_ATTRIBUTE_DIRECTORY;
    } else {
        o->attr = FILE_ATTRIBUTE_ARCHIVE;
        o->size = (uint64_t)st->st_size;
    }
    if (!(st->st_mode & S_IWUSR) && !S_ISLNK(st->st_mode)) o->attr |= FILE_ATTRIBUTE_READONLY;
    ftimes *t = times_of(c, st->st_dev, st->st_ino, true);
    uint64_t boot = sim_machine_config(c->m)->boot_time;
    o->ctime = t ? t->ctime : boot;
    o->atime = t ? t->atime : boot;
    o->mtime = t ? t->mtime : boot;
    o->index = t ? t->index : 0;
    o->links = 1;
}

/* ---- full paths ---- */

static bool is_sep(uint16_t u) { return u == '\\' || u == '/'; }
static bool is_letter(uint16_t u) { return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z'); }

/* Components of a path being normalized. */
typedef struct comps {
    const uint16_t *s[2048];
    size_t n[2048];
    int k;
} comps;

static bool comp_push(comps *cs, const uint16_t *s, size_t n) {
    if (n == 1 && s[0] == '.') return true;
    if (n == 2 && s[0] == '.' && s[1] == '.') {
        if (cs->k > 0) cs->k--;
        return true;
    }
    if (cs->k >= (int)(sizeof cs->s / sizeof cs->s[0])) return false;
    cs->s[cs->k] = s;
    cs->n[cs->k++] = n;
    return true;
}
static bool comp_split(comps *cs, const uint16_t *s, size_t n) {
    for (size_t i = 0; i < n;) {
        while (i < n && is_sep(s[i])) i++;
        size_t j = i;
        while (j < n && !is_sep(s[j])) j++;
        if (j > i && !comp_push(cs, s + i, j - i)) return false;
        i = j;
    }
    return true;
}

uint32_t hcp_fs_fullpath(hcp_process *p, const uint16_t *path, size_t n, uint16_t **out, size_t *outn, size_t *file) {
    hcp_fs *fs = p->x->fs;
    *out = NULL;
    if (n == 0) return ERROR_PATH_NOT_FOUND;
    if (n > MAX_PATH_UNITS) return ERROR_FILENAME_EXCED_RANGE;
    hcp_wbuf b = {0};
    comps *cs = calloc(1, sizeof *cs);
    if (!cs) return ERROR_NOT_ENOUGH_MEMORY;
    uint16_t drive = 'C';
    bool trailing = is_sep(path[n - 1]);
    const uint16_t *rest = path;
    size_t restn = n;
    static const uint16_t dev_prefix[] = {'\\', '\\', '.', '\\'};
    uint32_t err = 0;
    if (n >= 4 && is_sep(path[0]) && is_sep(path[1]) && (path[2] == '?' || path[2] == '.') && is_sep(path[3])) {
        /* \\?\ (taken literally) and \\.\ (devices, or a drive path) */
        const uint16_t *r = path + 4;
        size_t rn = n - 4;
        if (rn >= 2 && is_letter(r[0]) && r[1] == ':' && (rn == 2 || is_sep(r[2]))) {
            drive = hcp_wupper(r[0]);
            rest = r + 2;
            restn = rn - 2;
        } else if (path[2] == '.') { /* \\.\NAME: a device; its name as given */
            hcp_wbuf_add(&b, dev_prefix, 4);
            hcp_wbuf_add(&b, r, rn);
            free(cs);
            if (b.oom) return hcp_wbuf_free(&b), ERROR_NOT_ENOUGH_MEMORY;
            *out = b.s;
            *outn = b.n;
            if (file) *file = 4;
            return 0;
        } else {
            err =
                rn >= 4 && hcp_wupper(r[0]) == 'U' && hcp_wupper(r[1]) == 'N' && hcp_wupper(r[2]) == 'C' && is_sep(r[3])
                    ? ERROR_BAD_NETPATH
                    : ERROR_PATH_NOT_FOUND;
        }
    } else if (n >= 2 && is_sep(path[0]) && is_sep(path[1])) {
        err = ERROR_BAD_NETPATH; /* \\server\share */
    } else if (n >= 2 && is_letter(path[0]) && path[1] == ':') {
        drive = hcp_wupper(path[0]);
        rest = path + 2;
        restn = n - 2;
        if (!(restn && is_sep(rest[0])) && drive == 'C') /* C:rel: relative to C:'s current directory */
            if (!comp_split(cs, fs->cwd + 2, fs->cwdn - 2)) err = ERROR_FILENAME_EXCED_RANGE;
    } else if (!is_sep(path[0])) { /* relative to the current directory */
        if (!comp_split(cs, fs->cwd + 2, fs->cwdn - 2)) err = ERROR_FILENAME_EXCED_RANGE;
    }
    if (!err && !comp_split(cs, rest, restn)) err = ERROR_FILENAME_EXCED_RANGE;
    if (err) {
        free(cs);
        return err;
    }
    /* trailing characters: a single '.' ending a component goes; the last component (when the path
     * does not end in a separator) loses every trailing '.' and ' ' */
    for (int i = 0; i < cs->k; i++) {
        size_t m = cs->n[i];
        bool dots = true;
        for (size_t j = 0; j < m; j++) dots &= cs->s[i][j] == '.';
        if (i == cs->k - 1 && !trailing) {
            while (m && (cs->s[i][m - 1] == '.' || cs->s[i][m - 1] == ' ')) m--;
        } else if (!dots && m >= 2 && cs->s[i][m - 1] == '.' && cs->s[i][m - 2] != '.') {
            m--;
        }
        cs->n[i] = m;
    }
    uint16_t head[3] = {drive, ':', '\\'};
    hcp_wbuf_add(&b, head, 3);
    size_t last = 3;
    for (int i = 0; i < cs->k; i++) {
        if (i) hcp_wbuf_add(&b, head + 2, 1);
        last = b.n;
        hcp_wbuf_add(&b, cs->s[i], cs->n[i]);
    }
    if (trailing && cs->k) {
        hcp_wbuf_add(&b, head + 2, 1);
        last = b.n;
    }
    free(cs);
    if (b.oom) return hcp_wbuf_free(&b), ERROR_NOT_ENOUGH_MEMORY;
    if (b.n > MAX_PATH_UNITS) return hcp_wbuf_free(&b), ERROR_FILENAME_EXCED_RANGE;
    *out = b.s;
    *outn = b.n;
    if (file) *file = last;
    return 0;
}

const uint16_t *hcp_fs_cwd(hcp_process *p, size_t *n) {
    *n = p->x->fs->cwdn;
    return p->x->fs->cwd;
}

/* ---- locating a full path ---- */

enum { DEV_NONE, DEV_NUL, DEV_CON, DEV_CONIN, DEV_CONOUT, DEV_MISSING };

/* The device a file name names (its part before the first '.' or ':', trailing spaces dropped). */
static int device_of(const uint16_t *s, size_t n) {
    size_t m = 0;
    while (m < n && s[m] != '.' && s[m] != ':') m++;
    while (m && s[m - 1] == ' ') m--;
    char up[8];
    if (m < 3 || m > 7) return DEV_NONE;
    for (size_t i = 0; i < m; i++) {
        uint16_t u = hcp_wupper(s[i]);
        if (u > 127) return DEV_NONE;
        up[i] = (char)u;
    }
    up[m] = '\0';
    if (!strcmp(up, "NUL")) return DEV_NUL;
    if (!strcmp(up, "CON")) return DEV_CON;
    if (!strcmp(up, "CONIN$")) return DEV_CONIN;
    if (!strcmp(up, "CONOUT$")) return DEV_CONOUT;
    if (!strcmp(up, "PRN") || !strcmp(up, "AUX")) return DEV_MISSING;
    if (m == 4 && (!strncmp(up, "COM", 3) || !strncmp(up, "LPT", 3)) && up[3] >= '1' && up[3] <= '9')
        return DEV_MISSING;
    return DEV_NONE;
}

static bool bad_char(uint16_t u) {
    return u < 32 || u == '<' || u == '>' || u == ':' || u == '"' || u == '|' || u == '?' || u == '*' || u == '/' ||
           u == '\\';
}

/* A located path: a device, or components below C:\hcpsim (host names, UTF-8). */
typedef struct loc {
    int dev;
    int k;
    char *c[512];
    uint16_t *w[512]; /* the components as written (UTF-16) */
    size_t wn[512];
    bool trailing; /* the path ended in '\' */
} loc;

static void loc_free(loc *l) {
    for (int i = 0; i < l->k; i++) {
        free(l->c[i]);
        free(l->w[i]);
    }
    l->k = 0;
}

/* wild: the last component may hold '*' and '?' (FindFirstFile's pattern). */
static uint32_t locate(hcp_fs *fs, const uint16_t *full, size_t n, loc *l, bool wild) {
    memset(l, 0, sizeof *l);
    if (n >= 4 && full[0] == '\\' && full[1] == '\\' && full[2] == '.' && full[3] == '\\') {
        int d = device_of(full + 4, n - 4);
        l->dev = d == DEV_NONE ? DEV_MISSING : d;
        return 0;
    }
    if (full[0] != 'C') return ERROR_PATH_NOT_FOUND; /* no such drive */
    /* the components after "C:\" */
    size_t i = 3;
    int idx = 0;
    l->trailing = n > 3 && full[n - 1] == '\\';
    while (i < n) {
        size_t j = i;
        while (j < n && full[j] != '\\') j++;
        if (j == i) break;
        if (idx == 0) {
            static const uint16_t rn[] = {'h', 'c', 'p', 's', 'i', 'm'};
            if (hcp_wcmp_ci(full + i, j - i, rn, 6) != 0) {
                /* outside the folder; but a device name is the device in any folder */
                size_t ls = n;
                while (ls > 3 && full[ls - 1] != '\\') ls--;
                int dl = l->trailing ? DEV_NONE : device_of(full + ls, n - ls);
                if (dl != DEV_NONE) {
                    l->dev = dl;
                    return 0;
                }
                return ERROR_ACCESS_DENIED;
            }
        } else {
            if (l->k >= (int)(sizeof l->c / sizeof l->c[0])) return ERROR_FILENAME_EXCED_RANGE;
            bool last = j >= n;
            for (size_t q = i; q < j; q++)
                if (bad_char(full[q]) && !(wild && last && (full[q] == '*' || full[q] == '?'))) {
                    loc_free(l);
                    return ERROR_INVALID_NAME;
                }
            char *u = hcp_w_to_utf8(full + i, j - i);
            uint16_t *w = hcp_wdup(full + i, j - i);
            if (!u || !w) {
                free(u);
                free(w);
                loc_free(l);
                return u ? ERROR_NOT_ENOUGH_MEMORY : ERROR_INVALID_NAME;
            }
            l->c[l->k] = u;
            l->w[l->k] = w;
            l->wn[l->k++] = j - i;
        }
        idx++;
        i = j + 1;
    }
    if (idx == 0) return ERROR_ACCESS_DENIED; /* C:\ itself */
    if (l->k && !l->trailing && !wild) {
        int d = device_of(l->w[l->k - 1], l->wn[l->k - 1]);
        if (d != DEV_NONE) {
            loc_free(l);
            l->dev = d;
            return 0;
        }
    }
    if (fs->root < 0) {
        loc_free(l);
        return ERROR_ACCESS_DENIED; /* no folder is mapped */
    }
    return 0;
}

/* ---- the host folder ---- */

/* Windows can name this host entry: valid UTF-8, no character Windows forbids, no trailing dot or
 * space, not "." or "..". */
static bool nameable(const char *name, uint16_t **w, size_t *wn) {
    *w = NULL;
    if (!strcmp(name, ".") || !strcmp(name, "..")) return false;
    uint16_t *u = hcp_utf8_to_w(name, wn);
    if (!u) return false;
    bool ok = *wn > 0 && u[*wn - 1] != '.' && u[*wn - 1] != ' ';
    for (size_t i = 0; ok && i < *wn; i++) ok = !bad_char(u[i]);
    if (!ok) {
        free(u);
        return false;
    }
    *w = u;
    return true;
}

/* The host name in folder dfd that Windows name `want` (UTF-16) designates: the exact name when it
 * exists, else the first (in byte order) that matches case-insensitively; NULL when none. */
static char *find_name(int dfd, const char *want8, const uint16_t *want, size_t wn) {
    struct stat st;
    uint16_t *tw = NULL;
    size_t tn;
    if (fstatat(dfd, want8, &st, AT_SYMLINK_NOFOLLOW) == 0 && nameable(want8, &tw, &tn)) {
        free(tw);
        return strdup(want8);
    }
    int d2 = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC); /* its own read position */
    DIR *d = d2 >= 0 ? fdopendir(d2) : NULL;
    if (!d) {
        if (d2 >= 0) close(d2);
        return NULL;
    }
    char *best = NULL;
    struct dirent *e;
    int count = 0;
    while ((e = readdir(d)) && count++ < MAX_DIR_ENTRIES) {
        uint16_t *w;
        size_t n;
        if (!nameable(e->d_name, &w, &n)) continue;
        bool match = hcp_wcmp_ci(w, n, want, wn) == 0;
        free(w);
        if (match && (!best || strcmp(e->d_name, best) < 0)) {
            free(best);
            best = strdup(e->d_name);
        }
    }
    closedir(d);
    return best;
}

/* What a walk found. */
typedef struct walk {
    int dir;    /* the folder holding the last component (or the root itself, for k = 0) */
    char *name; /* the last component's host name (the existing one's, else as written); NULL: the root */
    bool exists;
    struct stat st; /* lstat of it, when it exists */
} walk;

static void walk_free(walk *w) {
    if (w->dir >= 0) close(w->dir);
    free(w->name);
    w->dir = -1;
    w->name = NULL;
}

/* Opens a subfolder of dfd by host name, refusing links, other file systems and non-folders. */
static uint32_t open_dir(hcp_fs *fs, int dfd, const char *name, int *out) {
    struct stat st;
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return ERROR_PATH_NOT_FOUND;
    if (S_ISLNK(st.st_mode) || st.st_dev != fs->root_dev) return ERROR_ACCESS_DENIED;
    if (!S_ISDIR(st.st_mode)) return ERROR_PATH_NOT_FOUND;
    int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return errno == EACCES ? ERROR_ACCESS_DENIED : ERROR_PATH_NOT_FOUND;
    struct stat st2;
    if (fstat(fd, &st2) != 0 || !S_ISDIR(st2.st_mode) || st2.st_dev != fs->root_dev || st2.st_ino != st.st_ino) {
        close(fd); /* changed under us: a race with the host */
        return ERROR_ACCESS_DENIED;
    }
    *out = fd;
    return 0;
}

static uint32_t do_walk(hcp_fs *fs, const loc *l, walk *w) {
    memset(w, 0, sizeof *w);
    w->dir = -1;
    int d = dup(fs->root);
    if (d < 0) return ERROR_TOO_MANY_OPEN_FILES;
    for (int i = 0; i + 1 < l->k; i++) {
        char *name = find_name(d, l->c[i], l->w[i], l->wn[i]);
        if (!name) {
            close(d);
            return ERROR_PATH_NOT_FOUND;
        }
        int nd;
        uint32_t e = open_dir(fs, d, name, &nd);
        free(name);
        close(d);
        if (e) return e;
        d = nd;
    }
    w->dir = d;
    if (l->k == 0) { /* C:\hcpsim itself */
        w->exists = fstat(d, &w->st) == 0;
        return 0;
    }
    char *name = find_name(d, l->c[l->k - 1], l->w[l->k - 1], l->wn[l->k - 1]);
    if (name) {
        w->exists = fstatat(d, name, &w->st, AT_SYMLINK_NOFOLLOW) == 0;
        w->name = name;
    } else {
        w->name = strdup(l->c[l->k - 1]);
        if (!w->name) return walk_free(w), ERROR_NOT_ENOUGH_MEMORY;
    }
    return 0;
}

/* An entry hcpsim refuses to touch: a link, another file system, a FIFO, socket or device. */
static bool refused(const hcp_fs *fs, const struct stat *st) {
    return S_ISLNK(st->st_mode) || st->st_dev != fs->root_dev || !(S_ISREG(st->st_mode) || S_ISDIR(st->st_mode));
}

static uint32_t host_err(int e) {
    switch (e) {
    case ENOENT: return ERROR_FILE_NOT_FOUND;
    case ENOTDIR: return ERROR_PATH_NOT_FOUND;
    case EEXIST: return ERROR_ALREADY_EXISTS;
    case ENOTEMPTY: return ERROR_DIR_NOT_EMPTY;
    case ENOSPC:
    case EDQUOT: return ERROR_DISK_FULL;
    case EMFILE:
    case ENFILE: return ERROR_TOO_MANY_OPEN_FILES;
    case ENAMETOOLONG: return ERROR_FILENAME_EXCED_RANGE;
    case ENOMEM: return ERROR_NOT_ENOUGH_MEMORY;
    case EROFS:
    case EPERM:
    case EACCES:
    default: return ERROR_ACCESS_DENIED;
    }
}

/* Full path, location and walk in one: the common start of every path operation.  *dev: the
 * device the path names (then no walk). */
static uint32_t resolve(hcp_ctx *c, const uint16_t *path, size_t n, bool wild, loc *l, walk *w, int *dev) {
    hcp_fs *fs = c->p->x->fs;
    uint16_t *full;
    size_t fn;
    *dev = DEV_NONE;
    w->dir = -1;
    w->name = NULL;
    uint32_t e = hcp_fs_fullpath(c->p, path, n, &full, &fn, NULL);
    if (e) return e;
    e = locate(fs, full, fn, l, wild);
    free(full);
    if (e) return e;
    if (l->dev != DEV_NONE) {
        *dev = l->dev;
        return 0;
    }
    e = do_walk(fs, l, w);
    if (e) loc_free(l);
    return e;
}

/* ---- open files ---- */

static bool share_ok(const hcp_file *o, uint32_t access, uint32_t share) {
    bool r = access & (FILE_READ_DATA | GENERIC_READ), wr = access & (FILE_WRITE_DATA | FILE_APPEND_DATA),
         del = access & DELETE_ACCESS;
    bool orr = o->access & FILE_READ_DATA, ow = o->access & (FILE_WRITE_DATA | FILE_APPEND_DATA),
         od = o->access & DELETE_ACCESS;
    if ((r && !(o->share & FILE_SHARE_READ)) || (wr && !(o->share & FILE_SHARE_WRITE)) ||
        (del && !(o->share & FILE_SHARE_DELETE)))
        return false;
    if ((orr && !(share & FILE_SHARE_READ)) || (ow && !(share & FILE_SHARE_WRITE)) ||
        (od && !(share & FILE_SHARE_DELETE)))
        return false;
    return true;
}

/* Whether the host file (dev, ino) may be opened with access/share given the open ones. */
static bool sharing(hcp_fs *fs, dev_t dev, ino_t ino, uint32_t access, uint32_t share) {
    for (int i = 0; i < fs->nopen; i++) {
        const hcp_file *o = fs->open[i];
        if ((o->kind == FK_DISK || o->kind == FK_DIR) && o->dev == dev && o->ino == ino && !share_ok(o, access, share))
            return false;
    }
    return true;
}

/* An open file of (dev, ino) whose share mode lacks FILE_SHARE_DELETE: the name cannot go. */
static bool open_without_delete_share(hcp_fs *fs, dev_t dev, ino_t ino) {
    for (int i = 0; i < fs->nopen; i++) {
        const hcp_file *o = fs->open[i];
        if ((o->kind == FK_DISK || o->kind == FK_DIR) && o->dev == dev && o->ino == ino &&
            !(o->share & FILE_SHARE_DELETE))
            return true;
    }
    return false;
}

static uint32_t map_access(uint32_t a) {
    uint32_t r = a & ~(GENERIC_READ | GENERIC_WRITE | GENERIC_EXECUTE | GENERIC_ALL | MAXIMUM_ALLOWED);
    if (a & GENERIC_READ) r |= FILE_GENERIC_READ;
    if (a & GENERIC_WRITE) r |= FILE_GENERIC_WRITE;
    if (a & GENERIC_EXECUTE) r |= FILE_GENERIC_EXECUTE;
    if (a & (GENERIC_ALL | MAXIMUM_ALLOWED)) r |= FILE_ALL_ACCESS;
    return r;
}

static hcp_file *file_new(hcp_fs *fs, int kind, int fd, uint32_t access, uint32_t share) {
    if (fs->nopen >= MAX_OPEN_FILES) return NULL;
    if (fs->nopen == fs->capopen) {
        int nc = fs->capopen ? 2 * fs->capopen : 32;
        hcp_file **n = realloc(fs->open, (size_t)nc * sizeof *n);
        if (!n) return NULL;
        fs->open = n;
        fs->capopen = nc;
    }
    hcp_file *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    *f = (hcp_file){kind, fd, 0, 0, access, share, 0, 1, false, NULL, 0};
    fs->open[fs->nopen++] = f;
    return f;
}

void hcp_file_ref(hcp_file *f) {
    if (f) f->refs++;
}

static uint32_t delete_path(hcp_ctx *c, const uint16_t *path, size_t n, bool dir, bool force);

void hcp_file_unref(hcp_ctx *c, hcp_file *f) {
    hcp_fs *fs = c->p->x->fs;
    if (!f || f == &fs->std[0] || f == &fs->std[1] || f == &fs->std[2]) return;
    if (--f->refs > 0) return;
    file_close_host(f);
    for (int i = 0; i < fs->nopen; i++)
        if (fs->open[i] == f) {
            fs->open[i] = fs->open[--fs->nopen];
            break;
        }
    if (f->delete_on_close && f->path) delete_path(c, f->path, f->pathn, f->kind == FK_DIR, true);
    free(f->path);
    free(f);
}

hcp_file *hcp_fs_open(hcp_ctx *c, const uint16_t *path, size_t n, const hcp_open *o, uint32_t *err, bool *existed) {
    hcp_fs *fs = c->p->x->fs;
    *existed = false;
    uint32_t disp = o->disposition, access = map_access(o->access), share = o->share;
    if (disp < CREATE_NEW || disp > TRUNCATE_EXISTING || (share & ~7u)) return *err = ERROR_INVALID_PARAMETER, NULL;
    loc l;
    walk w;
    int dev;
    uint32_t e = resolve(c, path, n, false, &l, &w, &dev);
    if (e) return *err = e, NULL;
    if (dev != DEV_NONE) { /* a device */
        if (dev == DEV_MISSING) return *err = ERROR_FILE_NOT_FOUND, NULL;
        int kind = dev == DEV_NUL                                                                  ? FK_NUL
                   : dev == DEV_CONIN                                                              ? FK_CONIN
                   : dev == DEV_CONOUT                                                             ? FK_CONOUT
                   : (access & (FILE_WRITE_DATA | FILE_APPEND_DATA)) && !(access & FILE_READ_DATA) ? FK_CONOUT
                   : (access & FILE_READ_DATA) && !(access & (FILE_WRITE_DATA | FILE_APPEND_DATA)) ? FK_CONIN
                                                                                                   : -1;
        if (kind < 0) return *err = ERROR_FILE_NOT_FOUND, NULL; /* CON needs a direction */
        hcp_file *f = file_new(fs, kind, -1, access, share);
        if (!f) return *err = ERROR_TOO_MANY_OPEN_FILES, NULL;
        *existed = disp == OPEN_ALWAYS || disp == CREATE_ALWAYS;
        return f;
    }
    hcp_file *f = NULL;
    int fd = -1;
    struct stat st;
    bool created = false, truncate = false;
    uint16_t *full = NULL;
    size_t fulln = 0;
    e = 0;
    bool wants_write = access & (FILE_WRITE_DATA | FILE_APPEND_DATA);
    if (w.exists) {
        *existed = true;
        if (refused(fs, &w.st))
            e = ERROR_ACCESS_DENIED;
        else if (disp == CREATE_NEW)
            e = ERROR_FILE_EXISTS;
        else if (S_ISDIR(w.st.st_mode)) {
            if (!(o->flags & FILE_FLAG_BACKUP_SEMANTICS) || disp == CREATE_ALWAYS || disp == TRUNCATE_EXISTING)
                e = ERROR_ACCESS_DENIED;
        } else if (wants_write && !(w.st.st_mode & S_IWUSR)) {
            e = ERROR_ACCESS_DENIED; /* read-only */
        }
        truncate = !e && (disp == CREATE_ALWAYS || disp == TRUNCATE_EXISTING);
        if (!e) {
            bool isdir = S_ISDIR(w.st.st_mode);
            int flags = O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK |
                        (isdir                     ? O_RDONLY | O_DIRECTORY
                         : wants_write || truncate ? O_RDWR
                                                   : O_RDONLY);
            fd = w.name ? openat(w.dir, w.name, flags) : dup(w.dir);
            if (fd < 0)
                e = host_err(errno);
            else if (fstat(fd, &st) != 0 || refused(fs, &st) || st.st_ino != w.st.st_ino)
                e = ERROR_ACCESS_DENIED;
        }
    } else if (disp == OPEN_EXISTING || disp == TRUNCATE_EXISTING) {
        e = l.trailing ? ERROR_PATH_NOT_FOUND : ERROR_FILE_NOT_FOUND;
    } else if (l.trailing || !w.name) {
        e = ERROR_PATH_NOT_FOUND;
    } else {
        mode_t mode = (o->flags & FILE_ATTRIBUTE_READONLY) ? 0444 : 0666;
        fd = openat(w.dir, w.name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd < 0)
            e = host_err(errno);
        else if (fstat(fd, &st) != 0)
            e = ERROR_ACCESS_DENIED;
        else
            created = true;
    }
    if (!e && !sharing(fs, st.st_dev, st.st_ino, access, share)) e = ERROR_SHARING_VIOLATION;
    if (!e && (o->flags & FILE_FLAG_DELETE_ON_CLOSE) && !(share & FILE_SHARE_DELETE) && !created &&
        open_without_delete_share(fs, st.st_dev, st.st_ino))
        e = ERROR_SHARING_VIOLATION;
    if (!e && truncate && ftruncate(fd, 0) != 0) e = host_err(errno);
    if (!e) e = hcp_fs_fullpath(c->p, path, n, &full, &fulln, NULL);
    if (!e && !(f = file_new(fs, S_ISDIR(st.st_mode) ? FK_DIR : FK_DISK, fd, access, share)))
        e = ERROR_TOO_MANY_OPEN_FILES;
    if (e) {
        if (fd >= 0) close(fd);
        if (created) unlinkat(w.dir, w.name, 0);
        free(full);
        walk_free(&w);
        loc_free(&l);
        *err = e;
        return NULL;
    }
    f->dev = st.st_dev;
    f->ino = st.st_ino;
    f->path = full;
    f->pathn = fulln;
    f->delete_on_close = (o->flags & FILE_FLAG_DELETE_ON_CLOSE) != 0;
    if (created || truncate)
        touch(c, st.st_dev, st.st_ino, created);
    else
        times_of(c, st.st_dev, st.st_ino, true); /* its index: in the order the program meets files */
    walk_free(&w);
    loc_free(&l);
    return f;
}

int hcp_file_type(const hcp_file *f) { return f->kind == FK_DISK || f->kind == FK_DIR ? HCP_FT_DISK : HCP_FT_CHAR; }

bool hcp_file_can(const hcp_file *f, bool write) {
    return write ? (f->access & (FILE_WRITE_DATA | FILE_APPEND_DATA)) != 0 : (f->access & FILE_READ_DATA) != 0;
}

/* The program's standard input, read whole at its first use (api/README.md "msvcrt's stdio": standard input). */
static void stdin_load(hcp_ctx *c) {
    hcp_procx *x = c->p->x;
    if (x->stdin_loaded) return;
    x->stdin_loaded = true;
    if (!x->stdin_path) return;
    FILE *in = strcmp(x->stdin_path, "-") == 0 ? stdin : fopen(x->stdin_path, "rb");
    if (!in) return;
    size_t cap = 0;
    for (;;) {
        if (x->stdin_n == cap) {
            size_t nc = cap ? 2 * cap : 65536;
            if (nc > (size_t)HCP_MAX_STR * 64) break;
            uint8_t *nb = realloc(x->stdin_data, nc);
            if (!nb) break;
            x->stdin_data = nb;
            cap = nc;
        }
        size_t got = fread(x->stdin_data + x->stdin_n, 1, cap - x->stdin_n, in);
        x->stdin_n += got;
        if (!got) break;
    }
    if (in != stdin) fclose(in);
}

uint32_t hcp_file_read(hcp_ctx *c, hcp_file *f, uint8_t *b, uint32_t n, uint32_t *done) {
    *done = 0;
    switch (f->kind) {
    case FK_NUL: return 0;
    case FK_CONIN: {
        stdin_load(c);
        hcp_procx *x = c->p->x;
        size_t left = x->stdin_n - x->stdin_pos, k = n < left ? n : left;
        if (k) memcpy(b, x->stdin_data + x->stdin_pos, k);
        x->stdin_pos += k;
        *done = (uint32_t)k;
        return 0;
    }
    case FK_CONOUT:
    case FK_CONERR: return ERROR_ACCESS_DENIED;
    case FK_DIR: return ERROR_INVALID_FUNCTION;
    case FK_DISK: break;
    default: return ERROR_INVALID_HANDLE;
    }
    if (!(f->access & FILE_READ_DATA)) return ERROR_ACCESS_DENIED;
    while (*done < n) {
        ssize_t r = pread(f->fd, b + *done, n - *done, (off_t)(f->pos + *done));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return ERROR_READ_FAULT;
        if (r == 0) break;
        *done += (uint32_t)r;
    }
    f->pos += *done;
    hcp_kernel_bytes(c, *done);
    return 0;
}

uint32_t hcp_file_write(hcp_ctx *c, hcp_file *f, const uint8_t *b, uint32_t n, uint32_t *done) {
    *done = 0;
    switch (f->kind) {
    case FK_NUL: *done = n; return 0;
    case FK_CONOUT:
    case FK_CONERR:
        hcp_emit(c, f->kind == FK_CONERR ? 2 : 1, (const char *)b, n);
        *done = n;
        return 0;
    case FK_CONIN: return ERROR_ACCESS_DENIED;
    case FK_DIR: return ERROR_INVALID_FUNCTION;
    case FK_DISK: break;
    default: return ERROR_INVALID_HANDLE;
    }
    if (!(f->access & (FILE_WRITE_DATA | FILE_APPEND_DATA))) return ERROR_ACCESS_DENIED;
    if (!(f->access & FILE_WRITE_DATA)) { /* append only: at the end, whatever the file pointer */
        struct stat st;
        if (fstat(f->fd, &st) == 0) f->pos = (uint64_t)st.st_size;
    }
    if (n == 0) return 0;
    if (f->pos > MAX_FILE_SIZE || n > MAX_FILE_SIZE - f->pos) return ERROR_DISK_FULL;
    while (*done < n) {
        ssize_t r = pwrite(f->fd, b + *done, n - *done, (off_t)(f->pos + *done));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            uint32_t e = r < 0 ? host_err(errno) : ERROR_WRITE_FAULT;
            f->pos += *done;
            return e == ERROR_ACCESS_DENIED ? ERROR_WRITE_FAULT : e;
        }
        *done += (uint32_t)r;
    }
    f->pos += *done;
    touch(c, f->dev, f->ino, false);
    hcp_kernel_bytes(c, *done);
    return 0;
}

void hcp_file_unread(hcp_ctx *c, hcp_file *f, uint32_t n) {
    if (!n) return;
    if (f->kind == FK_DISK)
        f->pos = f->pos >= n ? f->pos - n : 0;
    else if (f->kind == FK_CONIN)
        c->p->x->stdin_pos -= n <= c->p->x->stdin_pos ? n : c->p->x->stdin_pos;
}

uint32_t hcp_file_size(hcp_file *f, uint64_t *size) {
    *size = 0;
    if (f->kind == FK_DIR) return 0;
    if (f->kind != FK_DISK) return f->kind == FK_NUL ? 0 : ERROR_INVALID_HANDLE;
    struct stat st;
    if (fstat(f->fd, &st) != 0) return ERROR_INVALID_HANDLE;
    *size = (uint64_t)st.st_size;
    return 0;
}

uint32_t hcp_file_seek(hcp_file *f, int64_t off, int whence, uint64_t *pos) {
    if (whence < 0 || whence > 2) return ERROR_INVALID_PARAMETER;
    if (f->kind != FK_DISK && f->kind != FK_DIR) { /* a character device has no position */
        if (pos) *pos = 0;
        return 0;
    }
    int64_t base = 0;
    if (whence == 1) base = (int64_t)f->pos;
    if (whence == 2) {
        uint64_t s;
        uint32_t e = hcp_file_size(f, &s);
        if (e) return e;
        base = (int64_t)s;
    }
    if ((off < 0 && base + off < 0) || (off > 0 && base > INT64_MAX - off)) return ERROR_NEGATIVE_SEEK;
    f->pos = (uint64_t)(base + off);
    if (pos) *pos = f->pos;
    return 0;
}

uint32_t hcp_file_truncate(hcp_ctx *c, hcp_file *f) {
    if (f->kind != FK_DISK) return f->kind == FK_DIR ? ERROR_INVALID_FUNCTION : ERROR_INVALID_HANDLE;
    if (!(f->access & FILE_WRITE_DATA)) return ERROR_ACCESS_DENIED;
    if (f->pos > MAX_FILE_SIZE) return ERROR_DISK_FULL;
    if (ftruncate(f->fd, (off_t)f->pos) != 0) return host_err(errno);
    touch(c, f->dev, f->ino, false);
    return 0;
}

uint32_t hcp_file_flush(hcp_file *f) {
    if (f->kind == FK_CONIN) return ERROR_INVALID_HANDLE;
    if (f->kind == FK_DISK && !(f->access & (FILE_WRITE_DATA | FILE_APPEND_DATA))) return ERROR_ACCESS_DENIED;
    return 0; /* nothing is buffered: every write reached the host file */
}

uint32_t hcp_file_info(hcp_ctx *c, hcp_file *f, hcp_finfo *out) {
    memset(out, 0, sizeof *out);
    if (f->kind != FK_DISK && f->kind != FK_DIR) return ERROR_INVALID_HANDLE;
    struct stat st;
    if (fstat(f->fd, &st) != 0) return ERROR_INVALID_HANDLE;
    info_of(c, &st, out);
    if (S_ISDIR(st.st_mode)) out->size = 0;
    return 0;
}

/* ---- path operations ---- */

uint32_t hcp_fs_attributes(hcp_ctx *c, const uint16_t *path, size_t n, hcp_finfo *out) {
    hcp_fs *fs = c->p->x->fs;
    loc l;
    walk w;
    int dev;
    memset(out, 0, sizeof *out);
    uint32_t e = resolve(c, path, n, false, &l, &w, &dev);
    if (e) return e;
    if (dev != DEV_NONE) return ERROR_FILE_NOT_FOUND; /* devices have no attributes here */
    if (!w.exists)
        e = l.trailing ? ERROR_PATH_NOT_FOUND : ERROR_FILE_NOT_FOUND;
    else if (refused(fs, &w.st) && !S_ISLNK(w.st.st_mode))
        e = ERROR_ACCESS_DENIED;
    else if (l.trailing && !S_ISDIR(w.st.st_mode))
        e = ERROR_INVALID_NAME; /* "file\": not a folder */
    else
        info_of(c, &w.st, out);
    walk_free(&w);
    loc_free(&l);
    return e;
}

uint32_t hcp_fs_mkdir(hcp_ctx *c, const uint16_t *path, size_t n) {
    loc l;
    walk w;
    int dev;
    uint32_t e = resolve(c, path, n, false, &l, &w, &dev);
    if (e) return e;
    if (dev != DEV_NONE) return ERROR_ACCESS_DENIED;
    if (w.exists || !w.name)
        e = ERROR_ALREADY_EXISTS;
    else if (mkdirat(w.dir, w.name, 0777) != 0)
        e = host_err(errno);
    else {
        struct stat st;
        if (fstatat(w.dir, w.name, &st, AT_SYMLINK_NOFOLLOW) == 0) touch(c, st.st_dev, st.st_ino, true);
    }
    walk_free(&w);
    loc_free(&l);
    return e;
}

/* Whether full path `a` (n units) is the current directory or one of its ancestors. */
static bool holds_cwd(hcp_fs *fs, const uint16_t *a, size_t n) {
    if (n > fs->cwdn) return false;
    if (hcp_wcmp_ci(a, n, fs->cwd, n) != 0) return false;
    return n == fs->cwdn || fs->cwd[n] == '\\';
}

static uint32_t delete_path(hcp_ctx *c, const uint16_t *path, size_t n, bool dir, bool force) {
    hcp_fs *fs = c->p->x->fs;
    loc l;
    walk w;
    int dev;
    uint32_t e = resolve(c, path, n, false, &l, &w, &dev);
    if (e) return e;
    if (dev != DEV_NONE) return dev == DEV_MISSING ? ERROR_FILE_NOT_FOUND : ERROR_ACCESS_DENIED;
    uint16_t *full = NULL;
    size_t fn = 0;
    if (!w.exists)
        e = l.trailing && !dir ? ERROR_INVALID_NAME : ERROR_FILE_NOT_FOUND;
    else if (!w.name)
        e = dir ? ERROR_SHARING_VIOLATION : ERROR_ACCESS_DENIED; /* C:\hcpsim */
    else if (refused(fs, &w.st))
        e = ERROR_ACCESS_DENIED;
    else if (dir && !S_ISDIR(w.st.st_mode))
        e = ERROR_DIRECTORY;
    else if (!dir && S_ISDIR(w.st.st_mode))
        e = ERROR_ACCESS_DENIED;
    else if (!dir && !force && !(w.st.st_mode & S_IWUSR))
        e = ERROR_ACCESS_DENIED; /* read-only */
    else if (!force && open_without_delete_share(fs, w.st.st_dev, w.st.st_ino))
        e = ERROR_SHARING_VIOLATION;
    else if (dir && !(e = hcp_fs_fullpath(c->p, path, n, &full, &fn, NULL)) && holds_cwd(fs, full, fn))
        e = ERROR_SHARING_VIOLATION;
    if (!e && unlinkat(w.dir, w.name, dir ? AT_REMOVEDIR : 0) != 0)
        e = errno == EEXIST || errno == ENOTEMPTY ? ERROR_DIR_NOT_EMPTY : host_err(errno);
    free(full);
    walk_free(&w);
    loc_free(&l);
    return e;
}

uint32_t hcp_fs_rmdir(hcp_ctx *c, const uint16_t *path, size_t n) { return delete_path(c, path, n, true, false); }
uint32_t hcp_fs_delete(hcp_ctx *c, const uint16_t *path, size_t n) { return delete_path(c, path, n, false, false); }

#define MOVEFILE_REPLACE_EXISTING 1u
#define MOVEFILE_COPY_ALLOWED 2u
#define MOVEFILE_DELAY_UNTIL_REBOOT 4u
#define MOVEFILE_WRITE_THROUGH 8u

uint32_t hcp_fs_move(hcp_ctx *c, const uint16_t *from, size_t fnn, const uint16_t *to, size_t tn, uint32_t flags) {
    hcp_fs *fs = c->p->x->fs;
    if (flags & ~(MOVEFILE_REPLACE_EXISTING | MOVEFILE_COPY_ALLOWED | MOVEFILE_WRITE_THROUGH))
        return ERROR_INVALID_PARAMETER;
    loc la, lb;
    walk a, b;
    int deva, devb;
    uint32_t e = resolve(c, from, fnn, false, &la, &a, &deva);
    if (e) return e;
    if (deva != DEV_NONE) return ERROR_ACCESS_DENIED;
    e = resolve(c, to, tn, false, &lb, &b, &devb);
    if (e) {
        walk_free(&a);
        loc_free(&la);
        return e == ERROR_PATH_NOT_FOUND && !a.exists ? ERROR_FILE_NOT_FOUND : e;
    }
    uint16_t *fa = NULL, *fb = NULL;
    size_t na = 0, nb = 0;
    if (devb != DEV_NONE)
        e = ERROR_ACCESS_DENIED;
    else if (!a.exists)
        e = ERROR_FILE_NOT_FOUND;
    else if (!a.name || refused(fs, &a.st))
        e = ERROR_ACCESS_DENIED;
    else if (!b.name)
        e = ERROR_ACCESS_DENIED;
    else if (open_without_delete_share(fs, a.st.st_dev, a.st.st_ino))
        e = ERROR_SHARING_VIOLATION;
    if (!e) {
        e = hcp_fs_fullpath(c->p, from, fnn, &fa, &na, NULL);
        if (!e) e = hcp_fs_fullpath(c->p, to, tn, &fb, &nb, NULL);
    }
    if (!e && S_ISDIR(a.st.st_mode) && holds_cwd(fs, fa, na)) e = ERROR_SHARING_VIOLATION;
    if (!e && S_ISDIR(a.st.st_mode) && nb > na && hcp_wcmp_ci(fa, na, fb, na) == 0 && fb[na] == '\\')
        e = ERROR_SHARING_VIOLATION; /* into itself */
    bool same = !e && b.exists && b.st.st_dev == a.st.st_dev && b.st.st_ino == a.st.st_ino;
    if (!e && b.exists && !same) {
        if (!(flags & MOVEFILE_REPLACE_EXISTING))
            e = ERROR_ALREADY_EXISTS;
        else if (refused(fs, &b.st) || S_ISDIR(b.st.st_mode) || S_ISDIR(a.st.st_mode))
            e = ERROR_ACCESS_DENIED;
        else if (!(b.st.st_mode & S_IWUSR))
            e = ERROR_ACCESS_DENIED;
        else if (open_without_delete_share(fs, b.st.st_dev, b.st.st_ino) ||
                 !sharing(fs, b.st.st_dev, b.st.st_ino, DELETE_ACCESS, 0))
            e = ERROR_SHARING_VIOLATION;
    }
    if (!e) {
        /* a case-only rename keeps the file and takes the new spelling */
        const char *dst = same ? lb.c[lb.k - 1] : b.name;
        if (renameat(a.dir, a.name, b.dir, dst) != 0) e = host_err(errno);
    }
    free(fa);
    free(fb);
    walk_free(&a);
    walk_free(&b);
    loc_free(&la);
    loc_free(&lb);
    return e;
}

uint32_t hcp_fs_copy(hcp_ctx *c, const uint16_t *from, size_t fnn, const uint16_t *to, size_t tn, bool fail_if_exists) {
    hcp_open ro = {GENERIC_READ, FILE_SHARE_READ, OPEN_EXISTING, 0};
    uint32_t e = 0;
    bool existed;
    hcp_file *src = hcp_fs_open(c, from, fnn, &ro, &e, &existed);
    if (!src) return e;
    if (src->kind != FK_DISK) {
        hcp_file_unref(c, src);
        return ERROR_ACCESS_DENIED;
    }
    struct stat st;
    fstat(src->fd, &st);
    hcp_open wo = {GENERIC_WRITE, 0, fail_if_exists ? CREATE_NEW : CREATE_ALWAYS,
                   (st.st_mode & S_IWUSR) ? 0 : FILE_ATTRIBUTE_READONLY};
    hcp_file *dst = hcp_fs_open(c, to, tn, &wo, &e, &existed);
    if (!dst) {
        hcp_file_unref(c, src);
        return e;
    }
    e = dst->kind == FK_DISK && dst->dev == src->dev && dst->ino == src->ino ? ERROR_SHARING_VIOLATION : 0;
    uint8_t buf[65536];
    while (!e) {
        uint32_t got, put;
        e = hcp_file_read(c, src, buf, sizeof buf, &got);
        if (e || !got) break;
        e = hcp_file_write(c, dst, buf, got, &put);
    }
    if (!e && dst->kind == FK_DISK) { /* the copy keeps the source's write time; created now */
        ftimes *ts = times_of(c, src->dev, src->ino, true), *td = times_of(c, dst->dev, dst->ino, true);
        if (ts && td) td->mtime = ts->mtime;
    }
    hcp_file_unref(c, src);
    hcp_file_unref(c, dst);
    return e;
}

uint32_t hcp_fs_chdir(hcp_ctx *c, const uint16_t *path, size_t n) {
    hcp_fs *fs = c->p->x->fs;
    loc l;
    walk w;
    int dev;
    uint32_t e = resolve(c, path, n, false, &l, &w, &dev);
    if (e) return e;
    if (dev != DEV_NONE) return ERROR_DIRECTORY;
    uint16_t *full = NULL;
    size_t fn = 0;
    if (!w.exists)
        e = ERROR_FILE_NOT_FOUND;
    else if (refused(fs, &w.st))
        e = ERROR_ACCESS_DENIED;
    else if (!S_ISDIR(w.st.st_mode))
        e = ERROR_DIRECTORY;
    else
        e = hcp_fs_fullpath(c->p, path, n, &full, &fn, NULL);
    walk_free(&w);
    loc_free(&l);
    if (e) return e;
    while (fn > 3 && full[fn - 1] == '\\') fn--; /* no trailing separator but for a root */
    full[fn] = 0;
    free(fs->cwd);
    fs->cwd = full;
    fs->cwdn = fn;
    return 0;
}

/* ---- directory searches ---- */

/* Windows' wildcard match, case-insensitive: '*' any run, '?' one unit; "*.*" is "*", and a
 * pattern ending in '.' also matches names without that dot (DOS rules FindFirstFile keeps). */
static bool wild_match(const uint16_t *p, size_t pn, const uint16_t *s, size_t sn) {
    size_t pi = 0, si = 0, star_p = SIZE_MAX, star_s = 0;
    while (si < sn) {
        if (pi < pn && (p[pi] == '?' || hcp_wupper(p[pi]) == hcp_wupper(s[si]))) {
            pi++, si++;
        } else if (pi < pn && p[pi] == '*') {
            star_p = pi++;
            star_s = si;
        } else if (star_p != SIZE_MAX) {
            pi = star_p + 1;
            si = ++star_s;
        } else {
            return false;
        }
    }
    while (pi < pn && (p[pi] == '*' || p[pi] == '.' || p[pi] == '?')) {
        if (p[pi] == '.' && pi + 1 < pn) return false;
        pi++;
    }
    return pi == pn;
}

static int entry_cmp(const void *x, const void *y) {
    const hcp_fentry *a = x, *b = y;
    bool ad = a->n == 1 && a->name[0] == '.', add = a->n == 2 && a->name[0] == '.' && a->name[1] == '.';
    bool bd = b->n == 1 && b->name[0] == '.', bdd = b->n == 2 && b->name[0] == '.' && b->name[1] == '.';
    if (ad || bd) return ad && bd ? 0 : ad ? -1 : 1;
    if (add || bdd) return add && bdd ? 0 : add ? -1 : 1;
    int r = hcp_wcmp_ci(a->name, a->n, b->name, b->n);
    if (r) return r;
    for (size_t i = 0; i < a->n && i < b->n; i++)
        if (a->name[i] != b->name[i]) return a->name[i] < b->name[i] ? -1 : 1;
    return a->n < b->n ? -1 : a->n > b->n;
}

static bool find_add(hcp_find *f, int *cap, const uint16_t *name, size_t n, const hcp_finfo *in, bool link) {
    if (f->n == *cap) {
        int nc = *cap ? 2 * *cap : 32;
        hcp_fentry *ne = realloc(f->e, (size_t)nc * sizeof *ne);
        if (!ne) return false;
        f->e = ne;
        *cap = nc;
    }
    uint16_t *w = hcp_wdup(name, n);
    if (!w) return false;
    f->e[f->n++] =
        (hcp_fentry){w, n, in->attr, in->size, in->ctime, in->atime, in->mtime, link ? IO_REPARSE_TAG_SYMLINK : 0};
    return true;
}

uint32_t hcp_fs_find(hcp_ctx *c, const uint16_t *pattern, size_t n, hcp_find **out) {
    hcp_fs *fs = c->p->x->fs;
    *out = NULL;
    loc l;
    walk w;
    int dev;
    if (n && is_sep(pattern[n - 1])) return ERROR_FILE_NOT_FOUND; /* "dir\": no name to match */
    uint32_t e = resolve(c, pattern, n, true, &l, &w, &dev);
    if (e) return e;
    if (dev != DEV_NONE || l.k == 0) { /* a device, or C:\hcpsim itself (its parent is C:\) */
        walk_free(&w);
        loc_free(&l);
        return dev != DEV_NONE ? ERROR_FILE_NOT_FOUND : ERROR_ACCESS_DENIED;
    }
    const uint16_t *pat = l.w[l.k - 1];
    size_t pn = l.wn[l.k - 1];
    static const uint16_t star[] = {'*'};
    if (pn == 3 && pat[0] == '*' && pat[1] == '.' && pat[2] == '*') pat = star, pn = 1;
    hcp_find *f = calloc(1, sizeof *f);
    int cap = 0, count = 0;
    int d2 = f ? openat(w.dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    DIR *d = d2 >= 0 ? fdopendir(d2) : NULL;
    if (!d) {
        if (d2 >= 0) close(d2);
        free(f);
        walk_free(&w);
        loc_free(&l);
        return ERROR_NOT_ENOUGH_MEMORY;
    }
    struct stat st;
    hcp_finfo in;
    static const uint16_t dot[] = {'.', '.'};
    if (fstat(w.dir, &st) == 0) { /* every folder here has a parent: "." and ".." */
        info_of(c, &st, &in);
        if (wild_match(pat, pn, dot, 1)) find_add(f, &cap, dot, 1, &in, false);
        if (wild_match(pat, pn, dot, 2)) find_add(f, &cap, dot, 2, &in, false);
    }
    struct dirent *de;
    while ((de = readdir(d)) && count++ < MAX_DIR_ENTRIES) {
        uint16_t *nw;
        size_t nn;
        if (!nameable(de->d_name, &nw, &nn)) continue;
        if (wild_match(pat, pn, nw, nn) && fstatat(w.dir, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode))) {
            info_of(c, &st, &in);
            if (st.st_dev != fs->root_dev) in.attr |= FILE_ATTRIBUTE_REPARSE_POINT; /* a mount point */
            find_add(f, &cap, nw, nn, &in, S_ISLNK(st.st_mode));
        }
        free(nw);
    }
    closedir(d);
    walk_free(&w);
    loc_free(&l);
    if (!f->n) {
        hcp_find_free(f);
        return ERROR_FILE_NOT_FOUND;
    }
    qsort(f->e, (size_t)f->n, sizeof *f->e, entry_cmp);
    hcp_kernel_bytes(c, 64 * (uint64_t)count); /* a directory entry read: 64 bytes' work */
    *out = f;
    return 0;
}

const hcp_fentry *hcp_find_next(hcp_find *f) { return f->next < f->n ? &f->e[f->next++] : NULL; }

void hcp_find_free(hcp_find *f) {
    if (!f) return;
    for (int i = 0; i < f->n; i++) free(f->e[i].name);
    free(f->e);
    free(f);
}

/* Find handles: FIND_HANDLE_BASE + 16 i, below every kernel handle value. */
uint64_t hcp_find_handle(hcp_ctx *c, hcp_find *f) {
    hcp_fs *fs = c->p->x->fs;
    int i = 0;
    while (i < fs->nfinds && fs->finds[i]) i++;
    if (i == fs->nfinds) {
        if (fs->nfinds >= MAX_FINDS) return 0;
        hcp_find **n = realloc(fs->finds, (size_t)(fs->nfinds + 1) * sizeof *n);
        if (!n) return 0;
        fs->finds = n;
        fs->nfinds++;
    }
    fs->finds[i] = f;
    return FIND_HANDLE_BASE + 16u * (uint64_t)i;
}

hcp_find *hcp_find_of(hcp_ctx *c, uint64_t h, bool take) {
    hcp_fs *fs = c->p->x->fs;
    if (h < FIND_HANDLE_BASE || (h - FIND_HANDLE_BASE) % 16 || (h - FIND_HANDLE_BASE) / 16 >= (uint64_t)fs->nfinds)
        return NULL;
    int i = (int)((h - FIND_HANDLE_BASE) / 16);
    hcp_find *f = fs->finds[i];
    if (take) fs->finds[i] = NULL;
    return f;
}
