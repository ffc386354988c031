/* mcb_problem.h: the problem model.
 *
 * Primal form (the simulator's subproblem, SubADMM paper eq. (8)):
 *     A v = b + J^T lambda,   (J v + e, lambda) in S
 * with A (n x n, sparse SPD), J (m x n), b (n), e (m).
 * Dual form (FCLIB local problems): u = W lambda + q, (u, lambda) in S,
 * with W (m x m) and q (m); there are no v, A, b, J or e.
 *
 * S is a product of per-block sets, one per constraint block; the blocks
 * cover the rows 0..m-1 in order, without gaps or overlaps:
 *   bilateral:  J_i v + e_i = 0, lambda_i free                     (any rows)
 *   unilateral: 0 <= lambda_i  ⊥  J_i v + e_i >= 0                 (per row)
 *   soft:       lambda_i = -k (e_i + alpha J_i v)                  (eq. 3)
 *   contact:    3 rows [n, t1, t2], Signorini-Coulomb with mu       (eq. 5)
 *   contact_ccp: 3 rows [n, t1, t2], Anitescu's cone complementarity with mu:
 *               (u, lambda) in K_mu* x K_mu, u ⊥ lambda (the Coulomb law
 *               without the mu ||u_t|| term: a sliding contact separates
 *               at u_n = mu ||u_t||; Tasora-Negrut eq. (5)-(7))
 *
 * Per-row compliance r (format 4, optional, r_i >= 0; NULL = all zero):
 * every law above applies to
 *     u = J v + e + r∘lambda     (primal)
 *     u = W lambda + q + r∘lambda (dual)
 * instead of J v + e (W lambda + q): a compliant row is the same law with
 * W + diag(r) in place of W (MuJoCo's regularizer R, issue 12). Soft rows
 * carry their own stiffness and take no compliance (r_i = 0 there).
 */
#ifndef MCB_PROBLEM_H
#define MCB_PROBLEM_H

#include "lib/mcb_sparse.h"

typedef enum {
    MCB_BILATERAL = 0,
    MCB_UNILATERAL = 1,
    MCB_SOFT = 2,
    MCB_CONTACT = 3,
    MCB_CONTACT_CCP = 4
} mcb_ctype;
#define MCB_NCTYPES 5
const char *mcb_ctype_name(int type); /* "bilateral", ...; "unknown" */
/* 1 for the 3-row friction-cone blocks (contact and contact_ccp). */
static inline int mcb_is_contact(int type)
{
    return type == MCB_CONTACT || type == MCB_CONTACT_CCP;
}

typedef struct {
    int type;     /* mcb_ctype (int: files may hold unknown codes) */
    int row;      /* first row in J (or W) */
    int nrows;    /* 3 for a contact */
    double mu;    /* contact friction coefficient, >= 0 */
    double k;     /* soft stiffness, >= 0 */
    double alpha; /* soft damping factor, >= 0 */
} mcb_block;

typedef enum { MCB_PRIMAL = 0, MCB_DUAL = 1 } mcb_form;

/* Provenance of a problem recorded from MuJoCo (format 4, optional;
 * docs/mujoco.md): the compiled model as mj_saveModel writes it and the
 * state before the step, enough for MuJoCo to solve the step again. */
typedef struct {
    unsigned char *model; /* mj_saveModel's bytes */
    long model_bytes;     /* > 0 */
    int nq, nv, na, nu;   /* the model's sizes (nv = the problem's n) */
    double *qpos, *qvel, *act, *ctrl; /* nq, nv, na, nu (NULL when 0) */
    double *qacc_warmstart;           /* nv: MuJoCo's warm start */
    double time;                      /* simulation time (s) */
    int contacts; /* MuJoCo's contacts in the step's rows, -1 unknown: pyramidal ones are
                     unilateral rows, not contact blocks (the record summary counts them) */
} mcb_mujoco;
void mcb_mujoco_free(mcb_mujoco **S); /* accepts NULL */
mcb_mujoco *mcb_mujoco_copy(const mcb_mujoco *S);
const char *mcb_form_name(int form);

typedef struct {
    /* metadata */
    char *name;   /* unique within a file */
    char *source; /* where it came from (generator, importer + file) */
    char *scene;  /* scene name */
    char *notes;  /* free text */
    double h;     /* time step (s), 0 if unknown */
    int step;     /* step index in its recorded sequence */

    int form;     /* mcb_form */
    int n;        /* degrees of freedom (0 for dual problems) */
    int m;        /* constraint rows */
    mcb_csc *A, *J; /* primal */
    double *b, *e;
    mcb_csc *W;   /* dual */
    double *q;

    int nblocks;
    mcb_block *blocks;

    /* subsystems: DOF ranges [sub_start[s], sub_start[s+1]), nsub of them,
     * with A block diagonal over them (primal only; 0 and NULL for dual) */
    int nsub;
    int *sub_start;

    /* per-row compliance (format 4; NULL when absent = all zero): the laws
     * apply to u = J v + e + r∘lambda (W lambda + q + r∘lambda); m entries,
     * finite, >= 0, zero on soft rows */
    double *r;

    /* optional (NULL when absent) */
    double *v0, *lambda0;       /* initial guess */
    double *v_ref, *lambda_ref; /* reference solution */

    /* optional scene descriptors (format 3; NaN when unknown) */
    double mass_ratio; /* largest ratio of two bodies' masses in the scene */
    double cond_est;   /* estimate of cond(J A^-1 J^T) over its nonzero spectrum */

    /* optional body factorization of J through body velocities (format 3;
     * nbodies = 0 and NULL when absent; CANAL paper eq. (30)-(31)):
     *     J = Jc Jb,  Jc (m x 6 nbodies),  Jb (6 nbodies x n)
     * Body k's twist is rows 6k..6k+5 of Jb v: the linear velocity of the
     * body frame's origin then the angular velocity, both in world
     * coordinates. Jc maps body twists to constraint rows; Jb maps DOFs to
     * body twists (the identity block for a free rigid body, the link
     * Jacobian for a link of a robot). body_parent is the kinematic tree
     * (-1 for a root: a free body or a robot's base) and body_sub the
     * subsystem each body's twist depends on. */
    int nbodies;
    mcb_csc *Jc, *Jb;
    int *body_parent, *body_sub;

    /* optional MuJoCo provenance (format 4; NULL when absent) */
    mcb_mujoco *mujoco;

    /* optional descriptor (format 4, optional; last, so that the layout
     * before it is unchanged): the numerical rank of J (primal) or W
     * (dual) by a rank-revealing QR, and that QR's column-norm tolerance
     * (-1 and NaN when unknown) */
    int rank;
    double rank_tol;

    /* optional descriptor (format 4, optional; last, as above):
     * psd_defect = max(0, -lambda_min(W)) / ||W||_2 of a dual W
     * (mcb_psd.h), measured on import; 0 when W is positive semidefinite
     * to working precision; NaN when unknown or primal */
    double psd_defect;

    /* optional anisotropic friction (format 5; NULL when absent = every
     * contact isotropic; last, as above): per block, the second friction
     * coefficient of a contact's elliptic cone
     *     ||diag(1/mu, 1/mu2) lambda_t|| <= lambda_n
     * (mu along t1, mu2 along t2; COND paper eq. (12)) with the maximal
     * dissipation principle; NaN = isotropic (mu2 = mu), NaN on every
     * non-contact block. lib/mcb_aniso.h maps such a problem onto an
     * isotropic one (docs/problem-format.md). */
    double *mu2;
} mcb_problem;

mcb_problem *mcb_problem_new(void);
void mcb_problem_free(mcb_problem **P); /* accepts NULL */

/* A dual problem's W off symmetry beyond MCB_SYM_TOL (an importer's file
 * stores what its simulator assembled) becomes (W + W^T) / 2, and the notes
 * say by how much; a symmetric W is left alone. */
mcb_rc mcb_problem_symmetrize_w(mcb_problem *P, mcb_err *err);

/* Measures a dual problem's psd_defect (mcb_psd_measure, the full figure)
 * into P->psd_defect; a W indefinite beyond working precision but within
 * the round-off allowance MCB_PSD_TOL also gets a note saying by how much.
 * For a validated problem (an importer calls it after
 * mcb_problem_validate); a primal problem or m = 0 is left alone. */
mcb_rc mcb_problem_note_psd(mcb_problem *P, mcb_err *err);

/* The end every importer shares: when rc (the import so far) is MCB_OK,
 * infers P's subsystems, validates it against `path` and notes its
 * psd_defect, then hands P over in *out; on any failure frees P and returns
 * the failure. P may be NULL when rc is not MCB_OK. */
mcb_rc mcb_problem_finish_import(mcb_problem *P, const char *path, mcb_rc rc, mcb_problem **out,
                                 mcb_err *err);

/* Row i's compliance: 0 when the problem has none. */
static inline double mcb_problem_r(const mcb_problem *P, int i)
{
    return P->r ? P->r[i] : 0.0;
}
/* Block b's second friction coefficient: mu2[b], or mu when isotropic. */
static inline double mcb_problem_mu2(const mcb_problem *P, int b)
{
    return P->mu2 && P->mu2[b] == P->mu2[b] ? P->mu2[b] : P->blocks[b].mu;
}
/* 1 when some contact block has a finite mu2 (even one equal to its mu:
 * lib/mcb_aniso.h then maps it all the same). */
int mcb_problem_is_aniso(const mcb_problem *P);

/* 1 when some row has a nonzero compliance (an all-zero r counts as none). */
int mcb_problem_has_compliance(const mcb_problem *P);

/* W + diag(r) as a new matrix (W square, r of W->n entries; r NULL: a copy
 * of W): the compliant operator of a dual problem, or of a Delassus
 * operator. Diagonal entries W lacks are inserted where r_i != 0; the
 * pattern stays sorted. NULL on allocation failure. */
mcb_csc *mcb_csc_add_diag(const mcb_csc *W, const double *r);

/* Counts blocks of a type. */
int mcb_problem_count(const mcb_problem *P, int type);
/* Counts the contacts of either law (contact and contact_ccp blocks). */
int mcb_problem_contacts(const mcb_problem *P);

/* Infers the subsystem partition from A's connected components, renumbering
 * nothing: components that are not contiguous DOF ranges are merged with
 * everything in between (the partition stays contiguous and A stays block
 * diagonal over it). Replaces any existing partition. */
mcb_rc mcb_problem_infer_subsystems(mcb_problem *P, mcb_err *err);

/* Relative symmetry tolerance for A and W: max |M_ij - M_ji| / max |M_ij|. */
#define MCB_SYM_TOL 1e-12

/* Checks everything the file format promises (see docs/problem-format.md):
 * shapes, finiteness, sorted unique sparse indices, symmetry and positive
 * definiteness of A (Cholesky), symmetry, a positive diagonal and positive
 * semidefiniteness of a dual-form W (Cholesky of W + 1e-10 max_i W_ii I),
 * block list, parameters, partition. `where` prefixes the message (file and
 * problem). */
mcb_rc mcb_problem_validate(const mcb_problem *P, const char *where, mcb_err *err);
/* The MuJoCo provenance's shapes (part of mcb_problem_validate): a model of
 * model_bytes > 0, sizes >= 0 with nv = n of a primal problem, every state
 * vector present (act, ctrl when na, nu > 0) and finite, time finite. */
mcb_rc mcb_mujoco_check(const mcb_problem *P, const char *where, mcb_err *err);

/* Structure of one CSC matrix: shape m x n, pointers, index range, sorted
 * unique rows per column, finite values. */
mcb_rc mcb_csc_check(const mcb_csc *M, const char *where, const char *name, int m, int n,
                     mcb_err *err);

/* Deep copy. */
mcb_problem *mcb_problem_copy(const mcb_problem *P);

/* A set of problems (one file). */
typedef struct {
    int count;
    mcb_problem **items;
} mcb_problem_set;

void mcb_problem_set_free(mcb_problem_set **S);
mcb_rc mcb_problem_set_push(mcb_problem_set *S, mcb_problem *P, mcb_err *err);
/* A new set holding P alone; the set owns P, and on failure P is freed
 * (*P set to NULL either way). */
mcb_rc mcb_problem_set_of_one(mcb_problem **P, mcb_problem_set **out, mcb_err *err);

#endif
