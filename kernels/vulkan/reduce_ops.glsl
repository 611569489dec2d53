// SPDX-License-Identifier: MIT OR Apache-2.0
// The folding ops of the reductions (reduce_body.glsl, reduce_thread_body.glsl): op 0 sum,
// 1 prod, 2 mean (a sum), 3 max, 4 min (NaN propagates), on ACC with push constant pc.op.
ACC combine(ACC a, ACC b) {
    switch (pc.op) {
        case 0u:
        case 2u: return a + b;
        case 1u: return a * b;
        case 3u:
#if IS_FLOAT
            if (isnan(a)) return a;
            if (isnan(b)) return b;
#endif
            return a < b ? b : a;
        default:
#if IS_FLOAT
            if (isnan(a)) return a;
            if (isnan(b)) return b;
#endif
            return b < a ? b : a;
    }
}

ACC identity() {
    switch (pc.op) {
        case 0u:
        case 2u: return ACC(0);
        case 1u: return ACC(1);
        case 3u: return ACC(ELEM_LOWEST);
        default: return ACC(ELEM_HIGHEST);
    }
}

