/* mcb_rng.h: a deterministic uniform generator (splitmix64), the only
 * randomness mcbench uses (scenes, the descriptors' Lanczos start vector,
 * fixed-seed tests), so that recordings and estimates are identical for
 * fixed arguments. */
#ifndef MCB_RNG_H
#define MCB_RNG_H

typedef struct {
    unsigned long long s;
} mcb_rng;
void mcb_rng_seed(mcb_rng *r, unsigned long long seed);
unsigned long long mcb_rng_next(mcb_rng *r); /* 64 random bits */
double mcb_rng_uniform(mcb_rng *r);  /* [0, 1) */
double mcb_rng_normal(mcb_rng *r);   /* standard normal (Box-Muller) */

#endif
