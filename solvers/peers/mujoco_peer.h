/* mujoco_peer.h: MuJoCo 2.2.2's constraint problem in mcbench's model, shared by
 * the recorder (problems/record_mujoco.c) and the mujoco_* peer solvers
 * (solvers/peers/mujoco_peer.c), so that both map MuJoCo's rows the same way.
 *
 * The mapping (docs/mujoco.md derives it and checks it on one contact):
 * after MuJoCo's mj_fwdConstraint at step size h,
 *     A = M (qM, sparse over the kinematic trees), b = M qvel + h qfrc_smooth,
 *     J = efc_J, e = -(J qvel + h efc_aref), r = efc_R,
 *     v = qvel + h qacc, lambda = h efc_force,
 * and the law holds for (J v + e + r lambda, lambda). Rows:
 *     equality                     -> bilateral (one block per equality)
 *     joint and tendon limits      -> unilateral
 *     frictionless contacts        -> unilateral
 *     pyramidal contacts (any dim) -> their 2 (dim - 1) edge rows, unilateral
 *     elliptic contacts, dim 3     -> contact_ccp (mu = friction[0])
 *     dof and tendon friction loss, elliptic dim 4 and 6 -> no mcbench type:
 *         left out (counted; their force h f enters b as a known force,
 *         b += J_k^T h f_k, so the recorded solution still satisfies the
 *         dynamics), or an error when strict.
 *
 * Everything here returns an mcb_rc: MuJoCo's own errors (which would exit
 * the process) are caught (mcb_mj_guard_*) and become messages. */
#ifndef MCB_MUJOCO_PEER_H
#define MCB_MUJOCO_PEER_H

#include <mujoco/mujoco.h>

#include "lib/mcb_problem.h"

/* What the mapping did with MuJoCo's rows. */
typedef struct {
    int nefc;                   /* MuJoCo's rows */
    int equality_rows, limit_rows, frictionless_rows, pyramidal_rows, elliptic3_contacts;
    int left_out_rows;          /* friction loss and elliptic dim 4/6 rows */
    int frictionloss_rows, elliptic_other_contacts;
    int contacts;               /* MuJoCo contacts with rows, any cone or condim: a pyramidal
                                   contact's edges are unilateral rows, not contact blocks */
} mcb_mj_counts;

/* Builds the problem of d's last constraint solve (d after mj_forward or
 * the recorder's stages): form, n, m, A, b, J, e, r, blocks, subsystems
 * (one per kinematic tree) and h. rowmap (length m, malloc'ed, may be
 * NULL) gives MuJoCo's efc row of every mcbench row. strict: a row with no
 * mcbench type is an error instead of being left out. */
mcb_rc mcb_mj_problem(const mjModel *m, const mjData *d, int strict, mcb_problem **out,
                      int **rowmap, mcb_mj_counts *counts, mcb_err *err);

/* MuJoCo's solution mapped: v = qvel + h qacc (n), lambda[k] = h
 * efc_force[rowmap[k]] (m). Either output may be NULL. */
void mcb_mj_solution(const mjModel *m, const mjData *d, const int *rowmap, int nrows, double *v,
                     double *lambda);

/* The compiled model from mj_saveModel's bytes (through a one-file VFS). */
mcb_rc mcb_mj_load_model(const unsigned char *bytes, long size, mjModel **out, mcb_err *err);

/* Sets d to P's recorded MuJoCo state (qpos, qvel, act, ctrl, time,
 * qacc_warmstart); MCB_E_INPUT when the sizes do not match m. */
mcb_rc mcb_mj_restore(const mjModel *m, mjData *d, const mcb_problem *P, mcb_err *err);

/* Runs the stages of mj_forward before the constraint solve (position with
 * collision and constraint assembly, velocity, actuation, smooth
 * acceleration), as mj_forward does them. */
void mcb_mj_stages_before_constraint(const mjModel *m, mjData *d);

/* MuJoCo's errors call mju_user_error, whose default exits the process.
 * Between guard_arm and guard_end, an error longjmps back to the setjmp
 * (the whole controlling expression of the if, as C requires):
 *     mcb_mj_guard_arm();
 *     if (setjmp(mcb_mj_jmp)) { ...MuJoCo failed: mcb_mj_guard_message()... }
 *     else { ... MuJoCo calls ... }
 *     mcb_mj_guard_end();
 * Locals set after the setjmp and read after a longjmp must be volatile.
 * Warnings are collected silently (the last one in the warning). */
#include <setjmp.h>
extern _Thread_local jmp_buf mcb_mj_jmp;
void mcb_mj_guard_arm(void);
void mcb_mj_guard_end(void);
const char *mcb_mj_guard_message(void);
const char *mcb_mj_guard_warning(void);

/* "PGS", "CG", "Newton" for mjtSolver; "unknown" else. */
const char *mcb_mj_solver_name(int solver);

#endif
