/* mpi_campaign.h: a campaign over MPI ranks (mpirun -np N mcbench run ... --mpi).
 * Rank 0 hands out runs one at a time to the ranks that ask (run times
 * differ by orders of magnitude, so static shards would leave ranks idle),
 * appends each finished run to the journal as it arrives and writes the
 * results file at the end; resume works as for one process. The other
 * ranks solve. Built only with Open MPI (MCB_HAVE_MPI); without it --mpi
 * is refused with a message naming the Debian package. */
#ifndef MCB_MPI_CAMPAIGN_H
#define MCB_MPI_CAMPAIGN_H

#include "harness/campaign.h"

/* Returned to a worker rank once the campaign is over: nothing to report. */
#define MCB_MPI_WORKER_DONE ((mcb_rc)100)

mcb_rc mcb_mpi_campaign(const mcb_campaign *C, mcb_err *err);

#endif
