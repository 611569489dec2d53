// SPDX-License-Identifier: MIT OR Apache-2.0
// The parameter record of the convolution kernels (conv_*.comp, ops_conv.cpp: ConvParams), read
// from a storage buffer of ints. Geometry: input [B, Cin, I0, I1, I2], weight [Cout, Cin / G, K0,
// K1, K2], output [B, Cout, O0, O1, O2] (spatial dims padded to 3 with leading 1s).
// Tensor views: 6 ints each {offset, stride b, stride c, stride s0, s1, s2} (the weight's b and c
// strides are its dims 0 and 1).
#define P_BATCH 0
#define P_CIN 1
#define P_COUT 2
#define P_GROUPS 3
#define P_IN 4
#define P_OUT 7
#define P_K 10
#define P_S 13
#define P_P 16
#define P_D 19
#define P_TOTAL 22
#define P_FLAG 23
#define P_T0 24  // first tensor view (x or grad, by kernel)
#define P_T1 30  // second
#define P_T2 36  // third (bias: offset, stride)

int view_index(int t, int b, int c, int s0, int s1, int s2) {
    return P[t] + b * P[t + 1] + c * P[t + 2] + s0 * P[t + 3] + s1 * P[t + 4] + s2 * P[t + 5];
}
