/* robot_models.h: the built-in robots of the papers (robot_models.c),
 * articulated robots (articulated.h) with their link shapes and PD gains. */
#ifndef MCB_SCENE_ROBOT_MODELS_H
#define MCB_SCENE_ROBOT_MODELS_H

#include "problems/scene/articulated.h"

/* The robots of the papers, approximated by published link masses and
 * dimensions where known (docs/robots.md states each approximation). Each
 * returns a robot with PD gains set for the papers' high-gain control. */
mcb_rc mcb_robot_arm7(const mcb_xform *base, mcb_robot **out, mcb_err *err);        /* 7-DOF arm (Franka-like) */
mcb_rc mcb_robot_quadruped(mcb_robot **out, mcb_err *err);                          /* 18 DOF, floating */
mcb_rc mcb_robot_dual_arm(const mcb_xform *base, mcb_robot **out, mcb_err *err);    /* 28-DOF upper body */
mcb_rc mcb_robot_gripper2(const mcb_xform *base, mcb_robot **out, mcb_err *err);    /* 2-finger gripper */
/* 10-DOF mobile manipulator (SubADMM paper's cable scene): a planar base
 * (prismatic x, prismatic y, revolute yaw about z, from the fixed frame
 * `base`), two driven wheels (links "wheel_l", "wheel_r", revolute about
 * their axle; roll without slipping through MCB_WJ_ROLLING joints that the
 * scene adds) and a 5-DOF arm whose last link is "ee". */
mcb_rc mcb_robot_mobile_manipulator(const mcb_xform *base, mcb_robot **out, mcb_err *err);

#endif
