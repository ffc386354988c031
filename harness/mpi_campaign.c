/* mpi_campaign.c: a campaign over MPI ranks (see mpi_campaign.h).
 *
 * Protocol, rank 0 with the workers 1..N-1:
 *   worker -> 0  TAG_RESULT  the framed record of its last run (empty at first)
 *   worker -> 0  TAG_ERROR   the message of a harness failure on that rank
 *   0 -> worker  TAG_WORK    5 ints: input, problem, solver, repetition, index
 *   0 -> worker  TAG_STOP    nothing left (or the campaign failed)
 * Rank 0 answers every message until each worker has been told to stop, so
 * no rank is left blocked; a failure keeps the runs already recorded in the
 * journal. With one rank the campaign runs in that rank like without --mpi. */
#include "harness/mpi_campaign.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef MCB_HAVE_MPI

mcb_rc mcb_mpi_campaign(const mcb_campaign *C, mcb_err *err)
{
    (void)C;
    return mcb_fail(err, MCB_E_INPUT,
                    "--mpi: this mcbench was built without Open MPI (install the Debian "
                    "package libopenmpi-dev and rebuild)");
}

#else

#include <mpi.h>

enum { TAG_RESULT = 1, TAG_ERROR, TAG_WORK, TAG_STOP };

static mcb_rc coordinate(const mcb_campaign *C, int nranks, mcb_err *err)
{
    mcb_plan *L = NULL;
    mcb_rc rc = mcb_plan_make(C, &L, err);
    if (!rc && C->resume)
        fprintf(stderr, "mcbench: resuming %s: %d runs recorded, %d to run\n", C->h5_path,
                mcb_plan_recorded(L), mcb_plan_count(L));
    if (!rc) rc = mcb_campaign_begin(C, L, err);
    int next = 0, active = nranks - 1, done = 0, total = L ? mcb_plan_count(L) : 0;
    mcb_buf msg = {0};
    while (active > 0) {
        MPI_Status st;
        int len = 0;
        MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_BYTE, &len);
        if ((size_t)len > msg.cap) {
            char *p = realloc(msg.p, (size_t)len);
            if (p) {
                msg.p = p;
                msg.cap = (size_t)len;
            }
        }
        if ((size_t)len > msg.cap) { /* no room: take it into nothing and fail */
            char byte;
            MPI_Recv(&byte, 0, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            if (!rc) rc = mcb_fail(err, MCB_E_NOMEM, "out of memory receiving a run");
        } else {
            MPI_Recv(msg.p, len, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            msg.len = (size_t)len;
            if (st.MPI_TAG == TAG_ERROR && !rc)
                rc = mcb_fail(err, MCB_E_IO, "rank %d: %.*s", st.MPI_SOURCE, len, msg.p);
            else if (st.MPI_TAG == TAG_RESULT && len > 0 && !rc)
                rc = mcb_campaign_record(C, L, &msg, ++done, total, err);
        }
        if (!rc && next < total) {
            const mcb_run_item *it = mcb_plan_item(L, next++);
            int w[5] = {it->f, it->p, it->s, it->rep, it->index};
            MPI_Send(w, 5, MPI_INT, st.MPI_SOURCE, TAG_WORK, MPI_COMM_WORLD);
        } else {
            MPI_Send(NULL, 0, MPI_INT, st.MPI_SOURCE, TAG_STOP, MPI_COMM_WORLD);
            active--;
        }
    }
    mcb_buf_free(&msg);
    if (!rc) rc = mcb_campaign_finish(C, L, err);
    mcb_plan_free(&L);
    return rc;
}

static mcb_rc work(const mcb_campaign *C, mcb_err *err)
{
    /* the same run list, without the resume bookkeeping (rank 0's) */
    mcb_campaign local = *C;
    local.resume = 0;
    local.nshards = 0;
    mcb_plan *L = NULL;
    mcb_err perr;
    mcb_rc rc = mcb_plan_make(&local, &L, &perr);
    mcb_buf framed = {0};
    if (rc) { /* every rank fails alike; rank 0 reports it */
        MPI_Send(perr.msg, (int)strlen(perr.msg), MPI_BYTE, 0, TAG_ERROR, MPI_COMM_WORLD);
    } else {
        MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
    }
    for (;;) {
        int w[5];
        MPI_Status st;
        MPI_Recv(w, 5, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        if (st.MPI_TAG == TAG_STOP) break;
        mcb_run_item it = {w[0], w[1], w[2], w[3], w[4], 0.0};
        mcb_rc r = rc ? rc : mcb_execute(&local, L, &it, &framed, &perr);
        if (r)
            MPI_Send(perr.msg, (int)strlen(perr.msg), MPI_BYTE, 0, TAG_ERROR, MPI_COMM_WORLD);
        else
            MPI_Send(framed.p, (int)framed.len, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
    }
    mcb_buf_free(&framed);
    mcb_plan_free(&L);
    (void)err;
    return MCB_MPI_WORKER_DONE;
}

mcb_rc mcb_mpi_campaign(const mcb_campaign *C, mcb_err *err)
{
    int provided = 0, rank = 0, nranks = 1;
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        return mcb_fail(err, MCB_E_IO, "--mpi: MPI_Init failed");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    mcb_rc rc;
    if (nranks == 1) rc = mcb_campaign_run(C, err);
    else if (rank == 0) rc = coordinate(C, nranks, err);
    else rc = work(C, err);
    MPI_Finalize();
    return rc;
}

#endif
