/* mujoco_peer.c: MuJoCo 2.2.2's constraint solvers (PGS, CG, Newton) as peers,
 * and the mapping of MuJoCo's constraint problem into mcbench's model
 * (mujoco_peer.h) that the recorder shares.
 *
 * Not an algorithm of ours: an adapter, like siconos_peer.c. A peer takes only a
 * problem recorded from MuJoCo (`mcbench record mujoco`), which carries the
 * compiled model and the state before the step (P->mujoco). setup() loads
 * the model, restores the state, runs MuJoCo's stages before the
 * constraint solve (collision, constraint assembly, smooth dynamics) and
 * checks that the rows it gets are the recorded ones; solve() sets
 * opt.solver, opt.iterations = the harness's budget and opt.tolerance (the
 * harness's --tol unless own_tol is set) and times mj_fwdConstraint alone;
 * iterate() hands back v = qvel + h qacc and lambda = h efc_force on the
 * recorded rows, judged by the harness like any solver's.
 *
 * MuJoCo 2.2.2 has no per-iteration hook inside mj_fwdConstraint (the
 * solver statistics are written after the fact), so the peers are black
 * box: MuJoCo stops on its own test (its tolerance on the relative cost
 * improvement and gradient, not mcbench's metric) or its iteration budget.
 * Without --warm-start, MuJoCo's warm start is disabled (mjDSBL_WARMSTART:
 * it starts from qacc_smooth); with it, MuJoCo starts from the recorded
 * qacc_warmstart as in the recorded step.
 *
 * Failure: MuJoCo's errors (which would exit the process) are caught and
 * become setup failures with MuJoCo's message; nothing here exits.
 * Allocation: setup only (the model, mjData, the row map). */
#include "solvers/peers/mujoco_peer.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/solver.h"

/* ------------------------------------------------------------ the guard */

_Thread_local jmp_buf mcb_mj_jmp;
static _Thread_local char guard_msg[MCB_ERR_LEN], guard_warn[MCB_ERR_LEN];
static _Thread_local int guard_armed;

static void guard_error(const char *msg)
{
    snprintf(guard_msg, sizeof guard_msg, "%s", msg);
    if (guard_armed) {
        guard_armed = 0;
        longjmp(mcb_mj_jmp, 1);
    }
    /* unarmed: nothing to return to; MuJoCo would exit, so do as it does */
    fprintf(stderr, "MuJoCo error outside a guarded call: %s\n", msg);
    abort();
}

static void guard_warning(const char *msg) { snprintf(guard_warn, sizeof guard_warn, "%s", msg); }

void mcb_mj_guard_arm(void)
{
    guard_msg[0] = guard_warn[0] = '\0';
    mju_user_error = guard_error;
    mju_user_warning = guard_warning;
    guard_armed = 1;
}

void mcb_mj_guard_end(void) { guard_armed = 0; }
const char *mcb_mj_guard_message(void) { return guard_msg; }
const char *mcb_mj_guard_warning(void) { return guard_warn; }

const char *mcb_mj_solver_name(int solver)
{
    switch (solver) {
    case mjSOL_PGS: return "PGS";
    case mjSOL_CG: return "CG";
    case mjSOL_NEWTON: return "Newton";
    default: return "unknown";
    }
}

/* ---------------------------------------------------------- the mapping */

enum { ROW_OUT = -1, ROW_BIL = MCB_BILATERAL, ROW_UNI = MCB_UNILATERAL, ROW_CCP = MCB_CONTACT_CCP };

/* The mcbench type of efc row i (ROW_OUT: left out), and *cnt updated. */
static int row_kind(const mjModel *m, const mjData *d, int i, mcb_mj_counts *cnt)
{
    switch (d->efc_type[i]) {
    case mjCNSTR_EQUALITY: cnt->equality_rows++; return ROW_BIL;
    case mjCNSTR_LIMIT_JOINT:
    case mjCNSTR_LIMIT_TENDON: cnt->limit_rows++; return ROW_UNI;
    case mjCNSTR_CONTACT_FRICTIONLESS:
        cnt->contacts++; /* one row per contact */
        cnt->frictionless_rows++;
        return ROW_UNI;
    case mjCNSTR_CONTACT_PYRAMIDAL:
        if (i == d->contact[d->efc_id[i]].efc_address) cnt->contacts++;
        cnt->pyramidal_rows++;
        return ROW_UNI;
    case mjCNSTR_CONTACT_ELLIPTIC: {
        const mjContact *c = &d->contact[d->efc_id[i]];
        if (i == c->efc_address) cnt->contacts++;
        if (c->dim == 3 && c->friction[0] == c->friction[1]) {
            if (i == c->efc_address) cnt->elliptic3_contacts++;
            return ROW_CCP;
        }
        if (i == c->efc_address) cnt->elliptic_other_contacts++;
        cnt->left_out_rows++;
        return ROW_OUT;
    }
    default: /* dof and tendon friction loss */
        (void)m;
        cnt->frictionloss_rows++;
        cnt->left_out_rows++;
        return ROW_OUT;
    }
}

/* Row i of efc_J as (column, value) pairs into col/val; returns the count. */
static int efc_row(const mjModel *m, const mjData *d, int i, int *col, double *val)
{
    int nv = m->nv, k = 0;
    if (mj_isSparse(m)) {
        int adr = d->efc_J_rowadr[i];
        for (int j = 0; j < d->efc_J_rownnz[i]; j++, k++) {
            col[k] = d->efc_J_colind[adr + j];
            val[k] = d->efc_J[adr + j];
        }
    } else {
        for (int j = 0; j < nv; j++)
            if (d->efc_J[(size_t)i * (size_t)nv + j] != 0.0) {
                col[k] = j;
                val[k++] = d->efc_J[(size_t)i * (size_t)nv + j];
            }
    }
    return k;
}

/* A = M from MuJoCo's sparse qM: entry dof_Madr[i] is M_ii, the following
 * ones M_ij along the ancestors j of dof i (dof_parentid). */
static mcb_csc *mass_matrix(const mjModel *m, const mjData *d)
{
    int nv = m->nv;
    long nz = 0;
    for (int i = 0; i < nv; i++)
        for (int j = i; j >= 0; j = m->dof_parentid[j]) nz += j == i ? 1 : 2;
    int *ri = mcb_malloc((size_t)nz + 1, sizeof(int)), *ci = mcb_malloc((size_t)nz + 1, sizeof(int));
    double *x = mcb_malloc((size_t)nz + 1, sizeof(double));
    mcb_csc *A = NULL;
    if (ri && ci && x) {
        long k = 0;
        for (int i = 0; i < nv; i++) {
            int adr = m->dof_Madr[i];
            for (int j = i; j >= 0; j = m->dof_parentid[j], adr++) {
                ri[k] = i, ci[k] = j, x[k++] = d->qM[adr];
                if (j != i) ri[k] = j, ci[k] = i, x[k++] = d->qM[adr];
            }
        }
        A = mcb_csc_from_triplets(nv, nv, (int)nz, ri, ci, x);
    }
    free(ri), free(ci), free(x);
    return A;
}

/* One subsystem per kinematic tree: the DOFs whose top ancestor is the
 * same. MuJoCo orders bodies depth first, so each tree's DOFs are one
 * range; returns -1 if they are not (the caller then infers from A). */
static int tree_partition(const mjModel *m, mcb_problem *P)
{
    int nv = m->nv, nsub = 0, prev = -2;
    int *start = mcb_malloc((size_t)nv + 1, sizeof(int));
    if (!start) return -1;
    for (int i = 0; i < nv; i++) {
        int r = i;
        while (m->dof_parentid[r] >= 0) r = m->dof_parentid[r];
        if (r != prev) {
            if (r != i) { /* a tree's DOFs interleaved with another's */
                free(start);
                return -1;
            }
            start[nsub++] = i;
            prev = r;
        }
    }
    start[nsub] = nv;
    P->nsub = nsub;
    P->sub_start = start;
    return 0;
}

mcb_rc mcb_mj_problem(const mjModel *m, const mjData *d, int strict, mcb_problem **out,
                      int **rowmap, mcb_mj_counts *counts, mcb_err *err)
{
    *out = NULL;
    if (rowmap) *rowmap = NULL;
    mcb_mj_counts cnt;
    memset(&cnt, 0, sizeof cnt);
    int nv = m->nv, nefc = d->nefc;
    double h = m->opt.timestep;
    cnt.nefc = nefc;
    int *kind = mcb_malloc((size_t)nefc + 1, sizeof(int));
    if (!kind) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    int nrows = 0;
    for (int i = 0; i < nefc; i++)
        if ((kind[i] = row_kind(m, d, i, &cnt)) != ROW_OUT) nrows++;
    if (counts) *counts = cnt;
    if (strict && cnt.left_out_rows) {
        free(kind);
        return mcb_fail(err, MCB_E_INPUT,
                        "MuJoCo rows with no mcbench type (--strict): %d friction-loss rows, %d "
                        "elliptic contacts of dimension 4 or 6",
                        cnt.frictionloss_rows, cnt.elliptic_other_contacts);
    }
    mcb_problem *P = mcb_problem_new();
    int *map = mcb_malloc((size_t)nrows + 1, sizeof(int));
    int *col = mcb_malloc((size_t)nv + 1, sizeof(int));
    double *val = mcb_malloc((size_t)nv + 1, sizeof(double));
    long nnz = 0;
    for (int i = 0; i < nefc; i++)
        nnz += mj_isSparse(m) ? d->efc_J_rownnz[i] : nv;
    int *ri = mcb_malloc((size_t)nnz + 1, sizeof(int)), *ci = mcb_malloc((size_t)nnz + 1, sizeof(int));
    double *jx = mcb_malloc((size_t)nnz + 1, sizeof(double));
    mcb_rc rc = MCB_OK;
    if (!P || !map || !col || !val || !ri || !ci || !jx) {
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        goto done;
    }
    P->form = MCB_PRIMAL;
    P->n = nv;
    P->m = nrows;
    P->h = h;
    P->b = mcb_calloc((size_t)nv + 1, sizeof(double));
    P->e = mcb_calloc((size_t)nrows + 1, sizeof(double));
    P->r = mcb_calloc((size_t)nrows + 1, sizeof(double));
    P->blocks = mcb_calloc((size_t)nrows + 1, sizeof(mcb_block));
    P->A = mass_matrix(m, d);
    if (!P->b || !P->e || !P->r || !P->blocks || !P->A) {
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        goto done;
    }
    /* b = M qvel + h qfrc_smooth */
    mcb_csc_gaxpy(P->A, d->qvel, P->b);
    for (int j = 0; j < nv; j++) P->b[j] += h * d->qfrc_smooth[j];
    long nz = 0;
    int row = 0;
    for (int i = 0; i < nefc; i++) {
        int k = efc_row(m, d, i, col, val);
        if (kind[i] == ROW_OUT) { /* a known force: b += J_i^T h f_i */
            for (int j = 0; j < k; j++) P->b[col[j]] += val[j] * h * d->efc_force[i];
            continue;
        }
        double Jv = 0.0;
        for (int j = 0; j < k; j++) {
            ri[nz] = row, ci[nz] = col[j], jx[nz++] = val[j];
            Jv += val[j] * d->qvel[col[j]];
        }
        P->e[row] = -(Jv + h * d->efc_aref[i]);
        P->r[row] = d->efc_R[i];
        map[row++] = i;
    }
    P->J = mcb_csc_from_triplets(nrows, nv, (int)nz, ri, ci, jx);
    if (!P->J) {
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        goto done;
    }
    /* blocks: one bilateral block per equality, one contact_ccp block per
     * elliptic contact, one unilateral block per other row */
    for (int k = 0; k < nrows;) {
        int i = map[k], t = kind[i], len = 1;
        if (t == ROW_BIL)
            while (k + len < nrows && kind[map[k + len]] == ROW_BIL &&
                   d->efc_id[map[k + len]] == d->efc_id[i] &&
                   d->efc_type[map[k + len]] == d->efc_type[i])
                len++;
        if (t == ROW_CCP) len = 3;
        mcb_block *B = &P->blocks[P->nblocks++];
        B->type = t;
        B->row = k;
        B->nrows = len;
        if (t == ROW_CCP) B->mu = d->contact[d->efc_id[i]].friction[0];
        k += len;
    }
    if (tree_partition(m, P) && (rc = mcb_problem_infer_subsystems(P, err))) goto done;
done:
    free(kind), free(col), free(val), free(ri), free(ci), free(jx);
    if (rc) {
        mcb_problem_free(&P);
        free(map);
        return rc;
    }
    if (rowmap) *rowmap = map;
    else free(map);
    *out = P;
    return MCB_OK;
}

void mcb_mj_solution(const mjModel *m, const mjData *d, const int *rowmap, int nrows, double *v,
                     double *lambda)
{
    double h = m->opt.timestep;
    if (v)
        for (int j = 0; j < m->nv; j++) v[j] = d->qvel[j] + h * d->qacc[j];
    if (lambda)
        for (int k = 0; k < nrows; k++) lambda[k] = h * d->efc_force[rowmap[k]];
}

mcb_rc mcb_mj_load_model(const unsigned char *bytes, long size, mjModel **out, mcb_err *err)
{
    *out = NULL;
    if (!bytes || size <= 0 || size > 2147483647L)
        return mcb_fail(err, MCB_E_INPUT, "no MuJoCo model stored (size %ld)", size);
    mjVFS *vfs = malloc(sizeof *vfs); /* about 2 MB of file names: not on the stack */
    if (!vfs) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    mj_defaultVFS(vfs);
    const char *name = "mcbench-model.mjb";
    volatile mcb_rc rc = MCB_OK; /* set after setjmp, read after a longjmp */
    mcb_mj_guard_arm();
    if (setjmp(mcb_mj_jmp)) {
        rc = mcb_fail(err, MCB_E_INPUT, "MuJoCo could not load the stored model: %s",
                      mcb_mj_guard_message());
    } else {
        int k = mj_makeEmptyFileVFS(vfs, name, (int)size) ? -1 : mj_findFileVFS(vfs, name);
        if (k < 0) {
            rc = mcb_fail(err, MCB_E_NOMEM, "MuJoCo: cannot make a VFS file of %ld bytes", size);
        } else {
            memcpy(vfs->filedata[k], bytes, (size_t)size);
            *out = mj_loadModel(name, vfs);
            if (!*out)
                rc = mcb_fail(err, MCB_E_INPUT, "MuJoCo could not load the stored model%s%s",
                              mcb_mj_guard_warning()[0] ? ": " : "", mcb_mj_guard_warning());
        }
    }
    mcb_mj_guard_end();
    mj_deleteVFS(vfs);
    free(vfs);
    return rc;
}

mcb_rc mcb_mj_restore(const mjModel *m, mjData *d, const mcb_problem *P, mcb_err *err)
{
    const mcb_mujoco *s = P->mujoco;
    if (!s) return mcb_fail(err, MCB_E_INPUT, "problem '%s' has no MuJoCo state", P->name);
    if (s->nq != m->nq || s->nv != m->nv || s->na != m->na || s->nu != m->nu)
        return mcb_fail(err, MCB_E_INPUT,
                        "problem '%s': stored state sizes nq %d nv %d na %d nu %d, the model's "
                        "%d %d %d %d",
                        P->name, s->nq, s->nv, s->na, s->nu, m->nq, m->nv, m->na, m->nu);
    mj_resetData(m, d);
    memcpy(d->qpos, s->qpos, sizeof(double) * (size_t)m->nq);
    memcpy(d->qvel, s->qvel, sizeof(double) * (size_t)m->nv);
    if (m->na) memcpy(d->act, s->act, sizeof(double) * (size_t)m->na);
    if (m->nu) memcpy(d->ctrl, s->ctrl, sizeof(double) * (size_t)m->nu);
    memcpy(d->qacc_warmstart, s->qacc_warmstart, sizeof(double) * (size_t)m->nv);
    d->time = s->time;
    return MCB_OK;
}

void mcb_mj_stages_before_constraint(const mjModel *m, mjData *d)
{
    mj_fwdPosition(m, d);
    mj_sensorPos(m, d);
    mj_energyPos(m, d);
    mj_fwdVelocity(m, d);
    mj_sensorVel(m, d);
    mj_energyVel(m, d);
    mj_fwdActuation(m, d);
    mj_fwdAcceleration(m, d);
}

/* ------------------------------------------------------------ the peers */

typedef struct {
    double own_tol; /* MuJoCo's opt.tolerance; 0: the harness's --tol */
} mjp_params;

static void mjp_defaults(void *p) { ((mjp_params *)p)->own_tol = 0.0; }

static const mjp_params mjp_zero;
static const mcb_param_desc mjp_desc[] = {
    {"own_tol", 'd', offsetof(mjp_params, own_tol),
     "MuJoCo's opt.tolerance: its stop on the relative cost improvement and gradient, not "
     "mcbench's metric (0: the harness's --tol)"},
};

typedef struct {
    const mcb_problem *P;
    mjp_params prm;
    int solver;     /* mjtSolver */
    mjModel *m;
    mjData *d;
    int *rowmap;    /* mcbench row -> efc row */
    int solved;     /* mj_fwdConstraint has run */
} mjp_work;

static void mjp_free(void **work)
{
    if (!work || !*work) return;
    mjp_work *w = *work;
    if (w->d) mj_deleteData(w->d);
    if (w->m) mj_deleteModel(w->m);
    free(w->rowmap);
    free(w);
    *work = NULL;
}

static mcb_rc mjp_check(const void *params, mcb_err *err)
{
    const mjp_params *p = params;
    if (!(p->own_tol >= 0.0))
        return mcb_fail(err, MCB_E_INPUT, "mujoco: own_tol = %g must be >= 0", p->own_tol);
    return MCB_OK;
}

static int mjp_accepts(const mcb_problem *P, char *reason, size_t len)
{
    if (P && P->mujoco && P->form == MCB_PRIMAL) return 1;
    snprintf(reason, len,
             "not recorded from MuJoCo: the mujoco_* peers need the stored model and state "
             "(mcbench record mujoco)");
    return 0;
}

/* The recorded problem's rows against the ones MuJoCo assembles again. */
static mcb_rc same_rows(const mjp_work *w, const mcb_problem *Q, mcb_err *err)
{
    const mcb_problem *P = w->P;
    if (Q->m != P->m || Q->n != P->n || Q->nblocks != P->nblocks)
        return mcb_fail(err, MCB_E_INPUT,
                        "MuJoCo assembles %d rows and %d blocks for '%s', the file holds %d and "
                        "%d: not the recorded step",
                        Q->m, Q->nblocks, P->name, P->m, P->nblocks);
    for (int k = 0; k < P->nblocks; k++)
        if (Q->blocks[k].type != P->blocks[k].type || Q->blocks[k].nrows != P->blocks[k].nrows)
            return mcb_fail(err, MCB_E_INPUT, "'%s': block %d is not the recorded one", P->name, k);
    return MCB_OK;
}

static mcb_rc mjp_setup(const mcb_problem *P, const mcb_settings *s, const void *params,
                        void **work, mcb_err *err, int solver)
{
    (void)s;
    *work = NULL;
    char why[MCB_ERR_LEN];
    if (!mjp_accepts(P, why, sizeof why)) return mcb_fail(err, MCB_E_INPUT, "%s", why);
    mcb_rc rc = mjp_check(params ? params : &mjp_zero, err);
    if (params && rc) return rc;
    mjp_work *w = calloc(1, sizeof *w);
    if (!w) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    w->P = P;
    if (params) w->prm = *(const mjp_params *)params;
    else mjp_defaults(&w->prm);
    w->solver = solver;
    void *p = w;
    if ((rc = mcb_mj_load_model(P->mujoco->model, P->mujoco->model_bytes, &w->m, err))) {
        mjp_free(&p);
        return rc;
    }
    /* set after setjmp and read after a longjmp: volatile */
    mcb_problem *volatile Q = NULL;
    volatile mcb_rc vrc = MCB_OK;
    mcb_mj_guard_arm();
    if (setjmp(mcb_mj_jmp)) {
        vrc = mcb_fail(err, MCB_E_NUMERIC, "MuJoCo: %s", mcb_mj_guard_message());
    } else {
        w->d = mj_makeData(w->m);
        if (!w->d) vrc = mcb_fail(err, MCB_E_NOMEM, "MuJoCo: mj_makeData failed");
        if (!vrc) vrc = mcb_mj_restore(w->m, w->d, P, err);
        /* before the stages: position assembles efc_AR only for a dual
         * solver (PGS) */
        w->m->opt.solver = solver;
        if (!vrc) {
            mcb_mj_stages_before_constraint(w->m, w->d);
            /* the same rows as recorded (their forces are not needed here) */
            mcb_problem *q = NULL;
            vrc = mcb_mj_problem(w->m, w->d, 0, &q, &w->rowmap, NULL, err);
            Q = q;
        }
        if (!vrc) vrc = same_rows(w, Q, err);
    }
    mcb_mj_guard_end();
    mcb_problem *q = Q;
    mcb_problem_free(&q);
    rc = vrc;
    if (rc) {
        mjp_free(&p);
        return rc;
    }
    *work = w;
    return MCB_OK;
}

static int mjp_solve(void *work, const mcb_settings *s, mcb_iter_cb cb, void *ctx, mcb_info *info)
{
    (void)cb; /* black box: MuJoCo 2.2.2 has no per-iteration hook */
    (void)ctx;
    mjp_work *w = work;
    mjModel *m = w->m;
    m->opt.solver = w->solver;
    m->opt.iterations = s->max_iters > 0 ? s->max_iters : 1;
    m->opt.tolerance = w->prm.own_tol > 0 ? w->prm.own_tol : s->tol;
    if (s->warm_start) m->opt.disableflags &= ~mjDSBL_WARMSTART;
    else m->opt.disableflags |= mjDSBL_WARMSTART;
    mcb_mj_guard_arm();
    if (setjmp(mcb_mj_jmp)) {
        mcb_mj_guard_end();
        snprintf(info->reason, sizeof info->reason, "MuJoCo: %s", mcb_mj_guard_message());
        return MCB_ST_DIVERGED;
    }
    mj_fwdConstraint(m, w->d);
    mcb_mj_guard_end();
    w->solved = 1;
    int it = w->d->solver_iter;
    info->iterations = it;
    info->own_residual = NAN;
    if (it > 0 && it <= mjNSOLVER) {
        const mjSolverStat *st = &w->d->solver[it - 1];
        info->own_residual = st->gradient; /* MuJoCo's scaled gradient at the last iteration */
    }
    if (w->d->warning[mjWARN_BADQACC].number > 0) {
        snprintf(info->reason, sizeof info->reason, "MuJoCo: bad number in qacc");
        return MCB_ST_DIVERGED;
    }
    return it >= m->opt.iterations ? MCB_ST_MAX_ITERS : MCB_ST_SOLVED;
}

static void mjp_iterate(void *work, double *v, double *lambda)
{
    mjp_work *w = work;
    const mcb_problem *P = w->P;
    if (w->solved) {
        mcb_mj_solution(w->m, w->d, w->rowmap, P->m, v, lambda);
        return;
    }
    /* the starting point: unconstrained, no impulse */
    double h = w->m->opt.timestep;
    if (v)
        for (int j = 0; j < P->n; j++) v[j] = w->d->qvel[j] + h * w->d->qacc_smooth[j];
    if (lambda) memset(lambda, 0, sizeof(double) * (size_t)P->m);
}

#define MUJOCO_PEER(NAME, SOLVER, DESCRIPTION)                                                   \
    static mcb_rc NAME##_setup(const mcb_problem *P, const mcb_settings *s, const void *params, \
                               void **work, mcb_err *err)                                        \
    {                                                                                            \
        return mjp_setup(P, s, params, work, err, SOLVER);                                       \
    }                                                                                            \
    const mcb_solver_def mcb_solver_##NAME = {                                                   \
        .name = #NAME,                                                                           \
        .description = DESCRIPTION,                                                              \
        .reference = "MuJoCo 2.2.2 (Todorov, Erez, Tassa, IROS 2012; mujoco.readthedocs.io, "   \
                     "Computation)",                                                             \
        .accepts = MCB_ACCEPTS_PRIMAL,                                                           \
        .accepts_problem = mjp_accepts,                                                          \
        .black_box = 1,                                                                          \
        .params_size = sizeof(mjp_params),                                                       \
        .default_params = mjp_defaults,                                                          \
        .params = mjp_desc,                                                                      \
        .nparams = (int)(sizeof mjp_desc / sizeof mjp_desc[0]),                                  \
        .check_params = mjp_check,                                                               \
        .setup = NAME##_setup,                                                                   \
        .solve = mjp_solve,                                                                      \
        .iterate = mjp_iterate,                                                                  \
        .free = mjp_free,                                                                        \
    };

MUJOCO_PEER(mujoco_pgs, mjSOL_PGS,
            "MuJoCo 2.2.2 projected Gauss-Seidel on the dual (recorded MuJoCo problems only)")
MUJOCO_PEER(mujoco_cg, mjSOL_CG,
            "MuJoCo 2.2.2 nonlinear conjugate gradient on the primal (recorded MuJoCo problems "
            "only)")
MUJOCO_PEER(mujoco_newton, mjSOL_NEWTON,
            "MuJoCo 2.2.2 Newton on the primal (recorded MuJoCo problems only)")
