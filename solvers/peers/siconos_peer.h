/* siconos_peer.h: the Siconos peer (solvers/peers/): our problems as Siconos numerics 4.4 problems, and the
 * residual Siconos computes for a solution.
 *
 * Built only when Siconos numerics is found (MCB_HAVE_SICONOS). Siconos'
 * friction-contact problems hold contacts only:
 *   primal (gfc3d):  M v = q + H r,  u = H^T v + b   with M = A, H = J^T,
 *                    q = b (ours), b = e (ours), r = lambda;
 *   dual (fc3d):     u = M r + q                      with M = W, q = q.
 * A problem with other constraint types is refused (MCB_E_INPUT, with the
 * reason in err). */
#ifndef MCB_SICONOS_PEER_H
#define MCB_SICONOS_PEER_H

#include "lib/mcb_problem.h"

typedef struct mcb_siconos_problem mcb_siconos_problem;

/* MCB_OK when Siconos can hold P (contacts only, at least one); otherwise
 * MCB_E_INPUT with the reason in err. */
mcb_rc mcb_siconos_check(const mcb_problem *P, mcb_err *err);

/* Converts P (validated). Copies everything: P may be freed afterwards. */
mcb_rc mcb_siconos_convert(const mcb_problem *P, mcb_siconos_problem **out, mcb_err *err);
void mcb_siconos_free(mcb_siconos_problem **S); /* accepts NULL */

/* The Siconos problem behind S: a GlobalFrictionContactProblem* for primal
 * problems, a FrictionContactProblem* for dual ones (as void*, so that this
 * header does not pull in Siconos'). */
void *mcb_siconos_global(mcb_siconos_problem *S);
void *mcb_siconos_local(mcb_siconos_problem *S);

/* Frees a SolverOptions* from solver_options_create, with its internal
 * solvers' options (Siconos' solver_options_delete frees only their
 * contents). Accepts NULL. */
void mcb_siconos_options_free(void *options);

/* The error Siconos reports for (v, lambda): gfc3d_compute_error for primal
 * problems (v used, u recomputed), fc3d_compute_error for dual ones (v
 * ignored, u = W lambda + q), with the normalisation Siconos' own drivers
 * use. */
mcb_rc mcb_siconos_error(mcb_siconos_problem *S, const double *v, const double *lambda,
                         double *error, mcb_err *err);

#endif
