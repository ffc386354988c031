/* Planted: the ground floor calling a metric (declared by hand). Must not
 * link in the lib floor: mcb_metrics_one is defined in metrics/. */
double mcb_metrics_one(void *ws, int id, const double *v, const double *lambda);

double mcb_probe_lib_call_metrics(void) { return mcb_metrics_one(0, 0, 0, 0); }
