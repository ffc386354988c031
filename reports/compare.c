/* compare.c: mcbench compare OLD.h5 NEW.h5 (compare.h, docs/compare.md).
 *
 * Steps, one static helper each: read both campaigns into their problems x
 * solvers matrices (outcomes.h) and per-cell repetition statistics
 * (cell_stats, from the repetitions per cell: resample.h), match problems
 * by (set, name) and solvers by name (match), refuse when nothing is shared
 * (refuse_disjoint), judge every shared pair (judge: the time ratio's
 * bootstrap interval; no time flag across different machines unless
 * allowed: machine.h), the per-solver geometric means with their intervals
 * (solver_changes), then write the Markdown table, the CSV and the
 * gnuplot plot. Fails with MCB_E_INPUT (nothing in common, unreadable
 * file), MCB_E_IO (cannot write DIR, gnuplot failed), MCB_E_NOMEM.
 * Allocates both campaigns' records, their matrices and per-cell arrays,
 * all freed before returning. */
#include "reports/compare.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reports/html.h"
#include "lib/mcb_paths.h"
#include "reports/outcomes.h"
#include "reports/machine.h"
#include "reports/profile.h"
#include "reports/resample.h"

void mcb_compare_defaults(mcb_compare_opts *o)
{
    if (!o) return;
    o->time_tol = 0.10;
    o->iter_tol = 0.01;
    o->gnuplot = NULL;
    o->allow_other_machine = 0;
}

/* Per (problem, solver) cell of one campaign: solve_s min / median / max
 * and the median iterations over the repetitions (NaN without a run). */
typedef struct {
    double t_min, t_med, t_max, it_med;
} cell;

typedef struct {
    const char *path;
    mcb_results_data *D;
    mcb_outcomes O;
    cell *cells; /* O.nproblems x O.nsolvers */
    mcb_reps reps; /* solve_s of every repetition, per cell */
} campaign;

/* Index of (set, name) among O's problems, -1 when absent; *hint speeds
 * up consecutive look-ups of the same problem. */
static int find_problem(const mcb_outcomes *O, const char *set, const char *name, int *hint)
{
    if (*hint >= 0 && *hint < O->nproblems && !strcmp(O->problem[*hint], name) &&
        !strcmp(O->sets[O->set[*hint]], set))
        return *hint;
    for (int p = 0; p < O->nproblems; p++)
        if (!strcmp(O->problem[p], name) && !strcmp(O->sets[O->set[p]], set)) return *hint = p;
    return -1;
}

static int find_name(const char **names, int n, const char *s)
{
    for (int k = 0; k < n; k++)
        if (!strcmp(names[k], s)) return k;
    return -1;
}

/* Fills C->cells from the repetitions of every cell (resample.h). */
static mcb_rc cell_stats(campaign *C, mcb_err *err)
{
    const mcb_outcomes *O = &C->O;
    size_t nc = (size_t)O->nproblems * (size_t)O->nsolvers;
    mcb_reps it;
    C->cells = mcb_malloc(nc + 1, sizeof *C->cells);
    double *buf = mcb_malloc((size_t)C->D->count + 1, sizeof *buf);
    mcb_rc rc = C->cells && buf ? MCB_OK : mcb_fail(err, MCB_E_NOMEM, "compare: out of memory");
    if (!rc) rc = mcb_reps_build(C->D, O, mcb_rep_solve_s, &C->reps, err);
    if (!rc) rc = mcb_reps_build(C->D, O, mcb_rep_iterations, &it, err);
    for (size_t c = 0; !rc && c < nc; c++) {
        int a = C->reps.start[c], n = C->reps.start[c + 1] - a;
        cell *x = &C->cells[c];
        x->t_min = x->t_med = x->t_max = x->it_med = NAN;
        if (n == 0) continue;
        double lo = INFINITY, hi = -INFINITY;
        for (int k = 0; k < n; k++) {
            buf[k] = C->reps.v[a + k];
            lo = fmin(lo, buf[k]);
            hi = fmax(hi, buf[k]);
        }
        x->t_min = lo;
        x->t_max = hi;
        x->t_med = mcb_median(buf, n);
        memcpy(buf, it.v + a, (size_t)n * sizeof *buf);
        x->it_med = mcb_median(buf, n);
    }
    if (!rc) mcb_reps_free(&it);
    free(buf);
    return rc;
}

static mcb_rc load(campaign *C, const char *path, mcb_err *err)
{
    memset(C, 0, sizeof *C);
    C->path = path;
    mcb_rc rc = mcb_results_read(path, &C->D, err);
    if (!rc) rc = mcb_outcomes_build(C->D, &C->O, err);
    if (!rc) rc = cell_stats(C, err);
    return rc;
}

static void unload(campaign *C)
{
    free(C->cells);
    mcb_reps_free(&C->reps);
    mcb_outcomes_free(&C->O);
    mcb_results_data_free(&C->D);
}

/* ------------------------------------------------------------- matching */

typedef struct {
    int np, ns;           /* shared problems and solvers */
    int *p_old, *p_new;   /* per shared problem: its index in each campaign */
    int *s_old, *s_new;   /* per shared solver */
} match_t;

static mcb_rc match(const campaign *a, const campaign *b, match_t *M, mcb_err *err)
{
    memset(M, 0, sizeof *M);
    M->p_old = mcb_malloc((size_t)a->O.nproblems + 1, sizeof(int));
    M->p_new = mcb_malloc((size_t)a->O.nproblems + 1, sizeof(int));
    M->s_old = mcb_malloc((size_t)a->O.nsolvers + 1, sizeof(int));
    M->s_new = mcb_malloc((size_t)a->O.nsolvers + 1, sizeof(int));
    if (!M->p_old || !M->p_new || !M->s_old || !M->s_new)
        return mcb_fail(err, MCB_E_NOMEM, "compare: out of memory");
    int hint = -1;
    for (int p = 0; p < a->O.nproblems; p++) {
        int q = find_problem(&b->O, a->O.sets[a->O.set[p]], a->O.problem[p], &hint);
        if (q < 0) continue;
        M->p_old[M->np] = p;
        M->p_new[M->np++] = q;
    }
    for (int s = 0; s < a->O.nsolvers; s++) {
        int t = find_name(b->O.solvers, b->O.nsolvers, a->O.solvers[s]);
        if (t < 0) continue;
        M->s_old[M->ns] = s;
        M->s_new[M->ns++] = t;
    }
    return MCB_OK;
}

static void match_free(match_t *M)
{
    free(M->p_old);
    free(M->p_new);
    free(M->s_old);
    free(M->s_new);
}

/* Appends to buf the names of `from` absent from `other` (problems as
 * SET/NAME when `problems`), at most a few, "..." after. */
static void list_missing(const campaign *from, const campaign *other, int problems, char *buf,
                         size_t len)
{
    size_t at = strlen(buf);
    int shown = 0, n = problems ? from->O.nproblems : from->O.nsolvers, hint = -1;
    for (int k = 0; k < n && at + 1 < len; k++) {
        const char *set = problems ? from->O.sets[from->O.set[k]] : "";
        const char *name = problems ? from->O.problem[k] : from->O.solvers[k];
        int there = problems ? find_problem(&other->O, set, name, &hint) >= 0
                             : find_name(other->O.solvers, other->O.nsolvers, name) >= 0;
        if (there) continue;
        int w = shown == 6 ? snprintf(buf + at, len - at, " ...")
                           : snprintf(buf + at, len - at, "%s%s%s%s", shown ? ", " : " ", set,
                                      problems ? "/" : "", name);
        if (w > 0) at += (size_t)w;
        if (shown++ == 6) break;
    }
    if (!shown && at + 1 < len) snprintf(buf + at, len - at, " (none)");
}

static mcb_rc refuse_disjoint(const campaign *a, const campaign *b, const match_t *M,
                              mcb_err *err)
{
    if (M->np > 0 && M->ns > 0) return MCB_OK;
    int problems = M->np == 0;
    char msg[900];
    snprintf(msg, sizeof msg, "only in %s:", a->path);
    list_missing(a, b, problems, msg, sizeof msg / 2);
    size_t at = strlen(msg);
    snprintf(msg + at, sizeof msg - at, "; only in %s:", b->path);
    list_missing(b, a, problems, msg, sizeof msg);
    return mcb_fail(err, MCB_E_INPUT, "compare: %s and %s have no %s in common (%s)", a->path,
                    b->path, problems ? "problem (set/name)" : "solver", msg);
}

/* --------------------------------------------------------------- judging */

enum { FLAG_STATUS = 1, FLAG_ITERS = 2, FLAG_TIME = 4 };

typedef struct {
    int po, pn, so, sn; /* cells: old problem, new problem, old solver, new solver */
    const cell *a, *b;
    char st_old[48], st_new[48];
    double ratio, d_iters; /* time ratio of the medians NEW/OLD; iterations change, relative */
    mcb_interval ci;       /* the ratio's bootstrap interval over the repetitions */
    int flags;
} verdict;

/* time_ok: 0 when the machines differ and that was not allowed (no TIME
 * flag then). */
static mcb_rc judge(const campaign *A, const campaign *B, int po, int pn, int so, int sn,
                    const mcb_compare_opts *o, int time_ok, verdict *v, mcb_err *err)
{
    int ca = po * A->O.nsolvers + so, cb = pn * B->O.nsolvers + sn;
    v->po = po;
    v->pn = pn;
    v->so = so;
    v->sn = sn;
    v->a = &A->cells[ca];
    v->b = &B->cells[cb];
    mcb_outcome_status_text(&A->O, po, so, v->st_old, sizeof v->st_old);
    mcb_outcome_status_text(&B->O, pn, sn, v->st_new, sizeof v->st_new);
    v->flags = 0;
    if (strcmp(v->st_old, v->st_new)) v->flags |= FLAG_STATUS;
    v->d_iters = (v->b->it_med - v->a->it_med) / fmax(v->a->it_med, 1.0);
    if (fabs(v->d_iters) > o->iter_tol) v->flags |= FLAG_ITERS;
    v->ratio = v->a->t_med > 0 && v->b->t_med > 0 ? v->b->t_med / v->a->t_med : NAN;
    v->ci.est = v->ci.lo = v->ci.hi = NAN;
    if (!isfinite(v->ratio)) return MCB_OK;
    mcb_rc rc = mcb_ratio_interval(&A->reps, &ca, &B->reps, &cb, 1, &v->ci, err);
    if (!rc && time_ok && mcb_interval_excludes(&v->ci, 1.0) &&
        (v->ratio > 1.0 + o->time_tol || v->ratio < 1.0 / (1.0 + o->time_tol)))
        v->flags |= FLAG_TIME;
    return rc;
}

static void flag_text(int flags, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s%s", flags & FLAG_STATUS ? "STATUS " : "",
             flags & FLAG_ITERS ? "ITERS " : "", flags & FLAG_TIME ? "TIME " : "",
             flags ? "" : "-");
    size_t n = strlen(buf);
    if (n > 1 && buf[n - 1] == ' ') buf[n - 1] = '\0';
}

/* ---------------------------------------------------------------- output */

/* A Markdown cell: '|' escaped. */
static void md_text(FILE *f, const char *s)
{
    fputs("| ", f);
    for (; *s; s++) {
        if (*s == '|') fputc('\\', f);
        fputc(*s == '\n' ? ' ' : *s, f);
    }
    fputc(' ', f);
}

static void csv_text(FILE *f, const char *s, int first)
{
    if (!first) fputc(',', f);
    int q = strpbrk(s, ",\"\n") != NULL;
    if (q) fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    if (q) fputc('"', f);
}

static void csv_num(FILE *f, double x)
{
    if (isfinite(x)) fprintf(f, ",%.6g", x);
    else fputc(',', f);
}

static void write_md_head(FILE *f, const campaign *A, const campaign *B, const match_t *M,
                          const mcb_compare_opts *o)
{
    fprintf(f, "# mcbench compare\n\nOLD: `%s` (%s, revision %s, repeat %d)  \n"
               "NEW: `%s` (%s, revision %s, repeat %d)  \n",
            A->path, A->D->date, A->D->git_revision, A->D->repeat, B->path, B->D->date,
            B->D->git_revision, B->D->repeat);
    fprintf(f, "%d shared problems x %d shared solvers. Flags: STATUS a status change; ITERS "
               "median iterations changed by more than %g%%; TIME the ratio of the median "
               "solve_s NEW/OLD is beyond %g%% and its 95%% bootstrap interval over the "
               "repetitions (%d resamples, docs/metrics.md) excludes 1 (with one repetition "
               "the interval is the ratio itself).\n\n",
            M->np, M->ns, 100 * o->iter_tol, 100 * o->time_tol, MCB_BOOT_RESAMPLES);
    if (strcmp(A->D->stop_metric, B->D->stop_metric) || A->D->tol != B->D->tol ||
        A->D->max_iters != B->D->max_iters || A->D->time_limit_s != B->D->time_limit_s)
        fprintf(f, "**Note: the budgets differ**: OLD %s <= %g, %d iterations, %g s; NEW %s <= "
                   "%g, %d iterations, %g s.\n\n",
                A->D->stop_metric, A->D->tol, A->D->max_iters, A->D->time_limit_s,
                B->D->stop_metric, B->D->tol, B->D->max_iters, B->D->time_limit_s);
    if (A->D->warm_start != B->D->warm_start)
        fprintf(f, "**Note: the warm starts differ**: OLD `--warm-start %s`, NEW `--warm-start "
                   "%s` (docs/metrics.md, \"Warm starts\"): iterations and times then differ "
                   "from the start point, not from the solver.\n\n",
                mcb_warm_name(A->D->warm_start), mcb_warm_name(B->D->warm_start));
    for (int w = 0; w < 2; w++) {
        const campaign *X = w ? B : A, *Y = w ? A : B;
        char buf[600] = "";
        list_missing(X, Y, 1, buf, sizeof buf);
        if (strcmp(buf, " (none)")) fprintf(f, "Problems only in %s:%s  \n", w ? "NEW" : "OLD", buf);
        buf[0] = '\0';
        list_missing(X, Y, 0, buf, sizeof buf);
        if (strcmp(buf, " (none)")) fprintf(f, "Solvers only in %s:%s  \n", w ? "NEW" : "OLD", buf);
    }
    fputs("\n| set/problem | solver | status OLD | status NEW | iters OLD | iters NEW | "
          "iters change | solve_s OLD [min, max] | solve_s NEW [min, max] | time NEW/OLD "
          "[95% CI] | flags |\n|---|---|---|---|--:|--:|--:|--:|--:|--:|---|\n",
          f);
}

/* The closing line: flagged pairs, by kind. */
static void write_md_summary(FILE *f, const verdict *V, int npairs)
{
    int nflag = 0, counts[3] = {0, 0, 0};
    for (int k = 0; k < npairs; k++) {
        nflag += V[k].flags != 0;
        for (int b = 0; b < 3; b++) counts[b] += (V[k].flags >> b) & 1;
    }
    fprintf(f, "\n%d of %d pairs flagged: %d status, %d iterations, %d time.\n", nflag, npairs,
            counts[0], counts[1], counts[2]);
}

/* Per shared solver: the geometric mean over the shared problems (both
 * medians finite and > 0) of the time ratio NEW/OLD, with its interval
 * (problems resampled, and each problem's repetitions). */
typedef struct {
    int n;           /* problems in the mean */
    mcb_interval ci; /* NaN when n = 0 */
    int flagged;     /* the interval excludes 1 (and the machines agree or were allowed) */
} solver_change;

static mcb_rc solver_changes(const campaign *A, const campaign *B, const match_t *M,
                             const verdict *V, int time_ok, solver_change *S, mcb_err *err)
{
    int *ca = mcb_malloc((size_t)M->np + 1, sizeof *ca), *cb = mcb_malloc((size_t)M->np + 1, sizeof *cb);
    mcb_rc rc = ca && cb ? MCB_OK : mcb_fail(err, MCB_E_NOMEM, "compare: out of memory");
    for (int s = 0; !rc && s < M->ns; s++) {
        S[s].n = 0;
        S[s].ci.est = S[s].ci.lo = S[s].ci.hi = NAN;
        for (int p = 0; p < M->np; p++) {
            const verdict *v = &V[(size_t)p * M->ns + s];
            if (!isfinite(v->ratio)) continue;
            ca[S[s].n] = v->po * A->O.nsolvers + v->so;
            cb[S[s].n++] = v->pn * B->O.nsolvers + v->sn;
        }
        if (S[s].n) rc = mcb_ratio_interval(&A->reps, ca, &B->reps, cb, S[s].n, &S[s].ci, err);
        S[s].flagged = !rc && time_ok && mcb_interval_excludes(&S[s].ci, 1.0);
    }
    free(ca);
    free(cb);
    return rc;
}

static void write_md_solvers(FILE *f, const campaign *A, const match_t *M,
                             const solver_change *S)
{
    fputs("\nPer solver over the shared problems: the geometric mean of the time ratios "
          "NEW/OLD with its 95% bootstrap interval (problems resampled, and within each the "
          "repetitions); `changed` when the interval excludes 1.\n\n"
          "| solver | problems | time NEW/OLD | 95% CI | verdict |\n|---|--:|--:|--:|---|\n",
          f);
    for (int s = 0; s < M->ns; s++) {
        md_text(f, A->O.solvers[M->s_old[s]]);
        fprintf(f, "| %d | %.3g | [%.3g, %.3g] ", S[s].n, S[s].ci.est, S[s].ci.lo, S[s].ci.hi);
        md_text(f, S[s].flagged ? (S[s].ci.est < 1 ? "changed: faster" : "changed: slower")
                                : "no significant change");
        fputs("|\n", f);
    }
}

/* The machines: why the time flags are off, or that they were allowed. */
static void write_md_machine(FILE *f, const char *why, int allowed)
{
    if (!*why) return;
    if (allowed)
        fprintf(f, "\n**Note: the machines differ** (%s); time changes are flagged anyway "
                   "(--allow-other-machine).\n", why);
    else
        fprintf(f, "\n**The machines differ** (%s): no time change is called significant "
                   "(TIME flags off; --allow-other-machine to flag them anyway).\n", why);
}

static void write_md_row(FILE *f, const campaign *A, const verdict *v)
{
    char name[600], fl[32];
    snprintf(name, sizeof name, "%s/%s", A->O.sets[A->O.set[v->po]], A->O.problem[v->po]);
    flag_text(v->flags, fl, sizeof fl);
    md_text(f, name);
    md_text(f, A->O.solvers[v->so]);
    md_text(f, v->st_old);
    md_text(f, v->st_new);
    fprintf(f, "| %.0f | %.0f | %+.1f%% | %.3g [%.3g, %.3g] | %.3g [%.3g, %.3g] | %.3g [%.3g, %.3g] ",
            v->a->it_med, v->b->it_med, 100 * v->d_iters, v->a->t_med, v->a->t_min, v->a->t_max,
            v->b->t_med, v->b->t_min, v->b->t_max, v->ratio, v->ci.lo, v->ci.hi);
    md_text(f, fl);
    fputs("|\n", f);
}

static void write_csv_row(FILE *f, const campaign *A, const verdict *v)
{
    char fl[32];
    flag_text(v->flags, fl, sizeof fl);
    csv_text(f, A->O.sets[A->O.set[v->po]], 1);
    csv_text(f, A->O.problem[v->po], 0);
    csv_text(f, A->O.solvers[v->so], 0);
    csv_text(f, v->st_old, 0);
    csv_text(f, v->st_new, 0);
    csv_num(f, v->a->it_med);
    csv_num(f, v->b->it_med);
    csv_num(f, v->d_iters);
    csv_num(f, v->a->t_med);
    csv_num(f, v->a->t_min);
    csv_num(f, v->a->t_max);
    csv_num(f, v->b->t_med);
    csv_num(f, v->b->t_min);
    csv_num(f, v->b->t_max);
    csv_num(f, v->ratio);
    csv_text(f, fl, 0);
    csv_num(f, v->ci.lo);
    csv_num(f, v->ci.hi);
    fputc('\n', f);
}

/* The plot: per shared solver one gnuplot index of (problem ordinal,
 * ratio) in compare.dat; compare.gp draws them on a log axis with the
 * bands 1 +- time_tol. Returns the count of finite ratios. */
static int write_plot_files(FILE *dat, FILE *gp, const campaign *A, const match_t *M,
                            const verdict *V, const mcb_compare_opts *o)
{
    int finite = 0;
    for (int s = 0; s < M->ns; s++) {
        fprintf(dat, "# solver %s\n", A->O.solvers[M->s_old[s]]);
        int rows = 0;
        for (int p = 0; p < M->np; p++) {
            const verdict *v = &V[(size_t)p * M->ns + s];
            if (!isfinite(v->ratio)) continue;
            fprintf(dat, "%d %.9g %d\n", p + 1, v->ratio, v->flags);
            rows++;
        }
        if (!rows) fprintf(dat, "0 NaN 0\n"); /* keeps the index numbering */
        finite += rows;
        fputs("\n\n", dat);
    }
    /* noenhanced: names show '_' as it is; ratios near 1 read best as 0.5, 1, 2 */
    fprintf(gp, "set terminal pngcairo size 1400,700 noenhanced font ',11'\n"
                "set output 'compare.png'\n"
                "set title 'solve time NEW / OLD per problem (median over repetitions)'\n"
                "set logscale y\nset format y '%%g'\nset grid ytics\nset key outside right\nset ylabel 'NEW / OLD'\n"
                "set xlabel 'problem'\nset xrange [0:%d]\n",
            M->np + 1);
    if (M->np <= 60) {
        fputs("set xtics rotate by -60 font ',8' (", gp);
        for (int p = 0; p < M->np; p++) {
            if (p) fputs(", ", gp);
            mcb_gp_quote(gp, A->O.problem[M->p_old[p]]);
            fprintf(gp, " %d", p + 1);
        }
        fputs(")\n", gp);
    }
    fprintf(gp, "plot 1 notitle lc 'black' dt 1, %.9g title '+-%g%%' lc 'gray' dt 2, %.9g notitle "
                "lc 'gray' dt 2",
            1.0 + o->time_tol, 100 * o->time_tol, 1.0 / (1.0 + o->time_tol));
    for (int s = 0; s < M->ns; s++) {
        fprintf(gp, ", 'compare.dat' index %d using 1:2 with points pt %d ps 1.3 lc %d title ",
                s, 5 + 2 * (s % 4), 1 + s);
        mcb_gp_quote(gp, A->O.solvers[M->s_old[s]]);
    }
    fputs(", 'compare.dat' using 1:((int($3) & 4) ? $2 : 1/0) with points pt 6 ps 2.6 "
          "lc 'black' title 'TIME flagged'\n",
          gp);
    return finite;
}


static FILE *open_in(const char *dir, const char *name, mcb_err *err)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) mcb_fail(err, MCB_E_IO, "cannot write %s (%s)", path, strerror(errno));
    return f;
}

/* DIR/compare.{md,csv,dat,gp} and the plot. */
static mcb_rc write_dir(const char *dir, const campaign *A, const campaign *B, const match_t *M,
                        const verdict *V, const solver_change *S, const char *why,
                        const mcb_compare_opts *o, mcb_err *err)
{
    struct stat st;
    if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
        return mcb_fail(err, MCB_E_INPUT, "-o %s: exists and is not a directory", dir);
    mcb_rc rc = mcb_mkdirs(dir, err);
    if (rc) return rc;
    FILE *md = open_in(dir, "compare.md", err), *csv = md ? open_in(dir, "compare.csv", err) : NULL;
    FILE *dat = csv ? open_in(dir, "compare.dat", err) : NULL;
    FILE *gp = dat ? open_in(dir, "compare.gp", err) : NULL;
    if (!gp) rc = MCB_E_IO;
    int finite = 0;
    if (!rc) {
        write_md_head(md, A, B, M, o);
        fputs("set,problem,solver,status_old,status_new,iters_old,iters_new,iters_change,"
              "solve_s_old,solve_s_old_min,solve_s_old_max,solve_s_new,solve_s_new_min,"
              "solve_s_new_max,time_ratio,flags,time_ratio_lo,time_ratio_hi\n",
              csv);
        for (int k = 0; k < M->np * M->ns; k++) {
            write_md_row(md, A, &V[k]);
            write_csv_row(csv, A, &V[k]);
        }
        write_md_summary(md, V, M->np * M->ns);
        write_md_solvers(md, A, M, S);
        write_md_machine(md, why, o->allow_other_machine);
        finite = write_plot_files(dat, gp, A, M, V, o);
        if (finite) fputs("\n![time NEW/OLD](compare.png)\n", md);
    }
    int ok = 1;
    FILE *fs[4] = {md, csv, dat, gp};
    for (int k = 0; k < 4; k++)
        if (fs[k] && fclose(fs[k]) != 0) ok = 0;
    if (!rc && !ok) rc = mcb_fail(err, MCB_E_IO, "%s: cannot write the comparison", dir);
    if (!rc && finite > 0) rc = mcb_run_gnuplot(dir, o->gnuplot, "compare.gp", "compare-gnuplot.log", err);
    return rc;
}

/* ------------------------------------------------------------------ main */

mcb_rc mcb_compare(const char *old_path, const char *new_path, const char *dir, FILE *out,
                   const mcb_compare_opts *o, int *flagged, mcb_err *err)
{
    if (flagged) *flagged = 0;
    if (!old_path || !new_path) return mcb_fail(err, MCB_E_INPUT, "compare: needs two files");
    mcb_compare_opts def;
    mcb_compare_defaults(&def);
    if (!o) o = &def;
    campaign A, B;
    match_t M;
    verdict *V = NULL;
    solver_change *S = NULL;
    char why[600] = "";
    memset(&B, 0, sizeof B);
    memset(&M, 0, sizeof M);
    mcb_rc rc = load(&A, old_path, err);
    if (!rc) rc = load(&B, new_path, err);
    if (!rc) rc = match(&A, &B, &M, err);
    if (!rc) rc = refuse_disjoint(&A, &B, &M, err);
    if (!rc && (!(V = mcb_malloc((size_t)M.np * M.ns + 1, sizeof *V)) ||
                !(S = mcb_malloc((size_t)M.ns + 1, sizeof *S))))
        rc = mcb_fail(err, MCB_E_NOMEM, "compare: out of memory");
    int time_ok = 1;
    if (!rc && mcb_machine_differs(A.D, B.D, why, sizeof why))
        time_ok = o->allow_other_machine;
    int nflag = 0;
    for (int p = 0; !rc && p < M.np; p++)
        for (int s = 0; s < M.ns && !rc; s++) {
            verdict *v = &V[(size_t)p * M.ns + s];
            rc = judge(&A, &B, M.p_old[p], M.p_new[p], M.s_old[s], M.s_new[s], o, time_ok, v,
                       err);
            nflag += v->flags != 0;
        }
    if (!rc) rc = solver_changes(&A, &B, &M, V, time_ok, S, err);
    if (!rc && out) {
        write_md_head(out, &A, &B, &M, o);
        for (int k = 0; k < M.np * M.ns; k++) write_md_row(out, &A, &V[k]);
        write_md_summary(out, V, M.np * M.ns);
        write_md_solvers(out, &A, &M, S);
        write_md_machine(out, why, o->allow_other_machine);
    }
    if (!rc && dir) rc = write_dir(dir, &A, &B, &M, V, S, why, o, err);
    if (!rc && flagged) *flagged = nflag;
    free(S);
    free(V);
    match_free(&M);
    unload(&A);
    unload(&B);
    return rc;
}
