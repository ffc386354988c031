/* mcb_problem.c: the problem model: allocation, copy, subsystem inference
 * (A's connected components, and rigid bodies among the DOFs A leaves
 * uncoupled: see mcb_problem_infer_subsystems). */
#include "lib/mcb_problem.h"

#include "lib/mcb_psd.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *mcb_ctype_name(int type)
{
    switch (type) {
    case MCB_BILATERAL: return "bilateral";
    case MCB_UNILATERAL: return "unilateral";
    case MCB_SOFT: return "soft";
    case MCB_CONTACT: return "contact";
    case MCB_CONTACT_CCP: return "contact_ccp";
    default: return "unknown";
    }
}

const char *mcb_form_name(int form)
{
    return form == MCB_PRIMAL ? "primal" : form == MCB_DUAL ? "dual" : "unknown";
}

mcb_problem *mcb_problem_new(void)
{
    mcb_problem *P = calloc(1, sizeof *P);
    if (!P) return NULL;
    P->name = mcb_strdup("");
    P->source = mcb_strdup("");
    P->scene = mcb_strdup("");
    P->notes = mcb_strdup("");
    P->mass_ratio = NAN;
    P->cond_est = NAN;
    P->rank = -1;
    P->rank_tol = NAN;
    P->psd_defect = NAN;
    if (!P->name || !P->source || !P->scene || !P->notes) mcb_problem_free(&P);
    return P;
}

void mcb_problem_free(mcb_problem **P)
{
    if (!P || !*P) return;
    mcb_problem *p = *P;
    free(p->name);
    free(p->source);
    free(p->scene);
    free(p->notes);
    mcb_csc_free(&p->A);
    mcb_csc_free(&p->J);
    mcb_csc_free(&p->W);
    free(p->b);
    free(p->e);
    free(p->q);
    free(p->r);
    free(p->mu2);
    free(p->blocks);
    free(p->sub_start);
    free(p->v0);
    free(p->lambda0);
    free(p->v_ref);
    free(p->lambda_ref);
    mcb_csc_free(&p->Jc);
    mcb_csc_free(&p->Jb);
    free(p->body_parent);
    free(p->body_sub);
    mcb_mujoco_free(&p->mujoco);
    free(p);
    *P = NULL;
}

void mcb_mujoco_free(mcb_mujoco **S)
{
    if (!S || !*S) return;
    mcb_mujoco *s = *S;
    free(s->model);
    free(s->qpos);
    free(s->qvel);
    free(s->act);
    free(s->ctrl);
    free(s->qacc_warmstart);
    free(s);
    *S = NULL;
}

static double *dup_vec(const double *x, int n);

mcb_mujoco *mcb_mujoco_copy(const mcb_mujoco *S)
{
    if (!S) return NULL;
    mcb_mujoco *T = calloc(1, sizeof *T);
    if (!T) return NULL;
    *T = *S;
    T->model = mcb_malloc((size_t)S->model_bytes, 1);
    if (T->model) memcpy(T->model, S->model, (size_t)S->model_bytes);
    T->qpos = dup_vec(S->qpos, S->nq);
    T->qvel = dup_vec(S->qvel, S->nv);
    T->act = dup_vec(S->act, S->na);
    T->ctrl = dup_vec(S->ctrl, S->nu);
    T->qacc_warmstart = dup_vec(S->qacc_warmstart, S->nv);
    if (!T->model || (S->qpos && !T->qpos) || (S->qvel && !T->qvel) || (S->act && !T->act) ||
        (S->ctrl && !T->ctrl) || (S->qacc_warmstart && !T->qacc_warmstart))
        mcb_mujoco_free(&T);
    return T;
}

static mcb_rc mj_vec(const double *x, int len, const char *where, const char *name, mcb_err *err)
{
    if (len > 0 && !x)
        return mcb_fail(err, MCB_E_INPUT, "%s: mujoco/%s is missing (%d entries)", where, name, len);
    for (int k = 0; k < len; k++)
        if (!isfinite(x[k]))
            return mcb_fail(err, MCB_E_INPUT, "%s: mujoco/%s[%d] is not finite", where, name, k);
    return MCB_OK;
}

mcb_rc mcb_mujoco_check(const mcb_problem *P, const char *where, mcb_err *err)
{
    const mcb_mujoco *s = P->mujoco;
    if (!s) return MCB_OK;
    if (!s->model || s->model_bytes <= 0)
        return mcb_fail(err, MCB_E_INPUT, "%s: mujoco/model is empty", where);
    if (s->nq < 0 || s->nv < 0 || s->na < 0 || s->nu < 0)
        return mcb_fail(err, MCB_E_INPUT, "%s: mujoco sizes nq %d nv %d na %d nu %d are invalid",
                        where, s->nq, s->nv, s->na, s->nu);
    if (P->form != MCB_PRIMAL || s->nv != P->n)
        return mcb_fail(err, MCB_E_INPUT,
                        "%s: mujoco nv = %d is not the problem's n = %d (a primal problem)", where,
                        s->nv, P->n);
    mcb_rc rc;
    if ((rc = mj_vec(s->qpos, s->nq, where, "qpos", err))) return rc;
    if ((rc = mj_vec(s->qvel, s->nv, where, "qvel", err))) return rc;
    if ((rc = mj_vec(s->act, s->na, where, "act", err))) return rc;
    if ((rc = mj_vec(s->ctrl, s->nu, where, "ctrl", err))) return rc;
    if ((rc = mj_vec(s->qacc_warmstart, s->nv, where, "qacc_warmstart", err))) return rc;
    if (!isfinite(s->time))
        return mcb_fail(err, MCB_E_INPUT, "%s: mujoco time is not finite", where);
    return MCB_OK;
}

int mcb_problem_is_aniso(const mcb_problem *P)
{
    for (int b = 0; P && P->mu2 && b < P->nblocks; b++)
        if (mcb_is_contact(P->blocks[b].type) && isfinite(P->mu2[b])) return 1;
    return 0;
}

int mcb_problem_has_compliance(const mcb_problem *P)
{
    if (!P || !P->r) return 0;
    for (int i = 0; i < P->m; i++)
        if (P->r[i] != 0) return 1;
    return 0;
}

mcb_csc *mcb_csc_add_diag(const mcb_csc *W, const double *r)
{
    if (!W) return NULL;
    int n = W->n, missing = 0;
    for (int j = 0; r && j < n; j++) {
        if (r[j] == 0.0) continue;
        int have = 0;
        for (int k = W->p[j]; k < W->p[j + 1] && !have; k++) have = W->i[k] == j;
        missing += !have;
    }
    mcb_csc *S = mcb_csc_alloc(W->m, n, mcb_csc_nnz(W) + missing);
    if (!S) return NULL;
    int out = 0;
    for (int j = 0; j < n; j++) {
        double rj = r ? r[j] : 0.0;
        int placed = rj == 0.0;
        for (int k = W->p[j]; k < W->p[j + 1]; k++) {
            int i = W->i[k];
            if (!placed && i > j) { /* insert the missing diagonal before row i */
                S->i[out] = j;
                S->x[out++] = rj;
                placed = 1;
            }
            S->i[out] = i;
            S->x[out] = W->x[k];
            if (i == j && !placed) {
                S->x[out] += rj;
                placed = 1;
            }
            out++;
        }
        if (!placed) {
            S->i[out] = j;
            S->x[out++] = rj;
        }
        S->p[j + 1] = out;
    }
    return S;
}

int mcb_problem_count(const mcb_problem *P, int type)
{
    int c = 0;
    for (int k = 0; k < P->nblocks; k++) c += P->blocks[k].type == type;
    return c;
}

int mcb_problem_contacts(const mcb_problem *P)
{
    int c = 0;
    for (int k = 0; k < P->nblocks; k++) c += mcb_is_contact(P->blocks[k].type);
    return c;
}

static double *dup_vec(const double *x, int n)
{
    if (!x) return NULL;
    double *y = mcb_malloc((size_t)n, sizeof(double));
    if (y && n) memcpy(y, x, (size_t)n * sizeof(double));
    return y;
}

static int *dup_ints(const int *x, int n)
{
    if (!x) return NULL;
    int *y = mcb_malloc((size_t)n, sizeof(int));
    if (y && n) memcpy(y, x, (size_t)n * sizeof(int));
    return y;
}

mcb_problem *mcb_problem_copy(const mcb_problem *P)
{
    mcb_problem *Q = calloc(1, sizeof *Q);
    if (!Q) return NULL;
    *Q = *P;
    Q->name = mcb_strdup(P->name);
    Q->source = mcb_strdup(P->source);
    Q->scene = mcb_strdup(P->scene);
    Q->notes = mcb_strdup(P->notes);
    Q->A = mcb_csc_copy(P->A);
    Q->J = mcb_csc_copy(P->J);
    Q->W = mcb_csc_copy(P->W);
    Q->b = dup_vec(P->b, P->n);
    Q->e = dup_vec(P->e, P->m);
    Q->q = dup_vec(P->q, P->m);
    Q->r = dup_vec(P->r, P->m);
    Q->mu2 = dup_vec(P->mu2, P->nblocks);
    Q->blocks = mcb_malloc((size_t)P->nblocks, sizeof(mcb_block));
    if (Q->blocks && P->nblocks)
        memcpy(Q->blocks, P->blocks, (size_t)P->nblocks * sizeof(mcb_block));
    Q->sub_start = P->sub_start ? mcb_malloc((size_t)P->nsub + 1, sizeof(int)) : NULL;
    if (Q->sub_start) memcpy(Q->sub_start, P->sub_start, ((size_t)P->nsub + 1) * sizeof(int));
    Q->v0 = dup_vec(P->v0, P->n);
    Q->lambda0 = dup_vec(P->lambda0, P->m);
    Q->v_ref = dup_vec(P->v_ref, P->n);
    Q->lambda_ref = dup_vec(P->lambda_ref, P->m);
    Q->Jc = mcb_csc_copy(P->Jc);
    Q->Jb = mcb_csc_copy(P->Jb);
    Q->body_parent = dup_ints(P->body_parent, P->nbodies);
    Q->body_sub = dup_ints(P->body_sub, P->nbodies);
    Q->mujoco = mcb_mujoco_copy(P->mujoco);
    int bad = !Q->name || !Q->source || !Q->scene || !Q->notes || !Q->blocks ||
              (P->A && !Q->A) || (P->J && !Q->J) || (P->W && !Q->W) ||
              (P->b && !Q->b) || (P->e && !Q->e) || (P->q && !Q->q) ||
              (P->r && !Q->r) || (P->mu2 && !Q->mu2) ||
              (P->sub_start && !Q->sub_start) || (P->v0 && !Q->v0) ||
              (P->lambda0 && !Q->lambda0) || (P->v_ref && !Q->v_ref) ||
              (P->lambda_ref && !Q->lambda_ref) || (P->Jc && !Q->Jc) || (P->Jb && !Q->Jb) ||
              (P->body_parent && !Q->body_parent) || (P->body_sub && !Q->body_sub) ||
              (P->mujoco && !Q->mujoco);
    if (bad) mcb_problem_free(&Q);
    return Q;
}

/* 1 when DOFs j and j + 1 are touched by the same constraint blocks (the
 * union of each block's rows in J's columns j and j + 1). blk[r] is the
 * block of row r (-1: none). Rows are sorted within a column and blocks
 * cover rows in order, so each column's block ids are non-decreasing:
 * compare the two sequences with repeats skipped. */
static int same_blocks(const mcb_csc *J, const int *blk, int j)
{
    int a = J->p[j], ae = J->p[j + 1], b = J->p[j + 1], be = J->p[j + 2];
    int prev_a = -2, prev_b = -2;
    for (;;) {
        while (a < ae && blk[J->i[a]] == prev_a) a++;
        while (b < be && blk[J->i[b]] == prev_b) b++;
        if (a == ae || b == be) return a == ae && b == be;
        prev_a = blk[J->i[a]];
        prev_b = blk[J->i[b]];
        if (prev_a != prev_b) return 0;
    }
}

/* Row -> block map for the body rule, or NULL when J or the blocks do not
 * have the shapes the rule needs (an unvalidated file: the rule is then
 * skipped and validation reports the defect). */
static int *row_blocks(const mcb_problem *P)
{
    const mcb_csc *J = P->J;
    if (!J || J->m != P->m || J->n != P->n || !J->p || J->p[0] != 0 || !P->blocks) return NULL;
    for (int j = 0; j < J->n; j++)
        if (J->p[j + 1] < J->p[j]) return NULL;
    for (int k = 0; k < J->p[J->n]; k++)
        if (J->i[k] < 0 || J->i[k] >= P->m) return NULL;
    int *blk = mcb_malloc((size_t)P->m + 1, sizeof(int));
    if (!blk) return NULL;
    for (int r = 0; r < P->m; r++) blk[r] = -1;
    int last = -1;
    for (int b = 0; b < P->nblocks; b++) {
        const mcb_block *B = &P->blocks[b];
        if (B->row <= last || B->nrows < 1 || B->row + B->nrows > P->m) {
            free(blk);
            return NULL;
        }
        for (int r = B->row; r < B->row + B->nrows; r++) blk[r] = b;
        last = B->row + B->nrows - 1;
    }
    return blk;
}

/* The components rule: every DOF j is joined with all k such that
 * A_kj != 0. The largest DOF reachable from a range start bounds the range:
 * a contiguous cut at c is valid when no entry of A couples a DOF < c with
 * a DOF >= c.
 *
 * The body rule, for DOFs that A leaves alone (a diagonal mass matrix, as
 * FCLIB's global problems write rigid bodies): A alone would give one
 * subsystem per DOF (450 on Box_Stacks), while the papers split by body.
 * Consecutive uncoupled DOFs j, j + 1 are joined when exactly the same
 * constraint blocks touch both (a contact moves all six DOFs of each body
 * it touches); a run so joined that is longer than 6, a multiple of 6 and
 * starts at a multiple of 6 is cut into 6-DOF bodies (two bodies touched
 * only by the same contacts, or untouched bodies). DOFs no block touches
 * form constraint-free subsystems. The rule never joins a DOF that A
 * couples to another, so A stays block diagonal over the partition. */
mcb_rc mcb_problem_infer_subsystems(mcb_problem *P, mcb_err *err)
{
    if (P->form != MCB_PRIMAL || !P->A) {
        free(P->sub_start);
        P->sub_start = NULL;
        P->nsub = 0;
        return MCB_OK;
    }
    int n = P->n;
    /* reach[j] = max(j, max row index coupled to column j, and vice versa) */
    int *reach = mcb_malloc((size_t)n + 1, sizeof(int));
    int *start = mcb_malloc((size_t)n + 1, sizeof(int));
    if (!reach || !start) {
        free(reach);
        free(start);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    for (int j = 0; j < n; j++) reach[j] = j;
    for (int j = 0; j < n; j++)
        for (int k = P->A->p[j]; k < P->A->p[j + 1]; k++) {
            int i = P->A->i[k];
            int lo = i < j ? i : j, hi = i < j ? j : i;
            if (hi > reach[lo]) reach[lo] = hi;
        }
    int ns = 0, far = -1;
    for (int j = 0; j < n; j++) {
        if (j > far) start[ns++] = j;
        if (reach[j] > far) far = reach[j];
    }
    start[ns] = n;
    free(reach);
    int *blk = row_blocks(P);
    if (blk) {
        /* single-DOF components j = start[s] with start[s + 1] = j + 1 */
        int out = 0;
        for (int s = 0; s < ns; s++) {
            int j = start[s];
            int single = start[s + 1] == j + 1;
            int prev_single = s > 0 && start[s - 1] == j - 1;
            if (single && prev_single && same_blocks(P->J, blk, j - 1)) continue; /* joined */
            start[out++] = j;
        }
        start[out] = n;
        ns = out;
        /* cut aligned runs of 6 k DOFs (k > 1) into bodies; in place,
         * writing from the back (the list only grows by these cuts) */
        int extra = 0;
        for (int s = 0; s < ns; s++) {
            int len = start[s + 1] - start[s];
            if (len > 6 && len % 6 == 0 && start[s] % 6 == 0) extra += len / 6 - 1;
        }
        if (extra > 0) {
            int *st = mcb_malloc((size_t)(ns + extra) + 1, sizeof(int));
            if (!st) {
                free(blk);
                free(start);
                return mcb_fail(err, MCB_E_NOMEM, "out of memory");
            }
            int q = 0;
            for (int s = 0; s < ns; s++) {
                int len = start[s + 1] - start[s];
                if (len > 6 && len % 6 == 0 && start[s] % 6 == 0)
                    for (int c = start[s]; c < start[s + 1]; c += 6) st[q++] = c;
                else
                    st[q++] = start[s];
            }
            st[q] = n;
            free(start);
            start = st;
            ns = q;
        }
        free(blk);
    }
    free(P->sub_start);
    P->sub_start = start;
    P->nsub = ns;
    return MCB_OK;
}

void mcb_problem_set_free(mcb_problem_set **S)
{
    if (!S || !*S) return;
    for (int k = 0; k < (*S)->count; k++) mcb_problem_free(&(*S)->items[k]);
    free((*S)->items);
    free(*S);
    *S = NULL;
}

mcb_rc mcb_problem_set_push(mcb_problem_set *S, mcb_problem *P, mcb_err *err)
{
    mcb_problem **items = realloc(S->items, ((size_t)S->count + 1) * sizeof *items);
    if (!items) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    S->items = items;
    S->items[S->count++] = P;
    return MCB_OK;
}

mcb_rc mcb_problem_set_of_one(mcb_problem **P, mcb_problem_set **out, mcb_err *err)
{
    *out = NULL;
    mcb_problem_set *S = calloc(1, sizeof *S);
    mcb_rc rc = S ? mcb_problem_set_push(S, *P, err) : mcb_fail(err, MCB_E_NOMEM, "out of memory");
    if (rc) {
        mcb_problem_free(P);
        mcb_problem_set_free(&S);
        return rc;
    }
    *P = NULL;
    *out = S;
    return MCB_OK;
}

/* Appends a note to P->notes ("; " between notes). */
static mcb_rc append_note(mcb_problem *P, const char *note, mcb_err *err)
{
    const char *old = P->notes ? P->notes : "";
    size_t len = strlen(old) + strlen(note) + 8;
    char *notes = malloc(len);
    if (!notes) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    snprintf(notes, len, "%s%s%s", old, old[0] ? "; " : "", note);
    free(P->notes);
    P->notes = notes;
    return MCB_OK;
}

mcb_rc mcb_problem_symmetrize_w(mcb_problem *P, mcb_err *err)
{
    if (!P || !P->W) return MCB_OK;
    double asym = mcb_csc_asymmetry(P->W);
    if (!(asym > MCB_SYM_TOL)) return MCB_OK;
    mcb_csc *S = mcb_csc_symmetric_part(P->W);
    if (!S) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    char note[256];
    snprintf(note, sizeof note, "W symmetrized on import: (W + W^T) / 2, the file's W had "
             "max |W_ij - W_ji| / max |W_ij| = %.3g", asym);
    mcb_rc rc = append_note(P, note, err);
    if (rc) {
        mcb_csc_free(&S);
        return rc;
    }
    mcb_csc_free(&P->W);
    P->W = S;
    return MCB_OK;
}

mcb_rc mcb_problem_note_psd(mcb_problem *P, mcb_err *err)
{
    if (!P || P->form != MCB_DUAL || P->m <= 0 || !P->W) return MCB_OK;
    mcb_psd r;
    mcb_rc rc = mcb_psd_measure(P->W, 1, &r, err);
    if (rc) return rc;
    P->psd_defect = r.defect;
    if (!(r.defect > 0)) return MCB_OK;
    char note[320];
    snprintf(note, sizeof note,
             "W indefinite by round-off: smallest eigenvalue about -%.2g ||W||_2 (||W||_2 = "
             "%.3g; accepted as positive semidefinite, within the allowance of %g ||W||_2; "
             "attribute psd_defect)", r.defect, r.norm, MCB_PSD_TOL);
    return append_note(P, note, err);
}

mcb_rc mcb_problem_finish_import(mcb_problem *P, const char *path, mcb_rc rc, mcb_problem **out,
                                 mcb_err *err)
{
    if (!rc) rc = mcb_problem_infer_subsystems(P, err);
    if (!rc) rc = mcb_problem_validate(P, path, err);
    if (!rc) rc = mcb_problem_note_psd(P, err); /* psd_defect, and a note when W is indefinite */
    if (rc) {
        mcb_problem_free(&P);
        return rc;
    }
    *out = P;
    return MCB_OK;
}
