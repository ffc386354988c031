/* mcb_isolate.c: fork, limit, run, report (see mcb_isolate.h). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "lib/mcb_isolate.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "lib/mcb_timer.h"

#if defined(__SANITIZE_ADDRESS__)
#define MCB_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MCB_ASAN 1
#endif
#endif

/* What the child sends back: its status and message. */
typedef struct {
    int rc;
    char msg[MCB_ERR_LEN];
} child_msg;

#ifndef MCB_ASAN
/* The address space mapped now (thread stacks and BLAS buffers reserve
 * gigabytes of it before anything is read). */
static double mapped_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    if (f) {
        if (fscanf(f, "%lu", &pages) != 1) pages = 0;
        fclose(f);
    }
    return (double)pages * (double)sysconf(_SC_PAGESIZE);
}
#endif

static void child_limits(const mcb_isolate_limits *lim)
{
    struct rlimit r = {0, 0};
    setrlimit(RLIMIT_CORE, &r); /* a crash here is an outcome, not a core file */
#ifndef MCB_ASAN
    if (lim->mem_limit_mb > 0) {
        r.rlim_cur = r.rlim_max = (rlim_t)(mapped_bytes() + lim->mem_limit_mb * 1048576.0);
        setrlimit(RLIMIT_AS, &r);
    }
#endif
    if (lim->time_limit_s > 0) {
        /* backstop for a child the parent could not kill: CPU seconds */
        r.rlim_cur = (rlim_t)ceil(lim->time_limit_s) + 1;
        r.rlim_max = r.rlim_cur + 1;
        setrlimit(RLIMIT_CPU, &r);
    }
}

static void write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return;
        p += w;
        len -= (size_t)w;
    }
}

/* Reads up to len bytes before the deadline; returns bytes read, -1 on
 * timeout. */
static long read_until(int fd, void *buf, size_t len, double deadline_s)
{
    size_t got = 0;
    while (got < len) {
        int wait_ms = -1;
        if (deadline_s > 0) {
            double left = deadline_s - mcb_now_s();
            if (left <= 0) return -1;
            wait_ms = (int)(left * 1000.0) + 1;
        }
        struct pollfd p = {fd, POLLIN, 0};
        int k = poll(&p, 1, wait_ms);
        if (k < 0 && errno == EINTR) continue;
        if (k == 0) return -1;
        if (k < 0) break;
        ssize_t r = read(fd, (char *)buf + got, len - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break; /* end of file: the child is gone */
        got += (size_t)r;
    }
    return (long)got;
}

/* The threads of this process (its entries in /proc/self/task); 0: unknown. */
static int live_threads(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d) return 0;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

int mcb_isolate_prefork(void)
{
#ifdef _OPENMP
    /* GNU libgomp's soft pause joins the pool threads and forgets the pool;
     * a no-op when none was started. Inside a parallel region it refuses,
     * and the threads then counted say so. */
    if (!omp_in_parallel()) (void)omp_pause_resource_all(omp_pause_soft);
#endif
    return live_threads();
}

mcb_rc mcb_isolate_start(mcb_isolated_fn fn, void *arg, const mcb_isolate_limits *lim,
                         size_t shared_size, mcb_isolate_child *ch, mcb_err *err)
{
    memset(ch, 0, sizeof *ch);
    ch->pid = -1;
    ch->fd = -1;
    if (lim) ch->lim = *lim;
    ch->shared_size = shared_size;
    if (shared_size > 0) {
        ch->shared =
            mmap(NULL, shared_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (ch->shared == MAP_FAILED) {
            ch->shared = NULL;
            return mcb_fail(err, MCB_E_NOMEM, "cannot map %zu shared bytes", shared_size);
        }
    }
    int fds[2];
    if (pipe(fds) != 0) {
        if (ch->shared) munmap(ch->shared, shared_size);
        ch->shared = NULL;
        return mcb_fail(err, MCB_E_ISOLATED, "cannot create a pipe (%s)", strerror(errno));
    }
    fflush(NULL); /* nothing buffered is written twice */
    (void)mcb_isolate_prefork(); /* no OpenMP pool for the child to wait on */
    ch->t0_s = mcb_now_s();
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        if (ch->shared) munmap(ch->shared, shared_size);
        ch->shared = NULL;
        return mcb_fail(err, MCB_E_ISOLATED, "cannot start a child process (%s)", strerror(errno));
    }
    if (pid == 0) {
        close(fds[0]);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        child_limits(&ch->lim);
        child_msg m;
        memset(&m, 0, sizeof m);
        mcb_err cerr;
        cerr.msg[0] = '\0';
        m.rc = (int)fn(arg, ch->shared, &cerr);
        memcpy(m.msg, cerr.msg, sizeof m.msg);
        write_all(fds[1], &m, sizeof m);
        close(fds[1]);
        _exit(0); /* no atexit handlers, no stdio flush of the parent's buffers */
    }
    close(fds[1]);
    ch->pid = (int)pid;
    ch->fd = fds[0];
    return MCB_OK;
}

/* Releases what a started child holds in the parent (after its end). */
static void child_release(mcb_isolate_child *ch)
{
    if (ch->fd >= 0) close(ch->fd);
    if (ch->shared) munmap(ch->shared, ch->shared_size);
    ch->fd = -1;
    ch->shared = NULL;
    ch->pid = -1;
}

mcb_rc mcb_isolate_wait(mcb_isolate_child *ch, void *out, mcb_isolate_report *rep, mcb_err *err)
{
    mcb_isolate_report local;
    if (!rep) rep = &local;
    memset(rep, 0, sizeof *rep);
    child_msg m;
    memset(&m, 0, sizeof m);
    double deadline = ch->lim.time_limit_s > 0 ? ch->t0_s + ch->lim.time_limit_s : 0;
    long got = read_until(ch->fd, &m, sizeof m, deadline);
    int timed_out = got < 0;
    if (timed_out) kill(ch->pid, SIGKILL);
    int status = 0;
    while (waitpid(ch->pid, &status, 0) < 0 && errno == EINTR) {
    }
    rep->wall_s = mcb_now_s() - ch->t0_s;
    mcb_rc rc;
    if (timed_out) {
        rep->outcome = MCB_ISO_TIMEOUT;
        rc = mcb_fail(err, MCB_E_ISOLATED, "did not finish within %.3g s (killed)",
                      ch->lim.time_limit_s);
    } else if (got == (long)sizeof m && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        rep->outcome = MCB_ISO_DONE;
        rc = (mcb_rc)m.rc;
        m.msg[sizeof m.msg - 1] = '\0';
        if (rc) mcb_fail(err, rc, "%s", m.msg);
        if (!rc && out && ch->shared) memcpy(out, ch->shared, ch->shared_size);
    } else if (WIFSIGNALED(status)) {
        rep->outcome = MCB_ISO_CRASHED;
        rep->signal = WTERMSIG(status);
        int sig = rep->signal;
        rc = mcb_fail(err, MCB_E_ISOLATED, "crashed (signal %d, %s)%s", sig, strsignal(sig),
                      sig == SIGXCPU || sig == SIGKILL ? ": time or memory limit" : "");
    } else {
        rep->outcome = MCB_ISO_EXITED;
        rep->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        rc = mcb_fail(err, MCB_E_ISOLATED, "ended with exit code %d without a result%s",
                      rep->exit_code,
                      rep->exit_code == 0 ? "" : " (out of memory, a library's exit() or a "
                                                 "sanitizer report)");
    }
    child_release(ch);
    return rc;
}

void mcb_isolate_abandon(mcb_isolate_child *ch)
{
    if (!ch || ch->pid < 0) return;
    kill(ch->pid, SIGKILL);
    while (waitpid(ch->pid, NULL, 0) < 0 && errno == EINTR) {
    }
    child_release(ch);
}

mcb_rc mcb_isolate_run(mcb_isolated_fn fn, void *arg, const mcb_isolate_limits *lim,
                       size_t shared_size, void *out, mcb_isolate_report *rep, mcb_err *err)
{
    mcb_isolate_child ch;
    mcb_rc rc = mcb_isolate_start(fn, arg, lim, shared_size, &ch, err);
    if (rc) {
        if (rep) {
            memset(rep, 0, sizeof *rep);
            rep->outcome = MCB_ISO_NOFORK;
        }
        return rc;
    }
    return mcb_isolate_wait(&ch, out, rep, err);
}

static double env_or(const char *name, double dflt)
{
    const char *s = getenv(name);
    if (!s || !*s) return dflt;
    char *end;
    double v = strtod(s, &end);
    return (*end || !(v > 0) || !isfinite(v)) ? dflt : v;
}

typedef struct {
    mcb_rc (*fn)(void *arg, mcb_err *err);
    void *arg;
} probe_call;

static mcb_rc probe_trampoline(void *arg, void *shared, mcb_err *err)
{
    (void)shared;
    probe_call *c = arg;
    return c->fn(c->arg, err);
}

/* The reader's limits for `path`, scaled to its size. */
static mcb_rc probe_limits(const char *path, mcb_isolate_limits *lim, mcb_err *err)
{
    struct stat st;
    if (stat(path, &st) != 0) return mcb_fail(err, MCB_E_INPUT, "%s: cannot open file (%s)", path,
                                              strerror(errno));
    double gib = (double)st.st_size / 1073741824.0;
    lim->time_limit_s = env_or("MCB_READ_TIME_LIMIT_S", 30.0 + 10.0 * gib);
    lim->mem_limit_mb = env_or("MCB_READ_MEM_LIMIT_MB", 4096.0 + 16.0 * (double)st.st_size / 1048576.0);
    return MCB_OK;
}

mcb_rc mcb_isolate_probe_start(const char *path, mcb_rc (*fn)(void *arg, mcb_err *err), void *arg,
                               mcb_isolate_child *ch, mcb_err *err)
{
    memset(ch, 0, sizeof *ch);
    ch->pid = ch->fd = -1;
    mcb_isolate_limits lim;
    mcb_rc rc = probe_limits(path, &lim, err);
    if (rc) return rc;
    probe_call c = {fn, arg}; /* the child gets its copy at the fork */
    mcb_err cerr;
    rc = mcb_isolate_start(probe_trampoline, &c, &lim, 0, ch, &cerr);
    return rc ? mcb_fail(err, rc, "%s: %s", path, cerr.msg) : MCB_OK;
}

/* A reader child's end as the reader reports it: fn's own status, or the
 * file named as damaged when the child did not complete. */
static mcb_rc probe_outcome(const char *path, mcb_rc rc, const mcb_isolate_report *rep,
                            const mcb_err *cerr, mcb_err *err)
{
    if (rep->outcome == MCB_ISO_DONE) {
        if (rc) mcb_fail(err, rc, "%s", cerr->msg);
        return rc;
    }
    return mcb_fail(err, MCB_E_INPUT,
                    "%s: damaged or hostile file: reading it in an isolated process %s; the "
                    "file was not used", path, cerr->msg);
}

mcb_rc mcb_isolate_probe_wait(const char *path, mcb_isolate_child *ch, mcb_err *err)
{
    mcb_isolate_report rep;
    mcb_err cerr;
    mcb_rc rc = mcb_isolate_wait(ch, NULL, &rep, &cerr);
    return probe_outcome(path, rc, &rep, &cerr, err);
}

mcb_rc mcb_isolate_probe_result(const char *path, mcb_isolated_fn fn, void *arg,
                                size_t shared_size, void *out, mcb_err *err)
{
    mcb_isolate_limits lim;
    mcb_rc rc = probe_limits(path, &lim, err);
    if (rc) return rc;
    mcb_isolate_report rep;
    mcb_err cerr;
    rc = mcb_isolate_run(fn, arg, &lim, shared_size, out, &rep, &cerr);
    if (rep.outcome == MCB_ISO_NOFORK) return mcb_fail(err, rc, "%s: %s", path, cerr.msg);
    return probe_outcome(path, rc, &rep, &cerr, err);
}

mcb_rc mcb_isolate_probe(const char *path, mcb_rc (*fn)(void *arg, mcb_err *err), void *arg,
                         mcb_err *err)
{
    mcb_isolate_child ch;
    mcb_rc rc = mcb_isolate_probe_start(path, fn, arg, &ch, err);
    return rc ? rc : mcb_isolate_probe_wait(path, &ch, err);
}
