/* mcb_layout.c: sizes of the ground floor's public structures (see
 * mcb_layout.h). */
#include "lib/mcb_layout.h"

#include <string.h>

#include "lib/mcb_error.h"
#include "lib/mcb_problem.h"
#include "lib/mcb_results.h"

size_t mcb_lib_sizeof(const char *type)
{
    static const struct {
        const char *name;
        size_t size;
    } t[] = {
        {"mcb_err", sizeof(mcb_err)},
        {"mcb_csc", sizeof(mcb_csc)},
        {"mcb_block", sizeof(mcb_block)},
        {"mcb_mujoco", sizeof(mcb_mujoco)},
        {"mcb_problem", sizeof(mcb_problem)},
        {"mcb_problem_set", sizeof(mcb_problem_set)},
        {"mcb_metrics", sizeof(mcb_metrics)},
        {"mcb_run_rec", sizeof(mcb_run_rec)},
        {"mcb_results_data", sizeof(mcb_results_data)},
    };
    if (!type) return 0;
    for (size_t k = 0; k < sizeof t / sizeof t[0]; k++)
        if (strcmp(t[k].name, type) == 0) return t[k].size;
    return 0;
}
