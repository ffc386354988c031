/* mcb_paths.c: output path checks and the temporary-file registry (see
 * mcb_paths.h). */
#define _DEFAULT_SOURCE /* realpath */
#include "lib/mcb_paths.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PATH_BUF 4096

void mcb_path_with_ext(const char *path, const char *ext, char *buf, size_t len)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    int stem = (int)(dot && dot != base ? (size_t)(dot - path) : strlen(path));
    snprintf(buf, len, "%.*s%s", stem, path, ext);
}

int mcb_path_relative(const char *dir, const char *target, char *buf, size_t len)
{
    char d[PATH_MAX + 2], t[PATH_MAX + 2];
    if (len == 0 || !realpath(dir, d) || !realpath(target, t)) return -1;
    /* both end with one '/', so that a common prefix ending with '/' is
     * made of whole components */
    if (d[strlen(d) - 1] != '/') strcat(d, "/");
    if (t[strlen(t) - 1] != '/') strcat(t, "/");
    size_t common = 0;
    for (size_t k = 0; d[k] && d[k] == t[k]; k++)
        if (d[k] == '/') common = k + 1;
    size_t n = 0;
    buf[0] = '\0';
    for (const char *c = d + common; *c; c++) /* one ".." per component left in dir */
        if (*c == '/') {
            if (n + 4 > len) return -1;
            memcpy(buf + n, "../", 4);
            n += 3;
        }
    const char *rest = t + common;
    size_t rn = strlen(rest);
    if (n + rn + 2 > len) return -1;
    memcpy(buf + n, rest, rn + 1);
    n += rn;
    if (n == 0) strcpy(buf, ".");
    else buf[n - 1] = '\0'; /* the trailing '/' */
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void mcb_strings_free(char **strings, int count)
{
    if (!strings) return;
    for (int k = 0; k < count; k++) free(strings[k]);
    free(strings);
}

mcb_rc mcb_dir_stems(const char *dir, const char *ext, char ***names, int *count, mcb_err *err)
{
    *names = NULL;
    *count = 0;
    DIR *d = opendir(dir);
    if (!d) return mcb_fail(err, MCB_E_INPUT, "directory %s: %s", dir, strerror(errno));
    size_t elen = strlen(ext);
    char **v = NULL;
    int n = 0, cap = 0;
    mcb_rc rc = MCB_OK;
    for (struct dirent *e; !rc && (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.' || len <= elen || strcmp(e->d_name + len - elen, ext) != 0)
            continue;
        if (n == cap) {
            char **w = realloc(v, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *w);
            if (!w) {
                rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
                break;
            }
            v = w;
        }
        if (!(v[n] = mcb_strdup(e->d_name))) rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        else v[n++][len - elen] = '\0';
    }
    closedir(d);
    if (rc) {
        mcb_strings_free(v, n);
        return rc;
    }
    if (n) qsort(v, (size_t)n, sizeof *v, cmp_str);
    *names = v;
    *count = n;
    return MCB_OK;
}

int mcb_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* The directory part of path, in buf ("." when there is none). */
static void dir_of(const char *path, char *buf, size_t len)
{
    char copy[PATH_BUF];
    snprintf(copy, sizeof copy, "%s", path);
    snprintf(buf, len, "%s", dirname(copy));
}

static void base_of(const char *path, char *buf, size_t len)
{
    char copy[PATH_BUF];
    snprintf(copy, sizeof copy, "%s", path);
    snprintf(buf, len, "%s", basename(copy));
}

mcb_rc mcb_mkdirs(const char *dir, mcb_err *err)
{
    char buf[PATH_BUF];
    if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf)
        return mcb_fail(err, MCB_E_INPUT, "%s: path too long", dir);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            struct stat st;
            if (stat(buf, &st) != 0) {
                if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                    return mcb_fail(err, MCB_E_INPUT, "%s: cannot create directory (%s)", buf,
                                    strerror(errno));
            } else if (!S_ISDIR(st.st_mode)) {
                return mcb_fail(err, MCB_E_INPUT, "%s: exists and is not a directory", buf);
            }
            *p = c;
            if (c == '\0') break;
        }
    }
    return MCB_OK;
}

/* The nearest existing ancestor of dir (dir itself when it exists). */
static void existing_ancestor(const char *dir, char *buf, size_t len)
{
    snprintf(buf, len, "%s", dir);
    struct stat st;
    while (stat(buf, &st) != 0) {
        char up[PATH_BUF];
        dir_of(buf, up, sizeof up);
        if (strcmp(up, buf) == 0) break;
        snprintf(buf, len, "%s", up);
    }
}

/* The resolved name of an output whose directory exists: realpath of the
 * directory, then the base name. Two outputs with equal keys are the same
 * file, however they are spelled. */
static void output_key(const char *path, char *key, size_t len)
{
    char dir[PATH_BUF], base[PATH_BUF], real[PATH_MAX];
    dir_of(path, dir, sizeof dir);
    base_of(path, base, sizeof base);
    if (!realpath(dir, real)) snprintf(real, sizeof real, "%s", dir);
    if (snprintf(key, len, "%s/%s", real, base) >= (int)len) snprintf(key, len, "%s", path);
}

static mcb_rc check_one(const char *const *inputs, int ninputs, const mcb_output *o,
                        mcb_err *err)
{
    const char *p = o->path;
    if (!p || !*p) return mcb_fail(err, MCB_E_INPUT, "%s: the output path is empty", o->option);
    struct stat st;
    if (stat(p, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return mcb_fail(err, MCB_E_INPUT, "%s %s: is a directory, expected a file path",
                            o->option, p);
        if (!S_ISREG(st.st_mode))
            return mcb_fail(err, MCB_E_INPUT,
                            "%s %s: exists and is not a regular file (it would be replaced)",
                            o->option, p);
        for (int k = 0; k < ninputs; k++)
            if (mcb_same_file(p, inputs[k]))
                return mcb_fail(err, MCB_E_INPUT,
                                "%s %s: is the input file %s; refusing to overwrite an input",
                                o->option, p, inputs[k]);
    }
    char dir[PATH_BUF], anc[PATH_BUF];
    dir_of(p, dir, sizeof dir);
    existing_ancestor(dir, anc, sizeof anc);
    if (stat(anc, &st) != 0 || !S_ISDIR(st.st_mode))
        return mcb_fail(err, MCB_E_INPUT, "%s %s: %s is not a directory", o->option, p, anc);
    if (access(anc, W_OK | X_OK) != 0)
        return mcb_fail(err, MCB_E_INPUT, "%s %s: directory %s is not writable (%s)", o->option,
                        p, anc, strerror(errno));
    return MCB_OK;
}

mcb_rc mcb_check_outputs(const char *const *inputs, int ninputs, const mcb_output *outputs,
                         int noutputs, int make_dirs, mcb_err *err)
{
    mcb_rc rc;
    for (int k = 0; k < noutputs; k++)
        if ((rc = check_one(inputs, ninputs, &outputs[k], err))) return rc;
    /* directories first, so that every output's name can be resolved */
    for (int k = 0; make_dirs && k < noutputs; k++) {
        char dir[PATH_BUF];
        dir_of(outputs[k].path, dir, sizeof dir);
        if ((rc = mcb_mkdirs(dir, err))) return rc;
    }
    for (int a = 0; a < noutputs; a++)
        for (int b = a + 1; b < noutputs; b++) {
            char ka[PATH_BUF + 8], kb[PATH_BUF + 8];
            output_key(outputs[a].path, ka, sizeof ka);
            output_key(outputs[b].path, kb, sizeof kb);
            if (strcmp(ka, kb) == 0 || mcb_same_file(outputs[a].path, outputs[b].path))
                return mcb_fail(err, MCB_E_INPUT, "%s %s and %s %s name the same file",
                                outputs[a].option, outputs[a].path, outputs[b].option,
                                outputs[b].path);
        }
    return MCB_OK;
}

/* ------------------------------------------------------------- registry */

static char tmp_paths[MCB_TMP_MAX][PATH_BUF];
static volatile sig_atomic_t tmp_used[MCB_TMP_MAX];
static pid_t tmp_owner;

int mcb_tmp_register(const char *path)
{
    if (strlen(path) >= PATH_BUF) return -1;
    for (int k = 0; k < MCB_TMP_MAX; k++)
        if (!tmp_used[k]) {
            memcpy(tmp_paths[k], path, strlen(path) + 1);
            tmp_owner = getpid();
            tmp_used[k] = 1; /* set last: the handler sees a complete path */
            return 0;
        }
    return -1;
}

void mcb_tmp_unregister(const char *path)
{
    for (int k = 0; k < MCB_TMP_MAX; k++)
        if (tmp_used[k] && strcmp(tmp_paths[k], path) == 0) tmp_used[k] = 0;
}

void mcb_tmp_remove_all(void)
{
    /* only the process that created them (not a forked child) removes */
    if (getpid() != tmp_owner) return;
    for (int k = 0; k < MCB_TMP_MAX; k++)
        if (tmp_used[k]) {
            unlink(tmp_paths[k]); /* async-signal-safe */
            tmp_used[k] = 0;
        }
}

static void on_signal(int sig)
{
    mcb_tmp_remove_all();
    signal(sig, SIG_DFL);
    raise(sig);
}

void mcb_tmp_install_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (int k = 0; k < 3; k++) {
        struct sigaction old;
        /* leave a signal ignored by the parent shell (nohup) ignored */
        if (sigaction(sigs[k], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        sigaction(sigs[k], &sa, NULL);
    }
}

const char *mcb_env_or(const char *env, const char *fallback)
{
    const char *d = getenv(env);
    return d && *d ? d : fallback;
}
