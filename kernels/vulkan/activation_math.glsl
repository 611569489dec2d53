// SPDX-License-Identifier: MIT OR Apache-2.0
// Activation formulas shared by activation_f32.comp and activation_backward_f32.comp (include
// after elementwise_common.glsl or elementwise_math.glsl), and by the fused programs of
// Fusion<Vulkan> (their text: backends/vulkan/src/ops_fused.cpp): the numerically stable forms of
// the CPU backend.
const float BURN_SQRT1_2 = 0.707106781186547524400844362104849039;
const float BURN_INV_SQRT_2PI = 0.398942280401432677939946059934381868;

// x / 2 * (1 + erf(x / sqrt(2))), PyTorch's exact gelu.
float burn_gelu(float x) { return x * 0.5 * (1.0 + burn_erf(x * BURN_SQRT1_2)); }

// 1 / (1 + e^-x) for x >= 0, e^x / (1 + e^x) below: exp only ever sees -|x|; NaN gives NaN.
float burn_sigmoid(float x) {
    if (x >= 0.0) return 1.0 / (1.0 + burn_exp(-x));
    const float e = burn_exp(x);
    return e / (1.0 + e);
}

// min(x, 0) - log1p(exp(-|x|)).
float burn_log_sigmoid(float x) {
    const float m = 0.0 < x ? 0.0 : x;
    return m - burn_log1p(burn_exp(-abs(x)));
}

// relu keeps NaN (x < 0 is false for it); on the bits, so that a compiler that assumes no NaN
// cannot make it max(x, 0). Negative, non-NaN: sign set, below the NaN patterns.
float burn_relu(float x) {
    const uint u = floatBitsToUint(x);
    return (u > 0x80000000u && u <= 0xff800000u) ? 0.0 : x;
}

float burn_hard_sigmoid(float x, float alpha, float beta) {
    return burn_min_nan(burn_max_nan(alpha * x + beta, 0.0), 1.0);
}

float burn_leaky_relu(float x, float slope) { return x > 0.0 ? x : x * slope; }

// The gradients: d(saved, grad) with saved the output (relu, sigmoid) or the input (gelu,
// log_sigmoid) of the activation.
float burn_relu_backward(float s, float g) { return s <= 0.0 ? 0.0 : g; }

float burn_gelu_backward(float s, float g) {
    const float cdf = 0.5 * (1.0 + burn_erf(s * BURN_SQRT1_2));
    const float pdf = burn_exp(-0.5 * s * s) * BURN_INV_SQRT_2PI;
    return g * (cdf + s * pdf);
}

float burn_sigmoid_backward(float s, float g) { return g * (1.0 - s) * s; }

float burn_log_sigmoid_backward(float s, float g) {
    const float e = burn_exp(-abs(s));
    const float r = 1.0 / (1.0 + e);
    return g * (s >= 0.0 ? e * r : (s < 0.0 ? r : s));
}
