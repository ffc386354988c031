/* The control of the reports floor's window onto the harness
 * (docs/architecture.md): a report includes harness/experiment.h, the
 * experiment spec's data, and calls its lookups (harness/experiment.c). It
 * must build; any other harness header or call must not
 * (reports_include_harness, reports_call_harness). */
#include "harness/experiment.h"

int mcb_probe_reports_experiment_allowed(const mcb_xp_spec *S)
{
    mcb_xp_quantity q = {0};
    return mcb_xp_find_solver(S, "pgs") != 0 && mcb_xp_quantity_unit(&q)[0] != '\0';
}
