/* fixtures.h: small hand-built problems with known answers. */
#ifndef MCB_FIXTURES_H
#define MCB_FIXTURES_H

#include "lib/mcb_problem.h"

/* A point mass (mass 1, 3 DOFs [x, y, z]) on the ground plane z = 0, one
 * contact with rows [n, t1, t2] = [z, x, y], mu = 0.5, e = 0, and free
 * velocity b = vfree. Known solutions:
 *   open  vfree = (0, 0, 1):   lambda = 0,            v = (0, 0, 1)
 *   stick vfree = (0.1, 0, -1): lambda = (1, -0.1, 0), v = 0
 *   slip  vfree = (2, 0, -1):  lambda = (1, -0.5, 0), v = (1.5, 0, 0) */
enum { FX_OPEN, FX_STICK, FX_SLIP };
mcb_problem *fx_point_contact(int state);
/* Its exact solution. */
void fx_point_solution(int state, double v[3], double lambda[3]);

/* The same contact in dual form: W = I, q = vfree permuted to [n, t1, t2]. */
mcb_problem *fx_point_contact_dual(int state);

/* The point contact with per-row compliance r = (1, 0.25, 0.25): the law
 * holds for u = J v + e + r∘lambda, that is W + diag(r) = diag(2, 1.25,
 * 1.25) in place of W = I. Known solutions (v_z < 0: the compliant contact
 * sinks by r_n lambda_n):
 *   open  lambda = 0,               v = (0, 0, 1)
 *   stick lambda = (0.5, -0.08, 0), v = (0.02, 0, -0.5)
 *   slip  lambda = (0.5, -0.25, 0), v = (1.75, 0, -0.5)
 * where the rigid solution (fx_point_solution) is wrong. */
mcb_problem *fx_compliant(int state);
/* One contact with anisotropic friction (mu 1 along t1, mu2 0.25 along t2;
 * A = J = I, rows [n, t1, t2], free velocity (-1, 1.2, 3.4)): the maximal
 * dissipation solution lambda = (1, -0.6, -0.2), v = (0, 0.6, 3.2), by hand
 * in tests/fixtures.c; the friction is not opposite to the sliding. */
mcb_problem *fx_aniso_slide(void);
void fx_aniso_slide_solution(double v[3], double lambda[3]);
/* Its dual form: W = I, q = (-1, 1.2, 3.4), the same lambda. */
mcb_problem *fx_aniso_slide_dual(void);
void fx_compliant_solution(int state, double v[3], double lambda[3]);
/* The same in dual form: W = I, q as fx_point_contact_dual, the same r. */
mcb_problem *fx_compliant_dual(int state);

/* Six DOFs (diagonal A), one block of each type: bilateral (row 0),
 * unilateral (row 1), soft (row 2, k 10, alpha 0.5), contact (rows 3-5, mu 0.4). */
mcb_problem *fx_mixed(void);

/* fx_mixed with the unilateral row's offset e_1 = 0 instead of 0.2: at the
 * solution every row is active, the unilateral one with lambda_1 = 0.4386
 * and J_1 v + e_1 = 0 (fx_mixed's is inactive, lambda_1 = 0), the contact
 * sliding (lambda_n = 0.147, ||lambda_t|| = mu lambda_n). */
mcb_problem *fx_mixed_active(void);

/* One DOF, one scalar row of the given type: A = [a], b = [b], J = [1],
 * e = [e]; k and alpha for a soft row. */
mcb_problem *fx_one_row(int type, double a, double b, double e, double k, double alpha);

/* A 2x2x2 sphere stack step from the generator (8 subsystems). */
mcb_problem *fx_small_stack(void);
/* Siconos' GFC3D_Example1 (one contact on a dense 3-DOF body, mu 0.5). */
mcb_problem *fx_gfc3d_example1(void);

/* An LCP in dual form from dense row-major arrays: u = W z + q + r∘z
 * (r may be NULL: no compliance), every row its own unilateral block. */
mcb_problem *fx_dense_lcp(int m, const double *W, const double *q, const double *r);

/* Builds a primal problem from dense row-major arrays (for tests). */
mcb_problem *fx_dense_primal(int n, int m, const double *A, const double *b, const double *J,
                             const double *e);

/* ---- files */
#include "lib/mcb_results.h"
/* The contents of DIR/NAME, NUL-terminated (free it), or NULL. */
char *fx_slurp(const char *dir, const char *name);
/* runs[0..n) written as a campaign writes them: into the journal of h5,
 * then h5 and csv from the journal, which is removed. */
mcb_rc fx_write_results(const char *h5, const char *csv, const mcb_results_data *ctx,
                        const mcb_run_rec *runs, int n, mcb_err *err);

#endif
