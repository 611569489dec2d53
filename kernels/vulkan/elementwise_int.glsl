// SPDX-License-Identifier: MIT OR Apache-2.0
// Integer helpers of the element-wise shaders for ELEM (int or int64_t) with UELEM its unsigned
// type: wrapping arithmetic as the CPU backend's. Division and remainder by zero give 0 here
// (the CPU backend throws: elementwise_binary.glsl reports them to the device error buffer, thrown
// at the next read) and negative powers give 0 (a negative scalar exponent throws at the op).
ELEM burn_ineg(ELEM a) { return ELEM(UELEM(0) - UELEM(a)); }
ELEM burn_iabs(ELEM a) { return a < ELEM(0) ? burn_ineg(a) : a; }
ELEM burn_isign(ELEM a) { return ELEM(int(ELEM(0) < a) - int(a < ELEM(0))); }
ELEM burn_idiv(ELEM a, ELEM b) {
    if (b == ELEM(0)) return ELEM(0);
    if (b == ELEM(-1)) return burn_ineg(a);
    return a / b;
}
// Floor remainder (Python's %): the result has the sign of the divisor.
ELEM burn_irem(ELEM a, ELEM b) {
    if (b == ELEM(0) || b == ELEM(-1)) return ELEM(0);
    ELEM r = a - (a / b) * b;
    if (r != ELEM(0) && ((r < ELEM(0)) != (b < ELEM(0)))) r += b;
    return r;
}
// Exact power by squaring, wrapping.
ELEM burn_ipow(ELEM a, ELEM b) {
    if (b < ELEM(0)) return ELEM(0);
    UELEM base = UELEM(a), r = UELEM(1), e = UELEM(b);
    while (e != UELEM(0)) {
        if ((e & UELEM(1)) != UELEM(0)) r *= base;
        base *= base;
        e >>= UELEM(1);
    }
    return ELEM(r);
}
