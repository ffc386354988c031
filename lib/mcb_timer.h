/* mcb_timer.h: a monotonic wall clock that can be paused, so that the time
 * the harness spends measuring is excluded from the time of a solver. */
#ifndef MCB_TIMER_H
#define MCB_TIMER_H

typedef struct {
    double start_s;    /* wall time of the last (re)start */
    double elapsed_s;  /* accumulated running time before that */
    int running;
} mcb_timer;

double mcb_now_s(void);
void mcb_timer_start(mcb_timer *t);   /* resets and starts */
void mcb_timer_pause(mcb_timer *t);
void mcb_timer_resume(mcb_timer *t);
double mcb_timer_elapsed_s(const mcb_timer *t);

#endif
