/* reports/out.c — the one way a report or trace file is written: to
 * PATH.tmp, renamed to PATH only when everything was written, removed
 * otherwise, so a failed write never leaves a half file at PATH. */
#define _POSIX_C_SOURCE 200809L /* stat: a directory at PATH fails at once, not after the run */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "reports/reports.h"

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
