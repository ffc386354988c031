/* geometry.h: shapes, signed distances and contact generation for the scene
 * engine: sphere, box, capsule, plane (half-space), and signed-distance
 * shapes (a surface of revolution from a 2D profile, as the dishes of the
 * CANAL paper's Appendix B; an ISO metric bolt and nut thread), with contact
 * points, normals and gaps as a simulator produces them (several points per
 * box face, sampled surface points against a signed distance field), a
 * broad phase for scenes of thousands of bodies, and contact clustering
 * above a cap (the CANAL paper caps at 120). geometry.c holds the shapes and
 * distances, contact.c the pairwise tests, the broad phase and clustering. */
#ifndef MCB_SCENE_GEOMETRY_H
#define MCB_SCENE_GEOMETRY_H

#include "lib/mcb_error.h"
#include "problems/scene/spatial.h"

typedef enum {
    MCB_SHAPE_SPHERE = 0,     /* size[0] radius */
    MCB_SHAPE_BOX = 1,        /* size = half extents */
    MCB_SHAPE_CAPSULE = 2,    /* size[0] radius, size[1] half length along local z */
    MCB_SHAPE_PLANE = 3,      /* the half-space local z <= 0 (static only) */
    MCB_SHAPE_REVOLUTION = 4, /* a thin shell of revolution about local z (sdf) */
    MCB_SHAPE_BOLT = 5,       /* external ISO metric thread about local z (sdf) */
    MCB_SHAPE_NUT = 6         /* internal ISO metric thread, hexagonal outside (sdf) */
} mcb_shape_type;

/* A profile of revolution: the shell's mid-surface is the polyline
 * (r[k], z[k]), k = 0..npts-1, revolved about the local z axis; the shell
 * has thickness `thickness` (so the solid is the set within thickness/2 of
 * the mid-surface). Used for bowls, plates, pots and bottles. */
#define MCB_PROFILE_MAX 32
typedef struct {
    int npts;
    double r[MCB_PROFILE_MAX], z[MCB_PROFILE_MAX];
    double thickness;
} mcb_profile;

/* An ISO metric thread (ISO 68-1 basic profile) about local z, from
 * z = 0 to z = length: nominal diameter d, pitch P. A bolt is the solid
 * inside the external thread; a nut is the solid between the internal
 * thread and a hexagonal prism of width across flats `across_flats`. */
typedef struct {
    double d, pitch, length, across_flats;
} mcb_thread;

typedef struct {
    int type;            /* mcb_shape_type */
    int body;            /* scene body index; -1: static (the world) */
    mcb_xform local;     /* shape frame in the body frame (world for static) */
    double size[3];
    mcb_profile profile; /* MCB_SHAPE_REVOLUTION */
    mcb_thread thread;   /* MCB_SHAPE_BOLT, MCB_SHAPE_NUT */
    double mu;           /* friction; a pair uses the smaller of its two */
    /* anisotropic friction (static shapes only; aniso 0: isotropic, mu2
     * and axis1 unused): mu along axis1 (world, projected on each
     * contact's tangent plane: the contact's t1), mu2 along n x t1 (its
     * t2); a pair with an isotropic shape of friction mu_o takes
     * min(mu, mu_o) and min(mu2, mu_o) (docs/problem-format.md, "Scene
     * frames") */
    double mu2;
    double axis1[3];
    int aniso;
    int group;           /* shapes with the same group > 0 never collide */
    double spacing;      /* surface sample spacing of sdf shapes (m); 0: a default */
} mcb_shape;

/* Signed distance from the world point x to shape s placed at X (shape
 * frame to world = X * s->local is the caller's job: X here is the shape
 * frame in world), negative inside, and its unit gradient (the outward
 * normal at the nearest surface point) in world coordinates. Exact for
 * sphere, box, capsule, plane and shells of revolution; for the threads an
 * over-estimate by at most 5.5e-4 of the distance (docs/geometry.md). */
double mcb_shape_sdf(const mcb_shape *s, const mcb_xform *X, const double x[3], double grad[3]);

/* Mass properties of a thin shell of revolution of total mass m with the
 * profile's mid-surface (uniform areal density): the height zc of its centre
 * of mass on the axis (shape frame) and its inertia about the centre of
 * mass (diagonal, Ixx = Iyy), by summing rings of area 2 pi r ds over each
 * profile segment (64 per segment). */
void mcb_profile_shell_mass(const mcb_profile *p, double m, double *zc, double I[9]);

/* Axis-aligned bounding box in world of shape s with frame X, grown by
 * margin. Planes get an infinite box. */
void mcb_shape_aabb(const mcb_shape *s, const mcb_xform *X, double margin, double lo[3],
                    double hi[3]);

/* Surface samples of an sdf shape (and of a box: its corners and face
 * points) in the shape frame, deterministic, about `spacing` apart; returns
 * the count (all of them even if > cap). */
int mcb_shape_samples(const mcb_shape *s, double *pts, int cap);

/* One contact between two bodies. */
typedef struct {
    int body_a, body_b; /* scene body indices; body_b = -1: static */
    int shape_a, shape_b;
    double p[3];        /* contact point in world, midway between the surfaces */
    double n[3];        /* unit normal, pointing from b towards a */
    double gap;         /* signed distance along n, < 0 when penetrating */
    double mu;
    double mu2, t1[3];  /* mu2 NaN: isotropic (t1 unused, 0); else friction
                           mu along t1, mu2 along t2 = n x t1 (no int flag:
                           a contact has no padding, callers memcmp them) */
    unsigned long long key; /* identifies the contact across steps (shape
                               pair and feature) for warm starts */
} mcb_contact;

/* Contacts between shapes a and b (a's body != b's body) with frames Xa,
 * Xb in world, closer than margin; appends at most cap to out; returns the
 * number found (all of them, even if > cap). Every pair of the supported
 * types is handled: primitive pairs analytically (box-box and box-plane by
 * corner and edge points, several points per face); a pair involving an
 * sdf shape by sampling the surface of one against the distance of the
 * other. Normals point from b to a. */
int mcb_collide(const mcb_shape *a, const mcb_xform *Xa, int ia, const mcb_shape *b,
                const mcb_xform *Xb, int ib, double margin, mcb_contact *out, int cap);

/* All contacts among nshapes shapes whose world frames are X[k] (shape k's
 * frame in world, body pose times local), with a broad phase (sort and
 * sweep on AABBs): pairs on the same body, pairs of static shapes and pairs
 * of the same group > 0 are skipped. *out grows as needed (realloc; the
 * caller frees it, and may pass the previous step's buffer and capacity).
 * Deterministic: the order depends only on the input. */
mcb_rc mcb_contacts_detect(const mcb_shape *shapes, const mcb_xform *X, int nshapes, double margin,
                           mcb_contact **out, int *count, int *capacity, mcb_err *err);

/* The surface samples of sdf shapes kept between calls (a world's, across
 * its steps): shape k's samples are computed once and reused while shape k
 * keeps its type, size, profile, thread and spacing (compared at each
 * call), so the contacts are those of mcb_contacts_detect bit for bit. */
typedef struct mcb_sample_cache mcb_sample_cache;
void mcb_sample_cache_free(mcb_sample_cache **cache); /* accepts NULL */

/* mcb_contacts_detect with the samples kept in *cache (created when NULL;
 * the caller frees it with mcb_sample_cache_free). */
mcb_rc mcb_contacts_detect_cached(const mcb_shape *shapes, const mcb_xform *X, int nshapes,
                                  double margin, mcb_sample_cache **cache, mcb_contact **out,
                                  int *count, int *capacity, mcb_err *err);

/* Reduces the contacts between each pair of bodies to at most cap_per_pair
 * (and all contacts to at most cap_total; 0: no cap) by clustering their
 * points (deterministic farthest-point seeds then k-means on positions, each
 * cluster represented by its deepest contact); compacts c in place and
 * returns the new count. */
int mcb_contacts_cluster(mcb_contact *c, int nc, int cap_per_pair, int cap_total);

#endif
