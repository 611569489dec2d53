// SPDX-License-Identifier: MIT OR Apache-2.0
// Modules: aggregates over a backend whose fields are listed once with BURN_MODULE(...).
//
//   template <burn::Backend B>
//   struct Mlp {
//       burn::nn::Linear<B> fc1, fc2;
//       burn::module::Param<burn::Tensor<B, 1>> scale;
//       int hidden = 0;                       // a constant: copied, never recorded
//       BURN_MODULE(fc1, fc2, scale, hidden)
//   };
//
// The macro generates the named traversal of the fields, and from it every generic algorithm
// works: visit / map over parameters (with their ParamId), num_params, devices, to_device, fork,
// no_grad, valid (Autodiff<X> -> X), into_record / load_record, save_file / load_file. It also
// adds these as member functions, so `model.num_params()` reads as in Burn.
//
// Field kinds: Param<Tensor<B, D, K>>, sub-modules (anything with BURN_MODULE), std::vector and
// std::optional of those, RunningState<Tensor<B, D>> (state updated by forward, e.g. batch-norm
// statistics), Tensor<B, D, K> (a constant tensor: moved with the module, not recorded), and any
// other value (a constant: copied). Fields must be listed in declaration order, all of them:
// `burn::module::check_fields<M>()` verifies the count.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "burn/detail/pp.hpp"
#include "burn/detail/traits.hpp"
#include "burn/module/param.hpp"
#include "burn/record/record.hpp"
#include "burn/tensor/quantization.hpp"
#include "burn/tensor/tensor.hpp"

// ---------------------------------------------------------------------------- field list macro
#define BURN_MODULE_VISIT_FIELD_(unused, field) burn_f(#field, burn_self.field);
#define BURN_MODULE_MAP_FIELD_(unused, field) \
    burn_f(#field, std::forward<BurnSelf>(burn_self).field),
#define BURN_MODULE_COUNT_FIELD_(unused, field) +1

/// Lists a module's fields (all of them, in declaration order). Put it in the struct's body.
#define BURN_MODULE(...)                                                                         \
    static constexpr std::size_t burn_field_count =                                              \
        0 BURN_PP_FOR_EACH(BURN_MODULE_COUNT_FIELD_, _, __VA_ARGS__);                            \
    /* f(name, field) for each field; Self may be const. */                                      \
    /* A field left out of BURN_MODULE stops the build here, with this one error. */             \
    template <class BurnSelf, class BurnF>                                                       \
    static void burn_for_each_field([[maybe_unused]] BurnSelf& burn_self,                        \
                                    [[maybe_unused]] BurnF&& burn_f) {                           \
        static_assert(                                                                           \
            ::burn::module::detail::lists_every_field<std::remove_cvref_t<BurnSelf>>(),          \
            "BURN_MODULE(...) must list every field of the module, in declaration order");       \
        if constexpr (::burn::module::detail::lists_every_field<                                 \
                          std::remove_cvref_t<BurnSelf>>()) {                                    \
            BURN_PP_FOR_EACH(BURN_MODULE_VISIT_FIELD_, _, __VA_ARGS__)                           \
        }                                                                                        \
    }                                                                                            \
    /* Out{f(name, field)...}: a new module (possibly of another backend) from mapped fields. */ \
    template <class BurnOut, class BurnSelf, class BurnF>                                        \
    static BurnOut burn_map_fields([[maybe_unused]] BurnSelf&& burn_self,                        \
                                   [[maybe_unused]] BurnF&& burn_f) {                            \
        if constexpr (::burn::module::detail::lists_every_field<                                 \
                          std::remove_cvref_t<BurnSelf>>()) {                                    \
            return BurnOut{BURN_PP_FOR_EACH(BURN_MODULE_MAP_FIELD_, _, __VA_ARGS__)};            \
        } else {                                                                                 \
            return ::burn::module::detail::never<BurnOut>(); /* the static_assert above fired */ \
        }                                                                                        \
    }                                                                                            \
    std::size_t num_params() const { return ::burn::module::num_params(*this); }                 \
    auto devices() const { return ::burn::module::devices(*this); }                              \
    template <class BurnDevice>                                                                  \
    auto to_device(const BurnDevice& d) const {                                                  \
        return ::burn::module::to_device(*this, d);                                              \
    }                                                                                            \
    template <class BurnDevice>                                                                  \
    auto fork(const BurnDevice& d) const {                                                       \
        return ::burn::module::fork(*this, d);                                                   \
    }                                                                                            \
    auto no_grad() const { return ::burn::module::no_grad(*this); }                              \
    auto valid() const { return ::burn::module::valid(*this); }                                  \
    template <class BurnCalibration>                                                             \
    auto quantize_weights(const ::burn::module::Quantizer<BurnCalibration>& q) const {           \
        return ::burn::module::quantize_weights(*this, q);                                       \
    }                                                                                            \
    template <class BurnVisitor>                                                                 \
    void visit(BurnVisitor&& v) const {                                                          \
        ::burn::module::visit(*this, v);                                                         \
    }                                                                                            \
    template <class BurnMapper>                                                                  \
    auto map(BurnMapper&& m) const {                                                             \
        return ::burn::module::map(*this, m);                                                    \
    }                                                                                            \
    ::burn::record::Record into_record() const { return ::burn::module::into_record(*this); }    \
    auto load_record(const ::burn::record::Record& r) const {                                    \
        return ::burn::module::load_record(*this, r);                                            \
    }                                                                                            \
    template <class BurnRecorder>                                                                \
    auto save_file(const ::std::filesystem::path& p, const BurnRecorder& r) const {              \
        return ::burn::module::save_file(*this, p, r);                                           \
    }                                                                                            \
    template <class BurnRecorder, class... BurnDevice>                                           \
    auto load_file(const ::std::filesystem::path& p, const BurnRecorder& r,                      \
                   const BurnDevice&... d) const {                                               \
        return ::burn::module::load_file(*this, p, r, d...);                                     \
    }

namespace burn::module {

// ---------------------------------------------------------------------------- field kinds
/// Any type with BURN_MODULE(...).
template <class M>
concept Module = requires {
    M::burn_field_count;
};

/// A value kept in a module but not part of its state (not visited, not recorded): Burn's
/// Ignored. Plain constants (ints, doubles, enums, strings) need no wrapper.
template <class T>
struct Ignored {
    T value{};
    const T& operator*() const { return value; }
    const T* operator->() const { return &value; }
};

/// State a module updates during forward (e.g. batch-norm running statistics). Copies of a module
/// share it (as Burn's RunningState), it is recorded with its id, and moved with the module.
template <class T>
class RunningState;
template <BackendTypes B, std::size_t D>
class RunningState<Tensor<B, D>> {
public:
    using TensorType = Tensor<B, D>;
    using Backend = B;
    explicit RunningState(TensorType value, ParamId id = ParamId{})
        : state_(std::make_shared<State>(value.detach(), id)) {}
    /// The current value (never tracked by autodiff).
    TensorType value() const {
        std::lock_guard lock(state_->mutex);
        return state_->value;
    }
    /// Replaces the value (seen by every copy of the module: the state is shared).
    void update(TensorType v) const {
        std::lock_guard lock(state_->mutex);
        state_->value = v.detach();
    }
    ParamId id() const { return state_->id; }

private:
    struct State {
        State(TensorType v, ParamId i) : value(std::move(v)), id(i) {}
        std::mutex mutex;
        TensorType value;
        ParamId id;
    };
    std::shared_ptr<State> state_;
};

namespace detail {

using burn::detail::is_optional_v;
using burn::detail::is_vector_v;
template <class T>
inline constexpr bool is_ignored_v = false;
template <class T>
inline constexpr bool is_ignored_v<Ignored<T>> = true;
template <class T>
inline constexpr bool is_running_state_v = false;
template <class T>
inline constexpr bool is_running_state_v<RunningState<T>> = true;
template <class T>
inline constexpr bool is_tensor_v = false;
template <class B, std::size_t D, class K>
inline constexpr bool is_tensor_v<Tensor<B, D, K>> = true;

/// The backend of a module template instance M<B> (void for modules not over a backend).
template <class M>
struct backend_of {
    using type = void;
};
template <template <class> class M, class B>
requires BackendTypes<B>
struct backend_of<M<B>> {
    using type = B;
};

/// M<B> -> M<X> (modules over a backend); other modules stay as they are.
template <class M, class X>
struct rebind {
    using type = M;
};
template <template <class> class M, class B, class X>
requires BackendTypes<B>
struct rebind<M<B>, X> {
    using type = M<X>;
};

/// The number of fields of an aggregate (to check BURN_MODULE lists them all).
struct AnyField {
    // To a reference (as Boost.PFR): no ambiguity with converting constructors such as optional's.
    template <class T>
    operator T&()
        const noexcept {  // NOLINT(google-explicit-constructor): unevaluated contexts only
        static T* const never = nullptr;  // never called: only its declaration matters
        return *never;
    }
};
template <class T, std::size_t... I>
constexpr bool brace_constructible_from(std::index_sequence<I...>) {
    return requires { T{(void(I), AnyField{})...}; };
}
/// The largest N <= Max with T{x1, ..., xN} valid: the field count (fields without a default
/// constructor make every smaller N invalid; defaulted ones make it valid, so search downwards).
template <class T, std::size_t Max = 40>
constexpr std::size_t aggregate_arity() {
    if constexpr (Max == 0) return 0;
    else if constexpr (brace_constructible_from<T>(std::make_index_sequence<Max>{})) return Max;
    else return aggregate_arity<T, Max - 1>();
}
/// Whether BURN_MODULE lists as many fields as aggregate M has: M{x1..xN} is valid and
/// M{x1..xN+1} is not, for N listed fields (two checks, cheap enough for every module). Modules
/// that are not aggregates are not checked here (check_fields refuses them).
template <class M>
constexpr bool lists_every_field() {
    if constexpr (!std::is_aggregate_v<M>) {
        return true;
    } else {
        constexpr std::size_t n = M::burn_field_count;
        return brace_constructible_from<M>(std::make_index_sequence<n>{}) &&
               !brace_constructible_from<M>(std::make_index_sequence<n + 1>{});
    }
}
/// Never called: the return value of burn_map_fields where lists_every_field failed.
template <class T>
T never() {
    std::abort();
}

}  // namespace detail

template <class M>
using module_backend_t = typename detail::backend_of<M>::type;

/// Compile-time check that BURN_MODULE lists every field of aggregate module M.
template <Module M>
constexpr bool check_fields() {
    static_assert(std::is_aggregate_v<M>, "a module must be an aggregate (no user constructors)");
    static_assert(detail::aggregate_arity<M>() == M::burn_field_count,
                  "BURN_MODULE(...) must list every field of the module, in declaration order");
    return true;
}

namespace detail {
// Outside the traversal's generic lambdas, where clang (14) rejects `v.visit(...)` in the discarded
// branch because v's type is no longer dependent there.
template <class V, class T>
void call_visitor(V& v, const ParamId& id, const T& t) {
    if constexpr (requires { v(id, t); }) v(id, t);
    else v.visit(id, t);
}
template <class Mp, class T>
T call_mapper(Mp& m, const ParamId& id, const T& t) {
    if constexpr (requires { m(id, t); }) return m(id, t);
    else return m.map(id, t);
}
}  // namespace detail

// ---------------------------------------------------------------------------- traversal
/// Calls f(path, field) for every state leaf (Param, RunningState) of `m`, depth first, with dotted
/// paths ("fc1.weight"; list elements are numbered: "layers.0.weight").
template <class F, class Leaf>
void for_each_leaf(const F& field, std::string_view path, Leaf&& leaf) {
    if constexpr (is_param_v<F> || detail::is_running_state_v<F>) {
        leaf(path, field);
    } else if constexpr (detail::is_vector_v<F>) {
        for (std::size_t i = 0; i < field.size(); ++i)
            for_each_leaf(field[i], record::Record::join(path, std::to_string(i)), leaf);
    } else if constexpr (detail::is_optional_v<F>) {
        if (field) for_each_leaf(*field, path, leaf);
    } else if constexpr (Module<F>) {
        F::burn_for_each_field(field, [&](std::string_view name, const auto& sub) {
            for_each_leaf(sub, record::Record::join(path, name), leaf);
        });
    }
}

/// Calls `v` for every parameter: v(id, tensor) if callable so, else v.visit(id, tensor).
/// Burn's ModuleVisitor: `template <std::size_t D, class K> void visit(const ParamId&, const
/// Tensor<B, D, K>&)`.
template <Module M, class V>
void visit(const M& m, V&& v) {
    for_each_leaf(m, "", [&](std::string_view, const auto& leaf) {
        if constexpr (is_param_v<std::decay_t<decltype(leaf)>>) {
            detail::call_visitor(v, leaf.id(), leaf.val());
        }
    });
}

/// Number of scalar values in all parameters.
template <Module M>
std::size_t num_params(const M& m) {
    std::size_t n = 0;
    for_each_leaf(m, "", [&](std::string_view, const auto& leaf) {
        if constexpr (is_param_v<std::decay_t<decltype(leaf)>>) n += leaf.num_elements();
    });
    return n;
}

/// The devices the parameters live on (each once, in order of first use).
template <Module M>
auto devices(const M& m) {
    using B = module_backend_t<M>;
    if constexpr (std::is_void_v<B>) {
        return std::vector<int>{};
    } else {
        std::vector<typename B::Device> out;
        for_each_leaf(m, "", [&](std::string_view, const auto& leaf) {
            typename B::Device d;
            if constexpr (is_param_v<std::decay_t<decltype(leaf)>>) d = leaf.device();
            else d = leaf.value().device();
            if (std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
        });
        return out;
    }
}

/// The type a field becomes when its module moves to backend X (X = void: unchanged).
template <class F, class X>
struct rebound {
    using type = typename detail::rebind<F, X>::type;  // modules over a backend; constants as is
};
template <class F>
struct rebound<F, void> {
    using type = F;
};
template <class F, class X>
using rebound_t = typename rebound<F, X>::type;
template <class B, std::size_t D, class K, class X>
struct rebound<Param<Tensor<B, D, K>>, X> {
    using type = Param<Tensor<X, D, K>>;
};
template <class B, std::size_t D, class X>
struct rebound<RunningState<Tensor<B, D>>, X> {
    using type = RunningState<Tensor<X, D>>;
};
template <class B, std::size_t D, class K, class X>
struct rebound<Tensor<B, D, K>, X> {
    using type = Tensor<X, D, K>;
};
template <class T, class A, class X>
struct rebound<std::vector<T, A>, X> {
    using type = std::vector<rebound_t<T, X>>;
};
template <class T, class X>
struct rebound<std::optional<T>, X> {
    using type = std::optional<rebound_t<T, X>>;
};
// Disambiguation with the <F, void> case.
template <class B, std::size_t D, class K>
struct rebound<Param<Tensor<B, D, K>>, void> {
    using type = Param<Tensor<B, D, K>>;
};
template <class B, std::size_t D>
struct rebound<RunningState<Tensor<B, D>>, void> {
    using type = RunningState<Tensor<B, D>>;
};
template <class B, std::size_t D, class K>
struct rebound<Tensor<B, D, K>, void> {
    using type = Tensor<B, D, K>;
};
template <class T, class A>
struct rebound<std::vector<T, A>, void> {
    using type = std::vector<T, A>;
};
template <class T>
struct rebound<std::optional<T>, void> {
    using type = std::optional<T>;
};

/// Rebuilds a field of any kind, applying `leaf(path, x)` to its Params, RunningStates and constant
/// tensors (which returns the rebuilt leaf, of type rebound_t<decltype(x), X>); sub-modules, lists
/// and optionals are rebuilt around them and other constants copied.
template <class X, class F, class Leaf>
rebound_t<F, X> rebuild(const F& field, std::string_view path, Leaf& leaf) {
    using Out = rebound_t<F, X>;
    if constexpr (is_param_v<F> || detail::is_running_state_v<F> || detail::is_tensor_v<F>) {
        return leaf(path, field);
    } else if constexpr (detail::is_vector_v<F>) {
        Out out;
        out.reserve(field.size());
        for (std::size_t i = 0; i < field.size(); ++i)
            out.push_back(
                rebuild<X>(field[i], record::Record::join(path, std::to_string(i)), leaf));
        return out;
    } else if constexpr (detail::is_optional_v<F>) {
        if (!field) return Out{};
        return Out{rebuild<X>(*field, path, leaf)};
    } else if constexpr (Module<F>) {
        return F::template burn_map_fields<Out>(field, [&](std::string_view name, const auto& sub) {
            return rebuild<X>(sub, record::Record::join(path, name), leaf);
        });
    } else {
        return field;  // constants and Ignored<T>
    }
}

// ---------------------------------------------------------------------------- algorithms
/// A new module whose parameters are `m(id, tensor)` (or m.map(id, tensor)): Burn's
/// ModuleMapper. Ids and require_grad are kept.
template <Module M, class Mp>
M map(const M& module, Mp&& mapper) {
    auto leaf = [&](std::string_view, const auto& x) {
        using L = std::decay_t<decltype(x)>;
        if constexpr (is_param_v<L>) {
            return x.with_value(detail::call_mapper(mapper, x.id(), x.val()));
        } else {
            return x;
        }
    };
    return rebuild<void>(module, "", leaf);
}

/// The module on `device` (parameters keep their ids).
template <Module M, class Device>
M to_device(const M& module, const Device& device) {
    auto leaf = [&](std::string_view, const auto& x) {
        using L = std::decay_t<decltype(x)>;
        if constexpr (is_param_v<L>) return x.with_value(x.val().to_device(device));
        else if constexpr (detail::is_running_state_v<L>)
            return L(x.value().to_device(device), x.id());
        else return x.to_device(device);
    };
    return rebuild<void>(module, "", leaf);
}

/// The module on `device`, with every parameter a fresh leaf of a new graph (Burn's fork: for
/// training copies on several devices).
template <Module M, class Device>
M fork(const M& module, const Device& device) {
    return to_device(module, device);  // Param::with_value always makes a fresh leaf
}

/// The module with require_grad = false on every parameter (still saved, never trained).
template <Module M>
M no_grad(const M& module) {
    auto leaf = [&](std::string_view, const auto& x) {
        if constexpr (is_param_v<std::decay_t<decltype(x)>>) return x.set_require_grad(false);
        else return x;
    };
    return rebuild<void>(module, "", leaf);
}

/// M<Autodiff<X>> -> M<X>: the module on the inner backend, for validation and inference
/// (Burn's AutodiffModule::valid). Modules not over an autodiff backend are returned as they are.
template <Module M>
auto valid(const M& module) {
    using B = module_backend_t<M>;
    if constexpr (std::is_void_v<B>) {
        return module;
    } else if constexpr (!AutodiffBackend<B>) {
        return module;
    } else {
        using X = typename B::InnerBackend;
        auto leaf = [&](std::string_view, const auto& x) {
            using L = std::decay_t<decltype(x)>;
            if constexpr (is_param_v<L>) {
                return rebound_t<L, X>(x.id(), x.val().inner(), x.is_require_grad());
            } else if constexpr (detail::is_running_state_v<L>) {
                return rebound_t<L, X>(x.value().inner(), x.id());
            } else {
                return x.inner();
            }
        };
        return rebuild<X>(module, "", leaf);
    }
}

/// How quantize_weights quantizes each float parameter (Burn's Quantizer): a calibration that
/// picks the range and a scheme. Parameters of rank < 2 (biases, norms' scales) are kept in
/// float unless `include_vectors` is set.
template <class Calibration = MinMaxCalibration>
struct Quantizer {
    Calibration calibration{};
    QuantizationScheme scheme = QuantizationScheme::PerTensorSymmetric(QuantizationType::QInt8);
    bool include_vectors = false;
};

/// The module with its float parameters stored as int8 (ids kept). Ops on them dequantize on
/// the fly, so forward works unchanged; records hold QInt8 data with its parameters.
template <Module M, class C>
M quantize_weights(const M& module, const Quantizer<C>& q) {
    auto leaf = [&](std::string_view, const auto& x) {
        using L = std::decay_t<decltype(x)>;
        if constexpr (is_param_v<L>) {
            using T = typename L::TensorType;
            if constexpr (std::same_as<typename T::Kind, Float>) {
                if (x.val().is_quantized() || (L::rank < 2 && !q.include_vectors)) return x;
                const auto params = q.calibration.compute_q_params(q.scheme, x.val().detach());
                return x.with_value(x.val().quantize(q.scheme, params));
            } else {
                return x;
            }
        } else {
            return x;
        }
    };
    return rebuild<void>(module, "", leaf);
}

// ---------------------------------------------------------------------------- records
/// The record of a field (nullopt for constants, which records do not hold).
template <class F>
std::optional<record::Record> field_record(const F& field) {
    using record::Record;
    if constexpr (is_param_v<F>) {
        return Record(record::TensorItem{field.val().to_data(), field.id()});
    } else if constexpr (detail::is_running_state_v<F>) {
        return Record(record::TensorItem{field.value().to_data(), field.id()});
    } else if constexpr (detail::is_vector_v<F>) {
        Record::List list;
        for (const auto& e : field) {
            auto r = field_record(e);
            list.push_back(r ? std::move(*r) : Record{});
        }
        return Record(std::move(list));
    } else if constexpr (detail::is_optional_v<F>) {
        if (!field) return Record{};
        return field_record(*field);
    } else if constexpr (Module<F>) {
        Record::Map fields;
        F::burn_for_each_field(field, [&](std::string_view name, const auto& sub) {
            if (auto sr = field_record(sub)) fields.emplace_back(std::string(name), std::move(*sr));
        });
        if (fields.empty()) return std::nullopt;  // a module of constants only (e.g. an activation)
        return Record(std::move(fields));
    } else {
        return std::nullopt;
    }
}

/// The module's state as a record (Burn's into_record): parameters and running states by name.
template <Module M>
record::Record into_record(const M& module) {
    auto r = field_record(module);
    return r ? std::move(*r) : record::Record(record::Record::Map{});
}

namespace detail {

/// The record item at a dotted path of `root`, or nullptr.
inline const record::Record* find_path(const record::Record& root, std::string_view path) {
    const record::Record* r = &root;
    while (!path.empty() && r) {
        const auto dot = path.find('.');
        const std::string_view name = path.substr(0, dot);
        if (const auto* list = std::get_if<record::Record::List>(&r->value())) {
            std::size_t i = 0;
            for (char c : name) i = i * 10 + static_cast<std::size_t>(c - '0');
            r = i < list->size() ? &(*list)[i] : nullptr;
        } else {
            r = r->field(name);
        }
        path = dot == std::string_view::npos ? std::string_view{} : path.substr(dot + 1);
    }
    return r;
}

/// The tensor stored at `path`, checked against the shape of `current`, converted to its kind
/// and float dtype and placed on its device.
template <class TensorT>
std::pair<TensorT, record::ParamId> load_tensor(const record::Record& root, std::string_view path,
                                                const TensorT& current) {
    const record::Record* r = find_path(root, path);
    BURN_CHECK(r != nullptr && !r->is_none(), path, ": missing from the record");
    const auto& item = r->template as<record::TensorItem>(path);
    BURN_CHECK(item.data.shape == current.shape(), path, ": expected shape ", current.shape(),
               ", found ", item.data.shape);
    TensorT t = TensorT::from_data(item.data, current.device());
    if constexpr (requires { t.cast(DType::F32); }) {
        // A float parameter keeps its dtype (a bf16 model stays bf16); quantized ones as stored.
        const DType want = current.dtype();
        if (is_float(want) && is_float(t.dtype()) && t.dtype() != want) t = t.cast(want);
    }
    return {std::move(t), item.id};
}

}  // namespace detail

/// A copy of `module` with the state of `record` (Burn's load_record). Every parameter and running
/// state must be present with the module's shape; values are converted to the module's element
/// types (a record saved from f32 loads into Cpu<double>). Throws burn::Error naming the dotted
/// path of the first mismatch.
template <Module M>
M load_record(const M& module, const record::Record& record) {
    auto leaf = [&](std::string_view path, const auto& x) {
        using L = std::decay_t<decltype(x)>;
        if constexpr (is_param_v<L>) {
            auto [t, id] = detail::load_tensor(record, path, x.val());
            return L(id, std::move(t), x.is_require_grad());
        } else if constexpr (detail::is_running_state_v<L>) {
            auto [t, id] = detail::load_tensor(record, path, x.value());
            return L(std::move(t), id);
        } else {
            return x;
        }
    };
    return rebuild<void>(module, "", leaf);
}

/// Saves the module's record with `recorder` (e.g. burn::record::DefaultFileRecorder{}); the
/// recorder adds its file extension. Returns the path written.
template <Module M, class R>
std::filesystem::path save_file(const M& module, const std::filesystem::path& path,
                                const R& recorder) {
    return recorder.record(into_record(module), path);
}

/// A copy of `module` with the state saved at `path` by the same kind of recorder; with a
/// device, moved there afterwards.
template <Module M, class R, class... Device>
M load_file(const M& module, const std::filesystem::path& path, const R& recorder,
            const Device&... device) {
    static_assert(sizeof...(Device) <= 1, "load_file: at most one device");
    M loaded = load_record(module, recorder.load(path));
    if constexpr (sizeof...(Device) == 1) return to_device(loaded, device...);
    else return loaded;
}

}  // namespace burn::module
