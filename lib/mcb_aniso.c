/* mcb_aniso.c: an anisotropic-friction problem as its isotropic equivalent
 * (lib/mcb_aniso.h). Every map is the per-block scaling S = diag(1, mu1, mu2)
 * of the contact blocks with a finite mu2. */
#include "lib/mcb_aniso.h"

#include <math.h>
#include <stdlib.h>

/* s[r] = row r's scale (1 outside anisotropic contacts); NULL when P is
 * isotropic. */
static double *row_scales(const mcb_problem *P)
{
    if (!mcb_problem_is_aniso(P)) return NULL;
    double *s = malloc(((size_t)P->m + 1) * sizeof *s);
    if (!s) return NULL;
    for (int r = 0; r < P->m; r++) s[r] = 1.0;
    for (int b = 0; b < P->nblocks; b++) {
        const mcb_block *B = &P->blocks[b];
        if (!mcb_is_contact(B->type) || !isfinite(P->mu2[b])) continue;
        s[B->row + 1] = B->mu;
        s[B->row + 2] = P->mu2[b];
    }
    return s;
}

/* lambda' = S^-1 lambda (dir 0) or lambda = S lambda' (dir 1). */
static void map_lambda(const mcb_problem *P, const double *in, double *out, int back)
{
    for (int r = 0; r < P->m; r++) out[r] = in[r];
    for (int b = 0; P->mu2 && b < P->nblocks; b++) {
        const mcb_block *B = &P->blocks[b];
        if (!mcb_is_contact(B->type) || !isfinite(P->mu2[b])) continue;
        double s[2] = {B->mu, P->mu2[b]};
        for (int k = 0; k < 2; k++) {
            int r = B->row + 1 + k;
            out[r] = back ? s[k] * in[r] : s[k] > 0.0 ? in[r] / s[k] : 0.0;
        }
    }
}

void mcb_aniso_lambda_to_iso(const mcb_problem *P, const double *lambda, double *liso)
{
    map_lambda(P, lambda, liso, 0);
}

void mcb_aniso_lambda_from_iso(const mcb_problem *P, const double *liso, double *lambda)
{
    map_lambda(P, liso, lambda, 1);
}

/* M <- diag(s) M (rows scaled), or diag(s) M diag(s) when both. */
static void scale_csc(mcb_csc *M, const double *s, int cols)
{
    for (int j = 0; M && j < M->n; j++)
        for (int k = M->p[j]; k < M->p[j + 1]; k++)
            M->x[k] *= s[M->i[k]] * (cols ? s[j] : 1.0);
}

mcb_rc mcb_aniso_isotropic(const mcb_problem *P, mcb_problem **Q, mcb_err *err)
{
    *Q = NULL;
    if (!P) return mcb_fail(err, MCB_E_INPUT, "no problem");
    double *s = row_scales(P);
    if (!s && mcb_problem_is_aniso(P)) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    mcb_problem *R = mcb_problem_copy(P);
    if (!R) {
        free(s);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    if (s) {
        scale_csc(R->J, s, 0);
        scale_csc(R->Jc, s, 0);
        scale_csc(R->W, s, 1);
        for (int r = 0; r < P->m; r++) {
            if (R->e) R->e[r] *= s[r];
            if (R->q) R->q[r] *= s[r];
            if (R->r) R->r[r] *= s[r] * s[r];
        }
        if (R->lambda0) map_lambda(P, P->lambda0, R->lambda0, 0);
        if (R->lambda_ref) map_lambda(P, P->lambda_ref, R->lambda_ref, 0);
        for (int b = 0; b < P->nblocks; b++)
            if (mcb_is_contact(P->blocks[b].type) && isfinite(P->mu2[b])) R->blocks[b].mu = 1.0;
    }
    free(R->mu2);
    R->mu2 = NULL;
    free(s);
    *Q = R;
    return MCB_OK;
}
