// SPDX-License-Identifier: MIT OR Apache-2.0
// Activation formulas shared by activation_f32.comp and activation_backward_f32.comp (include
// after elementwise_common.glsl): the numerically stable forms of the CPU backend.
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
