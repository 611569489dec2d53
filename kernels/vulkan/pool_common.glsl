// SPDX-License-Identifier: MIT OR Apache-2.0
// The parameter record of the pooling kernels (pool_*.comp, ops_pool.cpp: PoolParams), read from
// a storage buffer of ints. Planes [B * C] of [D, H, W] (1-d and 2-d poolings have leading 1s),
// outputs [OD, OH, OW]; window, stride, padding, dilation per spatial dim (d, h, w).
// Views: 6 ints each {offset, stride b, stride c, stride d, stride h, stride w}.
#define Q_PLANES 0
#define Q_C 1
#define Q_IN 2
#define Q_OUT 5
#define Q_K 8
#define Q_S 11
#define Q_P 14
#define Q_D 17
#define Q_TOTAL 20
#define Q_FLAG 21
#define Q_V0 24
#define Q_V1 30
#define Q_V2 36

int view_at(int v, int plane, int d, int h, int w) {
    const int b = plane / P[Q_C], c = plane - b * P[Q_C];
    return P[v] + b * P[v + 1] + c * P[v + 2] + d * P[v + 3] + h * P[v + 4] + w * P[v + 5];
}
