/* scenes.h: the scene registry behind `mcbench gen NAME [options]`: one
 * explicit table (scenes.c) of generators, each with its typed options.
 * The problem-set catalog behind `mcbench gen --set NAME -o DIR` builds on
 * it from outside the scene engine (problems/sets.h). */
#ifndef MCB_SCENES_H
#define MCB_SCENES_H

#include "lib/mcb_problem.h"

struct mcb_world_loop;

/* An option of a scene: --name VALUE, a number in [min, max] (an integer
 * when `integer`), default def. */
typedef struct {
    const char *name; /* without the leading dashes */
    const char *help;
    double def, min, max;
    int integer;
} mcb_scene_opt;

#define MCB_SCENE_MAX_OPTS 16

typedef struct {
    const char *name;    /* "stir", "quadrupeds", ... */
    const char *summary; /* one line for --help */
    const char *paper;   /* where it comes from (paper, section, table) */
    mcb_scene_opt opts[MCB_SCENE_MAX_OPTS]; /* terminated by name == NULL */
    /* vals: one value per option, in order (defaults filled in). loop
     * non-NULL: the scene runs in a closed loop (world.h), its worlds
     * driven by the loop, and *out is an empty set; a scene that is not
     * one trajectory of one world (stack: its own stepping; bolt-nut and
     * dishes: independent cases) refuses with MCB_E_INPUT. */
    mcb_rc (*generate)(const double *vals, const struct mcb_world_loop *loop,
                       mcb_problem_set **out, mcb_err *err);
    int trajectory; /* 1: one trajectory of one world, --steps long: it runs in a
                       closed loop (mcbench simulate); 0: it refuses a loop */
} mcb_scene_def;

const mcb_scene_def *mcb_scene_find(const char *name);
int mcb_scene_count(void);
const mcb_scene_def *mcb_scene_at(int k);
/* The registered scenes' names, ", "-separated, into buf (cut at len);
 * returns buf. For messages naming what a wrong name could have been. */
char *mcb_scene_names(char *buf, size_t len);

/* Parses "--name value" pairs (argv[0] is the first option) into vals
 * (defaults first); unknown options, missing or malformed values and values
 * out of range are errors naming the option. */
mcb_rc mcb_scene_parse(const mcb_scene_def *def, int argc, char **argv, double *vals,
                       mcb_err *err);
/* The canonical argument string "NAME --opt v ..." (every option, in
 * order): recorded as each problem's source, and compared by the sets to
 * reuse a file. */
void mcb_scene_args(const mcb_scene_def *def, const double *vals, char *buf, size_t size);

/* mcb_scene_args of the registered scene `name` (an empty string when no
 * scene has that name): what a generator records as its problems' source. */
void mcb_scene_args_named(const char *name, const double *vals, char *buf, size_t size);

/* The generators (one file each: scene_NAME.c; stack in gen_stack.c),
 * referenced by the table in scenes.c. */
mcb_rc mcb_scene_stack(const double *vals, const struct mcb_world_loop *loop, mcb_problem_set **out,
                      mcb_err *err);
mcb_rc mcb_scene_stir(const double *vals, const struct mcb_world_loop *loop, mcb_problem_set **out,
                      mcb_err *err);
mcb_rc mcb_scene_quadrupeds(const double *vals, const struct mcb_world_loop *loop, mcb_problem_set **out,
                      mcb_err *err);
mcb_rc mcb_scene_dish_piling(const double *vals, const struct mcb_world_loop *loop,
                             mcb_problem_set **out, mcb_err *err);
mcb_rc mcb_scene_dishes(const double *vals, const struct mcb_world_loop *loop, mcb_problem_set **out,
                      mcb_err *err);
mcb_rc mcb_scene_bolt_nut_assembly(const double *vals, const struct mcb_world_loop *loop,
                                   mcb_problem_set **out, mcb_err *err);
mcb_rc mcb_scene_bolt_nut(const double *vals, const struct mcb_world_loop *loop, mcb_problem_set **out,
                      mcb_err *err);
mcb_rc mcb_scene_pouring(const double *vals, const struct mcb_world_loop *loop, mcb_problem_set **out,
                      mcb_err *err);
mcb_rc mcb_scene_wall(const double *vals, const struct mcb_world_loop *loop, mcb_problem_set **out,
                      mcb_err *err);
mcb_rc mcb_scene_cable(const double *vals, const struct mcb_world_loop *loop, mcb_problem_set **out,
                      mcb_err *err);
mcb_rc mcb_scene_beam(const double *vals, const struct mcb_world_loop *loop, mcb_problem_set **out,
                      mcb_err *err);
mcb_rc mcb_scene_franka_mat(const double *vals, const struct mcb_world_loop *loop,
                            mcb_problem_set **out, mcb_err *err);
mcb_rc mcb_scene_franka_cable(const double *vals, const struct mcb_world_loop *loop,
                              mcb_problem_set **out, mcb_err *err);
mcb_rc mcb_scene_peg_in_hole(const double *vals, const struct mcb_world_loop *loop, mcb_problem_set **out,
                      mcb_err *err);

mcb_rc mcb_scene_aniso_box(const double *vals, const struct mcb_world_loop *loop,
                           mcb_problem_set **out, mcb_err *err);
mcb_rc mcb_scene_cube_push(const double *vals, const struct mcb_world_loop *loop,
                           mcb_problem_set **out, mcb_err *err);
mcb_rc mcb_scene_soft_ball(const double *vals, const struct mcb_world_loop *loop,
                           mcb_problem_set **out, mcb_err *err);
mcb_rc mcb_scene_soft_gripper(const double *vals, const struct mcb_world_loop *loop,
                              mcb_problem_set **out, mcb_err *err);

#endif
