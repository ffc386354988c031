/* subadmm_tree.h: private to the SubADMM files: body splitting's tree-
 * structured subsystem matrix (subadmm_tree.c; CANAL/SubADMM paper Sec.
 * VI-A, VI-C, eq. (30)-(31), (40)-(41), Appendix A). Not installed. */
#ifndef MCB_SUBADMM_TREE_H
#define MCB_SUBADMM_TREE_H

#include "solvers/subadmm_work.h"

/* Marks the subsystems whose bodies form a kinematic tree (tree = 1, the
 * DOF tree and A_i packed along it) and fills w->last. Before pairs. */
mcb_rc mcb_subadmm_detect_trees(subadmm_work *w, mcb_err *err);
/* For a tree subsystem after the pairs: its bodies' chains and Jb rows,
 * the pairs' Jc rows, J_i and G_i packed along the tree. */
mcb_rc mcb_subadmm_tree_bodies(subadmm_work *w, subsystem *S, const mcb_csc *JcT, mcb_err *err);
/* K = A + beta G and K = L^T L in place; 1 when not positive definite. */
int mcb_subadmm_tree_factor(subsystem *S, double beta);
/* x = (L^T L)^-1 x in place. */
void mcb_subadmm_tree_solve(const subsystem *S, double *x);
/* (15) and (18) for a tree subsystem: v_i, x, y and its theta part (22). */
void mcb_subadmm_update_tree(subadmm_work *w, subsystem *S, double *theta);

#endif
