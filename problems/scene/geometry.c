/* geometry.c: the shapes of the scene engine (geometry.h): signed
 * distances with their unit gradients, world AABBs and deterministic
 * surface samples for sphere, box, capsule, plane, the shell of revolution
 * (CANAL paper, Appendix B, eq. (45): the 2D distance to a profile revolved
 * about z, minus a padding), and the ISO 68-1 metric bolt and nut threads.
 * Nothing here allocates; docs/geometry.md states the accuracy. */
#include "problems/scene/geometry.h"

#include <math.h>
#include <string.h>

#define GEOM_PI 3.14159265358979323846

/* ---- 2D helpers (the (r, z) half-plane) ---------------------------------- */

/* Closest point to (px, pz) on the segment (ax, az)-(bx, bz): returns the
 * squared distance and the closest point in (cx, cz). */
static double seg2_closest(double px, double pz, double ax, double az, double bx, double bz,
                           double *cx, double *cz)
{
    double ex = bx - ax, ez = bz - az, l2 = ex * ex + ez * ez;
    double t = l2 > 0 ? ((px - ax) * ex + (pz - az) * ez) / l2 : 0.0;
    t = t < 0 ? 0 : (t > 1 ? 1 : t);
    *cx = ax + t * ex, *cz = az + t * ez;
    double dx = px - *cx, dz = pz - *cz;
    return dx * dx + dz * dz;
}

/* Unsigned distance from (px, pz) to the polyline (x[k], z[k]) and the unit
 * direction from the closest point to p (gx, gz). When p lies on the line
 * (closer than 1e-12 of its coordinates' size, where the direction would
 * be rounding noise) the direction is the left normal of the closest
 * segment and *on is set. */
static double polyline_dist(const double *x, const double *z, int n, double px, double pz,
                            double *gx, double *gz, int *on)
{
    double best = INFINITY, bx = px, bz = pz;
    int bk = 0;
    for (int k = 0; k + 1 < n; k++) {
        double cx, cz, d2 = seg2_closest(px, pz, x[k], z[k], x[k + 1], z[k + 1], &cx, &cz);
        if (d2 < best) best = d2, bx = cx, bz = cz, bk = k;
    }
    if (n == 1) best = (px - x[0]) * (px - x[0]) + (pz - z[0]) * (pz - z[0]), bx = x[0], bz = z[0];
    double d = sqrt(best);
    *on = 0;
    if (d > 1e-12 * (fabs(px) + fabs(pz)) && d > 1e-300) {
        *gx = (px - bx) / d, *gz = (pz - bz) / d;
    } else if (n > 1) {
        double ex = x[bk + 1] - x[bk], ez = z[bk + 1] - z[bk], l = sqrt(ex * ex + ez * ez);
        *gx = l > 0 ? -ez / l : 1.0, *gz = l > 0 ? ex / l : 0.0;
        *on = 1;
    } else {
        *gx = 1.0, *gz = 0.0;
        *on = 1;
    }
    return d;
}

/* ---- local signed distances (shape frame) ------------------------------- */

/* The profile's vertex count, clamped to the array (a bad count never
 * reads past it). */
static int profile_n(const mcb_profile *p)
{
    return p->npts < 0 ? 0 : (p->npts > MCB_PROFILE_MAX ? MCB_PROFILE_MAX : p->npts);
}

/* A usable thread: positive, finite diameter, pitch and length. */
static int thread_ok(const mcb_thread *t)
{
    return t->d > 0 && t->pitch > 0 && t->length >= 0 && isfinite(t->d) && isfinite(t->pitch) &&
           isfinite(t->length) && 0.625 * 0.5 * sqrt(3.0) * t->pitch < 0.5 * t->d;
}

static double sdf_sphere(const mcb_shape *s, const double x[3], double g[3])
{
    double l = mcb_v3_norm(x);
    if (l > 1e-300) g[0] = x[0] / l, g[1] = x[1] / l, g[2] = x[2] / l;
    else g[0] = 0, g[1] = 0, g[2] = 1;
    return l - s->size[0];
}

/* Exact box distance: outside, the norm of the positive excess; inside,
 * the largest (least negative) face distance with that face's normal. */
static double sdf_box(const double h[3], const double x[3], double g[3])
{
    double q[3], out2 = 0;
    int imax = 0;
    for (int k = 0; k < 3; k++) {
        q[k] = fabs(x[k]) - h[k];
        if (q[k] > 0) out2 += q[k] * q[k];
        if (q[k] > q[imax]) imax = k;
    }
    if (out2 > 0) {
        double d = sqrt(out2);
        for (int k = 0; k < 3; k++) g[k] = q[k] > 0 ? (x[k] < 0 ? -q[k] : q[k]) / d : 0.0;
        return d;
    }
    g[0] = g[1] = g[2] = 0;
    g[imax] = x[imax] < 0 ? -1.0 : 1.0;
    return q[imax];
}

static double sdf_capsule(const mcb_shape *s, const double x[3], double g[3])
{
    double hl = s->size[1], cz = x[2] < -hl ? -hl : (x[2] > hl ? hl : x[2]);
    double d[3] = {x[0], x[1], x[2] - cz}, l = mcb_v3_norm(d);
    if (l > 1e-300) g[0] = d[0] / l, g[1] = d[1] / l, g[2] = d[2] / l;
    else g[0] = 1, g[1] = 0, g[2] = 0;
    return l - s->size[0];
}

/* Maps a gradient (dr, dz) in the (r, z) half-plane to 3D at x. */
static void radial_to_3d(const double x[3], double dr, double dz, double g[3])
{
    double r = hypot(x[0], x[1]);
    if (r > 1e-300) g[0] = dr * x[0] / r, g[1] = dr * x[1] / r;
    else g[0] = dr, g[1] = 0;
    g[2] = dz;
}

/* CANAL eq. (45): SDF3(p) = SDF2(sqrt(p1^2 + p2^2), p3), SDF2 the distance
 * to the profile polyline minus the padding thickness/2. */
static double sdf_revolution(const mcb_shape *s, const double x[3], double g[3])
{
    const mcb_profile *pr = &s->profile;
    double r = hypot(x[0], x[1]), gr, gz;
    int on;
    double d = polyline_dist(pr->r, pr->z, profile_n(pr), r, x[2], &gr, &gz, &on);
    radial_to_3d(x, gr, gz, g);
    return d - 0.5 * pr->thickness;
}

/* ISO 68-1 basic profile over one pitch, u in [-P/2, P/2] measured from a
 * crest centre: crest flat P/8 wide at d/2, 60-degree flanks (radial slope
 * sqrt(3) per unit of u), root flat P/4 wide at d/2 - 5H/8, H = sqrt(3)/2 P.
 * Three periods (u in [-3P/2, 3P/2]) so the nearest point of any u in one
 * period lies on the polyline. */
#define THREAD_NPTS 18
static void thread_profile(const mcb_thread *t, double *uu, double *rr)
{
    double P = t->pitch, H = 0.5 * sqrt(3.0) * P, rmaj = 0.5 * t->d, rmin = rmaj - 0.625 * H;
    static const double fu[6] = {-0.5, -0.375, -0.0625, 0.0625, 0.375, 0.5};
    static const int crest[6] = {0, 0, 1, 1, 0, 0};
    for (int k = -1, n = 0; k <= 1; k++)
        for (int j = 0; j < 6; j++, n++) uu[n] = (k + fu[j]) * P, rr[n] = crest[j] ? rmaj : rmin;
}

/* Signed distance to the external thread (negative inside the bolt's
 * threaded solid, no end caps), in the half-plane of x with the helical
 * coordinate z' = z - P phi / (2 pi) wrapped into one pitch; the gradient
 * is the chain rule through z'(phi), normalised. */
static double thread_sdf(const mcb_thread *t, const double x[3], double g[3])
{
    double uu[THREAD_NPTS], rr[THREAD_NPTS], P = t->pitch;
    thread_profile(t, uu, rr);
    double r = hypot(x[0], x[1]), phi = atan2(x[1], x[0]);
    double zp = x[2] - P * phi / (2 * GEOM_PI);
    double u = zp - P * floor(zp / P + 0.5); /* in [-P/2, P/2) */
    double gr, gu;
    int on;
    double d = polyline_dist(rr, uu, THREAD_NPTS, r, u, &gr, &gu, &on);
    /* inside when r below the profile radius at u */
    double au = fabs(u), rp;
    double rmaj = 0.5 * t->d, rmin = rmaj - 0.625 * 0.5 * sqrt(3.0) * P;
    if (au <= 0.0625 * P) rp = rmaj;
    else if (au >= 0.375 * P) rp = rmin;
    else rp = rmaj - sqrt(3.0) * (au - 0.0625 * P);
    double sgn = r < rp ? -1.0 : 1.0;
    d *= sgn, gr *= sgn, gu *= sgn;
    if (on) /* on the surface: the outward normal, the right one of the profile (u increasing) */
        gr = -gr * sgn, gu = -gu * sgn;
    /* grad = gr e_r + gu (e_z - P / (2 pi r) e_phi) */
    double ex = r > 1e-300 ? x[0] / r : 1.0, ey = r > 1e-300 ? x[1] / r : 0.0;
    double w = r > 1e-300 ? P / (2 * GEOM_PI * r) : 0.0;
    g[0] = gr * ex + gu * w * ey;
    g[1] = gr * ey - gu * w * ex;
    g[2] = gu;
    double l = mcb_v3_norm(g);
    for (int k = 0; k < 3; k++) g[k] /= l;
    return d;
}

/* max(d, e) with the gradient of the larger term (an intersection). */
static void take_max(double *d, double g[3], double e, const double ge[3])
{
    if (e > *d) *d = e, g[0] = ge[0], g[1] = ge[1], g[2] = ge[2];
}

static double sdf_bolt(const mcb_shape *s, const double x[3], double g[3])
{
    double d = thread_sdf(&s->thread, x, g);
    double gb[3] = {0, 0, -1}, gt[3] = {0, 0, 1};
    take_max(&d, g, -x[2], gb);
    take_max(&d, g, x[2] - s->thread.length, gt);
    return d;
}

/* The hexagonal prism of width across flats a (flats normal to the local x
 * axis and at +-60 degrees from it). */
static double sdf_hex(double a, const double x[3], double g[3])
{
    double best = -INFINITY;
    for (int k = 0; k < 3; k++) {
        double c = cos(k * GEOM_PI / 3), s = sin(k * GEOM_PI / 3), v = c * x[0] + s * x[1];
        double e = fabs(v) - 0.5 * a;
        if (e > best) best = e, g[0] = v < 0 ? -c : c, g[1] = v < 0 ? -s : s, g[2] = 0;
    }
    return best;
}

static double sdf_nut(const mcb_shape *s, const double x[3], double g[3])
{
    double d = -thread_sdf(&s->thread, x, g);
    for (int k = 0; k < 3; k++) g[k] = -g[k];
    double gh[3] = {1, 0, 0}, gb[3] = {0, 0, -1}, gt[3] = {0, 0, 1};
    double e = sdf_hex(s->thread.across_flats, x, gh);
    take_max(&d, g, e, gh);
    take_max(&d, g, -x[2], gb);
    take_max(&d, g, x[2] - s->thread.length, gt);
    return d;
}

static double sdf_local(const mcb_shape *s, const double x[3], double g[3])
{
    switch (s->type) {
    case MCB_SHAPE_SPHERE: return sdf_sphere(s, x, g);
    case MCB_SHAPE_BOX: return sdf_box(s->size, x, g);
    case MCB_SHAPE_CAPSULE: return sdf_capsule(s, x, g);
    case MCB_SHAPE_PLANE: g[0] = 0, g[1] = 0, g[2] = 1; return x[2];
    case MCB_SHAPE_REVOLUTION: return sdf_revolution(s, x, g);
    case MCB_SHAPE_BOLT:
        if (thread_ok(&s->thread)) return sdf_bolt(s, x, g);
        break;
    case MCB_SHAPE_NUT:
        if (thread_ok(&s->thread)) return sdf_nut(s, x, g);
        break;
    default: break;
    }
    g[0] = 0, g[1] = 0, g[2] = 1; /* not a usable shape: nothing is near it */
    return INFINITY;
}

double mcb_shape_sdf(const mcb_shape *s, const mcb_xform *X, const double x[3], double grad[3])
{
    if (!s || !X || !x) {
        if (grad) grad[0] = 0, grad[1] = 0, grad[2] = 1;
        return INFINITY;
    }
    double d[3] = {x[0] - X->p[0], x[1] - X->p[1], x[2] - X->p[2]}, xl[3], gl[3];
    mcb_m3_tvec(X->R, d, xl);
    double v = sdf_local(s, xl, gl);
    if (grad) mcb_m3_vec(X->R, gl, grad);
    return v;
}

/* ---- bounding boxes ----------------------------------------------------- */

/* World AABB of the local box [lo, hi] under X. */
static void box_to_world(const mcb_xform *X, const double lo[3], const double hi[3],
                         double wlo[3], double whi[3])
{
    double c[3], h[3];
    for (int k = 0; k < 3; k++) c[k] = 0.5 * (lo[k] + hi[k]), h[k] = 0.5 * (hi[k] - lo[k]);
    double wc[3];
    mcb_xform_point(X, c, wc);
    for (int i = 0; i < 3; i++) {
        double e = fabs(X->R[3 * i]) * h[0] + fabs(X->R[3 * i + 1]) * h[1] +
                   fabs(X->R[3 * i + 2]) * h[2];
        wlo[i] = wc[i] - e, whi[i] = wc[i] + e;
    }
}

void mcb_shape_aabb(const mcb_shape *s, const mcb_xform *X, double margin, double lo[3],
                    double hi[3])
{
    double l[3], h[3];
    switch (s && X ? s->type : MCB_SHAPE_PLANE) {
    case MCB_SHAPE_SPHERE:
        for (int k = 0; k < 3; k++) l[k] = -s->size[0], h[k] = s->size[0];
        break;
    case MCB_SHAPE_BOX:
        for (int k = 0; k < 3; k++) l[k] = -s->size[k], h[k] = s->size[k];
        break;
    case MCB_SHAPE_CAPSULE:
        l[0] = l[1] = -s->size[0], h[0] = h[1] = s->size[0];
        l[2] = -s->size[0] - s->size[1], h[2] = s->size[0] + s->size[1];
        break;
    case MCB_SHAPE_REVOLUTION: {
        const mcb_profile *p = &s->profile;
        double rm = 0, zl = INFINITY, zh = -INFINITY, t = 0.5 * p->thickness;
        int np = profile_n(p);
        for (int k = 0; k < np; k++) {
            if (fabs(p->r[k]) > rm) rm = fabs(p->r[k]);
            if (p->z[k] < zl) zl = p->z[k];
            if (p->z[k] > zh) zh = p->z[k];
        }
        if (np <= 0) zl = zh = 0;
        l[0] = l[1] = -rm - t, h[0] = h[1] = rm + t, l[2] = zl - t, h[2] = zh + t;
        break;
    }
    case MCB_SHAPE_BOLT:
        l[0] = l[1] = -0.5 * s->thread.d, h[0] = h[1] = 0.5 * s->thread.d;
        l[2] = 0, h[2] = s->thread.length;
        break;
    case MCB_SHAPE_NUT: {
        double rc = s->thread.across_flats / sqrt(3.0); /* circumradius */
        l[0] = l[1] = -rc, h[0] = h[1] = rc, l[2] = 0, h[2] = s->thread.length;
        break;
    }
    default: /* a plane: infinite */
        for (int k = 0; k < 3; k++) lo[k] = -INFINITY, hi[k] = INFINITY;
        return;
    }
    box_to_world(X, l, h, lo, hi);
    for (int k = 0; k < 3; k++) lo[k] -= margin, hi[k] += margin;
}

/* ---- surface samples ---------------------------------------------------- */

/* A sample writer: counts every point, stores the first cap. */
typedef struct {
    double *pts;
    int cap, n;
} sampler;

static void put(sampler *sm, double x, double y, double z)
{
    if (sm->n < sm->cap && sm->pts) {
        double *p = sm->pts + 3 * (size_t)sm->n;
        p[0] = x, p[1] = y, p[2] = z;
    }
    sm->n++;
}

/* Keeps (x, y, z) only if it lies on the shape's surface (|sdf| <= tol):
 * pieces of a composite surface (thread, caps, flats) are sampled whole
 * and trimmed by the solid's own distance. */
static void put_on(sampler *sm, const mcb_shape *s, double tol, double x, double y, double z)
{
    double p[3] = {x, y, z}, g[3];
    if (fabs(sdf_local(s, p, g)) <= tol) put(sm, x, y, z);
}

static int count_for(double len, double spacing, int minimum)
{
    int n = (int)ceil(len / spacing - 1e-9);
    return n < minimum ? minimum : n;
}

/* The spacing asked for (or the default), raised where needed so that a
 * shape has at most about MAX_SAMPLES samples (twice its bounding box's
 * area over spacing^2). */
#define MAX_SAMPLES 2e6
static double sample_spacing_of(const mcb_shape *s);
static double default_spacing(const mcb_shape *s)
{
    double sp = sample_spacing_of(s), lo[3], hi[3];
    mcb_xform I = mcb_xform_identity();
    mcb_shape_aabb(s, &I, 0, lo, hi);
    double ex = hi[0] - lo[0], ey = hi[1] - lo[1], ez = hi[2] - lo[2];
    double area = 2 * (ex * ey + ey * ez + ex * ez), floor_m = sqrt(2 * area / MAX_SAMPLES);
    return sp > floor_m ? sp : floor_m;
}

static double sample_spacing_of(const mcb_shape *s)
{
    if (s->spacing > 0 && isfinite(s->spacing)) return s->spacing;
    switch (s->type) {
    case MCB_SHAPE_BOLT:
    case MCB_SHAPE_NUT: return 0.25 * s->thread.pitch;
    case MCB_SHAPE_REVOLUTION: {
        double lo[3], hi[3];
        mcb_xform I = mcb_xform_identity();
        mcb_shape_aabb(s, &I, 0, lo, hi);
        double e = hi[0] - lo[0] > hi[2] - lo[2] ? hi[0] - lo[0] : hi[2] - lo[2];
        return e / 24;
    }
    case MCB_SHAPE_BOX: {
        double e = s->size[0] > s->size[1] ? s->size[0] : s->size[1];
        return (e > s->size[2] ? e : s->size[2]) / 2;
    }
    default: return s->size[0] > 0 ? s->size[0] / 2 : 1.0;
    }
}

/* Fibonacci lattice on the sphere of radius r centred at (0, 0, zc),
 * restricted to the hemisphere sign(z - zc) == hemi (0: all). */
static void sample_sphere(sampler *sm, double r, double zc, int hemi, double spacing)
{
    int n = count_for(4 * GEOM_PI * r * r, spacing * spacing, 12);
    double ga = GEOM_PI * (3 - sqrt(5.0));
    for (int i = 0; i < n; i++) {
        double z = 1 - (2 * i + 1.0) / n, rr = sqrt(1 - z * z), a = ga * i;
        if (hemi * z < 0) continue;
        put(sm, r * rr * cos(a), r * rr * sin(a), zc + r * z);
    }
}

/* Box: the 8 corners (features 0..7), then a grid on each face. */
static void sample_box(sampler *sm, const double h[3], double spacing)
{
    for (int c = 0; c < 8; c++)
        put(sm, (c & 1) ? h[0] : -h[0], (c & 2) ? h[1] : -h[1], (c & 4) ? h[2] : -h[2]);
    for (int ax = 0; ax < 3; ax++) {
        int i = (ax + 1) % 3, j = (ax + 2) % 3;
        int ni = count_for(2 * h[i], spacing, 1), nj = count_for(2 * h[j], spacing, 1);
        for (int sg = -1; sg <= 1; sg += 2)
            for (int a = 0; a <= ni; a++)
                for (int b = 0; b <= nj; b++) {
                    if ((a == 0 || a == ni) && (b == 0 || b == nj)) continue; /* corners */
                    double p[3];
                    p[ax] = sg * h[ax], p[i] = -h[i] + 2 * h[i] * a / ni;
                    p[j] = -h[j] + 2 * h[j] * b / nj;
                    put(sm, p[0], p[1], p[2]);
                }
    }
}

static void sample_capsule(sampler *sm, const mcb_shape *s, double spacing)
{
    double r = s->size[0], hl = s->size[1];
    sample_sphere(sm, r, hl, 1, spacing);
    sample_sphere(sm, r, -hl, -1, spacing);
    int na = count_for(2 * GEOM_PI * r, spacing, 8), nz = count_for(2 * hl, spacing, 1);
    for (int k = 1; k < nz; k++)
        for (int a = 0; a < na; a++) {
            double t = 2 * GEOM_PI * a / na;
            put(sm, r * cos(t), r * sin(t), -hl + 2 * hl * k / nz);
        }
}

/* Revolution: both offset surfaces of each profile segment and the rounded
 * rims at the profile's ends, each ring with about 2 pi r / spacing points;
 * points inside the shell (at concave joints) are trimmed. */
static void sample_revolution(sampler *sm, const mcb_shape *s, double spacing)
{
    const mcb_profile *p = &s->profile;
    double t = 0.5 * p->thickness, tol = 1e-9 * (1 + t);
    int np = profile_n(p);
    for (int k = 0; k + 1 < np; k++) {
        double er = p->r[k + 1] - p->r[k], ez = p->z[k + 1] - p->z[k], l = hypot(er, ez);
        if (l <= 0) continue;
        double nr = -ez / l, nz = er / l;
        int ns = count_for(l, spacing, 1);
        for (int side = -1; side <= 1; side += 2)
            for (int i = (k == 0 ? 0 : 1); i <= ns; i++) {
                double rr = p->r[k] + er * i / ns + side * t * nr;
                double zz = p->z[k] + ez * i / ns + side * t * nz;
                if (rr < 0) continue;
                int na = count_for(2 * GEOM_PI * rr, spacing, rr > 0 ? 8 : 1);
                for (int a = 0; a < na; a++) {
                    double th = 2 * GEOM_PI * a / na;
                    put_on(sm, s, tol, rr * cos(th), rr * sin(th), zz);
                }
            }
    }
    /* rims: half circles of radius t around each end, 5 points each */
    for (int e = 0; e < 2 && np >= 2 && t > 0; e++) {
        int k = e ? np - 1 : 0, o = e ? np - 2 : 1;
        double er = p->r[k] - p->r[o], ez = p->z[k] - p->z[o], l = hypot(er, ez);
        if (l <= 0) continue;
        er /= l, ez /= l;
        for (int j = 1; j <= 5; j++) {
            double a = -0.5 * GEOM_PI + GEOM_PI * j / 6;
            double dr = cos(a) * er - sin(a) * ez, dz = cos(a) * ez + sin(a) * er;
            double rr = p->r[k] + t * dr, zz = p->z[k] + t * dz;
            if (rr < 0) continue;
            int na = count_for(2 * GEOM_PI * rr, spacing, rr > 0 ? 8 : 1);
            for (int q = 0; q < na; q++) {
                double th = 2 * GEOM_PI * q / na;
                put_on(sm, s, tol, rr * cos(th), rr * sin(th), zz);
            }
        }
    }
}

/* The helical thread surface: for each angle phi (about spacing apart at
 * the major radius) and each profile point of one pitch (about spacing
 * apart along the profile), every turn with z in [0, length]; trimmed by
 * the solid (end planes, nut flats). */
static void sample_thread(sampler *sm, const mcb_shape *s, double spacing, double tol)
{
    const mcb_thread *t = &s->thread;
    double uu[THREAD_NPTS], rr[THREAD_NPTS], P = t->pitch;
    thread_profile(t, uu, rr);
    int na = count_for(GEOM_PI * t->d, spacing, 16);
    int kmin = -2, kmax = (int)ceil(t->length / P) + 2;
    for (int a = 0; a < na; a++) {
        double phi = 2 * GEOM_PI * a / na - GEOM_PI, c = cos(phi), sn = sin(phi);
        double z0 = P * phi / (2 * GEOM_PI);
        for (int seg = 6; seg < 11; seg++) { /* the middle period: u in [-P/2, P/2) */
            double l = hypot(rr[seg + 1] - rr[seg], uu[seg + 1] - uu[seg]);
            int ns = count_for(l, spacing, 1);
            for (int i = 0; i < ns; i++) {
                double f = (double)i / ns, r = rr[seg] + f * (rr[seg + 1] - rr[seg]);
                double u = uu[seg] + f * (uu[seg + 1] - uu[seg]);
                for (int k = kmin; k <= kmax; k++) {
                    double z = z0 + u + k * P;
                    if (z < -tol || z > t->length + tol) continue;
                    put_on(sm, s, tol, r * c, r * sn, z);
                }
            }
        }
    }
}

/* A polar grid on the end planes z = 0 and z = length out to radius rmax,
 * trimmed to the solid's surface. */
static void sample_ends(sampler *sm, const mcb_shape *s, double rmax, double spacing, double tol)
{
    int nr = count_for(rmax, spacing, 2);
    for (int e = 0; e < 2; e++) {
        double z = e ? s->thread.length : 0.0;
        for (int i = 0; i <= nr; i++) {
            double r = rmax * i / nr;
            int na = i == 0 ? 1 : count_for(2 * GEOM_PI * r, spacing, 8);
            for (int a = 0; a < na; a++) {
                double th = 2 * GEOM_PI * a / na;
                put_on(sm, s, tol, r * cos(th), r * sin(th), z);
            }
        }
    }
}

static void sample_hex_flats(sampler *sm, const mcb_shape *s, double spacing, double tol)
{
    double a = s->thread.across_flats, w = a / sqrt(3.0), L = s->thread.length;
    int nw = count_for(w, spacing, 2), nz = count_for(L, spacing, 2);
    for (int f = 0; f < 6; f++) {
        double th = f * GEOM_PI / 3, c = cos(th), sn = sin(th);
        for (int i = 0; i <= nw; i++) {
            double v = -0.5 * w + w * i / nw;
            for (int j = 0; j <= nz; j++)
                put_on(sm, s, tol, 0.5 * a * c - v * sn, 0.5 * a * sn + v * c, L * j / nz);
        }
    }
}

int mcb_shape_samples(const mcb_shape *s, double *pts, int cap)
{
    sampler sm = {pts, cap, 0};
    if (!s || s->type == MCB_SHAPE_PLANE) return 0; /* a plane has no finite sample set */
    if ((s->type == MCB_SHAPE_BOLT || s->type == MCB_SHAPE_NUT) && !thread_ok(&s->thread)) return 0;
    for (int k = 0; k < 3; k++)
        if (!isfinite(s->size[k]) || s->size[k] < 0) return 0;
    double sp = default_spacing(s);
    if (!(sp > 0) || !isfinite(sp)) return 0;
    switch (s->type) {
    case MCB_SHAPE_SPHERE: sample_sphere(&sm, s->size[0], 0, 0, sp); break;
    case MCB_SHAPE_BOX: sample_box(&sm, s->size, sp); break;
    case MCB_SHAPE_CAPSULE: sample_capsule(&sm, s, sp); break;
    case MCB_SHAPE_REVOLUTION: sample_revolution(&sm, s, sp); break;
    case MCB_SHAPE_BOLT: {
        double tol = 1e-9 * s->thread.d;
        sample_thread(&sm, s, sp, tol);
        sample_ends(&sm, s, 0.5 * s->thread.d, sp, tol);
        break;
    }
    case MCB_SHAPE_NUT: {
        double tol = 1e-9 * s->thread.across_flats;
        sample_thread(&sm, s, sp, tol);
        sample_ends(&sm, s, s->thread.across_flats / sqrt(3.0), sp, tol);
        sample_hex_flats(&sm, s, sp, tol);
        break;
    }
    default: break;
    }
    return sm.n;
}

void mcb_profile_shell_mass(const mcb_profile *p, double m, double *zc, double I[9])
{
    double A = 0, Az = 0, Arr = 0, Azz = 0;
    const int sub = 64;
    for (int k = 0; k + 1 < p->npts; k++) {
        double dr = p->r[k + 1] - p->r[k], dz = p->z[k + 1] - p->z[k];
        double ds = sqrt(dr * dr + dz * dz) / sub;
        for (int j = 0; j < sub; j++) {
            double t = (j + 0.5) / sub, r = p->r[k] + t * dr, z = p->z[k] + t * dz;
            double dA = 2 * 3.14159265358979323846 * r * ds;
            A += dA, Az += z * dA, Arr += r * r * dA, Azz += z * z * dA;
        }
    }
    double sigma = m / A;
    *zc = Az / A;
    memset(I, 0, 9 * sizeof(double));
    I[0] = I[4] = sigma * (0.5 * Arr + Azz) - m * (*zc) * (*zc);
    I[8] = sigma * Arr;
}
