// SPDX-License-Identifier: MIT OR Apache-2.0
// Float math with the CPU backend's semantics (NaN propagation, IEEE edge cases): own exp, log,
// log1p, expm1, tanh, sin, cos, erf, pow and floor remainder (the GPU built-ins are
// approximations, and some devices do not fuse fma), and the element-wise maps of the unary
// kernel. Included by elementwise_common.glsl (the element-wise and activation shaders), and its
// text by the fused programs of Fusion<Vulkan> (backends/vulkan/src/ops_fused.cpp), so that both
// compute the same bits: no push constants, no buffers here.

#define BURN_NAN uintBitsToFloat(0x7fc00000u)
#define BURN_INF uintBitsToFloat(0x7f800000u)

float burn_max_nan(float a, float b) {
    if (isnan(a)) return a;
    if (isnan(b)) return b;
    return a < b ? b : a;
}
float burn_min_nan(float a, float b) {
    if (isnan(a)) return a;
    if (isnan(b)) return b;
    return b < a ? b : a;
}

// 2^k for k in [-126, 127].
float burn_pow2i(int k) { return uintBitsToFloat(uint(k + 127) << 23); }

// exp with Cody-Waite range reduction (x = n ln2 + r, |r| <= ln2 / 2) and a polynomial for
// exp(r): the built-in exp (an exp2 of x * log2(e) on most devices, approximated) loses up to
// |x| ulps, 4e-6 relative near the overflow limit. 2^n is applied in two steps so that overflow gives inf and underflow
// subnormals or 0 as IEEE multiplication does.
float burn_exp(float x) {
    if (isnan(x)) return x;
    if (x > 88.8) return BURN_INF;
    if (x < -104.0) return 0.0;
    const float n = roundEven(x * 1.44269504088896341);
    precise float r = x - n * 0.693359375;
    r = r - n * -2.12194440e-4;
    // exp(r) by Cephes' degree-5 polynomial (the CPU backend's AVX-512 exp): within about 1 ulp.
    float p = 1.9875691500e-4;
    p = fma(p, r, 1.3981999507e-3);
    p = fma(p, r, 8.3334519073e-3);
    p = fma(p, r, 4.1665795894e-2);
    p = fma(p, r, 1.6666665459e-1);
    p = fma(p, r, 5.0000001201e-1);
    const float e = fma(p, r * r, r) + 1.0;
    const int k = int(n);
    const int k1 = k / 2;
    return e * burn_pow2i(k1) * burn_pow2i(k - k1);
}

// log of a finite x > 0 within about 1 ulp (Cephes' logf: x = m 2^e with m in [sqrt(1/2),
// sqrt(2)), a polynomial in m - 1, e ln2 added in two parts); the built-in log's error is
// absolute (2^-21), too large relative to results near 0.
float burn_log_pos(float x) {
    int e;
    float m = frexp(x, e);  // m in [0.5, 1)
    if (m < 0.707106781186547524) {
        e -= 1;
        m = m + m - 1.0;
    } else {
        m = m - 1.0;
    }
    const float fe = float(e);
    const float z = m * m;
    float y = 7.0376836292e-2;
    y = y * m - 1.1514610310e-1;
    y = y * m + 1.1676998740e-1;
    y = y * m - 1.2420140846e-1;
    y = y * m + 1.4249322787e-1;
    y = y * m - 1.6668057665e-1;
    y = y * m + 2.0000714765e-1;
    y = y * m - 2.4999993993e-1;
    y = y * m + 3.3333331174e-1;
    y = y * m * z;
    y += -2.12194440e-4 * fe;
    y += -0.5 * z;
    precise float r = m + y;
    r += 0.693359375 * fe;
    return r;
}

float burn_log(float x) {
    if (isnan(x) || isinf(x) && x > 0.0) return x;
    if (x < 0.0) return BURN_NAN;
    if (x == 0.0) return -BURN_INF;
    return burn_log_pos(x);
}

// log(1 + x) accurate for small x (Goldberg: log(u) * x / (u - 1) cancels the rounding of u).
float burn_log1p(float x) {
    if (isnan(x)) return x;
    if (x < -1.0) return BURN_NAN;
    if (x == -1.0) return -BURN_INF;
    if (isinf(x)) return x;
    precise float u = 1.0 + x;
    if (u == 1.0) return x;
    precise float d = u - 1.0;
    return burn_log_pos(u) * (x / d);
}

// exp(x) - 1 accurate for small x (Kahan: (u - 1) * x / log(u)).
float burn_expm1(float x) {
    if (isnan(x)) return x;
    if (x > 88.8) return BURN_INF;
    if (x < -20.0) return -1.0;
    precise float u = burn_exp(x);
    if (u == 1.0) return x;
    precise float um1 = u - 1.0;
    if (um1 == -1.0) return -1.0;
    return um1 * x / burn_log_pos(u);
}

float burn_tanh(float x) {
    if (isnan(x)) return x;
    const float ax = min(abs(x), 10.0);
    const float e = burn_expm1(2.0 * ax);
    const float r = e / (e + 2.0);
    return x < 0.0 ? -r : r;
}

// sin and cos with Cephes' sinf / cosf: reduction by pi/4 in three parts, degree-3 polynomials;
// within a few ulp for |x| <= 8192 (the built-ins of GPUs lose accuracy as |x| grows); beyond
// that, the built-ins. NaN and inf give NaN.
float burn_sincos_poly(float x, bool use_cos) {
    const float z = x * x;
    if (use_cos) {
        float y = ((2.443315711809948e-5 * z - 1.388731625493765e-3) * z + 4.166664568298827e-2) * z * z;
        return (y - 0.5 * z) + 1.0;
    }
    return ((-1.9515295891e-4 * z + 8.3321608736e-3) * z - 1.6666654611e-1) * z * x + x;
}

// want_cos: cos(x), else sin(x).
float burn_sincos(float xx, bool want_cos) {
    if (isnan(xx) || isinf(xx)) return BURN_NAN;
    float x = abs(xx);
    if (x > 8192.0) return want_cos ? cos(xx) : sin(xx);
    bool negate = !want_cos && xx < 0.0;
    int j = int(x * 1.27323954473516);
    float y = float(j);
    if ((j & 1) != 0) {
        j += 1;
        y += 1.0;
    }
    j &= 7;
    if (j > 3) {
        negate = !negate;
        j -= 4;
    }
    if (want_cos && j > 1) negate = !negate;
    precise float r = x - y * 0.78515625;
    r = r - y * 2.4187564849853515625e-4;
    r = r - y * 3.77489497744594108e-8;
    const bool swap = j == 1 || j == 2;
    const float v = burn_sincos_poly(r, want_cos != swap);
    return negate ? -v : v;
}

// erf: Eigen's generic_fast_erf_float (what the CPU backend's vectorised erf computes), a
// rational approximation over [-4, 4] accurate to a few ulp; NaN propagates.
float burn_erf(float a) {
    if (isnan(a)) return a;
    const float x = clamp(a, -4.0, 4.0);
    const float x2 = x * x;
    float p = fma(x2, -2.72614225801306e-10, 2.77068142495902e-08);
    p = fma(x2, p, -2.10102402082508e-06);
    p = fma(x2, p, -5.69250639462346e-05);
    p = fma(x2, p, -7.34990630326855e-04);
    p = fma(x2, p, -2.95459980854025e-03);
    p = fma(x2, p, -1.60960333262415e-02);
    p = x * p;
    float q = fma(x2, -1.45660718464996e-05, -2.13374055278905e-04);
    q = fma(x2, q, -1.68282697438203e-03);
    q = fma(x2, q, -7.37332916720468e-03);
    q = fma(x2, q, -1.42647390514189e-02);
    return p / q;
}

// std::pow semantics (C99 Annex F): pow(x, 0) = pow(1, y) = 1 even for NaN; negative bases
// with integer exponents keep the sign of odd powers; other negative finite bases give NaN.
float burn_pow(float x, float y) {
    if (y == 0.0 || x == 1.0) return 1.0;
    if (y == 2.0) return x * x;  // as the CPU backend's x^2 (exact square)
    if (isnan(x) || isnan(y)) return BURN_NAN;
    const float ax = abs(x);
    const bool neg = (floatBitsToUint(x) & 0x80000000u) != 0u;
    if (isinf(y)) {
        if (ax == 1.0) return 1.0;
        return (ax > 1.0) == (y > 0.0) ? BURN_INF : 0.0;
    }
    const bool yint = floor(y) == y;
    const bool yodd = yint && abs(y) < 16777216.0 && mod(y, 2.0) == 1.0;
    float r;
    if (ax == 0.0) {
        r = y > 0.0 ? 0.0 : BURN_INF;
    } else if (isinf(ax)) {
        r = y > 0.0 ? BURN_INF : 0.0;
    } else {
        if (neg && !yint) return BURN_NAN;
        r = burn_exp(y * burn_log_pos(ax));
    }
    return neg && yodd ? -r : r;
}

// Floor remainder (Python's %, torch.remainder): fmod, then the sign of the divisor.
float burn_rem(float a, float b) {
    if (isnan(a) || isnan(b) || isinf(a) || b == 0.0) return BURN_NAN;
    if (isinf(b)) {
        // fmod(a, inf) = a; then a non-zero a of the other sign gets b added (inf / -inf).
        if (a != 0.0 && ((b < 0.0) != (a < 0.0))) return b;
        return a;
    }
    // r = a - q b for q = trunc(a / b), exactly: q b = p + e (Dekker's product by Veltkamp
    // splitting, no fma needed: some devices do not fuse it), a - p is exact (Sterbenz), and the
    // true r is representable. Exact while |a / b| < 2^24 (beyond, q b is not an integer multiple
    // computed exactly; the result stays within (-|b|, |b|)). Then corrected into (-|b|, |b|)
    // with a's sign, as fmod.
    const float q = trunc(a / b);
    precise float p = q * b;
    precise float cq = 4097.0 * q;
    precise float qh = cq - (cq - q);
    precise float ql = q - qh;
    precise float cb = 4097.0 * b;
    precise float bh = cb - (cb - b);
    precise float bl = b - bh;
    precise float e = ((qh * bh - p) + qh * bl + ql * bh) + ql * bl;
    precise float r = (a - p) - e;
    if (isinf(cq) || isinf(cb)) r = a - p;  // split overflow: huge quotient or divisor
    const float ab = abs(b);
    if (r != 0.0 && ((r < 0.0) != (a < 0.0))) r += (r < 0.0) ? ab : -ab;
    if (abs(r) >= ab) r -= (r < 0.0) ? -ab : ab;
    if (r == 0.0) r = a < 0.0 ? -0.0 : 0.0;
    if (r != 0.0 && ((b < 0.0) != (r < 0.0))) r += b;
    return r;
}

// sign, with NaN kept.
float burn_sign(float x) { return isnan(x) ? x : float(int(0.0 < x) - int(x < 0.0)); }

// sqrt, NaN below 0 (sqrt(-0.0) is -0.0, as IEEE says).
float burn_sqrt(float x) { return x < 0.0 ? BURN_NAN : sqrt(x); }
