/* gen_stack.c: the RPIsim test scene (RPIsim paper, Fig. 9a): a cube of
 * nx x ny x nz spheres resting on a ground plane, simulated with a
 * velocity-level time stepping scheme; each step's subproblem is recorded.
 *
 * Bodies: spheres of radius r, mass m, inertia (2/5) m r^2 I, 6 DOFs each
 * (linear then angular velocity), each its own subsystem. Per step:
 *   A = M,  b = M v_k + h f_ext (gravity),
 *   one contact per sphere pair (and sphere-ground pair) closer than a
 *   margin, rows [n, t1, t2] of the relative velocity at the contact point,
 *   e_n = gap / h (the velocity that closes the gap in one step), e_t = 0;
 *   solved to a natural-map residual of ref_tol by PGS; v_{k+1} is the
 *   solution; positions advance by h v_{k+1}.
 * Deterministic: the only randomness is the lattice jitter from a fixed
 * linear congruential generator seeded by `seed`. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/describe.h"
#include "problems/gen_stack.h"
#include "metrics/metrics.h"
#include "problems/scene/scenes.h"
#include "solvers/solver.h"

void mcb_stack_defaults(mcb_stack_opts *o)
{
    o->nx = o->ny = o->nz = 5;
    o->steps = 10;
    o->radius_m = 0.1;
    o->mass_kg = 1.0;
    o->mu = 0.5;
    o->h_s = 0.01;
    o->jitter = 0.01;
    o->seed = 12345u;
    o->ref_tol = 1e-10;
}

static double lcg_uniform(unsigned *s) /* in [-1, 1) */
{
    *s = *s * 1664525u + 1013904223u;
    return (double)(*s >> 8) / (double)(1u << 23) - 1.0;
}

typedef struct {
    int a, b;      /* bodies; b = -1 for the ground */
    double n[3];   /* normal, pointing from b towards a */
    double gap;
} contact;

/* Tangents t1, t2 completing n to a right-handed orthonormal frame. */
static void tangents(const double n[3], double t1[3], double t2[3])
{
    double a[3] = {1, 0, 0};
    if (fabs(n[0]) > 0.9) a[0] = 0, a[1] = 1;
    double d = a[0] * n[0] + a[1] * n[1] + a[2] * n[2];
    for (int k = 0; k < 3; k++) t1[k] = a[k] - d * n[k];
    double l = sqrt(t1[0] * t1[0] + t1[1] * t1[1] + t1[2] * t1[2]);
    for (int k = 0; k < 3; k++) t1[k] /= l;
    t2[0] = n[1] * t1[2] - n[2] * t1[1];
    t2[1] = n[2] * t1[0] - n[0] * t1[2];
    t2[2] = n[0] * t1[1] - n[1] * t1[0];
}

static void cross(const double a[3], const double b[3], double c[3])
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

static int detect(const mcb_stack_opts *o, const double *pos, int nb, contact *out)
{
    double r = o->radius_m, margin = 0.05 * r;
    int nc = 0;
    for (int a = 0; a < nb; a++) {
        double g = pos[3 * a + 2] - r;
        if (g < margin) out[nc++] = (contact){a, -1, {0, 0, 1}, g};
    }
    for (int a = 0; a < nb; a++)
        for (int b = a + 1; b < nb; b++) {
            double d[3] = {pos[3 * a] - pos[3 * b], pos[3 * a + 1] - pos[3 * b + 1],
                           pos[3 * a + 2] - pos[3 * b + 2]};
            double dist = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            if (dist - 2 * r < margin)
                out[nc++] = (contact){a, b, {d[0] / dist, d[1] / dist, d[2] / dist}, dist - 2 * r};
        }
    return nc;
}

/* Assembles the step's problem from positions, velocities and contacts. */
static mcb_problem *assemble(const mcb_stack_opts *o, int step, const double *vel, int nb,
                             const contact *C, int nc)
{
    mcb_problem *P = mcb_problem_new();
    if (!P) return NULL;
    int n = 6 * nb, m = 3 * nc;
    double r = o->radius_m, mass = o->mass_kg, inertia = 0.4 * mass * r * r;
    P->form = MCB_PRIMAL;
    P->n = n;
    P->m = m;
    P->h = o->h_s;
    P->step = step;
    int *ri = mcb_malloc((size_t)n, sizeof(int));
    double *x = mcb_malloc((size_t)n, sizeof(double));
    P->b = mcb_malloc((size_t)n, sizeof(double));
    P->e = mcb_calloc((size_t)m, sizeof(double));
    P->v0 = mcb_malloc((size_t)n, sizeof(double));
    P->blocks = mcb_calloc((size_t)nc, sizeof(mcb_block));
    P->sub_start = mcb_malloc((size_t)nb + 1, sizeof(int));
    int nzJ = 0;
    for (int c = 0; c < nc; c++) nzJ += 3 * (C[c].b < 0 ? 6 : 12);
    int *jr = mcb_malloc((size_t)nzJ, sizeof(int)), *jc = mcb_malloc((size_t)nzJ, sizeof(int));
    double *jx = mcb_malloc((size_t)nzJ, sizeof(double));
    if (!ri || !x || !P->b || !P->e || !P->v0 || !P->blocks || !P->sub_start || !jr || !jc || !jx)
        goto fail;
    for (int k = 0; k < n; k++) {
        ri[k] = k;
        x[k] = (k % 6) < 3 ? mass : inertia;
        P->b[k] = x[k] * vel[k] + ((k % 6) == 2 ? -9.81 * mass * o->h_s : 0.0);
        P->v0[k] = vel[k];
    }
    P->A = mcb_csc_from_triplets(n, n, n, ri, ri, x);
    for (int s = 0; s <= nb; s++) P->sub_start[s] = 6 * s;
    P->nsub = nb;
    int t = 0;
    for (int c = 0; c < nc; c++) {
        double dir[3][3];
        memcpy(dir[0], C[c].n, sizeof dir[0]);
        tangents(C[c].n, dir[1], dir[2]);
        for (int k = 0; k < 3; k++) {
            int row = 3 * c + k;
            /* body a: contact point offset -r n; body b: +r n */
            for (int side = 0; side < 2; side++) {
                int body = side == 0 ? C[c].a : C[c].b;
                if (body < 0) continue;
                double sgn = side == 0 ? 1.0 : -1.0;
                double off[3] = {-sgn * r * C[c].n[0], -sgn * r * C[c].n[1], -sgn * r * C[c].n[2]};
                double ang[3];
                cross(off, dir[k], ang); /* d . (w x off) = w . (off x d) */
                for (int q = 0; q < 3; q++) {
                    jr[t] = row, jc[t] = 6 * body + q, jx[t++] = sgn * dir[k][q];
                    jr[t] = row, jc[t] = 6 * body + 3 + q, jx[t++] = sgn * ang[q];
                }
            }
        }
        P->e[3 * c] = C[c].gap / o->h_s;
        P->blocks[c] = (mcb_block){MCB_CONTACT, 3 * c, 3, o->mu, 0.0, 0.0};
    }
    P->nblocks = nc;
    P->J = mcb_csc_from_triplets(m, n, t, jr, jc, jx);
    if (!P->A || !P->J) goto fail;
    char buf[256];
    snprintf(buf, sizeof buf, "stack-%dx%dx%d-step%04d", o->nx, o->ny, o->nz, step);
    free(P->name);
    P->name = mcb_strdup(buf);
    snprintf(buf, sizeof buf,
             "mcbench gen stack --nx %d --ny %d --nz %d --steps %d (seed %u, jitter %g)", o->nx,
             o->ny, o->nz, o->steps, o->seed, o->jitter);
    free(P->source);
    P->source = mcb_strdup(buf);
    free(P->scene);
    P->scene = mcb_strdup("stack");
    snprintf(buf, sizeof buf,
             "%d spheres (r %g m, m %g kg), mu %g, h %g s, %d contacts; reference solution by "
             "PGS to natural-map residual %g", nb, r, mass, o->mu, o->h_s, nc, o->ref_tol);
    free(P->notes);
    P->notes = mcb_strdup(buf);
    free(ri);
    free(x);
    free(jr);
    free(jc);
    free(jx);
    return P;
fail:
    free(ri);
    free(x);
    free(jr);
    free(jc);
    free(jx);
    mcb_problem_free(&P);
    return NULL;
}

typedef struct {
    mcb_metrics_ws *ws;
    const mcb_solver_def *def;
    void *work;
    double *v, *lambda, tol;
} ref_ctx;

static mcb_cb_action ref_cb(void *c, int iter, double own)
{
    (void)own;
    ref_ctx *r = c;
    if (iter % 10) return MCB_CB_CONTINUE;
    r->def->iterate(r->work, r->v, r->lambda);
    return mcb_metrics_one(r->ws, MCB_M_NATMAP, r->v, r->lambda) <= r->tol ? MCB_CB_CONVERGED
                                                                          : MCB_CB_CONTINUE;
}

/* Solves P to the reference tolerance with PGS; stores the solution. */
static mcb_rc reference_solve(mcb_problem *P, double tol, mcb_err *err)
{
    const mcb_solver_def *def = mcb_solver_find("pgs");
    mcb_settings s;
    mcb_settings_default(&s);
    s.max_iters = 20000;
    double params[32]; /* aligned storage for any parameter struct */
    def->default_params(params);
    ref_ctx r = {0};
    r.def = def;
    r.tol = tol;
    P->v_ref = mcb_calloc((size_t)P->n, sizeof(double));
    P->lambda_ref = mcb_calloc((size_t)P->m, sizeof(double));
    if (!P->v_ref || !P->lambda_ref) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    r.v = P->v_ref;
    r.lambda = P->lambda_ref;
    mcb_rc rc = mcb_metrics_ws_new(P, &r.ws, err);
    if (!rc) rc = def->setup(P, &s, params, &r.work, err);
    if (!rc) {
        mcb_info info = {0};
        def->solve(r.work, &s, ref_cb, &r, &info);
        def->iterate(r.work, P->v_ref, P->lambda_ref);
    }
    def->free(&r.work);
    mcb_metrics_ws_free(&r.ws);
    return rc;
}

mcb_rc mcb_gen_stack(const mcb_stack_opts *o, mcb_problem_set **out, mcb_err *err)
{
    *out = NULL;
    if (o->nx < 1 || o->ny < 1 || o->nz < 1 || o->steps < 1 || o->nx * o->ny * o->nz > 20000)
        return mcb_fail(err, MCB_E_INPUT,
                        "gen stack: --nx, --ny, --nz and --steps must be >= 1 (at most 20000 spheres)");
    if (!(o->radius_m > 0) || !(o->mass_kg > 0) || !(o->h_s > 0) || !(o->mu >= 0))
        return mcb_fail(err, MCB_E_INPUT, "gen stack: radius, mass and h must be > 0, mu >= 0");
    int nb = o->nx * o->ny * o->nz;
    double *pos = mcb_malloc(3 * (size_t)nb, sizeof(double));
    double *vel = mcb_calloc(6 * (size_t)nb, sizeof(double));
    contact *C = mcb_malloc((size_t)nb * 14, sizeof(contact));
    mcb_problem_set *S = calloc(1, sizeof *S);
    mcb_rc rc = MCB_OK;
    if (!pos || !vel || !C || !S) {
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        goto done;
    }
    unsigned seed = o->seed;
    double r = o->radius_m;
    for (int i = 0, b = 0; i < o->nx; i++)
        for (int j = 0; j < o->ny; j++)
            for (int k = 0; k < o->nz; k++, b++) {
                pos[3 * b] = 2 * r * i + o->jitter * r * lcg_uniform(&seed);
                pos[3 * b + 1] = 2 * r * j + o->jitter * r * lcg_uniform(&seed);
                pos[3 * b + 2] = r + 2 * r * k;
            }
    for (int step = 0; step < o->steps && !rc; step++) {
        int nc = detect(o, pos, nb, C);
        mcb_problem *P = assemble(o, step, vel, nb, C, nc);
        if (!P) {
            rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
            break;
        }
        rc = reference_solve(P, o->ref_tol, err);
        if (!rc) {
            mcb_describe_store(P); /* the descriptors, once, where the problem is made */
            memcpy(vel, P->v_ref, (size_t)P->n * sizeof(double));
            for (int b = 0; b < nb; b++)
                for (int q = 0; q < 3; q++) pos[3 * b + q] += o->h_s * vel[6 * b + q];
            rc = mcb_problem_set_push(S, P, err);
        }
        if (rc) mcb_problem_free(&P);
    }
done:
    free(pos);
    free(vel);
    free(C);
    if (rc) mcb_problem_set_free(&S);
    *out = S;
    return rc;
}

/* The registry's entry (problems/scene/scenes.c): vals in the table's
 * option order nx, ny, nz, steps, radius, mass, mu, h, seed, jitter;
 * each problem's source becomes the canonical argument string. */
mcb_rc mcb_scene_stack(const double *vals, const struct mcb_world_loop *loop, mcb_problem_set **out,
                      mcb_err *err)
{
    if (loop)
        return mcb_fail(err, MCB_E_INPUT,
                        "stack: recorded by its own stepping code (gen_stack.c), not the scene "
                        "engine: it cannot run in a closed loop");
    *out = NULL;
    mcb_stack_opts o;
    mcb_stack_defaults(&o);
    o.nx = (int)vals[0];
    o.ny = (int)vals[1];
    o.nz = (int)vals[2];
    o.steps = (int)vals[3];
    o.radius_m = vals[4];
    o.mass_kg = vals[5];
    o.mu = vals[6];
    o.h_s = vals[7];
    o.seed = (unsigned)vals[8];
    o.jitter = vals[9];
    mcb_rc rc = mcb_gen_stack(&o, out, err);
    if (rc) return rc;
    const mcb_scene_def *def = mcb_scene_find("stack");
    char args[1024];
    mcb_scene_args(def, vals, args, sizeof args);
    for (int k = 0; k < (*out)->count; k++) {
        mcb_problem *P = (*out)->items[k];
        free(P->source);
        if (!(P->source = mcb_strdup(args))) {
            mcb_problem_set_free(out);
            return mcb_fail(err, MCB_E_NOMEM, "out of memory");
        }
        P->mass_ratio = 1.0; /* identical spheres */
    }
    return MCB_OK;
}
