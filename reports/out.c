/* reports/out.c — the one way a report or trace file is written: to
 * PATH.tmp, renamed to PATH only when everything was written, removed
 * otherwise, so a failed write never leaves a half file at PATH; and the
 * scenario path a report records (rep_scenario_path). */
#define _XOPEN_SOURCE 700 /* stat (a directory at PATH fails at once, not after the run), realpath */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "reports/reports.h"

static char *copy(const char *s) {
    size_t n = strlen(s);
    char *d = malloc(n + 1);
    if (d) memcpy(d, s, n + 1);
    return d;
}

FILE *rep_out_open(const char *path, char **path_copy, char **tmp) {
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) { /* the final rename would fail */
        errno = EISDIR;
        return NULL;
    }
    size_t n = strlen(path);
    char *p = malloc(n + 1), *t = malloc(n + 5);
    if (!p || !t) {
        free(p);
        free(t);
        errno = ENOMEM;
        return NULL;
    }
    memcpy(p, path, n + 1);
    memcpy(t, path, n);
    memcpy(t + n, ".tmp", 5);
    FILE *f = fopen(t, "w");
    if (!f) {
        int e = errno;
        free(p);
        free(t);
        errno = e;
        return NULL;
    }
    setvbuf(f, NULL, _IOFBF, 1 << 16);
    *path_copy = p;
    *tmp = t;
    return f;
}

int rep_out_close(FILE *f, char *path, char *tmp, int err) {
    if (ferror(f) && !err) err = errno ? errno : EIO;
    if (fclose(f) != 0 && !err) err = errno ? errno : EIO;
    if (!err && rename(tmp, path) != 0) err = errno ? errno : EIO;
    if (err) remove(tmp);
    free(tmp);
    free(path);
    return err;
}

char *rep_scenario_path(const char *given) {
    char *abs = realpath(given, NULL);
    if (!abs) return copy(given);
    size_t n = strlen(abs);
    char *dir = malloc(n + 6); /* a parent of abs, then "/.git" */
    if (!dir) {
        free(abs);
        return NULL;
    }
    memcpy(dir, abs, n + 1);
    char *res = NULL;
    /* up from the file's folder to "/": each step drops one component, so at most n steps */
    for (char *slash = strrchr(dir, '/'); slash && !res; slash = strrchr(dir, '/')) {
        *slash = 0;
        size_t d = strlen(dir);
        struct stat st;
        memcpy(dir + d, "/.git", 6);
        bool repo = stat(dir, &st) == 0; /* a folder, or a file in a worktree */
        dir[d] = 0;
        if (repo) res = copy(abs + d + 1);
    }
    free(dir);
    free(abs);
    return res ? res : copy(given);
}
