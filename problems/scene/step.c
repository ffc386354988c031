/* step.c: the scene engine's time step (CANAL paper eq. (2), Sec. II; the
 * scheme in full in docs/stepping.md). mcb_world_step runs, at the current
 * state (q_k, v_k), stages 1-4 (assembly.c: layout and poses, contacts,
 * dynamics A and b, constraints J and e), then those of this file:
 *   5. solve: the registered solver warm-started from the previous step's
 *      (v^, lambda) (lambda matched by contact key) to a natural-map
 *      residual tol, the fallback solver if it does not get there, an error
 *      (and no state change) when neither reaches 100 tol; soft rows are
 *      folded into the dynamics first, and a step with anisotropic
 *      friction is solved as its isotropic equivalent (lib/mcb_aniso.h);
 *   6. record (optional): the problem with its descriptors;
 *   7. advance: q_{k+1} = update(q_k, h v^), v_{k+1} = (v^ - theta v_k) /
 *      (1 - theta).
 * Buffers live in the world and grow as needed; a step allocates only the
 * problem it solves (and records). Fails cleanly: on error nothing moves. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "problems/scene/body.h"
#include "metrics/describe.h"
#include "lib/mcb_aniso.h"
#include "lib/mcb_chol.h"
#include "lib/mcb_timer.h"
#include "metrics/metrics.h"
#include "solvers/solver.h"
#include "problems/scene/world_internal.h"
#include "problems/scene/xpbd.h"

/* ---------- step 5: warm start and solve ---------- */

static int cmp_key(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->idx - y->idx; /* the first of equal keys wins */
}

static int find_key(const mcb_world *w, unsigned long long key)
{
    int lo = 0, hi = w->nprev - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        unsigned long long k = w->prev_key[mid];
        if (k == key) {
            while (mid > 0 && w->prev_key[mid - 1] == key) mid--;
            return mid;
        }
        if (k < key) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

/* v0: the previous step's v^ (the current velocities at the first step or
 * when the DOFs changed); lambda0: the previous impulses by contact key. */
static mcb_rc warm_start(mcb_world *w, mcb_problem *P, mcb_err *err)
{
    P->v0 = mcb_calloc((size_t)P->n, sizeof(double));
    P->lambda0 = mcb_calloc((size_t)P->m, sizeof(double));
    if (!P->v0 || !P->lambda0) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    if (w->n_prev == P->n && w->step > 0) {
        memcpy(P->v0, w->vhat_prev, (size_t)P->n * sizeof(double));
    } else {
        for (int k = 0; k < w->nrigid; k++)
            if (!w->rigid[k].kinematic)
                memcpy(P->v0 + w->body_dof[k], w->rigid[k].vel, 6 * sizeof(double));
        for (int r = 0; r < w->nrobots; r++)
            memcpy(P->v0 + w->robot_dof[r], mcb_robot_v(w->robots[r]),
                   (size_t)mcb_robot_ndof(w->robots[r]) * sizeof(double));
        for (int k = 0; k < w->nfems; k++)
            memcpy(P->v0 + w->fem_dof[k], mcb_fem_v(w->fems[k]),
                   3 * (size_t)mcb_fem_nnodes(w->fems[k]) * sizeof(double));
    }
    for (int c = 0; c < w->ncon; c++) {
        int i = find_key(w, w->con[c].key);
        if (i >= 0) memcpy(P->lambda0 + 3 * c, w->prev_lambda + 3 * i, 3 * sizeof(double));
    }
    if (w->jrows)
        memcpy(P->lambda0 + 3 * w->ncon, w->joint_lambda, (size_t)w->jrows * sizeof(double));
    return MCB_OK;
}

typedef struct {
    mcb_metrics_ws *ws;
    const mcb_problem *P;
    const mcb_solver_def *def;
    void *work;
    double *v, *lambda, tol, jrow;
} solve_ctx;

/* The step's acceptance measure: the harness's natural-map residual, or,
 * when every constraint quantity is at round-off level (the relative
 * natural map is then 0/0: the unloaded ties of a falling mesh), the
 * relative dynamics residual, provided the absolute Fischer-Burmeister
 * residual is within 1000 eps of the scale of u = J v + e
 * (max_r sum_j |J_rj| ||v||_inf + ||e||_inf). */
static double step_residual(mcb_metrics_ws *ws, const mcb_problem *P, const double *v,
                            const double *lambda, double tol, double jrow)
{
    double res = mcb_metrics_one(ws, MCB_M_NATMAP, v, lambda);
    if (res <= tol || !isfinite(res)) return res;
    double vmax = 0.0, emax = 0.0;
    for (int i = 0; i < P->n; i++) vmax = fabs(v[i]) > vmax ? fabs(v[i]) : vmax;
    for (int r = 0; r < P->m; r++) emax = fabs(P->e[r]) > emax ? fabs(P->e[r]) : emax;
    mcb_metrics all;
    mcb_metrics_compute(ws, v, lambda, &all);
    if (all.val[MCB_M_FB] <= 1e3 * DBL_EPSILON * (jrow * vmax + emax) &&
        all.val[MCB_M_DYN_REL] <= tol)
        return all.val[MCB_M_DYN_REL];
    return res;
}

/* max_r sum_j |J_rj| */
static double row_abs_max(const mcb_csc *J)
{
    double *sum = mcb_calloc((size_t)J->m + 1, sizeof(double)), mx = 0.0;
    if (!sum) return INFINITY; /* no round-off acceptance then */
    for (int k = 0; k < J->p[J->n]; k++) sum[J->i[k]] += fabs(J->x[k]);
    for (int r = 0; r < J->m; r++) mx = sum[r] > mx ? sum[r] : mx;
    free(sum);
    return mx;
}

/* Checks the step residual at iteration 1 and every 10th (as gen_stack.c). */
static mcb_cb_action solve_cb(void *c, int iter, double own)
{
    (void)own;
    solve_ctx *r = c;
    if (iter > 1 && iter % 10) return MCB_CB_CONTINUE;
    r->def->iterate(r->work, r->v, r->lambda);
    double res = step_residual(r->ws, r->P, r->v, r->lambda, r->tol, r->jrow);
    if (!isfinite(res)) return MCB_CB_DIVERGED;
    return res <= r->tol ? MCB_CB_CONVERGED : MCB_CB_CONTINUE;
}

/* Runs one registered solver from P's initial guess; writes its final
 * iterate into v, lambda, its natural-map residual into *res (inf when its
 * setup failed) and its iteration count into *iters. */
static void run_solver(const mcb_world *w, const char *name, const mcb_problem *P,
                       mcb_metrics_ws *ws, double jrow, double *v, double *lambda, double *res,
                       int *iters)
{
    *res = INFINITY;
    *iters = 0;
    const mcb_solver_def *def = mcb_solver_find(name);
    if (!def || !(def->accepts & MCB_ACCEPTS_PRIMAL)) return;
    char reason[256];
    if (def->accepts_problem && !def->accepts_problem(P, reason, sizeof reason)) return;
    mcb_settings s;
    mcb_settings_default(&s);
    s.max_iters = w->o.max_iters;
    s.tol = w->o.tol;
    s.time_limit_s = 0.0;
    s.threads = 1;
    s.warm_start = 1;
    void *params = mcb_calloc(def->params_size / sizeof(double) + 1, sizeof(double));
    if (!params) return;
    /* one thread, as s.threads says: the reference must not depend on the
     * machine's core count (and waiting OpenMP threads cost more than they
     * bring on a step's small loops); the caller's setting comes back */
#ifdef _OPENMP
    int saved_threads = omp_get_max_threads();
    omp_set_num_threads(1);
#endif
    mcb_blas_set_threads(1);
    def->default_params(params);
    solve_ctx r = {ws, P, def, NULL, v, lambda, w->o.tol, jrow};
    mcb_err e2;
    if (!def->setup(P, &s, params, &r.work, &e2)) {
        mcb_info info;
        memset(&info, 0, sizeof info);
        def->solve(r.work, &s, solve_cb, &r, &info);
        def->iterate(r.work, v, lambda);
        *iters = info.iterations;
        double x = step_residual(ws, P, v, lambda, w->o.tol, jrow);
        *res = isfinite(x) ? x : INFINITY;
    }
    def->free(&r.work);
    free(params);
#ifdef _OPENMP
    omp_set_num_threads(saved_threads);
#endif
}

/* Without contacts the step is the linear system A v^ = b. */
static mcb_rc solve_free(const mcb_problem *P, double *v, mcb_err *err)
{
    mcb_chol *F = NULL;
    mcb_rc rc = mcb_chol_factor(P->A, &F, err);
    if (!rc) rc = mcb_chol_solve(F, P->b, v);
    if (rc && !err->msg[0]) mcb_fail(err, rc, "world: the mass matrix solve failed");
    mcb_chol_free(&F);
    return rc;
}

/* Soft rows folded into the dynamics (exact: their law is linear in v^):
 * with c_r = k_r alpha_r,
 *     A' = A + J_s^T diag(c) J_s,   b' = b - J_s^T (k e_s)
 * and the problem P2 = (A', b', J_o, e_o) keeps the other rows (hard,
 * contacts) with P's blocks renumbered; afterwards lambda_s =
 * -k (e_s + alpha J_s v^). A' couples the subsystems the soft rows join,
 * so P2 is one subsystem. docs/stepping.md "Solve". *lq receives a zeroed
 * buffer for P2's impulses (the caller frees it). */
static mcb_rc fold_soft(mcb_world *w, const mcb_problem *P, mcb_problem **out, double **lq,
                        mcb_err *err)
{
    *out = NULL;
    *lq = NULL;
    mcb_csc *JT = mcb_csc_transpose(P->J); /* column r = row r of J */
    mcb_problem *Q = mcb_problem_new();
    int *keep = mcb_malloc((size_t)P->m + 1, sizeof(int));
    if (!JT || !Q || !keep) goto nomem;
    int t = 0, m2 = 0, nb2 = 0;
    for (int j = 0; j < P->n; j++) /* A's entries */
        for (int k = P->A->p[j]; k < P->A->p[j + 1]; k++)
            if (!mcb_world_push(w, &t, P->A->i[k], j, P->A->x[k])) goto nomem;
    Q->b = mcb_malloc((size_t)P->n, sizeof(double));
    if (!Q->b) goto nomem;
    memcpy(Q->b, P->b, (size_t)P->n * sizeof(double));
    for (int b = 0; b < P->nblocks; b++) {
        const mcb_block *B = &P->blocks[b];
        for (int r = B->row; r < B->row + B->nrows; r++) {
            if (B->type != MCB_SOFT) {
                keep[r] = m2++;
                continue;
            }
            keep[r] = -1;
            double c = B->k * B->alpha, ke = B->k * P->e[r];
            for (int a = JT->p[r]; a < JT->p[r + 1]; a++) {
                Q->b[JT->i[a]] -= JT->x[a] * ke;
                for (int q = JT->p[r]; q < JT->p[r + 1]; q++)
                    if (!mcb_world_push(w, &t, JT->i[a], JT->i[q], c * JT->x[a] * JT->x[q]))
                        goto nomem;
            }
        }
        nb2 += B->type != MCB_SOFT;
    }
    Q->form = MCB_PRIMAL;
    Q->n = P->n;
    Q->m = m2;
    Q->h = P->h;
    Q->A = mcb_csc_from_triplets(P->n, P->n, t, w->ti, w->tj, w->tx);
    Q->e = mcb_calloc((size_t)m2 + 1, sizeof(double));
    Q->blocks = mcb_calloc((size_t)nb2 + 1, sizeof(mcb_block));
    Q->nsub = 1;
    Q->sub_start = mcb_malloc(2, sizeof(int));
    Q->v0 = mcb_malloc((size_t)P->n + 1, sizeof(double));
    Q->lambda0 = mcb_calloc((size_t)m2 + 1, sizeof(double));
    if (!Q->A || !Q->e || !Q->blocks || !Q->sub_start || !Q->v0 || !Q->lambda0) goto nomem;
    Q->sub_start[0] = 0;
    Q->sub_start[1] = P->n;
    memcpy(Q->v0, P->v0, (size_t)P->n * sizeof(double));
    /* J_o: the kept rows (columns of JT), renumbered */
    t = 0;
    for (int r = 0; r < P->m; r++) {
        if (keep[r] < 0) continue;
        Q->e[keep[r]] = P->e[r];
        Q->lambda0[keep[r]] = P->lambda0[r];
        for (int a = JT->p[r]; a < JT->p[r + 1]; a++)
            if (!mcb_world_push(w, &t, keep[r], JT->i[a], JT->x[a])) goto nomem;
    }
    Q->J = mcb_csc_from_triplets(m2, P->n, t, w->ti, w->tj, w->tx);
    if (!Q->J) goto nomem;
    /* the kept rows' compliance and the kept blocks' second friction
     * coefficients (the soft rows have neither) */
    if (P->r && !(Q->r = mcb_calloc((size_t)m2 + 1, sizeof(double)))) goto nomem;
    if (P->mu2 && !(Q->mu2 = mcb_malloc((size_t)nb2 + 1, sizeof(double)))) goto nomem;
    for (int r = 0; r < P->m && Q->r; r++)
        if (keep[r] >= 0) Q->r[keep[r]] = P->r[r];
    for (int b = 0; b < P->nblocks; b++)
        if (P->blocks[b].type != MCB_SOFT) {
            if (Q->mu2) Q->mu2[Q->nblocks] = P->mu2[b];
            Q->blocks[Q->nblocks] = P->blocks[b];
            Q->blocks[Q->nblocks++].row = keep[P->blocks[b].row];
        }
    /* the folded problem's impulses, for the solver to write */
    if (!(*lq = mcb_calloc((size_t)Q->m + 1, sizeof(double)))) goto nomem;
    mcb_csc_free(&JT);
    free(keep);
    *out = Q;
    return MCB_OK;
nomem:
    mcb_csc_free(&JT);
    free(keep);
    mcb_problem_free(&Q);
    return mcb_fail(err, MCB_E_NOMEM, "out of memory");
}

/* P's impulses from the folded problem's: the kept rows' as solved, the
 * soft rows' from their law at v^ (lp first receives J v^). */
static void unfold_soft(const mcb_problem *P, const double *v, const double *lq, double *lp)
{
    memset(lp, 0, (size_t)P->m * sizeof(double));
    mcb_csc_gaxpy(P->J, v, lp);
    int r2 = 0;
    for (int b = 0; b < P->nblocks; b++) {
        const mcb_block *B = &P->blocks[b];
        for (int r = B->row; r < B->row + B->nrows; r++)
            lp[r] = B->type == MCB_SOFT ? -B->k * (P->e[r] + B->alpha * lp[r]) : lq[r2++];
    }
}

/* Solves Q (P, or P with its soft rows folded) with the solver and, if
 * it does not reach tol, the fallback; the better iterate (by Q's step
 * residual) into (vq, lq). */
static mcb_rc solve_q(mcb_world *w, const mcb_problem *Q, double *vq, double *lq,
                      mcb_step_info *info, double r[2], int it[2], mcb_err *err)
{
    r[0] = r[1] = INFINITY;
    it[0] = it[1] = 0;
    if (Q->m == 0) {
        mcb_rc rc = solve_free(Q, vq, err);
        r[0] = rc ? INFINITY : 0.0;
        return rc;
    }
    mcb_metrics_ws *ws = NULL;
    mcb_rc rc = mcb_metrics_ws_new(Q, &ws, err);
    if (rc) return rc;
    double *v2 = mcb_calloc((size_t)Q->n, sizeof(double));
    double *l2 = mcb_calloc((size_t)Q->m, sizeof(double));
    if (!v2 || !l2) {
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
    } else {
        double jrow = row_abs_max(Q->J);
        run_solver(w, w->solver, Q, ws, jrow, vq, lq, &r[0], &it[0]);
        if (!(r[0] <= w->o.tol) && w->fallback[0]) {
            run_solver(w, w->fallback, Q, ws, jrow, v2, l2, &r[1], &it[1]);
            if (r[1] < r[0]) {
                memcpy(vq, v2, (size_t)Q->n * sizeof(double));
                memcpy(lq, l2, (size_t)Q->m * sizeof(double));
                info->used_fallback = 1;
            }
        }
        info->iterations = info->used_fallback ? it[1] : it[0];
    }
    free(v2);
    free(l2);
    mcb_metrics_ws_free(&ws);
    return rc;
}

static int has_soft(const mcb_problem *P)
{
    for (int b = 0; b < P->nblocks; b++)
        if (P->blocks[b].type == MCB_SOFT) return 1;
    return 0;
}

static mcb_rc solve(mcb_world *w, mcb_problem *P, mcb_step_info *info, mcb_err *err)
{
    int n = P->n, m = P->m;
    P->v_ref = mcb_calloc((size_t)n, sizeof(double));
    P->lambda_ref = mcb_calloc((size_t)m, sizeof(double));
    if (!P->v_ref || !P->lambda_ref) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    info->contacts = w->ncon;
    if (n == 0) return MCB_OK;
    if (m == 0) {
        mcb_rc rc = solve_free(P, P->v_ref, err);
        if (rc) return rc;
        info->residual = 0.0;
        return MCB_OK;
    }
    mcb_problem *Q = NULL;
    double *lq = NULL, r[2];
    int it[2];
    mcb_rc rc = MCB_OK;
    /* S: P, or P with its soft rows folded; anisotropic friction is solved
     * on S's exact isotropic equivalent I (lib/mcb_aniso.h, as the runner
     * hands it to solvers), its impulses mapped back to S's */
    const mcb_problem *S = P;
    mcb_problem *I = NULL;
    double *ls = P->lambda_ref, *li = NULL;
    if (has_soft(P)) {
        rc = fold_soft(w, P, &Q, &lq, err);
        S = Q, ls = lq;
    }
    if (!rc && mcb_problem_is_aniso(S)) {
        rc = mcb_aniso_isotropic(S, &I, err);
        if (!rc && !(li = mcb_calloc((size_t)I->m + 1, sizeof(double))))
            rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    if (!rc) rc = solve_q(w, I ? I : S, P->v_ref, I ? li : ls, info, r, it, err);
    if (!rc && I) mcb_aniso_lambda_from_iso(S, li, ls);
    if (!rc && Q) unfold_soft(P, P->v_ref, lq, P->lambda_ref);
    mcb_problem_free(&I);
    free(li);
    mcb_metrics_ws *ws = NULL;
    if (!rc) rc = mcb_metrics_ws_new(P, &ws, err);
    if (!rc) {
        double x = step_residual(ws, P, P->v_ref, P->lambda_ref, w->o.tol, row_abs_max(P->J));
        info->residual = isfinite(x) ? x : INFINITY;
        if (!(info->residual <= 100.0 * w->o.tol))
            rc = mcb_fail(err, MCB_E_NUMERIC,
                          "world step %d: neither %s (residual %.3g after %d iterations) nor "
                          "%s (%.3g after %d) reached 100 x tol = %.3g (%d contacts, %d DOFs%s; "
                          "the recorded problem's residual %.3g)",
                          w->step, w->solver, r[0], it[0],
                          w->fallback[0] ? w->fallback : "(none)", r[1], it[1],
                          100.0 * w->o.tol, w->ncon, n,
                          Q ? ", soft rows folded: residuals of the folded problem" : "",
                          info->residual);
    }
    mcb_metrics_ws_free(&ws);
    mcb_problem_free(&Q);
    free(lq);
    return rc;
}

/* ---------- step 6: record ---------- */

static mcb_rc describe(mcb_world *w, mcb_problem *P, const mcb_step_info *info, mcb_err *err)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s-step%04d", w->prefix, w->step);
    mcb_rc rc;
    if ((rc = mcb_world_set_str(&P->name, buf, err)) ||
        (rc = mcb_world_set_str(&P->scene, w->scene, err)) ||
        (rc = mcb_world_set_str(&P->source, w->source, err)))
        return rc;
    size_t len = strlen(w->notes) + 512;
    char *notes = malloc(len);
    if (!notes) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    snprintf(notes, len,
             "%s%sstep %d: %d contacts, %d joint rows, %d DOFs, theta %g, erp %g; reference by "
             "%s to natural-map residual %.3g (%d iterations)",
             w->notes, w->notes[0] ? "; " : "", w->step, w->ncon, w->jrows, P->n, w->o.theta,
             w->o.erp,
             info->used_fallback ? w->fallback : w->solver, info->residual, info->iterations);
    free(P->notes);
    P->notes = notes;
    P->mass_ratio = mcb_world_mass_ratio(w);
    P->cond_est = mcb_problem_cond_estimate(P);
    return MCB_OK;
}

/* ---------- step 7: advance and remember ---------- */

void mcb_world_advance_robots(mcb_world *w, const double *vhat)
{
    double th = w->o.theta, s = 1.0 / (1.0 - th), h = w->o.h_s;
    for (int r = 0; r < w->nrobots; r++) {
        mcb_robot *R = w->robots[r];
        const double *vh = vhat + w->robot_dof[r];
        double *v = mcb_robot_v(R);
        mcb_robot_integrate(R, vh, h);
        for (int j = 0; j < mcb_robot_ndof(R); j++) v[j] = s * (vh[j] - th * v[j]);
    }
}

static void advance(mcb_world *w, const double *vhat)
{
    double th = w->o.theta, s = 1.0 / (1.0 - th), h = w->o.h_s;
    for (int k = 0; k < w->nrigid; k++) {
        mcb_rigid *B = &w->rigid[k];
        if (B->kinematic) {
            mcb_rigid_advance(B, B->vel, h);
            continue;
        }
        const double *vh = vhat + w->body_dof[k];
        mcb_rigid_advance(B, vh, h);
        for (int q = 0; q < 6; q++) B->vel[q] = s * (vh[q] - th * B->vel[q]);
    }
    mcb_world_advance_robots(w, vhat);
    for (int k = 0; k < w->nfems; k++) mcb_fem_advance(w->fems[k], vhat + w->fem_dof[k], h, th);
}

/* Keeps v^ and the impulses (sorted by contact key) for the next warm start. */
static mcb_rc remember(mcb_world *w, const mcb_problem *P, mcb_err *err)
{
    int nc = w->ncon;
    if (!mcb_world_grow((void **)&w->vhat_prev, &w->cap_vprev, P->n, sizeof(double)) ||
        !mcb_world_grow((void **)&w->order, &w->cap_order, nc, sizeof *w->order) ||
        !mcb_world_grow((void **)&w->prev_key, &w->cap_prev, nc, sizeof *w->prev_key) ||
        !mcb_world_grow((void **)&w->prev_lambda, &w->cap_prevl, 3 * nc, sizeof(double)))
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    if (P->n) memcpy(w->vhat_prev, P->v_ref, (size_t)P->n * sizeof(double));
    w->n_prev = P->n;
    for (int c = 0; c < nc; c++) w->order[c] = (keyed){w->con[c].key, c};
    if (nc) qsort(w->order, (size_t)nc, sizeof *w->order, cmp_key);
    for (int i = 0; i < nc; i++) {
        w->prev_key[i] = w->order[i].key;
        memcpy(w->prev_lambda + 3 * i, P->lambda_ref + 3 * w->order[i].idx, 3 * sizeof(double));
    }
    w->nprev = nc;
    if (w->jrows)
        memcpy(w->joint_lambda, P->lambda_ref + 3 * nc, (size_t)w->jrows * sizeof(double));
    return MCB_OK;
}

/* ---------- the step ---------- */

/* Stage 5 in a closed loop: the hook's answer, taken as it is. A step
 * without constraint rows is no contact problem: the world solves
 * A v^ = b itself, as without a loop, the same for every solver. With
 * loop_fold_soft the hook gets the problem with its soft rows folded
 * (fold_soft: exact), the soft rows' impulses from their law at its v^. */
static mcb_rc solve_hooked(mcb_world *w, mcb_problem *P, mcb_step_info *info, mcb_err *err)
{
    P->v_ref = mcb_calloc((size_t)P->n + 1, sizeof(double));
    P->lambda_ref = mcb_calloc((size_t)P->m + 1, sizeof(double));
    if (!P->v_ref || !P->lambda_ref) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    info->contacts = w->ncon;
    if (P->n == 0) return MCB_OK;
    if (P->m == 0) return solve_free(P, P->v_ref, err);
    mcb_problem *Q = NULL;
    double *lq = NULL;
    mcb_rc rc = MCB_OK;
    if (w->o.loop_fold_soft && has_soft(P)) {
        rc = fold_soft(w, P, &Q, &lq, err);
        if (!rc && Q->m == 0) rc = solve_free(Q, P->v_ref, err);
        else if (!rc) rc = w->o.loop->solve(w->o.loop->ctx, Q, P->v_ref, lq, err);
        if (!rc) unfold_soft(P, P->v_ref, lq, P->lambda_ref);
    } else {
        rc = w->o.loop->solve(w->o.loop->ctx, P, P->v_ref, P->lambda_ref, err);
    }
    mcb_problem_free(&Q);
    free(lq);
    if (rc && !err->msg[0]) mcb_fail(err, rc, "world step %d: the closed loop stopped", w->step);
    return rc;
}

/* The free bodies' pull on the robots in an XPBD step (mcb_xpbd_opts.
 * reaction): b += J^T lambda_prev on the robots' DOFs, over the joint rows
 * only, with lambda_prev the joint impulses of the previous step (XPBD's
 * own, summed over its substeps) and J the rows at this step's start: a
 * staggered coupling, one step late. */
static mcb_rc add_robot_reaction(mcb_world *w, mcb_problem *P, mcb_err *err)
{
    int c0 = 3 * w->ncon;
    P->m = c0 + w->jrows;
    mcb_rc rc = mcb_world_assemble_constraints(w, P, err);
    if (rc) return rc;
    const mcb_csc *J = P->J;
    for (int r = 0; r < w->nrobots; r++)
        for (int d = w->robot_dof[r]; d < w->robot_dof[r] + mcb_robot_ndof(w->robots[r]); d++)
            for (int k = J->p[d]; k < J->p[d + 1]; k++)
                if (J->i[k] >= c0) P->b[d] += J->x[k] * w->joint_lambda[J->i[k] - c0];
    return MCB_OK;
}

/* A whole-step XPBD step (loop->xpbd; xpbd.c) after stages 1-2: the
 * robots' v^ from their dynamics alone (A v^ = b: stage 3 without
 * constraint rows, with the free bodies' pull of the previous step when
 * the method's `reaction` is on; engine time), then the XPBD advance (its
 * substeps: the method's time). */
static mcb_rc step_xpbd(mcb_world *w, int n, mcb_step_info *info, double t0, double t1,
                        mcb_err *err)
{
    mcb_problem *P = NULL;
    mcb_rc rc = MCB_OK;
    if (w->nrobots) {
        if (!(P = mcb_problem_new())) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
        P->form = MCB_PRIMAL;
        P->n = n;
        P->h = w->o.h_s;
        rc = mcb_world_assemble_dynamics(w, P, err);
        if (!rc && w->jrows && w->o.loop->xpbd->reaction) rc = add_robot_reaction(w, P, err);
        if (!rc && !(P->v_ref = mcb_calloc((size_t)n + 1, sizeof(double))))
            rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        if (!rc && n) rc = solve_free(P, P->v_ref, err);
    }
    double t2 = mcb_now_s(), sub_s = 0.0;
    if (!rc)
        rc = mcb_world_xpbd_advance(w, w->o.loop->xpbd, P ? P->v_ref : NULL, &info->depth_m,
                                    &sub_s, err);
    mcb_problem_free(&P);
    if (rc) return rc;
    w->step++;
    info->contacts = w->ncon;
    info->iterations = w->o.loop->xpbd->substeps * w->o.loop->xpbd->iters;
    info->detect_s = t1 - t0;
    info->assemble_s = t2 - t1;
    info->solve_s = sub_s;
    info->advance_s = mcb_now_s() - t2 - sub_s;
    info->engine_s = info->detect_s + info->assemble_s + info->advance_s;
    info->setup_solve_s = t2 - t0 + sub_s;
    return MCB_OK;
}

mcb_rc mcb_world_step(mcb_world *w, mcb_problem **record, mcb_step_info *info, mcb_err *err)
{
    if (record) *record = NULL;
    mcb_step_info local;
    if (!info) info = &local;
    memset(info, 0, sizeof *info);
    if (!w) return mcb_fail(err, MCB_E_INPUT, "world: NULL");
    const mcb_world_loop *loop = w->o.loop;
    if (loop) record = NULL; /* a world in a loop keeps no records */
    double t0 = mcb_now_s();
    int n = 0, nsub = 0;
    mcb_problem *P = NULL;
    info->depth_m = NAN;
    mcb_rc rc = mcb_world_layout(w, &n, &nsub, err);
    if (!rc) rc = mcb_world_detect(w, err);
    double t1 = mcb_now_s();
    if (loop && loop->xpbd) {
        if (!rc) rc = step_xpbd(w, n, info, t0, t1, err);
        if (!rc && loop->after) {
            rc = loop->after(loop->ctx, w, info, err);
            if (rc && !err->msg[0])
                mcb_fail(err, rc, "world step %d: the closed loop stopped", w->step);
        }
        return rc;
    }
    if (!rc && !(P = mcb_problem_new())) rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
    if (!rc) {
        P->form = MCB_PRIMAL;
        P->n = n;
        P->m = 3 * w->ncon + w->jrows;
        P->h = w->o.h_s;
        P->step = w->step;
        P->nsub = nsub;
        P->sub_start = mcb_malloc((size_t)nsub + 1, sizeof(int));
        if (!P->sub_start) rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    if (!rc) memcpy(P->sub_start, w->sub_start, ((size_t)nsub + 1) * sizeof(int));
    if (!rc) rc = mcb_world_assemble_dynamics(w, P, err);
    if (!rc) rc = mcb_world_assemble_constraints(w, P, err);
    if (!rc) rc = warm_start(w, P, err);
    double t2 = mcb_now_s();
    if (!rc) rc = loop && loop->solve ? solve_hooked(w, P, info, err) : solve(w, P, info, err);
    double t3 = mcb_now_s();
    info->setup_solve_s = t3 - t0;
    if (!rc && record) rc = describe(w, P, info, err);
    if (!rc) rc = remember(w, P, err);
    if (rc) {
        mcb_problem_free(&P);
        return rc;
    }
    advance(w, P->v_ref);
    w->step++;
    if (record) *record = P;
    else mcb_problem_free(&P);
    info->detect_s = t1 - t0;
    info->assemble_s = t2 - t1;
    info->solve_s = t3 - t2;
    info->advance_s = mcb_now_s() - t3;
    info->engine_s = info->detect_s + info->assemble_s + info->advance_s;
    if (loop && loop->after) {
        rc = loop->after(loop->ctx, w, info, err);
        if (rc && !err->msg[0]) mcb_fail(err, rc, "world step %d: the closed loop stopped", w->step);
    }
    return rc;
}

mcb_rc mcb_world_step_into(mcb_world *w, mcb_problem_set *S, mcb_step_info *info, mcb_err *err)
{
    mcb_problem *P = NULL;
    mcb_rc rc = mcb_world_step(w, &P, info, err);
    if (!rc && !P) return MCB_OK; /* a world in a loop records nothing */
    if (!rc) rc = mcb_problem_set_push(S, P, err);
    if (rc) mcb_problem_free(&P);
    return rc;
}

mcb_rc mcb_world_record(mcb_world *w, int steps, mcb_problem_set **out, mcb_err *err)
{
    *out = calloc(1, sizeof **out);
    if (!*out) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    mcb_rc rc = MCB_OK;
    for (int k = 0; k < steps && !rc; k++) {
        mcb_step_info info;
        rc = mcb_world_step_into(w, *out, &info, err);
    }
    if (rc) mcb_problem_set_free(out);
    return rc;
}
