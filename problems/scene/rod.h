/* rod.h: a discrete elastic rod (a cable) for the scene engine: N rigid
 * cylinder segments (free rigid bodies of the world) coupled at their
 * shared end points by soft joints whose stiffnesses come from a Cosserat
 * rod (shear, stretch, bending, twist), as in the SubADMM paper's cable
 * scene (Sec. IV-A 2: 640 segments, 1.2 m, diameter 8 mm, E = 0.1 MPa,
 * nu = 0.49, 4 segments per subsystem). docs/rod.md derives every number.
 *
 * Segment k's frame: origin at its centre of mass (the middle of the
 * segment), local z along the rod from end point k to end point k + 1,
 * local x and y the cross axes, parallel-transported from segment to
 * segment (so the start shape carries no twist). Segment k spans local
 * z in [-l/2, l/2], l = length / segments.
 *
 * The world wants bodies before robots (robot link indices would shift)
 * and joints after every body: mcb_rod_add_bodies adds the segments (and
 * their shapes, and merges them into subsystems), mcb_rod_add_joints the
 * soft couplings, to be called after every body and robot is in. Nothing
 * here keeps state: the rod is the bodies first .. first + segments - 1. */
#ifndef MCB_SCENE_ROD_H
#define MCB_SCENE_ROD_H

#include "problems/scene/world.h"

/* Collision group of a rod when opts.group is 0 (the world gives robots
 * 2^24 + their index). */
#define MCB_ROD_GROUP_DEFAULT (1 << 28)

typedef struct {
    double length_m;      /* rest length of the whole rod */
    double diameter_m;    /* solid circular cross-section */
    double youngs_pa;     /* E */
    double poisson;       /* nu, in (-1, 0.5) */
    double density_kg_m3; /* segment mass = density A l */
    int segments;         /* N >= 1 */
    double shear_factor;  /* kappa of the shear stiffness kappa G A / l
                             (0: Cowper's 6 (1 + nu) / (7 + 6 nu)) */
    double damping_s;     /* stiffness-proportional damping D = damping_s K
                             per joint row (>= 0) */
    double start[3];      /* straight rod: end point 0 (world) */
    double dir[3];        /* straight rod: direction (normalised here) */
    const double *nodes;  /* or NULL: the N + 1 end points (3 each, world),
                             consecutive ones l apart (relative 1e-6) */
    int per_subsystem;    /* segments merged into one subsystem (1: none) */
    double mu;            /* friction of the segments' shapes */
    int group;            /* collision group (> 0; 0: MCB_ROD_GROUP_DEFAULT) */
} mcb_rod_opts;

/* The SubADMM paper's cable: 1.2 m, 8 mm, E = 0.1 MPa, nu = 0.49,
 * density 1100 kg/m^3 (silicone rubber; the paper gives none), 640
 * segments, Cowper's shear factor, damping 5 ms, straight along +x from
 * the origin, 4 segments per subsystem, mu 0.5, the default group. */
void mcb_rod_defaults(mcb_rod_opts *o);

/* What the options give (docs/rod.md): segment length and mass, its
 * inertia about its centre of mass (axial and transverse), and the joint
 * stiffnesses (N/m, N m/rad) and dampings (N s/m, N m s/rad). */
typedef struct {
    double seg_length_m, seg_mass_kg;
    double inertia_axial, inertia_transverse; /* kg m^2 */
    double area_m2, second_moment_m4, polar_moment_m4, shear_modulus_pa;
    double k_shear, k_stretch, k_bend, k_twist;
    double d_shear, d_stretch, d_bend, d_twist;
} mcb_rod_props;

/* Checks the options and computes the properties (MCB_E_INPUT naming the
 * bad field). */
mcb_rc mcb_rod_properties(const mcb_rod_opts *o, mcb_rod_props *p, mcb_err *err);

/* Adds the segments as free rigid bodies at rest (one sphere, or a
 * capsule when the segment is longer than its diameter, per segment, all
 * in the rod's collision group so they never collide with each other) and
 * merges them into subsystems of opts.per_subsystem. *first_body receives
 * the scene index of segment 0 (valid until a free body is added after a
 * robot: add the rod before any robot). */
mcb_rc mcb_rod_add_bodies(mcb_world *w, const mcb_rod_opts *o, int *first_body, mcb_err *err);

/* Adds the N - 1 pairs of soft joints between consecutive segments k and
 * k + 1 (bodies first_body + k): an MCB_WJ_POINT joint at their shared end
 * point (rows along segment k's x, y: shear, z: stretch) and an
 * MCB_WJ_ANGULAR joint (rows about x, y: bending, z: twist) with the rest
 * shape straight and untwisted. Joint indices first_joint, first_joint + 1
 * (point then angular per pair, in segment order); first_joint may be
 * NULL. */
mcb_rc mcb_rod_add_joints(mcb_world *w, const mcb_rod_opts *o, int first_body, int *first_joint,
                          mcb_err *err);

/* A hard weld (a clamp) of the rod's segment `seg` (scene index) to body
 * a (scene index; -1: the static world): an MCB_WJ_POINT joint between
 * point pa of a (its frame; world coordinates for -1) and point pb of the
 * segment (its frame, e.g. an end point, mcb_rod_end_point), rest offset
 * zero, so the two points must coincide when it is added; then an
 * MCB_WJ_ANGULAR joint holding the present relative orientation. The
 * point joint's index in *joint (may be NULL; the angular one follows). */
mcb_rc mcb_rod_weld(mcb_world *w, int a, const double pa[3], int seg, const double pb[3],
                    int *joint, mcb_err *err);

/* The end points of segment k in its frame: -l/2 (end 0) or +l/2 (end 1)
 * along z, for the scene's joints at the rod's ends. */
void mcb_rod_end_point(const mcb_rod_opts *o, int end, double p[3]);

#endif
