/* SPDX-License-Identifier: MIT OR Apache-2.0
 * The MPI peer of bench/compare_distributed.py --mpi: MPI_Allreduce (f32 sum, in place) of a
 * host buffer per size given on the command line, with the timing loop of the other sides
 * (rounds of at least 0.2 s, the call count agreed by rank 0, median of 5). Rank 0 prints
 * "bytes seconds-per-call" per size.
 *
 *   mpicc -O2 bench/mpi_allreduce.c -o mpi_allreduce && mpirun -np 2 ./mpi_allreduce 4096 1048576
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int by_value(const void* a, const void* b) {
    const double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int a = 1; a < argc; ++a) {
        const long bytes = atol(argv[a]);
        const long n = bytes / 4;
        float* buf = malloc((size_t)(n > 0 ? n : 1) * sizeof(float));
        for (long i = 0; i < n; ++i) buf[i] = 1.0f;
        MPI_Allreduce(MPI_IN_PLACE, buf, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        double rounds[5];
        for (int r = 0; r < 5; ++r) {
            long calls = 1;
            double secs = 0;
            for (;;) {
                MPI_Barrier(MPI_COMM_WORLD);
                const double t0 = MPI_Wtime();
                for (long c = 0; c < calls; ++c)
                    MPI_Allreduce(MPI_IN_PLACE, buf, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
                secs = MPI_Wtime() - t0;
                long more = secs < 0.2 ? calls * 2 : 0;
                MPI_Bcast(&more, 1, MPI_LONG, 0, MPI_COMM_WORLD);
                if (more == 0) break;
                calls = more;
            }
            rounds[r] = secs / (double)calls;
        }
        qsort(rounds, 5, sizeof(double), by_value);
        if (rank == 0) printf("%ld %.9f\n", bytes, rounds[2]);
        free(buf);
    }
    MPI_Finalize();
    return 0;
}
