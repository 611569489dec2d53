// SPDX-License-Identifier: MIT OR Apache-2.0
// Force-included first into every CPU kernel source (backends/cpu/CMakeLists.txt): includes the
// x86 intrinsics headers with GCC 12's -W(maybe-)uninitialized silenced for their lines only.
// GCC 12 flags the `_mm512_undefined_*()` idiom inside those headers wherever an intrinsic is
// inlined (GCC bug 105593, fixed in GCC 13); the diagnostic is attributed to the header's lines,
// so it is their pragma state that counts, and the include guards keep later includes from
// reopening them. Warnings in our own code are unaffected.
#pragma once

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13 && defined(__x86_64__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#endif
