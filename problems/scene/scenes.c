/* scenes.c: the scene registry behind `mcbench gen NAME [options]` (see
 * scenes.h): one explicit table of generators with their typed options,
 * the parser of "--name value" pairs against a scene's options, and the
 * canonical argument string recorded as each problem's source (and
 * compared by the problem sets, problems/sets.c, to reuse a file).
 *
 * Numbers in the canonical string are printed in the shortest form that
 * reads back to the same double (at most 17 significant digits), so
 * parse(args(vals)) == vals bit for bit. Nothing here allocates. */
#include "problems/scene/scenes.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The table. Scene engineers: add one line per scene (generator in
 * scene_NAME.c, declared in scenes.h) at the marked place below, in the
 * order `mcbench gen --list` should show them. Option values reach the
 * generator in the order of its opts[]. */
static const mcb_scene_def scenes[] = {
    {"stack",
     "RPIsim test scene: nx x ny x nz spheres in cube formation resting on a ground plane",
     "RPIsim paper, Fig. 9a (the sphere stack)",
     {{"nx", "spheres along x", 5, 1, 1000, 1},
      {"ny", "spheres along y", 5, 1, 1000, 1},
      {"nz", "spheres along z (layers)", 5, 1, 1000, 1},
      {"steps", "recorded steps", 10, 1, 100000, 1},
      {"radius", "sphere radius (m)", 0.1, 1e-6, 1e3, 0},
      {"mass", "sphere mass (kg)", 1.0, 1e-9, 1e9, 0},
      {"mu", "friction coefficient", 0.5, 0, 100, 0},
      {"h", "time step (s)", 0.01, 1e-9, 10, 0},
      {"seed", "seed of the lattice jitter", 12345, 0, 2147483647, 1},
      {"jitter", "lattice jitter (fraction of the radius)", 0.01, 0, 1, 0},
      {NULL, NULL, 0, 0, 0, 0}},
     mcb_scene_stack, 0},
    /* the papers' scenes (issue 8) go here, one line each, e.g.
     * {"stir", "...", "SubADMM paper, Sec. IV-A", {...}, mcb_scene_stir, 1}, */
    {"stir", "spheres (r 1 cm, 4 g) in a box stirred by a rod on a 7-DOF arm (216: dimension 1303, 217 subsystems), h 10 ms", "SubADMM paper, Sec. IV-A 1 (Fig. 1a; scaling Fig. 2)", {{"spheres", "number of spheres", 216, 1, 20000, 1}, {"steps", "recorded steps", 40, 1, 100000, 1}, {"seed", "seed of the lattice jitter", 22295, 0, 2147483647, 1}, {NULL, NULL, 0, 0, 0, 0}}, mcb_scene_stir, 1},
    {"quadrupeds", "18-DOF quadrupeds dropped onto the floor in a g x g x g lattice, PD holding a standing posture, h 1/240 s", "CANAL/SubADMM paper, Sec. VII-D2 (Table III, Fig. 12)", {{"robots", "number of quadrupeds (8: 144 DOF; 27: the larger case)", 8, 1, 1000, 1}, {"steps", "recorded steps", 240, 1, 100000, 1}, {"tilt", "largest random roll and pitch at the drop (rad)", 0.05, 0, 3.2, 0}, {"seed", "seed of the drop's random offsets, yaw, roll and pitch", 18971, 0, 2147483647, 1}, {NULL, NULL, 0, 0, 0, 0}}, mcb_scene_quadrupeds, 1},
    {"dishes", "bowl, bowl, plate (0.1 kg) and a 5 kg pot stacked (SDF shells), one step per random wrench", "CANAL paper, Sec. VII-B1, Table II, Figs. 8-9, Appendix B", {{"wrenches", "random wrench cases (one problem each)", 100, 1, 100000, 1}, {"settle", "quasi-static settling steps before the cases (not recorded)", 60, 1, 100000, 1}, {"scale", "wrench magnitude (force in dish weights; torque x 5 cm)", 1, 0, 1000, 0}, {"seed", "seed of the placement and the wrenches", 2024, 0, 2147483647, 1}, {NULL, NULL, 0, 0, 0, 0}}, mcb_scene_dishes, 0},
    {"dish-piling", "the 5 kg pot lowered onto the settled bowl-bowl-plate stack by an impedance to a scripted hand (one trajectory), h 1/240 s", "CANAL paper, Sec. VII-B2 (closed-loop piling)", {{"steps", "steps (240: one second)", 240, 1, 100000, 1}, {"lift", "the pot's start above its settled pose (m)", 0.02, 0, 1, 0}, {"lower", "time the hand takes to lower it (s)", 0.5, 1e-3, 100, 0}, {"settle", "quasi-static settling steps of the stack first (not in the loop)", 60, 1, 100000, 1}, {"seed", "seed of the placement", 2024, 0, 2147483647, 1}, {NULL, NULL, 0, 0, 0, 0}}, mcb_scene_dish_piling, 1},
    {"bolt-nut", "M48 nut on a static bolt: sampled nut configurations x random wrenches, contacts clustered to 120", "CANAL paper, Sec. VII-A1, Figs. 6-7", {{"configs", "nut configurations along the thread", 10, 1, 10000, 1}, {"wrenches", "random wrenches per configuration (one problem each)", 10, 1, 10000, 1}, {"settle", "quasi-static settling steps per configuration (not recorded)", 24, 1, 100000, 1}, {"scale", "wrench magnitude (force in nut weights; torque x 37.5 mm)", 1, 0, 1000, 0}, {"seed", "seed of the configurations and the wrenches", 2024, 0, 2147483647, 1}, {NULL, NULL, 0, 0, 0, 0}}, mcb_scene_bolt_nut, 0},
    {"bolt-nut-assembly", "the M48 nut screwed down the bolt by an impedance to a scripted hand (one trajectory, contacts clustered to 120), h 1/240 s", "CANAL paper, Sec. VII-A2 (closed-loop assembly)", {{"steps", "steps (240: one second)", 240, 1, 100000, 1}, {"rate", "screwing rate (turns per second)", 1, 0, 100, 0}, {"seed", "seed of the start's tilt and offset", 2024, 0, 2147483647, 1}, {NULL, NULL, 0, 0, 0, 0}}, mcb_scene_bolt_nut_assembly, 1},
    {"pouring", "28-DOF dual arm tilting a bottle of particles (r 5 mm, 10 g/cm^3) into a cup", "CANAL paper, Sec. VII-C, Figs. 10-11", {{"particles", "particles in the bottle (the paper: 9, 18, 27, 36, 45)", 45, 1, 63, 1}, {"steps", "recorded steps of the pouring motion (tilt 0.6 s, pour, landing in the cup)", 360, 1, 100000, 1}, {"settle", "steps holding still before the motion (not recorded)", 24, 0, 100000, 1}, {"seed", "seed of the particle jitter", 2024, 0, 2147483647, 1}, {NULL, NULL, 0, 0, 0, 0}}, mcb_scene_pouring, 1},
    {"wall", "a running-bond brick wall on the ground hit by a steel sphere, mu 0.6, h 10 ms", "Tasora-Negrut GPU CCP paper, 3D wall benchmark (Table 1)", {{"bricks", "number of bricks (paper: 1000, 2000, 8000)", 1000, 1, 100000, 1}, {"steps", "recorded steps", 20, 1, 100000, 1}, {NULL, NULL, 0, 0, 0, 0}}, mcb_scene_wall, 1},
    {"cable", "two 10-DOF mobile manipulators driving and winding a cable of rigid segments with Cosserat soft joints (640: 3860 DOF, 162 subsystems), h 10 ms", "SubADMM paper, Sec. IV-A 2 (Fig. 1b; scaling Fig. 2)", {{"segments", "cable segments (4 per subsystem; the paper: 640)", 640, 2, 100000, 1}, {"steps", "recorded steps", 100, 1, 100000, 1}, {"tol", "natural-map residual each step is solved to (the soft rows folded into A: docs/stepping.md)", 1e-8, 1e-14, 1, 0}, {"iters", "iterations per solver and step", 5000, 1, 10000000, 1}, {NULL, NULL, 0, 0, 0, 0}}, mcb_scene_cable, 1},
    {"beam", "co-rotational FEM beam (0.05 x 0.05 x 0.5 m, E 10 MPa, nu 0.45) pushed through a narrow gap by a 7-DOF arm, pieces as subsystems, h 10 ms", "SubADMM paper, Sec. IV-A 3 (Fig. 1c)", {{"cells", "cells across the beam (each side)", 4, 1, 64, 1}, {"length", "cells along the beam", 44, 1, 4096, 1}, {"pieces", "subsystems the beam is cut into (paper: 20)", 20, 1, 4096, 1}, {"steps", "recorded steps", 40, 1, 100000, 1}, {"speed", "insertion speed of the grip (m/s)", 0.1, 0, 10, 0}, {NULL, NULL, 0, 0, 0, 0}}, mcb_scene_beam, 1},
    {"franka-mat", "a Franka Panda pinching a soft co-rotational FEM mat (0.3 x 0.3 x 0.01 m) on the floor and folding it over (26 x 26 cells: 1458 nodes, 4056 tets, 4381 DOF); E, nu, mu drawn from --seed", "COND paper, Sec. V-C3 (Table II, Fig. 7; scalability Sec. V-D, Fig. 11)", {{"cells-x", "mat cells along x (the fold's direction; 6 tetrahedra per cell, one cell thick)", 26, 1, 400, 1}, {"cells-y", "mat cells along y", 26, 1, 400, 1}, {"steps", "recorded steps (160 at 10 ms: the fold and a hold)", 160, 1, 100000, 1}, {"dt", "time step (s)", 0.01, 1e-4, 0.05, 0}, {"seed", "seed of Young's modulus, Poisson's ratio and friction", 1, 0, 2147483647, 1}, {"compliance", "contact compliance r (1/kg) on every contact row: COND's invertible contact model (Sec. III-E1, Fig. 13; 0: hard contacts)", 0, 0, 1e6, 0}, {NULL, NULL, 0, 0, 0, 0}}, mcb_scene_franka_mat, 1},
    {"franka-cable", "a Franka Panda winding a Cosserat cable (0.5 m, 4 mm; 320 links: 1927 DOF) around a fixed spool, one end fixed at the spool; E, nu, mu drawn from --seed", "COND paper, Sec. V-C5 (Table V, Fig. 9; PBD Table VIII: 120 links)", {{"links", "cable links (rigid segments; the paper: 320, Table VIII 120)", 320, 2, 100000, 1}, {"steps", "recorded steps (350 at 10 ms: the lift and one turn)", 350, 1, 100000, 1}, {"dt", "time step (s)", 0.01, 1e-4, 0.05, 0}, {"seed", "seed of Young's modulus, Poisson's ratio and friction", 1, 0, 2147483647, 1}, {NULL, NULL, 0, 0, 0, 0}}, mcb_scene_franka_cable, 1},
    {"peg-in-hole", "a unit cube scaled to 99.999 % (5 um clearance) dropped into the unit-cube hole between four static cubes, h 10 ms", "RPIsim paper, Sec. 5.1 (Fig. 8)", {{"steps", "recorded steps (80: the fall, the passage and the landing on the floor)", 80, 1, 100000, 1}, {"scale", "the peg's scale (the paper: 0.99999)", 0.99999, 0.5, 1, 0}, {"drop", "height of the peg's bottom above the hole (m; the paper: 0.5)", 0.5, 0, 100, 0}, {NULL, NULL, 0, 0, 0, 0}}, mcb_scene_peg_in_hole, 1},
    {"cube-push", "a rigid cube (4 bottom-corner contacts) pushed along x on the floor, against its analytic sliding; --contact 0 constraint, 1 penalty1, 2 penalty2 (gains x 10)", "COND paper, Sec. V-B (Table I, Fig. 6)", {{"push", "horizontal push through the centre of mass (N)", 10, 0, 1e6, 0}, {"mu", "friction coefficient", 0.5, 0, 10, 0}, {"mass", "cube mass (kg)", 1, 1e-6, 1e6, 0}, {"size", "cube side (m)", 0.1, 1e-4, 100, 0}, {"steps", "steps", 1000, 1, 1000000, 1}, {"dt", "time step (s)", 0.001, 1e-7, 1, 0}, {"contact", "contact model: 0 constraint (the solver's), 1 penalty1, 2 penalty2 (spring-damper, Yamane-Nakamura 2006)", 0, 0, 2, 1}, {NULL, NULL, 0, 0, 0, 0}}, mcb_scene_cube_push, 1},
    {"aniso-box", "a rigid box (4 bottom-corner contacts) launched on a floor with elliptic friction (mu1 along its axis 1, x or --axis degrees from it, mu2 across), against the maximal-dissipation solution; --measure 0 position error, 1 lateral displacement, 2 yaw", "COND paper, Sec. III-E2 and V-G (Fig. 14)", {{"mu1", "friction coefficient along the floor's axis 1 (x)", 0.2, 0, 10, 0}, {"mu2", "friction coefficient along the floor's axis 2 (y)", 0.6, 0, 10, 0}, {"speed", "launch speed (m/s)", 1, 0, 100, 0}, {"angle", "launch direction from axis 1 (degrees)", 45, -360, 360, 0}, {"mass", "box mass (kg)", 1, 1e-6, 1e6, 0}, {"size", "box side (m)", 0.1, 1e-4, 100, 0}, {"steps", "steps", 100, 1, 1000000, 1}, {"dt", "time step (s)", 0.005, 1e-7, 1, 0}, {"measure", "outcome: 0 position error against the MDP reference (mm), 1 lateral displacement (mm), 2 yaw (degrees)", 0, 0, 2, 1}, {"axis", "the floor's friction axis 1 from x (degrees)", 0, -360, 360, 0}, {NULL, NULL, 0, 0, 0, 0}}, mcb_scene_aniso_box, 1},
    {"soft-ball", "an 8-DOF rigid gripper (6-DOF driven base, 2 prismatic fingers) grasps and lifts a co-rotational FEM ball (r 4 cm; 13 cells: 1586 nodes, 6990 tets, DOF 4766); E and friction randomised", "COND paper, Sec. V-C4 (Tables III-IV, Fig. 8)", {{"cells", "grid cells across the ball (13: near the paper's 1463 nodes, 6928 tets)", 13, 2, 200, 1}, {"steps", "steps (100: close 0.2 s, lift 0.3 s)", 100, 1, 1000000, 1}, {"stiffness", "the ball's Young's modulus (MPa; Table IV: 0.1, 1, 10), times U[0.8, 1.2]", 1, 1e-6, 1e6, 0}, {"seed", "seed of E and the friction U[0.4, 0.8]", 26, 0, 2147483647, 1}, {"dt", "time step (s)", 0.005, 1e-6, 1, 0}, {"compliance", "contact compliance r (1/kg) on every contact row: COND's invertible contact model (Sec. III-E1, Fig. 13; 0: hard contacts)", 0, 0, 1e6, 0}, {NULL, NULL, 0, 0, 0, 0}}, mcb_scene_soft_ball, 1},
    {"soft-gripper", "two Ecoflex 00-50 FEM fingers (E 83 kPa) on a linear actuator (kinematic jaws) grip a PLA box on the floor; E, nu, friction randomised", "COND paper, Sec. V-C6 (Table VI, Fig. 10)", {{"cells", "cells across a finger (c x 2c x 6c each; 3: 1064 nodes, 3888 tets; 5: 4092 nodes, 18000 tets, near the paper's 4889 and 18122)", 3, 1, 40, 1}, {"steps", "steps (60: close 0.3 s, hold 0.3 s)", 60, 1, 1000000, 1}, {"seed", "seed of E x U[0.8, 1.2], nu U[0.45, 0.49], friction U[0.5, 1]", 26, 0, 2147483647, 1}, {"dt", "time step (s)", 0.01, 1e-6, 1, 0}, {NULL, NULL, 0, 0, 0, 0}}, mcb_scene_soft_gripper, 1},
};

#define NSCENES ((int)(sizeof scenes / sizeof scenes[0]))

int mcb_scene_count(void) { return NSCENES; }

const mcb_scene_def *mcb_scene_at(int k) { return k >= 0 && k < NSCENES ? &scenes[k] : NULL; }

char *mcb_scene_names(char *buf, size_t len)
{
    size_t at = 0;
    if (len) buf[0] = '\0';
    for (int k = 0; k < NSCENES && at < len; k++) {
        int w = snprintf(buf + at, len - at, "%s%s", k ? ", " : "", scenes[k].name);
        if (w > 0) at += (size_t)w;
    }
    return buf;
}

const mcb_scene_def *mcb_scene_find(const char *name)
{
    for (int k = 0; name && k < NSCENES; k++)
        if (!strcmp(scenes[k].name, name)) return &scenes[k];
    return NULL;
}

static int nopts(const mcb_scene_def *def)
{
    int n = 0;
    while (n < MCB_SCENE_MAX_OPTS && def->opts[n].name) n++;
    return n;
}

/* The option list "--a, --b, ..." for messages. */
static void option_names(const mcb_scene_def *def, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int k = 0; k < nopts(def) && len < size; k++) {
        int w = snprintf(buf + len, size - len, "%s--%s", k ? ", " : "", def->opts[k].name);
        if (w < 0) break;
        len += (size_t)w;
    }
}

/* A finite number spelled exactly (strtod over the whole string). */
static int read_number(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno == ERANGE || end == s || *end || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

mcb_rc mcb_scene_parse(const mcb_scene_def *def, int argc, char **argv, double *vals,
                       mcb_err *err)
{
    if (!def) return mcb_fail(err, MCB_E_INPUT, "no scene");
    int n = nopts(def);
    for (int k = 0; k < n; k++) vals[k] = def->opts[k].def;
    for (int a = 0; a < argc; a++) {
        const char *arg = argv[a];
        int opt = -1;
        if (!strncmp(arg, "--", 2))
            for (int k = 0; k < n && opt < 0; k++)
                if (!strcmp(arg + 2, def->opts[k].name)) opt = k;
        if (opt < 0) {
            char names[600];
            option_names(def, names, sizeof names);
            return mcb_fail(err, MCB_E_INPUT, "gen %s: %s %.200s (its options: %s)", def->name,
                            strncmp(arg, "-", 1) ? "unexpected argument" : "unknown option", arg,
                            names);
        }
        const mcb_scene_opt *o = &def->opts[opt];
        if (a + 1 >= argc)
            return mcb_fail(err, MCB_E_INPUT, "gen %s: option --%s needs a value", def->name,
                            o->name);
        const char *s = argv[++a];
        double v;
        if (read_number(s, &v))
            return mcb_fail(err, MCB_E_INPUT, "gen %s: --%s '%.100s' is not a finite number",
                            def->name, o->name, s);
        if (o->integer && v != floor(v))
            return mcb_fail(err, MCB_E_INPUT, "gen %s: --%s %.100s is not an integer", def->name,
                            o->name, s);
        if (!(v >= o->min && v <= o->max))
            return mcb_fail(err, MCB_E_INPUT, "gen %s: --%s %.100s is out of range [%.17g, %.17g]",
                            def->name, o->name, s, o->min, o->max);
        vals[opt] = v;
    }
    return MCB_OK;
}

/* The shortest "%.*g" spelling of v that reads back as v. */
static void shortest(double v, char *buf, size_t size)
{
    if (v == floor(v) && fabs(v) < 1e15) { /* integers in full: 1000, not 1e+03 */
        snprintf(buf, size, "%.0f", v);
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, size, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) return;
    }
}

void mcb_scene_args(const mcb_scene_def *def, const double *vals, char *buf, size_t size)
{
    if (!size) return;
    buf[0] = '\0';
    if (!def) return;
    size_t len = 0;
    int w = snprintf(buf, size, "%s", def->name);
    for (int k = 0; w >= 0 && k < nopts(def); k++) {
        len += (size_t)w;
        if (len >= size) return;
        char num[40];
        shortest(vals[k], num, sizeof num);
        w = snprintf(buf + len, size - len, " --%s %s", def->opts[k].name, num);
    }
}

void mcb_scene_args_named(const char *name, const double *vals, char *buf, size_t size)
{
    const mcb_scene_def *def = mcb_scene_find(name);
    if (def) mcb_scene_args(def, vals, buf, size);
    else if (size) buf[0] = '\0';
}
