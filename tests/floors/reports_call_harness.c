/* Planted: a report calling the harness (declared by hand). Must not link
 * in the reports floor: mcb_campaign_run is defined in harness/. */
#include "lib/mcb_error.h"

int mcb_campaign_run(const void *C, mcb_err *err);

int mcb_probe_reports_call_harness(mcb_err *err) { return mcb_campaign_run(0, err); }
