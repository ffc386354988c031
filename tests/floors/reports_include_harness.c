/* Planted: a report including the harness (forbidden: reports read results
 * through the results format, lib/mcb_results.h). Must not compile in the
 * reports floor. */
#include "harness/campaign.h"

int mcb_probe_reports_include_harness(void) { return 0; }
