// SPDX-License-Identifier: MIT OR Apache-2.0
// The Backend concept: the compile-time interface every backend (and decorator) implements.
//
// Layered as two concepts:
//  - BackendTypes<B>: cheap (associated types + name); it guards Tensor<B, D, K>.
//  - Backend<B>: the whole op table (<burn/backend/op_list.hpp>, where every op is listed once
//    with its signature). A backend checks it once, in its own source file, with
//    `static_assert(burn::diagnose_backend<MyBackend>())`, which names every op missing.
//
// Primitives carry a run-time shape; the rank lives only in Tensor. Data enters and leaves a
// backend only as TensorData, so a backend's memory need not be host-accessible.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "burn/backend/op_list.hpp"
#include "burn/tensor/data.hpp"
#include "burn/tensor/distribution.hpp"
#include "burn/tensor/module_options.hpp"
#include "burn/tensor/shape.hpp"

namespace burn {

/// Associated types: devices, the three primitive handles and the element types.
template <class B>
concept BackendTypes = requires {
    typename B::Device;
    typename B::FloatTensor;
    typename B::IntTensor;
    typename B::BoolTensor;
    typename B::FloatElem;
    typename B::IntElem;
    { B::name() } -> std::convertible_to<std::string>;
}
&&std::copyable<typename B::FloatTensor>&& std::copyable<typename B::IntTensor>&&
    std::copyable<typename B::BoolTensor>&& std::equality_comparable<typename B::Device>&&
        std::default_initializable<typename B::Device>;

namespace concepts {
namespace detail {

// One check per op group of <burn/backend/op_list.hpp>: `value` is whether B has every op of the
// group with its listed signature; instantiating `Diagnose` fails one static_assert per op that is
// missing (or has another signature), naming it.
#define BURN_DETAIL_REQ(NAME, SIG) \
    &&::burn::backend::detail::has_op<::burn::backend::op::NAME, B, SIG>::value
#define BURN_DETAIL_KIND_REQ(P, OP, SIG) BURN_DETAIL_REQ(P##_##OP, SIG)
#define BURN_DETAIL_ASSERT(NAME, SIG)                                                        \
    static_assert(::burn::backend::detail::has_op<::burn::backend::op::NAME, B, SIG>::value, \
                  "backend: op " #NAME " is missing or does not have the signature " #SIG);
#define BURN_DETAIL_KIND_ASSERT(P, OP, SIG) BURN_DETAIL_ASSERT(P##_##OP, SIG)
#define BURN_DETAIL_KIND_GROUP(GROUP, TT, SS, LIST, P)                    \
    template <class B>                                                    \
    struct GROUP {                                                        \
        BURN_OP_SIGNATURE_TYPES(TT, SS)                                   \
        static constexpr bool value = true LIST(BURN_DETAIL_KIND_REQ, P); \
        struct Diagnose {                                                 \
            LIST(BURN_DETAIL_KIND_ASSERT, P)                              \
        };                                                                \
    };
#define BURN_DETAIL_GROUP(GROUP, LIST)                            \
    template <class B>                                            \
    struct GROUP {                                                \
        BURN_OP_SIGNATURE_TYPES(typename B::FloatTensor, double)  \
        static constexpr bool value = true LIST(BURN_DETAIL_REQ); \
        struct Diagnose {                                         \
            LIST(BURN_DETAIL_ASSERT)                              \
        };                                                        \
    };

BURN_DETAIL_KIND_GROUP(FloatBasic, typename B::FloatTensor, double, BURN_BASIC_OPS, float)
BURN_DETAIL_KIND_GROUP(IntBasic, typename B::IntTensor, std::int64_t, BURN_BASIC_OPS, int)
BURN_DETAIL_KIND_GROUP(BoolBasic, typename B::BoolTensor, bool, BURN_BASIC_OPS, bool)
BURN_DETAIL_KIND_GROUP(FloatNumeric, typename B::FloatTensor, double, BURN_NUMERIC_OPS, float)
BURN_DETAIL_KIND_GROUP(IntNumeric, typename B::IntTensor, std::int64_t, BURN_NUMERIC_OPS, int)
BURN_DETAIL_KIND_GROUP(IntOnly, typename B::IntTensor, std::int64_t, BURN_INT_ONLY_OPS, int)
BURN_DETAIL_KIND_GROUP(BoolOnly, typename B::BoolTensor, bool, BURN_BOOL_ONLY_OPS, bool)
BURN_DETAIL_GROUP(FloatOnly, BURN_FLOAT_ONLY_OPS)
BURN_DETAIL_GROUP(Module, BURN_MODULE_OPS)
BURN_DETAIL_GROUP(Activation, BURN_ACTIVATION_OPS_LIST)
BURN_DETAIL_GROUP(Quantization, BURN_QUANTIZATION_OPS)
BURN_DETAIL_GROUP(Control, BURN_CONTROL_OPS)

#undef BURN_DETAIL_REQ
#undef BURN_DETAIL_KIND_REQ
#undef BURN_DETAIL_ASSERT
#undef BURN_DETAIL_KIND_ASSERT
#undef BURN_DETAIL_KIND_GROUP
#undef BURN_DETAIL_GROUP

}  // namespace detail

/// The op groups of the Backend concept (the lists of <burn/backend/op_list.hpp>).
template <class B>
concept FloatBasicOps = BackendTypes<B> && detail::FloatBasic<B>::value;
template <class B>
concept IntBasicOps = BackendTypes<B> && detail::IntBasic<B>::value;
template <class B>
concept BoolBasicOps = BackendTypes<B> && detail::BoolBasic<B>::value;
template <class B>
concept FloatNumericOps = BackendTypes<B> && detail::FloatNumeric<B>::value;
template <class B>
concept IntNumericOps = BackendTypes<B> && detail::IntNumeric<B>::value;
/// Float-only ops (math functions, matmul) and the conversions from and to floats.
template <class B>
concept FloatOps = BackendTypes<B> && detail::FloatOnly<B>::value;
template <class B>
concept IntOps = BackendTypes<B> && detail::IntOnly<B>::value;
template <class B>
concept BoolOps = BackendTypes<B> && detail::BoolOnly<B>::value;
template <class B>
concept ModuleOps = BackendTypes<B> && detail::Module<B>::value;
template <class B>
concept ActivationOps = BackendTypes<B> && detail::Activation<B>::value;
template <class B>
concept QuantizationOps = BackendTypes<B> && detail::Quantization<B>::value;
template <class B>
concept BackendControl = BackendTypes<B> && detail::Control<B>::value;

}  // namespace concepts

/// A complete backend: every op that Tensor<B, D, K> may call.
template <class B>
concept Backend = BackendTypes<B> && concepts::FloatBasicOps<B> && concepts::IntBasicOps<B> &&
    concepts::BoolBasicOps<B> && concepts::FloatNumericOps<B> && concepts::IntNumericOps<B> &&
    concepts::FloatOps<B> && concepts::IntOps<B> && concepts::BoolOps<B> &&
    concepts::ModuleOps<B> && concepts::ActivationOps<B> && concepts::QuantizationOps<B> &&
    concepts::BackendControl<B>;

/// A backend that records operations and computes gradients (implemented by Autodiff<B>):
/// Burn's AutodiffBackend. Its inner backend computes the values; gradients are primitives of it.
template <class B>
concept AutodiffBackend = Backend<B> && requires {
    typename B::InnerBackend;
    typename B::Gradients;
} && Backend<typename B::InnerBackend> &&
    requires(typename B::FloatTensor t, const typename B::FloatTensor& ct, bool flag,
             typename B::Gradients grads, const typename B::Gradients& cgrads,
             typename B::InnerBackend::FloatTensor inner, typename B::IntTensor it,
             typename B::BoolTensor bt) {
    { B::backward(t) } -> std::same_as<typename B::Gradients>;
    { B::grad(ct, cgrads) } -> std::same_as<std::optional<typename B::InnerBackend::FloatTensor>>;
    {
        B::grad_remove(ct, grads)
        } -> std::same_as<std::optional<typename B::InnerBackend::FloatTensor>>;
    B::grad_replace(ct, grads, inner);
    { B::float_set_require_grad(t, flag) } -> std::same_as<typename B::FloatTensor>;
    { B::float_is_require_grad(ct) } -> std::same_as<bool>;
    { B::float_detach(t) } -> std::same_as<typename B::FloatTensor>;
    { B::inner(t) } -> std::same_as<typename B::InnerBackend::FloatTensor>;
    { B::int_inner(it) } -> std::same_as<typename B::InnerBackend::IntTensor>;
    { B::bool_inner(bt) } -> std::same_as<typename B::InnerBackend::BoolTensor>;
    { B::from_inner(inner) } -> std::same_as<typename B::FloatTensor>;
};

/// Call in a backend's source file, `static_assert(burn::diagnose_backend<MyBackend>())`: a
/// static_assert names every op that is missing or has another signature than the op table's.
template <class B>
constexpr bool diagnose_backend() {
    static_assert(BackendTypes<B>,
                  "backend: missing associated types (Device, FloatTensor, "
                  "IntTensor, BoolTensor, FloatElem, IntElem) or name()");
    if constexpr (BackendTypes<B>) {
        using namespace concepts::detail;
        (void)sizeof(typename FloatBasic<B>::Diagnose);
        (void)sizeof(typename IntBasic<B>::Diagnose);
        (void)sizeof(typename BoolBasic<B>::Diagnose);
        (void)sizeof(typename FloatNumeric<B>::Diagnose);
        (void)sizeof(typename IntNumeric<B>::Diagnose);
        (void)sizeof(typename FloatOnly<B>::Diagnose);
        (void)sizeof(typename IntOnly<B>::Diagnose);
        (void)sizeof(typename BoolOnly<B>::Diagnose);
        (void)sizeof(typename Module<B>::Diagnose);
        (void)sizeof(typename Activation<B>::Diagnose);
        (void)sizeof(typename Quantization<B>::Diagnose);
        (void)sizeof(typename Control<B>::Diagnose);
    }
    return Backend<B>;
}

}  // namespace burn
