// SPDX-License-Identifier: MIT
/*
 * The collective the lab holds the doctor's verdict against: MPI_Allreduce
 * and MPI_Alltoall on buffers from 8 bytes to a few MiB, every element of
 * every result checked, and the bus bandwidth printed as nccl-tests defines
 * it (README of nccl-tests, "Performance"): algbw = bytes / time, and
 *
 *   allreduce  busbw = algbw * 2 (n - 1) / n
 *   alltoall   busbw = algbw * (n - 1) / n
 *
 * so that the figure compares with a link's rate whatever the rank count.
 * Built by the lab tests with mpicc; never installed.
 *
 * Usage: coll [MAX_BYTES [ITERS]]   (default 4 MiB, 5 iterations a size)
 * Prints one line a size and op on rank 0, then "coll ok on N ranks";
 * exit 1 when a result is wrong (the first bad element is named).
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every rank's contribution is exact in a double: small integers. */
static double value(int rank, size_t i)
{
	return (double)((rank + 1) * 1000 + (int)(i % 997));
}

static int check_allreduce(const double *out, size_t n, int ranks, int rank)
{
	size_t i;
	int r;

	for (i = 0; i < n; i++) {
		double want = 0;

		for (r = 0; r < ranks; r++)
			want += value(r, i);
		if (out[i] != want) {
			fprintf(stderr, "coll: rank %d: allreduce element %zu of %zu is %.0f, not %.0f\n",
				rank, i, n, out[i], want);
			return -1;
		}
	}
	return 0;
}

static double run_allreduce(size_t n, int iters, int ranks, int rank, int *bad)
{
	double *in = malloc(n * sizeof(double)), *out = malloc(n * sizeof(double));
	double t0, t = 0;
	size_t i;
	int k;

	if (!in || !out) {
		fprintf(stderr, "coll: out of memory for %zu doubles\n", n);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	for (i = 0; i < n; i++)
		in[i] = value(rank, i);
	for (k = 0; k < iters; k++) {
		memset(out, 0, n * sizeof(double));
		MPI_Barrier(MPI_COMM_WORLD);
		t0 = MPI_Wtime();
		MPI_Allreduce(in, out, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		t += MPI_Wtime() - t0;
		if (check_allreduce(out, n, ranks, rank))
			*bad = 1;
	}
	free(in);
	free(out);
	return t / iters;
}

/* Block j of rank r's send buffer goes to rank j: it holds r, j and the index. */
static int32_t a2a_value(int from, int to, size_t i)
{
	return (int32_t)((from << 20) ^ (to << 12) ^ (int)(i & 0xfff));
}

static double run_alltoall(size_t per, int iters, int ranks, int rank, int *bad)
{
	size_t n = per * (size_t)ranks, i;
	int32_t *in = malloc(n * sizeof(int32_t)), *out = malloc(n * sizeof(int32_t));
	double t0, t = 0;
	int k, j;

	if (!in || !out) {
		fprintf(stderr, "coll: out of memory for %zu integers\n", n);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	for (j = 0; j < ranks; j++)
		for (i = 0; i < per; i++)
			in[(size_t)j * per + i] = a2a_value(rank, j, i);
	for (k = 0; k < iters; k++) {
		memset(out, 0xff, n * sizeof(int32_t));
		MPI_Barrier(MPI_COMM_WORLD);
		t0 = MPI_Wtime();
		MPI_Alltoall(in, (int)per, MPI_INT32_T, out, (int)per, MPI_INT32_T, MPI_COMM_WORLD);
		t += MPI_Wtime() - t0;
		for (j = 0; j < ranks && !*bad; j++)
			for (i = 0; i < per; i++)
				if (out[(size_t)j * per + i] != a2a_value(j, rank, i)) {
					fprintf(stderr, "coll: rank %d: alltoall element %zu from rank %d is wrong\n",
						rank, i, j);
					*bad = 1;
					break;
				}
	}
	free(in);
	free(out);
	return t / iters;
}

/* One size: both ops, the slowest rank's time, one line on rank 0. */
static int one_size(size_t bytes, int iters, int ranks, int rank)
{
	int bad = 0, any;
	double t, tmax, alg;
	size_t n = bytes / sizeof(double), per = bytes / sizeof(int32_t) / (size_t)ranks;

	t = run_allreduce(n ? n : 1, iters, ranks, rank, &bad);
	MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	alg = (double)bytes / tmax / 1e9;
	if (rank == 0)
		printf("allreduce %10zu B  %10.1f us  algbw %8.4f GB/s  busbw %8.4f GB/s\n", bytes,
		       tmax * 1e6, alg, alg * 2 * (ranks - 1) / ranks);
	t = run_alltoall(per ? per : 1, iters, ranks, rank, &bad);
	MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	alg = (double)bytes / tmax / 1e9;
	if (rank == 0)
		printf("alltoall  %10zu B  %10.1f us  algbw %8.4f GB/s  busbw %8.4f GB/s\n", bytes,
		       tmax * 1e6, alg, alg * (ranks - 1) / ranks);
	MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	return any;
}

int main(int argc, char **argv)
{
	size_t max = 4u << 20, bytes;
	int iters = 5, ranks, rank, bad = 0;
	char *end;

	MPI_Init(&argc, &argv);
	MPI_Comm_size(MPI_COMM_WORLD, &ranks);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (argc > 1) {
		max = strtoull(argv[1], &end, 0);
		if (*end || max < 8 || max > (1u << 30)) {
			if (rank == 0)
				fprintf(stderr, "coll: '%s' is not a size from 8 to 1073741824\n", argv[1]);
			MPI_Finalize();
			return 2;
		}
	}
	if (argc > 2)
		iters = atoi(argv[2]) > 0 ? atoi(argv[2]) : 1;
	for (bytes = 8; bytes <= max && !bad; bytes *= 8)
		bad = one_size(bytes, iters, ranks, rank);
	if (rank == 0)
		printf(bad ? "coll FAILED on %d ranks\n" : "coll ok on %d ranks\n", ranks);
	MPI_Finalize();
	return bad;
}
