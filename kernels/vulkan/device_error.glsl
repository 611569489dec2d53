// SPDX-License-Identifier: MIT OR Apache-2.0
// Device error reporting (recoverable device-side asserts): the Context's error words
// (Context::error_buffer(): { code, op id, value, bound, dim, ... }) at binding
// BURN_ERROR_BINDING (define it before including). The first error reported wins; the host
// throws it at the next read()/sync(). Codes as Context::kError*.
#ifndef BURN_ERROR_BINDING
#error "define BURN_ERROR_BINDING before including device_error.glsl"
#endif
const uint BURN_ERROR_INDEX_OUT_OF_RANGE = 1u;
const uint BURN_ERROR_DIVISION_BY_ZERO = 2u;
const uint BURN_ERROR_REMAINDER_BY_ZERO = 3u;
layout(std430, set = 0, binding = BURN_ERROR_BINDING) coherent buffer BurnErrors { uint burn_errors_[]; };

void burn_report_error(uint code, uint op, int value, uint bound, uint dim) {
    if (burn_errors_[0] != 0u) return;  // cheap early out: an error is already recorded
    if (atomicCompSwap(burn_errors_[0], 0u, code) == 0u) {
        burn_errors_[1] = op;
        burn_errors_[2] = uint(value);
        burn_errors_[3] = bound;
        burn_errors_[4] = dim;
    }
}
