/* mcb_timer.c: pausable monotonic wall clock. */
#include "lib/mcb_timer.h"

#include <time.h>

double mcb_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void mcb_timer_start(mcb_timer *t)
{
    t->elapsed_s = 0.0;
    t->start_s = mcb_now_s();
    t->running = 1;
}

void mcb_timer_pause(mcb_timer *t)
{
    if (!t->running) return;
    t->elapsed_s += mcb_now_s() - t->start_s;
    t->running = 0;
}

void mcb_timer_resume(mcb_timer *t)
{
    if (t->running) return;
    t->start_s = mcb_now_s();
    t->running = 1;
}

double mcb_timer_elapsed_s(const mcb_timer *t)
{
    return t->elapsed_s + (t->running ? mcb_now_s() - t->start_s : 0.0);
}
