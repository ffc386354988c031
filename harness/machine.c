/* machine.c: marks of the machine's state around a run (see machine.h). */
#include "harness/machine.h"

#include <math.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* Busy seconds of every CPU: the first line of /proc/stat, user + nice +
 * system + irq + softirq + steal jiffies (idle and iowait are not busy). */
static double busy_seconds(void)
{
    FILE *f = fopen("/proc/stat", "r");
    if (!f) return NAN;
    unsigned long long v[8] = {0};
    int got = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
                     &v[3], &v[4], &v[5], &v[6], &v[7]);
    fclose(f);
    long hz = sysconf(_SC_CLK_TCK);
    if (got < 7 || hz <= 0) return NAN;
    return (double)(v[0] + v[1] + v[2] + v[5] + v[6] + (got == 8 ? v[7] : 0)) / (double)hz;
}

static double tv_s(struct timeval t)
{
    return (double)t.tv_sec + 1e-6 * (double)t.tv_usec;
}

static double own_cpu_seconds(void)
{
    struct rusage self, kids;
    if (getrusage(RUSAGE_SELF, &self) || getrusage(RUSAGE_CHILDREN, &kids)) return NAN;
    return tv_s(self.ru_utime) + tv_s(self.ru_stime) + tv_s(kids.ru_utime) + tv_s(kids.ru_stime);
}

static double load1(void)
{
    FILE *f = fopen("/proc/loadavg", "r");
    double x = NAN;
    if (f && fscanf(f, "%lf", &x) != 1) x = NAN;
    if (f) fclose(f);
    return x;
}

/* The highest value (kHz) of /sys/devices/system/cpu/cpuK/cpufreq/NAME over
 * the CPUs, in MHz; NaN when no CPU exposes it. */
static double freq_mhz(const char *name)
{
    double best = NAN;
    long ncpu = sysconf(_SC_NPROCESSORS_CONF);
    for (long k = 0; k < ncpu && k < 4096; k++) {
        char path[128];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%ld/cpufreq/%s", k, name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        double khz;
        if (fscanf(f, "%lf", &khz) == 1 && khz > 0 && !(khz / 1e3 <= best)) best = khz / 1e3;
        fclose(f);
    }
    return best;
}

void mcb_machine_mark_now(mcb_machine_mark *m)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    m->wall_s = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    m->busy_s = busy_seconds();
    m->own_cpu_s = own_cpu_seconds();
    m->load1 = load1();
    m->mhz = freq_mhz("scaling_cur_freq");
}

double mcb_machine_others_share(double busy_s, double own_s, double wall_s, int ncpu)
{
    if (!(wall_s > 0) || ncpu <= 0 || isnan(busy_s) || isnan(own_s)) return NAN;
    double share = (busy_s - own_s) / ((double)ncpu * wall_s);
    return share < 0 ? 0 : share > 1 ? 1 : share;
}

void mcb_machine_between(const mcb_machine_mark *a, const mcb_machine_mark *b, int ncpu,
                         mcb_machine_state *out)
{
    out->load_avg = isnan(a->load1) ? b->load1 : isnan(b->load1) ? a->load1
                                                                  : fmax(a->load1, b->load1);
    out->cpu_mhz = isnan(a->mhz) ? b->mhz : isnan(b->mhz) ? a->mhz : fmin(a->mhz, b->mhz);
    out->cpu_max_mhz = freq_mhz("cpuinfo_max_freq");
    out->others_share = mcb_machine_others_share(b->busy_s - a->busy_s,
                                                 b->own_cpu_s - a->own_cpu_s,
                                                 b->wall_s - a->wall_s, ncpu);
}
