/* mcb_rng.c: splitmix64 (see mcb_rng.h). */
#include "lib/mcb_rng.h"

#include <math.h>

void mcb_rng_seed(mcb_rng *r, unsigned long long seed)
{
    r->s = seed;
}

unsigned long long mcb_rng_next(mcb_rng *r)
{
    unsigned long long z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

double mcb_rng_uniform(mcb_rng *r)
{
    return (double)(mcb_rng_next(r) >> 11) * 0x1.0p-53;
}

double mcb_rng_normal(mcb_rng *r)
{
    double u = mcb_rng_uniform(r), v = mcb_rng_uniform(r);
    return sqrt(-2.0 * log(1.0 - u)) * cos(6.283185307179586 * v);
}
