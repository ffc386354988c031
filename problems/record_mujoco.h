/* record_mujoco.h: `mcbench record mujoco MODEL.xml`: steps an MJCF model
 * with MuJoCo and records the chosen steps' constraint problems, exactly as
 * MuJoCo solved them, with MuJoCo's solution as the reference (issue 12,
 * docs/mujoco.md).
 *
 * Each recorded problem holds the velocity-level problem of the step
 * (solvers/peers/mujoco_peer.h gives the mapping: A = M, b = M qvel + h qfrc_smooth,
 * J = efc_J, e = -(J qvel + h efc_aref), r = efc_R), MuJoCo's solution as
 * reference/{v, lambda} (v = qvel + h qacc, lambda = h efc_force), MuJoCo's
 * warm start as init/{v, lambda} (v = qvel + h qacc_warmstart, the previous
 * step's acceleration, and lambda = h times MuJoCo's force at it,
 * mj_constraintUpdate on J qacc_warmstart - aref), the notes (MuJoCo's solver, its iterations, the time of
 * its constraint solve, the rows left out) and the provenance the mujoco_*
 * peers need (P->mujoco: mj_saveModel's bytes and the state before the
 * step). Deterministic for fixed options: control noise comes from mcb_rng
 * with a fixed seed; with timing off the file is byte-for-byte the same. */
#ifndef MCB_RECORD_MUJOCO_H
#define MCB_RECORD_MUJOCO_H

#include <stddef.h>

#include "lib/mcb_problem.h"

typedef enum { MCB_MJ_CONE_MODEL = -1, MCB_MJ_CONE_PYRAMIDAL = 0, MCB_MJ_CONE_ELLIPTIC = 1 } mcb_mj_cone;
typedef enum { MCB_MJ_CTRL_NOISE = 0, MCB_MJ_CTRL_ZERO = 1 } mcb_mj_ctrl;

typedef struct {
    const char *model_path; /* an MJCF (.xml) or MJB file */
    int steps;              /* steps simulated, >= 1 */
    int every;              /* record every k-th step (steps k-1, 2k-1, ...), >= 1 */
    int cone;               /* mcb_mj_cone: the model's own, or forced */
    int ctrl;               /* mcb_mj_ctrl */
    int strict;             /* rows with no mcbench type are an error */
    int timing;             /* 1: the notes give MuJoCo's solve time (files then differ) */
    unsigned long long seed; /* control noise */
} mcb_record_mujoco_opts;

void mcb_record_mujoco_defaults(mcb_record_mujoco_opts *o);

/* Parses the options after `record mujoco`: "MODEL [--steps N] [--every K]
 * [--cone pyramidal|elliptic] [--ctrl noise|zero] [--seed S] [--strict]
 * [--no-timing]" (argv[0] is the first word after "mujoco"; the command
 * line's -o is not among them). o->model_path points into argv. The
 * message of MCB_E_INPUT names the word at fault. Used by the CLI and by
 * set entries `STEM record mujoco MODEL ...` (sets.c). */
mcb_rc mcb_record_mujoco_parse(int argc, char **argv, mcb_record_mujoco_opts *o, mcb_err *err);

/* The canonical argument string of o ("record mujoco MODEL --steps N
 * --every K --cone C --ctrl X [--strict]"), recorded as every problem's
 * source (a set build reuses a file whose problems record the same). */
void mcb_record_mujoco_args(const mcb_record_mujoco_opts *o, char *buf, size_t len);

/* 1 when mcbench was built with MuJoCo, else 0. */
int mcb_record_mujoco_available(void);

/* Records the model. warn (may be NULL) receives a one-line summary of the
 * rows left out ("" when none). MCB_E_INPUT for a model MuJoCo cannot load,
 * bad options, a MuJoCo error while stepping (njmax too small, ...), rows
 * with no mcbench type under strict, or a build without MuJoCo. */
mcb_rc mcb_record_mujoco(const mcb_record_mujoco_opts *o, mcb_problem_set **out, char *warn,
                         size_t warn_len, mcb_err *err);

#endif
