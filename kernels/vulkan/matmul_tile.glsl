// SPDX-License-Identifier: MIT OR Apache-2.0
// The shared-memory block-tiled GEMM loop behind matmul (matmul_body.glsl) and the implicit-GEMM
// convolutions (conv_gemm_f32.comp): C[z] (MM_M x MM_N) = A[z] (MM_M x MM_K) * B[z] (MM_K x MM_N)
// for workgroup batch z = MM_Z. The includer defines ELEM, MAC(acc, a, b), the sizes MM_M,
// MM_N, MM_K and MM_Z (expressions), and the functions
//   void mm_setup(uint z);                    per-workgroup setup (batch offsets, ...)
//   ELEM mm_load_a(uint row, uint k);         called only for row < MM_M, k < MM_K
//   ELEM mm_load_b(uint k, uint col);         called only for k < MM_K, col < MM_N
//   void mm_store(uint row, uint col, ELEM v); called only inside C
// before including this file, and calls mm_main() from main(). Optionally MM_K_BEGIN and
// MM_K_END (expressions, default 0 and MM_K) restrict the reduction to a range of k (split-k).
//
// Specialization constants: 0 workgroup size (must be (BM / TM) * (BN / TN)), 1 BM, 2 BN (block
// tile of C), 3 BK (k-tile), 4 TM, 5 TN (register tile of a thread: rows ty + i * BM / TM,
// columns tx + j * BN / TN, so that neighbouring threads touch neighbouring columns).
// Groups: (ceil(MM_N / BN), ceil(MM_M / BM), batches).
layout(local_size_x_id = 0) in;
#ifndef MM_K_BEGIN
#define MM_K_BEGIN 0u
#define MM_K_END MM_K
#endif
layout(constant_id = 1) const uint BM = 64;
layout(constant_id = 2) const uint BN = 64;
layout(constant_id = 3) const uint BK = 16;
layout(constant_id = 4) const uint TM = 4;
layout(constant_id = 5) const uint TN = 4;

const uint RT = BM / TM;  // threads along the rows
const uint CT = BN / TN;  // threads along the columns
const uint WG = RT * CT;

// A's tile is stored transposed with rows of BM + 1: the tile loads (k fastest across threads)
// then write consecutive threads' values BM + 1 words apart, i.e. to distinct banks.
const uint AS = BM + 1;
shared ELEM As[BK * AS];  // [kk][row]
shared ELEM Bs[BK * BN];  // [kk][col]

void mm_main() {
    const uint lid = gl_LocalInvocationID.x;
    const uint tx = lid % CT, ty = lid / CT;
    const uint row0 = gl_WorkGroupID.y * BM, col0 = gl_WorkGroupID.x * BN;
    const uint z = MM_Z;
    mm_setup(z);
    const uint M = MM_M, N = MM_N, K = MM_K_END;

    ELEM acc[TM * TN];
    for (uint i = 0; i < TM * TN; ++i) acc[i] = ELEM(0);
    ELEM ra[TM];
    ELEM rb[TN];

    for (uint k0 = MM_K_BEGIN; k0 < K; k0 += BK) {
        // A tile [BM, BK] -> As[kk][r]; k fastest across threads (row-major A reads coalesce).
        for (uint idx = lid; idx < BM * BK; idx += WG) {
            const uint kk = idx % BK, r = idx / BK;
            const uint gr = row0 + r, gk = k0 + kk;
            As[kk * AS + r] = (gr < M && gk < K) ? mm_load_a(gr, gk) : ELEM(0);
        }
        // B tile [BK, BN] -> Bs[kk][col]; columns fastest.
        for (uint idx = lid; idx < BK * BN; idx += WG) {
            const uint cc = idx % BN, kk = idx / BN;
            const uint gc = col0 + cc, gk = k0 + kk;
            Bs[kk * BN + cc] = (gc < N && gk < K) ? mm_load_b(gk, gc) : ELEM(0);
        }
        barrier();
        for (uint kk = 0; kk < BK; ++kk) {
            for (uint i = 0; i < TM; ++i) ra[i] = As[kk * AS + ty + i * RT];
            for (uint j = 0; j < TN; ++j) rb[j] = Bs[kk * BN + tx + j * CT];
            for (uint i = 0; i < TM; ++i)
                for (uint j = 0; j < TN; ++j) MAC(acc[i * TN + j], ra[i], rb[j]);
        }
        barrier();
    }

    for (uint i = 0; i < TM; ++i) {
        const uint gr = row0 + ty + i * RT;
        if (gr >= M) continue;
        for (uint j = 0; j < TN; ++j) {
            const uint gc = col0 + tx + j * CT;
            if (gc < N) mm_store(gr, gc, acc[i * TN + j]);
        }
    }
}
