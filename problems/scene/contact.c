/* contact.c: contact generation of the scene engine (geometry.h): the
 * pairwise tests mcb_collide for every pair of shape types (primitive
 * pairs by analytic closest points, box-plane by corners, box-box by the
 * separating axis test and face clipping, pairs with an sdf shape by
 * surface samples against a signed distance), the sort-and-sweep broad phase mcb_contacts_detect, and
 * the clustering mcb_contacts_cluster (the CANAL paper caps at 120 contacts,
 * Sec. VII). docs/geometry.md describes each pair and the accuracy.
 *
 * Conventions: every pair routine works on an ordered pair (first, second)
 * and emits normals from second towards first; mcb_collide orders the pair
 * by type rank and flips the normal back when it swapped a and b. Contact
 * points lie midway between the two surfaces: p = (surface point of a +
 * surface point of b) / 2. Allocation: mcb_collide allocates only for a
 * pair involving an sdf shape (its samples); mcb_contacts_detect allocates
 * its candidate pairs, the sample sets of the sdf shapes it meets (kept in
 * the caller's cache by mcb_contacts_detect_cached), and grows the caller's
 * contact buffer; mcb_contacts_cluster allocates index arrays. */
#include "problems/scene/geometry.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- emitting contacts -------------------------------------------------- */

typedef struct {
    const mcb_shape *a, *b; /* as passed to mcb_collide */
    int ia, ib;
    int flip;               /* 1: the routine's first shape is b */
    double margin;
    mcb_contact *out;
    int cap, n;
} emitter;

static unsigned long long mix64(unsigned long long z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The deterministic contact key: a hash of (shape_a, shape_b, feature). */
static unsigned long long contact_key(int ia, int ib, int feature)
{
    unsigned long long h = mix64((unsigned long long)(unsigned)ia + 0x9e3779b97f4a7c15ULL);
    h = mix64(h ^ ((unsigned long long)(unsigned)ib + 0x632be59bd9b4e019ULL));
    return mix64(h ^ ((unsigned long long)(unsigned)feature + 0x85157af5ULL));
}

/* An anisotropic shape's friction on contact c (normal set), the other
 * shape o: mu along the shape's axis1 projected on the tangent plane (t1),
 * mu2 along n x t1, each limited by o's mu; isotropic when neither shape
 * is anisotropic (only static shapes are, and two static shapes never
 * meet, so at most one of a pair). */
static void aniso_friction(mcb_contact *c, const mcb_shape *s, const mcb_shape *o)
{
    c->mu2 = NAN;
    c->t1[0] = c->t1[1] = c->t1[2] = 0.0;
    if (!s->aniso) return;
    double d = s->axis1[0] * c->n[0] + s->axis1[1] * c->n[1] + s->axis1[2] * c->n[2], l = 0.0;
    for (int k = 0; k < 3; k++) c->t1[k] = s->axis1[k] - d * c->n[k], l += c->t1[k] * c->t1[k];
    l = sqrt(l);
    if (!(l > 1e-9)) { /* the axis along the normal: no tangent direction, isotropic */
        c->t1[0] = c->t1[1] = c->t1[2] = 0.0;
        return;
    }
    for (int k = 0; k < 3; k++) c->t1[k] /= l;
    c->mu = s->mu < o->mu ? s->mu : o->mu;
    c->mu2 = s->mu2 < o->mu ? s->mu2 : o->mu;
}

/* Emits a contact at p (midway), normal n from the routine's second shape
 * to its first, gap; kept when gap < margin. */
static void emit(emitter *e, const double p[3], const double n[3], double gap, int feature)
{
    if (!(gap < e->margin)) return;
    if (e->n < e->cap && e->out) {
        mcb_contact *c = e->out + e->n;
        c->body_a = e->a->body, c->body_b = e->b->body;
        c->shape_a = e->ia, c->shape_b = e->ib;
        double s = e->flip ? -1.0 : 1.0;
        for (int k = 0; k < 3; k++) c->p[k] = p[k], c->n[k] = s * n[k];
        c->gap = gap;
        c->mu = e->a->mu < e->b->mu ? e->a->mu : e->b->mu;
        aniso_friction(c, e->a->aniso ? e->a : e->b, e->a->aniso ? e->b : e->a);
        c->key = contact_key(e->ia, e->ib, feature);
    }
    e->n++;
}

/* A contact between a point pa on the first surface whose other surface
 * point is pb = pa - gap n (n from second to first). */
static void emit_pa(emitter *e, const double pa[3], const double n[3], double gap, int feature)
{
    double p[3];
    for (int k = 0; k < 3; k++) p[k] = pa[k] - 0.5 * gap * n[k];
    emit(e, p, n, gap, feature);
}

/* Two spheres (centres ca, cb, radii ra, rb): the first at ca; fallback:
 * the normal when the centres coincide (NULL: +z). */
static void spheres(emitter *e, const double ca[3], double ra, const double cb[3], double rb,
                    int feature, const double *fallback)
{
    double d[3] = {ca[0] - cb[0], ca[1] - cb[1], ca[2] - cb[2]}, l = mcb_v3_norm(d), n[3];
    if (l > 1e-14 * (ra + rb)) n[0] = d[0] / l, n[1] = d[1] / l, n[2] = d[2] / l;
    else if (fallback) n[0] = fallback[0], n[1] = fallback[1], n[2] = fallback[2];
    else n[0] = 0, n[1] = 0, n[2] = 1;
    double gap = l - ra - rb, pa[3];
    for (int k = 0; k < 3; k++) pa[k] = ca[k] - ra * n[k];
    emit_pa(e, pa, n, gap, feature);
}

/* ---- small geometric helpers -------------------------------------------- */

static void axis_z(const mcb_xform *X, double z[3])
{
    z[0] = X->R[2], z[1] = X->R[5], z[2] = X->R[8];
}

/* The capsule's segment end points in world. */
static void capsule_ends(const mcb_shape *s, const mcb_xform *X, double p0[3], double p1[3])
{
    double z[3];
    axis_z(X, z);
    for (int k = 0; k < 3; k++) {
        p0[k] = X->p[k] - s->size[1] * z[k];
        p1[k] = X->p[k] + s->size[1] * z[k];
    }
}

static void closest_on_segment(const double a[3], const double b[3], const double x[3],
                               double c[3])
{
    double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double l2 = mcb_v3_dot(d, d), t = 0;
    if (l2 > 0) {
        double ax[3] = {x[0] - a[0], x[1] - a[1], x[2] - a[2]};
        t = mcb_v3_dot(ax, d) / l2;
        t = t < 0 ? 0 : (t > 1 ? 1 : t);
    }
    for (int k = 0; k < 3; k++) c[k] = a[k] + t * d[k];
}

static double clamp01(double t)
{
    return t < 0 ? 0 : (t > 1 ? 1 : t);
}

/* Closest points of the segments p0 + s d1 and q0 + t d2 (s, t in [0, 1]):
 * the minimiser of the convex quadratic, clamping one parameter then the
 * other. */
static void segments_closest(const double p0[3], const double d1[3], const double q0[3],
                             const double d2[3], double *s_out, double *t_out)
{
    double r[3] = {p0[0] - q0[0], p0[1] - q0[1], p0[2] - q0[2]};
    double a = mcb_v3_dot(d1, d1), e = mcb_v3_dot(d2, d2), f = mcb_v3_dot(d2, r);
    double s = 0, t = 0;
    if (a <= 1e-300 && e <= 1e-300) {
        s = t = 0;
    } else if (a <= 1e-300) {
        t = clamp01(f / e);
    } else {
        double c = mcb_v3_dot(d1, r);
        if (e <= 1e-300) {
            s = clamp01(-c / a);
        } else {
            double b = mcb_v3_dot(d1, d2), den = a * e - b * b;
            s = den > 1e-14 * a * e ? clamp01((b * f - c * e) / den) : 0.0;
            t = (b * s + f) / e;
            if (t < 0) t = 0, s = clamp01(-c / a);
            else if (t > 1) t = 1, s = clamp01((b - c) / a);
        }
    }
    *s_out = s, *t_out = t;
}

/* ---- primitive pairs ---------------------------------------------------- */

static void sphere_sphere(emitter *e, const mcb_shape *A, const mcb_xform *XA,
                          const mcb_shape *B, const mcb_xform *XB)
{
    spheres(e, XA->p, A->size[0], XB->p, B->size[0], 0, NULL);
}

/* Sphere against the half-space: n = the plane's normal. */
static void sphere_plane(emitter *e, const mcb_shape *A, const mcb_xform *XA,
                         const mcb_shape *B, const mcb_xform *XB)
{
    (void)B;
    double n[3], pa[3];
    axis_z(XB, n);
    double gap = mcb_v3_dot(n, XA->p) - mcb_v3_dot(n, XB->p) - A->size[0];
    for (int k = 0; k < 3; k++) pa[k] = XA->p[k] - A->size[0] * n[k];
    emit_pa(e, pa, n, gap, 0);
}

/* Sphere against a box: the box's exact distance at the centre. */
static void sphere_box(emitter *e, const mcb_shape *A, const mcb_xform *XA, const mcb_shape *B,
                       const mcb_xform *XB)
{
    double g[3], pa[3];
    double d = mcb_shape_sdf(B, XB, XA->p, g);
    for (int k = 0; k < 3; k++) pa[k] = XA->p[k] - A->size[0] * g[k];
    emit_pa(e, pa, g, d - A->size[0], 0);
}

static void sphere_capsule(emitter *e, const mcb_shape *A, const mcb_xform *XA,
                           const mcb_shape *B, const mcb_xform *XB)
{
    double p0[3], p1[3], c[3];
    capsule_ends(B, XB, p0, p1);
    closest_on_segment(p0, p1, XA->p, c);
    spheres(e, XA->p, A->size[0], c, B->size[0], 0, NULL);
}

/* Capsule-capsule: the closest points of the segments (feature 2); two
 * (near-)parallel overlapping capsules get one contact at each end of
 * their overlap (features 0, 1), as a capsule lying on a capsule needs. */
static void capsule_capsule(emitter *e, const mcb_shape *A, const mcb_xform *XA,
                            const mcb_shape *B, const mcb_xform *XB)
{
    double a0[3], a1[3], b0[3], b1[3], da[3], db[3], cr[3];
    capsule_ends(A, XA, a0, a1);
    capsule_ends(B, XB, b0, b1);
    for (int k = 0; k < 3; k++) da[k] = a1[k] - a0[k], db[k] = b1[k] - b0[k];
    mcb_v3_cross(da, db, cr);
    double la = mcb_v3_norm(da), lb = mcb_v3_norm(db);
    if (la > 0 && lb > 0 && mcb_v3_norm(cr) < 1e-6 * la * lb) {
        double w0[3] = {b0[0] - a0[0], b0[1] - a0[1], b0[2] - a0[2]};
        double w1[3] = {b1[0] - a0[0], b1[1] - a0[1], b1[2] - a0[2]};
        double t0 = mcb_v3_dot(w0, da) / (la * la), t1 = mcb_v3_dot(w1, da) / (la * la);
        double lo = clamp01(t0 < t1 ? t0 : t1), hi = clamp01(t0 < t1 ? t1 : t0);
        if (hi - lo > 1e-9) {
            for (int f = 0; f < 2; f++) {
                double s = f ? hi : lo, pa[3], pb[3];
                for (int k = 0; k < 3; k++) pa[k] = a0[k] + s * da[k];
                closest_on_segment(b0, b1, pa, pb);
                spheres(e, pa, A->size[0], pb, B->size[0], f, NULL);
            }
            return;
        }
    }
    double s, t, pa[3], pb[3];
    segments_closest(a0, da, b0, db, &s, &t);
    for (int k = 0; k < 3; k++) pa[k] = a0[k] + s * da[k], pb[k] = b0[k] + t * db[k];
    /* axes that intersect: the normal of the plane of the two axes, towards A */
    double lc = mcb_v3_norm(cr), fb[3] = {0, 0, 1};
    if (lc > 0) {
        double cab[3] = {XA->p[0] - XB->p[0], XA->p[1] - XB->p[1], XA->p[2] - XB->p[2]};
        double sg = mcb_v3_dot(cr, cab) < 0 ? -1.0 : 1.0;
        for (int k = 0; k < 3; k++) fb[k] = sg * cr[k] / lc;
    }
    spheres(e, pa, A->size[0], pb, B->size[0], 2, fb);
}

/* Capsule against the half-space: each end sphere (features 0, 1). */
static void capsule_plane(emitter *e, const mcb_shape *A, const mcb_xform *XA,
                          const mcb_shape *B, const mcb_xform *XB)
{
    (void)B;
    double ends[2][3], n[3];
    capsule_ends(A, XA, ends[0], ends[1]);
    axis_z(XB, n);
    for (int f = 0; f < 2; f++) {
        double pa[3], gap = mcb_v3_dot(n, ends[f]) - mcb_v3_dot(n, XB->p) - A->size[0];
        for (int k = 0; k < 3; k++) pa[k] = ends[f][k] - A->size[0] * n[k];
        emit_pa(e, pa, n, gap, f);
    }
}

/* Point of the segment p0 + t (p1 - p0) and the box's distance there. */
static double seg_box(const mcb_shape *B, const mcb_xform *XB, const double p0[3],
                      const double p1[3], double t, double x[3], double g[3])
{
    for (int k = 0; k < 3; k++) x[k] = p0[k] + t * (p1[k] - p0[k]);
    return mcb_shape_sdf(B, XB, x, g);
}

/* Capsule against a box: each end sphere against the box (features 0, 1),
 * and where the segment comes closer to the box between its ends: the box
 * distance f(t) is convex along the segment, so a ternary search finds its
 * minimum f*, and bisections the interval [t1, t2] where f <= f* + eps
 * (eps = margin / 2): a capsule lying across a face (its ends overhanging)
 * gets contacts at t1 and t2 (features 2, 3), one crossing an edge a single
 * contact at the minimum (feature 2). Interior contacts within 1e-6 of an
 * end are left to the end's contact. */
static void capsule_box(emitter *e, const mcb_shape *A, const mcb_xform *XA, const mcb_shape *B,
                        const mcb_xform *XB)
{
    double p0[3], p1[3], g[3], pa[3], x[3];
    capsule_ends(A, XA, p0, p1);
    double r = A->size[0];
    for (int f = 0; f < 2; f++) {
        const double *c = f ? p1 : p0;
        double d = mcb_shape_sdf(B, XB, c, g);
        for (int k = 0; k < 3; k++) pa[k] = c[k] - r * g[k];
        emit_pa(e, pa, g, d - r, f);
    }
    double lo = 0, hi = 1;
    for (int it = 0; it < 100 && hi - lo > 1e-12; it++) {
        double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
        if (seg_box(B, XB, p0, p1, m1, x, NULL) <= seg_box(B, XB, p0, p1, m2, x, NULL)) hi = m2;
        else lo = m1;
    }
    double ts = 0.5 * (lo + hi), fs = seg_box(B, XB, p0, p1, ts, x, NULL);
    if (!(fs - r < e->margin)) return;
    double eps = 0.5 * e->margin > 1e-9 * (r + A->size[1]) ? 0.5 * e->margin : 1e-9 * (r + A->size[1]);
    double t12[2];
    for (int side = 0; side < 2; side++) { /* the ends of {t : f(t) <= f* + eps} */
        double in = ts, out = side ? 1.0 : 0.0;
        if (seg_box(B, XB, p0, p1, out, x, NULL) <= fs + eps) {
            t12[side] = out;
            continue;
        }
        for (int it = 0; it < 60; it++) {
            double m = 0.5 * (in + out);
            if (seg_box(B, XB, p0, p1, m, x, NULL) <= fs + eps) in = m;
            else out = m;
        }
        t12[side] = in;
    }
    double cand[2];
    int nc = 0;
    if (t12[1] - t12[0] > 1e-3) cand[nc++] = t12[0], cand[nc++] = t12[1];
    else cand[nc++] = ts;
    for (int q = 0; q < nc; q++) {
        double t = cand[q];
        if (t <= 1e-6 || t >= 1 - 1e-6) continue;
        double d = seg_box(B, XB, p0, p1, t, x, g);
        for (int k = 0; k < 3; k++) pa[k] = x[k] - r * g[k];
        emit_pa(e, pa, g, d - r, 2 + q);
    }
}

static void box_corner(const mcb_shape *s, const mcb_xform *X, int c, double w[3])
{
    double l[3] = {(c & 1) ? s->size[0] : -s->size[0], (c & 2) ? s->size[1] : -s->size[1],
                   (c & 4) ? s->size[2] : -s->size[2]};
    mcb_xform_point(X, l, w);
}

/* Box against the half-space: its corners (features 0..7); a box resting
 * on a face gets its 4 face corners. */
static void box_plane(emitter *e, const mcb_shape *A, const mcb_xform *XA, const mcb_shape *B,
                      const mcb_xform *XB)
{
    (void)B;
    double n[3];
    axis_z(XB, n);
    double off = mcb_v3_dot(n, XB->p);
    for (int c = 0; c < 8; c++) {
        double w[3];
        box_corner(A, XA, c, w);
        emit_pa(e, w, n, mcb_v3_dot(n, w) - off, c);
    }
}

/* 1 when p is within tol of a point already emitted by this call. */
static int near_emitted(const emitter *e, int from, const double p[3], double tol)
{
    for (int i = from; i < e->n && i < e->cap; i++) {
        const double *q = e->out[i].p;
        double d[3] = {p[0] - q[0], p[1] - q[1], p[2] - q[2]};
        if (mcb_v3_dot(d, d) <= tol * tol) return 1;
    }
    return 0;
}

/* Box-box by the separating axis test and face clipping (the scheme of
 * most rigid-body engines, written here from the geometry):
 *   1. sat_axes: the separation of the two boxes' projections on each of
 *      the 15 candidate axes (3 face normals of each box, 9 edge-edge cross
 *      products); a separation above the margin on any axis: no contact.
 *      The axis of largest separation (least penetration) is the contact
 *      normal; edge axes must beat the best face axis by a small tolerance.
 *   2. face axis (face_contacts): the incident face (the other box's face
 *      most opposed to the reference face) is clipped by the 4 side planes
 *      of the reference face; each clipped vertex is a contact with its own
 *      depth below the reference face: a box resting on a box gets the
 *      corners of the overlap rectangle (4), two crossed boxes up to 8.
 *   3. edge axis: one contact at the closest points of the two supporting
 *      edges. */
typedef struct {
    double ax[2][3][3]; /* box axes in world: ax[box][k] */
    double h[2][3];     /* half extents */
    double c[2][3];     /* centres */
} box_pair;

/* Separation of the boxes along unit axis L (positive: apart). */
static double sat_sep(const box_pair *bp, const double L[3])
{
    double r = 0, t[3] = {bp->c[1][0] - bp->c[0][0], bp->c[1][1] - bp->c[0][1],
                          bp->c[1][2] - bp->c[0][2]};
    for (int q = 0; q < 2; q++)
        for (int k = 0; k < 3; k++) r += bp->h[q][k] * fabs(mcb_v3_dot(L, bp->ax[q][k]));
    return fabs(mcb_v3_dot(t, L)) - r;
}

/* Sutherland-Hodgman: clips the polygon (n vertices, ids) by the plane
 * nrm . x <= off; a vertex on the plane (within tol: flush faces, as in a
 * wall) is inside and creates no new one, so the vertices' ids (and the
 * contact keys) do not flicker with rounding.
 * New vertices get an id from the two they lie between and the plane. */
static int clip_poly(const double (*in)[3], const int *iid, int n, const double nrm[3], double off,
                     int plane, double tol, double (*out)[3], int *oid)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        const double *s = in[(i + n - 1) % n], *e = in[i];
        int ids = iid[(i + n - 1) % n], ide = iid[i];
        double ds = mcb_v3_dot(nrm, s) - off, de = mcb_v3_dot(nrm, e) - off;
        ds = fabs(ds) <= tol ? 0.0 : ds, de = fabs(de) <= tol ? 0.0 : de;
        if ((ds > 0 && de < 0) || (ds < 0 && de > 0)) {
            double t = ds / (ds - de);
            for (int k = 0; k < 3; k++) out[m][k] = s[k] + t * (e[k] - s[k]);
            int lo = ids < ide ? ids : ide, hi = ids < ide ? ide : ids;
            oid[m++] = 64 + ((lo * 8 + hi) % 4096) * 4 + plane;
        }
        if (de <= 0) {
            memcpy(out[m], e, sizeof out[m]);
            oid[m++] = ide;
        }
    }
    return m;
}

/* Contacts of the reference face (box r, axis k, normal nf pointing
 * towards the other box i) against the incident face of box i. Normals
 * from B (box 1) to A (box 0). */
static void face_contacts(emitter *e, const box_pair *bp, int r, int k, const double nf[3],
                          double tol)
{
    int i = 1 - r, fi = 0;
    double best = INFINITY, si = 1;
    for (int q = 0; q < 3; q++) { /* incident face: most anti-parallel to nf */
        double d = mcb_v3_dot(bp->ax[i][q], nf);
        if (-fabs(d) < best - 1e-12) best = -fabs(d), fi = q, si = d > 0 ? -1.0 : 1.0;
    }
    /* the incident face's corners, in order around the face */
    double poly[2][8][3];
    int ids[2][8], n = 4;
    int u = (fi + 1) % 3, v = (fi + 2) % 3;
    static const double su[4] = {-1, 1, 1, -1}, sv[4] = {-1, -1, 1, 1};
    for (int q = 0; q < 4; q++) {
        for (int a = 0; a < 3; a++)
            poly[0][q][a] = bp->c[i][a] + si * bp->h[i][fi] * bp->ax[i][fi][a] +
                            su[q] * bp->h[i][u] * bp->ax[i][u][a] +
                            sv[q] * bp->h[i][v] * bp->ax[i][v][a];
        ids[0][q] = q;
    }
    /* clip by the reference face's side planes */
    int cur = 0, ru = (k + 1) % 3, rv = (k + 2) % 3, plane = 0;
    for (int side = 0; side < 2; side++) {
        int ax = side ? rv : ru;
        for (int sg = -1; sg <= 1 && n > 0; sg += 2, plane++) {
            double nrm[3];
            for (int a = 0; a < 3; a++) nrm[a] = sg * bp->ax[r][ax][a];
            double off = mcb_v3_dot(nrm, bp->c[r]) + bp->h[r][ax];
            n = clip_poly((const double(*)[3])poly[cur], ids[cur], n, nrm, off, plane, tol,
                          poly[1 - cur], ids[1 - cur]);
            cur = 1 - cur;
        }
    }
    double foff = mcb_v3_dot(nf, bp->c[r]) + bp->h[r][k]; /* the reference face's plane */
    double s = r == 1 ? 1.0 : -1.0, nab[3];                /* nf points from r to i */
    for (int a = 0; a < 3; a++) nab[a] = s * nf[a];
    int start = e->n;
    for (int q = 0; q < n; q++) {
        double depth = mcb_v3_dot(nf, poly[cur][q]) - foff, p[3];
        if (!(depth < e->margin)) continue;
        for (int a = 0; a < 3; a++) p[a] = poly[cur][q][a] - 0.5 * depth * nf[a];
        if (near_emitted(e, start, p, tol)) continue;
        emit(e, p, nab, depth, ((r * 3 + k) * 6 + fi * 2 + (si > 0)) * 32768 + ids[cur][q]);
    }
}

static void box_box(emitter *e, const mcb_shape *A, const mcb_xform *XA, const mcb_shape *B,
                    const mcb_xform *XB)
{
    box_pair bp;
    const mcb_shape *S[2] = {A, B};
    const mcb_xform *X[2] = {XA, XB};
    double hmin = INFINITY;
    for (int q = 0; q < 2; q++)
        for (int k = 0; k < 3; k++) {
            for (int a = 0; a < 3; a++) bp.ax[q][k][a] = X[q]->R[3 * a + k];
            bp.h[q][k] = S[q]->size[k], bp.c[q][k] = X[q]->p[k];
            if (S[q]->size[k] < hmin) hmin = S[q]->size[k];
        }
    double tol = 1e-6 * hmin + 1e-12;
    /* face axes */
    double bestf = -INFINITY;
    int fq = 0, fk = 0;
    for (int q = 0; q < 2; q++)
        for (int k = 0; k < 3; k++) {
            double sep = sat_sep(&bp, bp.ax[q][k]);
            if (sep > e->margin) return;
            if (sep > bestf + tol) bestf = sep, fq = q, fk = k;
        }
    /* edge axes */
    double beste = -INFINITY, le[3] = {0, 0, 0};
    int ei = -1, ej = -1;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double L[3];
            mcb_v3_cross(bp.ax[0][i], bp.ax[1][j], L);
            double l = mcb_v3_norm(L);
            if (l < 1e-6) continue; /* parallel edges: a face axis covers it */
            for (int a = 0; a < 3; a++) L[a] /= l;
            double sep = sat_sep(&bp, L);
            if (sep > e->margin) return;
            if (sep > beste) beste = sep, ei = i, ej = j, memcpy(le, L, sizeof le);
        }
    double cab[3] = {bp.c[0][0] - bp.c[1][0], bp.c[0][1] - bp.c[1][1], bp.c[0][2] - bp.c[1][2]};
    if (ei < 0 || beste <= bestf + 1e-4 * hmin) {
        /* the reference face's normal, pointing towards the other box */
        double nf[3];
        memcpy(nf, bp.ax[fq][fk], sizeof nf);
        double towards = fq == 0 ? -mcb_v3_dot(nf, cab) : mcb_v3_dot(nf, cab);
        if (towards < 0)
            for (int a = 0; a < 3; a++) nf[a] = -nf[a];
        face_contacts(e, &bp, fq, fk, nf, tol);
        return;
    }
    /* edge-edge: n from B to A; the supporting edges (A's towards B, B's
     * towards A) and their closest points */
    if (mcb_v3_dot(le, cab) < 0)
        for (int a = 0; a < 3; a++) le[a] = -le[a];
    double pa0[3], pb0[3], da[3], db[3];
    for (int a = 0; a < 3; a++) pa0[a] = bp.c[0][a], pb0[a] = bp.c[1][a];
    for (int k = 0; k < 3; k++) {
        double sa = k == ei ? -1.0 : (mcb_v3_dot(le, bp.ax[0][k]) > 0 ? -1.0 : 1.0);
        double sb = k == ej ? -1.0 : (mcb_v3_dot(le, bp.ax[1][k]) > 0 ? 1.0 : -1.0);
        for (int a = 0; a < 3; a++) {
            pa0[a] += sa * bp.h[0][k] * bp.ax[0][k][a];
            pb0[a] += sb * bp.h[1][k] * bp.ax[1][k][a];
        }
    }
    for (int a = 0; a < 3; a++)
        da[a] = 2 * bp.h[0][ei] * bp.ax[0][ei][a], db[a] = 2 * bp.h[1][ej] * bp.ax[1][ej][a];
    double s, t, pa[3], pb[3], p[3];
    segments_closest(pa0, da, pb0, db, &s, &t);
    for (int a = 0; a < 3; a++) pa[a] = pa0[a] + s * da[a], pb[a] = pb0[a] + t * db[a];
    double d[3] = {pa[0] - pb[0], pa[1] - pb[1], pa[2] - pb[2]}, gap = mcb_v3_dot(le, d);
    for (int a = 0; a < 3; a++) p[a] = 0.5 * (pa[a] + pb[a]);
    emit(e, p, le, gap, (1 << 24) | (ei * 3 + ej));
}

/* ---- pairs with an sdf shape -------------------------------------------- */

static double sample_spacing(const mcb_shape *s)
{
    if (s->spacing > 0 && isfinite(s->spacing)) return s->spacing;
    if (s->type == MCB_SHAPE_BOLT || s->type == MCB_SHAPE_NUT) return 0.25 * s->thread.pitch;
    double lo[3], hi[3];
    mcb_xform I = mcb_xform_identity();
    mcb_shape_aabb(s, &I, 0, lo, hi);
    double ex = hi[0] - lo[0] > hi[2] - lo[2] ? hi[0] - lo[0] : hi[2] - lo[2];
    return ex / 24;
}

/* A sphere against an sdf shape B: B's distance at the centre minus the
 * radius (the sphere is the set within r of its centre), n = B's gradient. */
static void sphere_sdf(emitter *e, const mcb_shape *A, const mcb_xform *XA, const mcb_shape *B,
                       const mcb_xform *XB)
{
    double g[3], pa[3];
    double d = mcb_shape_sdf(B, XB, XA->p, g);
    for (int k = 0; k < 3; k++) pa[k] = XA->p[k] - A->size[0] * g[k];
    emit_pa(e, pa, g, d - A->size[0], 0);
}

/* A capsule against an sdf shape B: points of the segment about B's sample
 * spacing apart (features 0..m-1), each a sphere against B. */
static void capsule_sdf(emitter *e, const mcb_shape *A, const mcb_xform *XA, const mcb_shape *B,
                        const mcb_xform *XB)
{
    double p0[3], p1[3];
    capsule_ends(A, XA, p0, p1);
    double mm = ceil(2 * A->size[1] / sample_spacing(B)) + 1;
    int m = mm > 1000 ? 1000 : (mm >= 2 ? (int)mm : 2); /* also when the spacing is unusable */
    for (int i = 0; i < m; i++) {
        double x[3], g[3], pa[3], t = (double)i / (m - 1);
        for (int k = 0; k < 3; k++) x[k] = p0[k] + t * (p1[k] - p0[k]);
        double d = mcb_shape_sdf(B, XB, x, g);
        for (int k = 0; k < 3; k++) pa[k] = x[k] - A->size[0] * g[k];
        emit_pa(e, pa, g, d - A->size[0], i);
    }
}

/* Surface samples pts (n of them, in A's shape frame) of the first shape
 * against the second's distance (exact for box and plane): each sample
 * closer than the margin is a contact, n = the second's gradient there;
 * samples outside the second's grown AABB are skipped. Feature = sample
 * index. */
static void samples_vs(emitter *e, const double *pts, int n, const mcb_xform *XA,
                       const mcb_shape *B, const mcb_xform *XB)
{
    double lo[3], hi[3];
    mcb_shape_aabb(B, XB, e->margin, lo, hi);
    for (int i = 0; i < n; i++) {
        double w[3], g[3];
        mcb_xform_point(XA, pts + 3 * (size_t)i, w);
        if (w[0] < lo[0] || w[0] > hi[0] || w[1] < lo[1] || w[1] > hi[1] || w[2] < lo[2] ||
            w[2] > hi[2])
            continue;
        double d = mcb_shape_sdf(B, XB, w, g);
        emit_pa(e, w, g, d, i);
    }
}

/* ---- dispatch ----------------------------------------------------------- */

static int is_sdf(int type)
{
    return type == MCB_SHAPE_REVOLUTION || type == MCB_SHAPE_BOLT || type == MCB_SHAPE_NUT;
}

/* Rank of a type in the ordered pair routines: sphere, capsule, sdf shapes,
 * box, plane; the first shape of a routine has the lower rank. */
static int type_rank(int type)
{
    switch (type) {
    case MCB_SHAPE_SPHERE: return 0;
    case MCB_SHAPE_CAPSULE: return 1;
    case MCB_SHAPE_BOX: return 3;
    case MCB_SHAPE_PLANE: return 4;
    default: return is_sdf(type) ? 2 : 5;
    }
}

/* Sample sets handed to the collider (computed once per shape by the broad
 * phase, or on demand by mcb_collide). */
typedef struct {
    double *pts;
    int n; /* -1: not computed yet */
} sample_set;

/* Computes a shape's samples: one pass into a first guess of 4096 points,
 * a second only when there are more. */
static int samples_compute(const mcb_shape *s, sample_set *ss)
{
    int cap = 4096;
    free(ss->pts); /* a kept set's earlier failed attempt */
    ss->pts = mcb_malloc((size_t)cap * 3, sizeof(double));
    if (!ss->pts) return -1;
    int n = mcb_shape_samples(s, ss->pts, cap);
    if (n > cap) {
        double *p = realloc(ss->pts, (size_t)n * 3 * sizeof(double));
        if (!p) return -1; /* ss->pts is freed by the owner */
        ss->pts = p;
        n = mcb_shape_samples(s, ss->pts, n);
    }
    ss->n = n;
    return 0;
}

/* The ordered routines; sa, sb: sample sets of the two shapes (either may
 * be computed on demand). Returns -1 when samples could not be allocated. */
static int collide_ordered(emitter *e, const mcb_shape *A, const mcb_xform *XA,
                           const mcb_shape *B, const mcb_xform *XB, sample_set *sa,
                           sample_set *sb)
{
    int ta = A->type, tb = B->type;
    if (ta == MCB_SHAPE_SPHERE) {
        if (tb == MCB_SHAPE_SPHERE) sphere_sphere(e, A, XA, B, XB);
        else if (tb == MCB_SHAPE_CAPSULE) sphere_capsule(e, A, XA, B, XB);
        else if (tb == MCB_SHAPE_BOX) sphere_box(e, A, XA, B, XB);
        else if (tb == MCB_SHAPE_PLANE) sphere_plane(e, A, XA, B, XB);
        else if (is_sdf(tb)) sphere_sdf(e, A, XA, B, XB);
        return 0;
    }
    if (ta == MCB_SHAPE_CAPSULE) {
        if (tb == MCB_SHAPE_CAPSULE) capsule_capsule(e, A, XA, B, XB);
        else if (tb == MCB_SHAPE_BOX) capsule_box(e, A, XA, B, XB);
        else if (tb == MCB_SHAPE_PLANE) capsule_plane(e, A, XA, B, XB);
        else if (is_sdf(tb)) capsule_sdf(e, A, XA, B, XB);
        return 0;
    }
    if (ta == MCB_SHAPE_BOX) {
        if (tb == MCB_SHAPE_BOX) box_box(e, A, XA, B, XB);
        else if (tb == MCB_SHAPE_PLANE) box_plane(e, A, XA, B, XB);
        return 0;
    }
    if (is_sdf(ta)) {
        if (sa->n < 0 && samples_compute(A, sa)) return -1;
        if (is_sdf(tb)) {
            if (sb->n < 0 && samples_compute(B, sb)) return -1;
            if (sb->n < sa->n) { /* sample the shape with fewer samples */
                e->flip = !e->flip;
                samples_vs(e, sb->pts, sb->n, XB, A, XA);
                e->flip = !e->flip;
                return 0;
            }
        }
        if (tb == MCB_SHAPE_BOX || tb == MCB_SHAPE_PLANE || is_sdf(tb))
            samples_vs(e, sa->pts, sa->n, XA, B, XB);
        return 0;
    }
    return 0; /* plane-plane: two static half-spaces */
}

static int collide_impl(const mcb_shape *a, const mcb_xform *Xa, int ia, const mcb_shape *b,
                        const mcb_xform *Xb, int ib, double margin, mcb_contact *out, int cap,
                        sample_set *sa, sample_set *sb, int *oom)
{
    emitter e = {a, b, ia, ib, 0, margin, out, cap, 0};
    int rc;
    double alo[3], ahi[3], blo[3], bhi[3];
    mcb_shape_aabb(a, Xa, 0.5 * margin, alo, ahi);
    mcb_shape_aabb(b, Xb, 0.5 * margin, blo, bhi);
    for (int k = 0; k < 3; k++) /* farther apart than the margin: nothing to sample */
        if (alo[k] > bhi[k] || blo[k] > ahi[k]) return 0;
    if (type_rank(b->type) < type_rank(a->type)) {
        e.flip = 1;
        rc = collide_ordered(&e, b, Xb, a, Xa, sb, sa);
    } else {
        rc = collide_ordered(&e, a, Xa, b, Xb, sa, sb);
    }
    if (rc) *oom = 1;
    return e.n;
}

int mcb_collide(const mcb_shape *a, const mcb_xform *Xa, int ia, const mcb_shape *b,
                const mcb_xform *Xb, int ib, double margin, mcb_contact *out, int cap)
{
    if (!a || !b || !Xa || !Xb) return 0;
    sample_set sa = {NULL, -1}, sb = {NULL, -1};
    int oom = 0;
    int n = collide_impl(a, Xa, ia, b, Xb, ib, margin, out, cap, &sa, &sb, &oom);
    free(sa.pts);
    free(sb.pts);
    return oom ? 0 : n;
}

/* ---- broad phase -------------------------------------------------------- */

typedef struct {
    int i, j;
} pair_ij;

typedef struct {
    double lo, hi;
    int k;
} sweep_item;

static int cmp_sweep(const void *x, const void *y)
{
    const sweep_item *a = x, *b = y;
    if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
    return (a->k > b->k) - (a->k < b->k);
}

static int cmp_pair(const void *x, const void *y)
{
    const pair_ij *a = x, *b = y;
    if (a->i != b->i) return a->i < b->i ? -1 : 1;
    return (a->j > b->j) - (a->j < b->j);
}

static int pair_skipped(const mcb_shape *a, const mcb_shape *b)
{
    if (a->body == b->body) return 1;
    if (a->body < 0 && b->body < 0) return 1;
    if (a->group > 0 && a->group == b->group) return 1;
    return 0;
}

static int push_pair(pair_ij **p, int *n, int *cap, int i, int j)
{
    if (*n == *cap) {
        int nc = *cap ? 2 * *cap : 1024;
        pair_ij *q = realloc(*p, (size_t)nc * sizeof *q);
        if (!q) return -1;
        *p = q, *cap = nc;
    }
    (*p)[*n].i = i < j ? i : j, (*p)[*n].j = i < j ? j : i;
    (*n)++;
    return 0;
}

/* Candidate pairs: sort and sweep of the finite AABBs (grown by margin / 2)
 * along the axis where their centres spread most, plus every finite shape
 * whose AABB reaches within margin of a plane; sorted by (i, j). */
static mcb_rc broad_phase(const mcb_shape *shapes, const mcb_xform *X, int ns, double margin,
                          pair_ij **pairs, int *npairs, mcb_err *err)
{
    double *box = mcb_malloc((size_t)ns * 6 + 1, sizeof(double));
    sweep_item *it = mcb_malloc((size_t)ns + 1, sizeof *it);
    pair_ij *p = NULL;
    int np = 0, pcap = 0, nf = 0;
    if (!box || !it) goto oom;
    double mean[3] = {0, 0, 0}, var[3] = {0, 0, 0};
    for (int k = 0; k < ns; k++) {
        if (shapes[k].type == MCB_SHAPE_PLANE) continue;
        mcb_shape_aabb(&shapes[k], &X[k], 0.5 * margin, box + 6 * (size_t)k,
                       box + 6 * (size_t)k + 3);
        nf++;
        for (int a = 0; a < 3; a++) mean[a] += 0.5 * (box[6 * k + a] + box[6 * k + 3 + a]);
    }
    for (int a = 0; a < 3; a++) mean[a] /= nf > 0 ? nf : 1;
    for (int k = 0; k < ns; k++) {
        if (shapes[k].type == MCB_SHAPE_PLANE) continue;
        for (int a = 0; a < 3; a++) {
            double c = 0.5 * (box[6 * k + a] + box[6 * k + 3 + a]) - mean[a];
            var[a] += c * c;
        }
    }
    int ax = var[1] > var[0] ? 1 : 0;
    ax = var[2] > var[ax] ? 2 : ax;
    int m = 0;
    for (int k = 0; k < ns; k++) {
        if (shapes[k].type == MCB_SHAPE_PLANE) continue;
        it[m].lo = box[6 * k + ax], it[m].hi = box[6 * k + 3 + ax], it[m].k = k, m++;
    }
    if (m) qsort(it, (size_t)m, sizeof *it, cmp_sweep);
    for (int u = 0; u < m; u++) {
        int i = it[u].k;
        const double *bi = box + 6 * (size_t)i;
        for (int v = u + 1; v < m && it[v].lo <= it[u].hi; v++) {
            int j = it[v].k;
            const double *bj = box + 6 * (size_t)j;
            int ov = 1;
            for (int a = 0; a < 3 && ov; a++)
                if (bj[a] > bi[3 + a] || bi[a] > bj[3 + a]) ov = 0;
            if (!ov || pair_skipped(&shapes[i], &shapes[j])) continue;
            if (push_pair(&p, &np, &pcap, i, j)) goto oom;
        }
    }
    for (int q = 0; q < ns; q++) {
        if (shapes[q].type != MCB_SHAPE_PLANE) continue;
        double n[3];
        axis_z(&X[q], n);
        double off = mcb_v3_dot(n, X[q].p);
        for (int k = 0; k < ns; k++) {
            if (shapes[k].type == MCB_SHAPE_PLANE || pair_skipped(&shapes[q], &shapes[k]))
                continue;
            const double *bk = box + 6 * (size_t)k;
            double lowest = -off;
            for (int a = 0; a < 3; a++)
                lowest += n[a] * 0.5 * (bk[a] + bk[3 + a]) - fabs(n[a]) * 0.5 * (bk[3 + a] - bk[a]);
            if (lowest <= margin && push_pair(&p, &np, &pcap, q, k)) goto oom;
        }
    }
    if (np) qsort(p, (size_t)np, sizeof *p, cmp_pair);
    free(box);
    free(it);
    *pairs = p, *npairs = np;
    return MCB_OK;
oom:
    free(box);
    free(it);
    free(p);
    return mcb_fail(err, MCB_E_NOMEM, "contact detection: out of memory (%d shapes)", ns);
}

struct mcb_sample_cache {
    int n;           /* shapes covered */
    sample_set *ss;  /* per shape (n = -1: not computed) */
    mcb_shape *key;  /* the shape the samples were computed for */
};

void mcb_sample_cache_free(mcb_sample_cache **cache)
{
    if (!cache || !*cache) return;
    for (int k = 0; k < (*cache)->n; k++) free((*cache)->ss[k].pts);
    free((*cache)->ss);
    free((*cache)->key);
    free(*cache);
    *cache = NULL;
}

/* Do shapes a and b have the same samples (mcb_shape_samples reads only
 * these fields)? */
static int same_samples(const mcb_shape *a, const mcb_shape *b)
{
    if (a->type != b->type || a->spacing != b->spacing) return 0;
    for (int k = 0; k < 3; k++)
        if (a->size[k] != b->size[k]) return 0;
    if (a->thread.d != b->thread.d || a->thread.pitch != b->thread.pitch ||
        a->thread.length != b->thread.length || a->thread.across_flats != b->thread.across_flats)
        return 0;
    if (a->profile.npts != b->profile.npts || a->profile.thickness != b->profile.thickness)
        return 0;
    for (int k = 0; k < a->profile.npts && k < MCB_PROFILE_MAX; k++)
        if (a->profile.r[k] != b->profile.r[k] || a->profile.z[k] != b->profile.z[k]) return 0;
    return 1;
}

/* The cache covering nshapes shapes, their kept samples checked against
 * the shapes now; -1 when out of memory. */
static int cache_prepare(mcb_sample_cache **cache, const mcb_shape *shapes, int nshapes)
{
    if (!*cache && !(*cache = calloc(1, sizeof **cache))) return -1;
    mcb_sample_cache *c = *cache;
    if (c->n < nshapes) {
        sample_set *ss = realloc(c->ss, (size_t)nshapes * sizeof *ss);
        if (ss) c->ss = ss;
        mcb_shape *key = realloc(c->key, (size_t)nshapes * sizeof *key);
        if (key) c->key = key;
        if (!ss || !key) return -1;
        for (int k = c->n; k < nshapes; k++) c->ss[k].pts = NULL, c->ss[k].n = -1;
        c->n = nshapes;
    }
    for (int k = 0; k < nshapes; k++) {
        if (c->ss[k].n >= 0 && !same_samples(&c->key[k], &shapes[k])) {
            free(c->ss[k].pts);
            c->ss[k].pts = NULL, c->ss[k].n = -1;
        }
        c->key[k] = shapes[k];
    }
    return 0;
}

static mcb_rc detect(const mcb_shape *shapes, const mcb_xform *X, int nshapes, double margin,
                     mcb_sample_cache **cache, mcb_contact **out, int *count, int *capacity,
                     mcb_err *err)
{
    if (!out || !count || !capacity || nshapes < 0 || (nshapes > 0 && (!shapes || !X)))
        return mcb_fail(err, MCB_E_INPUT, "contact detection: bad arguments");
    *count = 0;
    pair_ij *pairs = NULL;
    int np = 0;
    mcb_rc rc = broad_phase(shapes, X, nshapes, margin, &pairs, &np, err);
    if (rc) return rc;
    sample_set *ss = NULL; /* the cache's, or this call's */
    for (int q = 0; q < np; q++) {
        int i = pairs[q].i, j = pairs[q].j;
        if (!ss && (is_sdf(shapes[i].type) || is_sdf(shapes[j].type))) {
            if (cache) {
                if (cache_prepare(cache, shapes, nshapes)) goto oom;
                ss = (*cache)->ss;
            } else {
                ss = mcb_malloc((size_t)nshapes, sizeof *ss);
                if (!ss) goto oom;
                for (int k = 0; k < nshapes; k++) ss[k].pts = NULL, ss[k].n = -1;
            }
        }
        sample_set none_a = {NULL, -1}, none_b = {NULL, -1};
        /* a static shape is always b, so normals point towards the moving body */
        if (shapes[i].body < 0) {
            int t = i;
            i = j, j = t;
        }
        for (;;) {
            int room = *capacity - *count, oom = 0;
            int n = collide_impl(&shapes[i], &X[i], i, &shapes[j], &X[j], j, margin,
                                 *out ? *out + *count : NULL, room, ss ? &ss[i] : &none_a,
                                 ss ? &ss[j] : &none_b, &oom);
            if (oom) goto oom;
            if (n <= room) {
                *count += n;
                break;
            }
            int nc = *capacity > 0 ? *capacity : 256;
            while (nc - *count < n) nc *= 2;
            mcb_contact *grown = realloc(*out, (size_t)nc * sizeof **out);
            if (!grown) goto oom;
            *out = grown, *capacity = nc;
        }
    }
    if (ss && !cache)
        for (int k = 0; k < nshapes; k++) free(ss[k].pts);
    if (!cache) free(ss);
    free(pairs);
    return MCB_OK;
oom:
    if (ss && !cache)
        for (int k = 0; k < nshapes; k++) free(ss[k].pts);
    if (!cache) free(ss);
    free(pairs);
    *count = 0;
    return mcb_fail(err, MCB_E_NOMEM, "contact detection: out of memory");
}

mcb_rc mcb_contacts_detect(const mcb_shape *shapes, const mcb_xform *X, int nshapes, double margin,
                           mcb_contact **out, int *count, int *capacity, mcb_err *err)
{
    return detect(shapes, X, nshapes, margin, NULL, out, count, capacity, err);
}

mcb_rc mcb_contacts_detect_cached(const mcb_shape *shapes, const mcb_xform *X, int nshapes,
                                  double margin, mcb_sample_cache **cache, mcb_contact **out,
                                  int *count, int *capacity, mcb_err *err)
{
    if (!cache) return mcb_fail(err, MCB_E_INPUT, "contact detection: NULL sample cache");
    return detect(shapes, X, nshapes, margin, cache, out, count, capacity, err);
}

/* ---- clustering ---------------------------------------------------------- */

/* Orders contact indices by (body_a, body_b, index). */
static int cmp_by_pair_idx(const mcb_contact *c, int x, int y)
{
    if (c[x].body_a != c[y].body_a) return c[x].body_a < c[y].body_a ? -1 : 1;
    if (c[x].body_b != c[y].body_b) return c[x].body_b < c[y].body_b ? -1 : 1;
    return (x > y) - (x < y);
}

/* Stable merge sort of idx[0..n) with cmp on c (no global state). */
static void msort(int *idx, int *tmp, int n, const mcb_contact *c, int by_gap)
{
    if (n < 2) return;
    int h = n / 2;
    msort(idx, tmp, h, c, by_gap);
    msort(idx + h, tmp, n - h, c, by_gap);
    int i = 0, j = h, k = 0;
    while (i < h && j < n) {
        int take_left;
        if (by_gap) take_left = !(c[idx[j]].gap < c[idx[i]].gap);
        else take_left = cmp_by_pair_idx(c, idx[i], idx[j]) <= 0;
        tmp[k++] = take_left ? idx[i++] : idx[j++];
    }
    while (i < h) tmp[k++] = idx[i++];
    while (j < n) tmp[k++] = idx[j++];
    memcpy(idx, tmp, (size_t)n * sizeof *idx);
}

/* |a - b|^2, summed in the order of mcb_v3_dot (inline: clustering calls
 * it m k times per step). A lower bound of it: (a[0] - b[0])^2 alone, in
 * floating point too (adding squares never rounds below an addend). */
static inline double dist2(const double a[3], const double b[3])
{
    double d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
    return d0 * d0 + d1 * d1 + d2 * d2;
}

/* Insertion sort of the k centres' indices by their x (k is at most the
 * per-pair cap, 120 in the papers' scenes). */
static void order_by_x(const double *cen, int k, int *ord)
{
    for (int q = 0; q < k; q++) {
        int i = q;
        while (i > 0 && cen[3 * ord[i - 1]] > cen[3 * q]) {
            ord[i] = ord[i - 1];
            i--;
        }
        ord[i] = q;
    }
}

/* The nearest centre to x (the lowest index among equally near ones, as a
 * scan over q = 0..k-1 keeping strictly nearer ones finds): centres visited
 * outwards from x's place in the x order (ord), each direction stopped
 * once (x[0] - centre x)^2 exceeds the best distance, which then bounds
 * every farther centre's distance from below. Exact: the same distances
 * compared as by the scan. */
static int nearest_centre(const double x[3], const double *cen, const int *ord, int k)
{
    int lo = 0, hi = k; /* first place whose centre x >= x[0] */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (cen[3 * ord[mid]] < x[0]) lo = mid + 1;
        else hi = mid;
    }
    int bq = -1;
    double bd = INFINITY;
    for (int s = lo; s < k; s++) {
        int q = ord[s];
        double dx = x[0] - cen[3 * q];
        if (bq >= 0 && dx * dx > bd) break;
        double d = dist2(x, cen + 3 * q);
        if (bq < 0 || d < bd || (d == bd && q < bq)) bd = d, bq = q;
    }
    for (int s = lo - 1; s >= 0; s--) {
        int q = ord[s];
        double dx = x[0] - cen[3 * q];
        if (bq >= 0 && dx * dx > bd) break;
        double d = dist2(x, cen + 3 * q);
        if (bq < 0 || d < bd || (d == bd && q < bq)) bd = d, bq = q;
    }
    return bq;
}

/* One body pair's contacts g[0..m) (indices into c, ascending) reduced to
 * at most k: farthest-point seeds from the deepest contact, 5 k-means
 * steps on positions, then the deepest contact of each cluster; marks the
 * kept ones in keep[]. Scratch: mind, assign (m each), cen (6 k: centres,
 * sums), best (k), ord (k). */
static void cluster_group(const mcb_contact *c, const int *g, int m, int k, char *keep,
                          double *mind, int *assign, double *cen, int *best, int *ord)
{
    int deep = 0;
    for (int i = 1; i < m; i++)
        if (c[g[i]].gap < c[g[deep]].gap) deep = i;
    for (int i = 0; i < m; i++) mind[i] = INFINITY;
    int s = deep;
    for (int q = 0; q < k; q++) {
        memcpy(cen + 3 * q, c[g[s]].p, 3 * sizeof(double));
        int far = -1;
        for (int i = 0; i < m; i++) {
            /* the new centre cannot come nearer than the bound: skip it */
            double dx = c[g[i]].p[0] - cen[3 * q];
            if (!(dx * dx >= mind[i])) {
                double d = dist2(c[g[i]].p, cen + 3 * q);
                if (d < mind[i]) mind[i] = d;
            }
            if (far < 0 || mind[i] > mind[far]) far = i;
        }
        s = far;
    }
    for (int it = 0; it < 6; it++) {
        order_by_x(cen, k, ord);
        for (int i = 0; i < m; i++) assign[i] = nearest_centre(c[g[i]].p, cen, ord, k);
        if (it == 5) break;
        /* new centres: the means (an empty cluster keeps its centre) */
        double *sum = cen + 3 * (size_t)k;
        for (int q = 0; q < k; q++) best[q] = 0, sum[3 * q] = sum[3 * q + 1] = sum[3 * q + 2] = 0;
        for (int i = 0; i < m; i++) {
            int q = assign[i];
            for (int a = 0; a < 3; a++) sum[3 * q + a] += c[g[i]].p[a];
            best[q]++;
        }
        for (int q = 0; q < k; q++)
            if (best[q])
                for (int a = 0; a < 3; a++) cen[3 * q + a] = sum[3 * q + a] / best[q];
    }
    for (int q = 0; q < k; q++) best[q] = -1;
    for (int i = 0; i < m; i++) {
        int q = assign[i];
        if (best[q] < 0 || c[g[i]].gap < c[g[best[q]]].gap) best[q] = i;
    }
    for (int q = 0; q < k; q++)
        if (best[q] >= 0) keep[g[best[q]]] = 1;
}

/* Keeps the contacts marked in keep[], in their order; returns the count. */
static int compact(mcb_contact *c, int nc, const char *keep)
{
    int w = 0;
    for (int i = 0; i < nc; i++)
        if (keep[i]) c[w++] = c[i];
    return w;
}

int mcb_contacts_cluster(mcb_contact *c, int nc, int cap_per_pair, int cap_total)
{
    if (!c || nc <= 0) return 0;
    int *idx = mcb_malloc((size_t)nc, sizeof(int)), *tmp = mcb_malloc((size_t)nc, sizeof(int));
    int *assign = mcb_malloc((size_t)nc, sizeof(int));
    double *mind = mcb_malloc((size_t)nc, sizeof(double));
    int kmax = cap_per_pair > 0 ? cap_per_pair : 1;
    double *cen = mcb_malloc((size_t)kmax * 6, sizeof(double));
    int *best = mcb_malloc((size_t)kmax, sizeof(int)), *ord = mcb_malloc((size_t)kmax, sizeof(int));
    char *keep = mcb_malloc((size_t)nc, 1);
    if (!idx || !tmp || !assign || !mind || !cen || !best || !ord || !keep) {
        /* out of memory: keep the deepest, by an in-place sort on depth */
        free(idx), free(tmp), free(assign), free(mind), free(cen), free(best), free(ord), free(keep);
        int cap = cap_total > 0 ? cap_total : cap_per_pair;
        if (cap <= 0 || nc <= cap) return nc;
        for (int i = 0; i < cap; i++) { /* partial selection, no allocation */
            int b = i;
            for (int j = i + 1; j < nc; j++)
                if (c[j].gap < c[b].gap) b = j;
            mcb_contact t = c[i];
            c[i] = c[b], c[b] = t;
        }
        return cap;
    }
    for (int i = 0; i < nc; i++) idx[i] = i, keep[i] = 1;
    if (cap_per_pair > 0) {
        msort(idx, tmp, nc, c, 0);
        for (int s = 0; s < nc;) {
            int e = s + 1;
            while (e < nc && c[idx[e]].body_a == c[idx[s]].body_a &&
                   c[idx[e]].body_b == c[idx[s]].body_b)
                e++;
            if (e - s > cap_per_pair) {
                for (int i = s; i < e; i++) keep[idx[i]] = 0;
                cluster_group(c, idx + s, e - s, cap_per_pair, keep, mind, assign, cen, best, ord);
            }
            s = e;
        }
        nc = compact(c, nc, keep);
    }
    if (cap_total > 0 && nc > cap_total) {
        for (int i = 0; i < nc; i++) idx[i] = i, keep[i] = 0;
        msort(idx, tmp, nc, c, 1); /* stable: ties keep the earlier contact */
        for (int i = 0; i < cap_total; i++) keep[idx[i]] = 1;
        nc = compact(c, nc, keep);
    }
    free(idx), free(tmp), free(assign), free(mind), free(cen), free(best), free(ord), free(keep);
    return nc;
}
