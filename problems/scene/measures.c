/* measures.c: what a closed-loop run measures about the world's state
 * after a step (docs/closed-loop.md, "Trajectory measures"): its energy
 * (kinetic, gravitational potential, elastic), the drift of its joints,
 * and the weight scale of the default energy bound. Reads the state only
 * (robot link poses and mesh element rotations are refreshed, which the
 * next step recomputes anyway); allocates only a robot's mass matrix. */
#include <math.h>
#include <stdlib.h>

#include "problems/scene/body.h"
#include "problems/scene/world_internal.h"

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* Rigid bodies: 1/2 m |v|^2 + 1/2 w^T I_world w and -m g.x (kinematic
 * bodies are scripted, outside the energy balance). */
static void rigid_energy(const mcb_world *w, double E[3])
{
    for (int k = 0; k < w->nrigid; k++) {
        const mcb_rigid *B = &w->rigid[k];
        if (B->kinematic) continue;
        double Iw[9], Iww[3];
        mcb_rigid_inertia_world(B, Iw);
        for (int i = 0; i < 3; i++) Iww[i] = dot3(Iw + 3 * i, B->vel + 3);
        E[0] += 0.5 * B->mass_kg * dot3(B->vel, B->vel) + 0.5 * dot3(B->vel + 3, Iww);
        E[1] -= B->mass_kg * dot3(w->o.gravity, B->pos);
    }
}

/* Robots: 1/2 v^T H(q) v (CRBA) and -sum_links m g.c (c the link's centre
 * of mass in the world). */
static void robot_energy(mcb_world *w, double E[3])
{
    for (int r = 0; r < w->nrobots; r++) {
        mcb_robot *R = w->robots[r];
        int nd = mcb_robot_ndof(R);
        const double *v = mcb_robot_v(R);
        double *H = malloc((size_t)nd * (size_t)nd * sizeof(double) + 1);
        if (!H) {
            E[0] = NAN;
            continue;
        }
        mcb_robot_update(R);
        mcb_robot_crba(R, H);
        for (int i = 0; i < nd; i++)
            for (int j = 0; j < nd; j++) E[0] += 0.5 * v[i] * H[i * nd + j] * v[j];
        free(H);
        for (int k = 0; k < mcb_robot_nlinks(R); k++) {
            const mcb_link *L = mcb_robot_link(R, k);
            const mcb_xform *X = mcb_robot_link_pose(R, k);
            double c[3];
            for (int i = 0; i < 3; i++) c[i] = X->p[i] + dot3(X->R + 3 * i, L->com);
            E[1] -= L->mass_kg * dot3(w->o.gravity, c);
        }
    }
}

/* Meshes: lumped 1/2 m |v|^2 per node, -m g.x, and the strain energy. */
static void fem_energy(mcb_world *w, double E[3])
{
    for (int f = 0; f < w->nfems; f++) {
        mcb_fem *F = w->fems[f];
        const double *x = mcb_fem_x(F), *v = mcb_fem_v(F), *m = mcb_fem_node_mass(F);
        for (int i = 0; i < mcb_fem_nnodes(F); i++) {
            E[0] += 0.5 * m[i] * dot3(v + 3 * i, v + 3 * i);
            E[1] -= m[i] * dot3(w->o.gravity, x + 3 * i);
        }
        E[2] += mcb_fem_elastic_energy(F);
    }
}

/* Visits every joint row at the current poses: fn(ctx, joint, row). */
static void each_joint_row(mcb_world *w, void (*fn)(void *, const mcb_wjoint *, const mcb_wjoint_row *),
                           void *ctx)
{
    static const mcb_xform ident = {{1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0}};
    for (int q = 0; q < w->njoints && w->jr; q++) {
        const mcb_wjoint *J = &w->joints[q];
        const mcb_xform *Xa = J->body_a >= 0 ? mcb_world_body_pose(w, J->body_a) : &ident;
        const mcb_xform *Xb = J->body_b >= 0 ? mcb_world_body_pose(w, J->body_b) : &ident;
        if (!Xa || !Xb) continue;
        mcb_xform a = *Xa, b = *Xb; /* body_pose may reuse one buffer */
        mcb_wjoint_eval(J, &a, &b, w->jr);
        for (int r = 0; r < mcb_wjoint_nrows(J); r++) fn(ctx, J, &w->jr[r]);
    }
}

static void spring_energy(void *ctx, const mcb_wjoint *J, const mcb_wjoint_row *R)
{
    if (J->soft) *(double *)ctx += 0.5 * R->K * R->phi * R->phi;
}

void mcb_world_energy(mcb_world *w, double E[3])
{
    E[0] = E[1] = E[2] = 0.0;
    if (!w) return;
    rigid_energy(w, E);
    robot_energy(w, E);
    fem_energy(w, E);
    each_joint_row(w, spring_energy, &E[2]);
}

typedef struct {
    double hard, soft;
} drift_acc;

static void drift_row(void *ctx, const mcb_wjoint *J, const mcb_wjoint_row *R)
{
    drift_acc *d = ctx;
    double *x = J->soft ? &d->soft : &d->hard;
    if (!(fabs(R->phi) <= *x)) *x = fabs(R->phi); /* NaN propagates */
}

double mcb_world_joint_drift(mcb_world *w, double *soft)
{
    drift_acc d = {0.0, 0.0};
    if (w) each_joint_row(w, drift_row, &d);
    if (soft) *soft = d.soft;
    return d.hard;
}

double mcb_world_weight_J(const mcb_world *w)
{
    if (!w) return 0.0;
    double m = 0.0, g = sqrt(dot3(w->o.gravity, w->o.gravity));
    for (int k = 0; k < w->nrigid; k++)
        if (!w->rigid[k].kinematic) m += w->rigid[k].mass_kg;
    for (int r = 0; r < w->nrobots; r++) m += mcb_robot_total_mass(w->robots[r]);
    for (int f = 0; f < w->nfems; f++) m += mcb_fem_total_mass(w->fems[f]);
    return m * g * 1.0;
}
