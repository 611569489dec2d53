// SPDX-License-Identifier: MIT OR Apache-2.0
// Preprocessor helpers shared by BURN_MODULE and BURN_CONFIG.
#pragma once

#define BURN_PP_PARENS ()
#define BURN_PP_EXPAND(...) BURN_PP_EXPAND3(BURN_PP_EXPAND3(BURN_PP_EXPAND3(BURN_PP_EXPAND3(__VA_ARGS__))))
#define BURN_PP_EXPAND3(...) BURN_PP_EXPAND2(BURN_PP_EXPAND2(BURN_PP_EXPAND2(BURN_PP_EXPAND2(__VA_ARGS__))))
#define BURN_PP_EXPAND2(...) BURN_PP_EXPAND1(BURN_PP_EXPAND1(BURN_PP_EXPAND1(BURN_PP_EXPAND1(__VA_ARGS__))))
#define BURN_PP_EXPAND1(...) __VA_ARGS__
/// BURN_PP_FOR_EACH(m, d, a, b, c) -> m(d, a) m(d, b) m(d, c) (up to 64 arguments; d is passed
/// through to every call, e.g. a type name).
#define BURN_PP_FOR_EACH(macro, data, ...) \
    __VA_OPT__(BURN_PP_EXPAND(BURN_PP_FOR_EACH_HELPER(macro, data, __VA_ARGS__)))
#define BURN_PP_FOR_EACH_HELPER(macro, data, a1, ...) \
    macro(data, a1) __VA_OPT__(BURN_PP_FOR_EACH_AGAIN BURN_PP_PARENS(macro, data, __VA_ARGS__))
#define BURN_PP_FOR_EACH_AGAIN() BURN_PP_FOR_EACH_HELPER
