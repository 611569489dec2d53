// SPDX-License-Identifier: MIT OR Apache-2.0
// The Learner's data-parallel strategy (LearnerBuilder::data_parallel): the pieces that combine
// the replicas' gradients, parameters and epoch metrics through a ReplicaGroup.
// docs/distributed.md, "Training with the Learner".
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "burn/autodiff/graph.hpp"
#include "burn/module/module.hpp"
#include "burn/optim/grads.hpp"
#include "burn/tensor/data.hpp"
#include "burn/train/replicas.hpp"

namespace burn::train::detail {

/// Averages a fixed list of host arrays over the replicas with few collectives (PyTorch DDP's
/// gradient buckets). plan() lays the arrays out in buckets of at most `bucket_bytes`, filled
/// from the last array to the first (the order a backward pass finishes a model's gradients);
/// each round, stage() copies arrays in, in any order, and a bucket whose arrays are all staged
/// is all-reduced on a helper thread at once, in bucket order (one collective in flight at a
/// time, as a ReplicaGroup allows), while the caller goes on. finish() stages zeros for the
/// arrays this replica lacks and reduces the rest; the last bucket also carries flags (which
/// arrays each replica had, and whether any asked to stop). Buffers are kept from round to
/// round; a new layout is compared between the replicas once, so that the buckets' collectives
/// can skip their per-call argument checks (ReplicaGroup::all_reduce_sum_trusted).
class BucketReducer {
public:
    struct Spec {
        Shape shape;
        DType dtype;  // F64 is reduced in F64, other float dtypes in F32
        bool operator==(const Spec&) const = default;
    };

    BucketReducer(ReplicaGroup& group, std::size_t bucket_bytes);
    ~BucketReducer();
    BucketReducer(const BucketReducer&) = delete;
    BucketReducer& operator=(const BucketReducer&) = delete;

    /// Lays out `specs` (a no-op when they are the current layout) and starts a round.
    void begin(const std::vector<Spec>& specs);
    /// Copies array `i` (its spec's shape, any float dtype) into its bucket. Throws burn::Error
    /// when array `i` was already staged this round.
    void stage(std::size_t i, const TensorData& data);
    bool staged(std::size_t i) const { return staged_.at(i); }
    /// Reduces what is left and waits for every collective; `stop` is this replica's request.
    void finish(bool stop);
    /// After finish(): array `i` averaged over the replicas (the sum divided by the number of
    /// replicas), in its spec's dtype, or nullopt when no replica had it.
    std::optional<TensorData> take(std::size_t i) const;
    /// After finish(): whether any replica asked to stop.
    bool any_stop() const { return any_stop_; }

private:
    struct Slot {
        std::size_t bucket = 0;
        std::size_t offset = 0;  // bytes into the bucket
        std::size_t bytes = 0;
    };
    struct Bucket {
        DType wire = DType::F32;
        std::vector<std::byte> bytes;
        std::size_t unstaged = 0;  // arrays still to stage this round
        std::size_t members = 0;
    };
    void launch_ready(bool async);
    void wait();
    double flag(std::size_t i) const { return flag_values_.at(i); }  // after finish

    ReplicaGroup& group_;
    std::size_t bucket_bytes_;
    std::vector<Spec> specs_;
    std::vector<Slot> slots_;
    std::deque<Bucket> buckets_;  // a deque: a bucket in flight stays where it is
    std::vector<bool> staged_;
    Slot flags_;  // in the last bucket: 1 per array this replica staged, then its stop request
    std::vector<double> flag_values_;  // after finish: the flags summed over the replicas
    std::size_t next_launch_ = 0;
    std::future<void> inflight_;
    bool any_stop_ = false;
};

/// A fingerprint of a bucket layout (the arrays' dtypes and shapes, and the bucket size): the
/// replicas compare it before their first reduction of a layout.
std::uint64_t layout_hash(const std::vector<BucketReducer::Spec>& specs, std::size_t bucket_bytes);

/// Whether any replica's `local` is true (one small all-reduce).
bool any_replica(ReplicaGroup& group, bool local);

/// Sums numbers over the replicas (in place; one all-reduce in F64).
void sum_over_replicas(ReplicaGroup& group, std::vector<double>& values);

/// Throws the burn::Error of a gradient staged twice in one step (parameter `i` of `shape`): the
/// step runs several backward passes, which the overlap of the reduction cannot follow.
[[noreturn]] void fail_gradient_finished_twice(std::size_t i, const Shape& shape);

/// Throws burn::Error on every replica unless every replica passes the same `value`, naming
/// `what`, rank 0's value and this replica's.
void check_same_on_replicas(ReplicaGroup& group, std::uint64_t value, const char* what);

/// A tensor of type T from `data` on `device`, keeping a float dtype that differs from the
/// backend's default (from_data converts to it).
template <class T>
T from_data_as(TensorData data, const typename T::Device& device) {
    const DType dtype = data.dtype;
    T t = T::from_data(std::move(data), device);
    if constexpr (requires { t.cast(DType::F32); }) {
        if (is_float(dtype) && t.dtype() != dtype) t = t.cast(dtype);
    }
    return t;
}

/// Every replica's module parameters become replica 0's (the replicas start from one model).
template <class M>
M broadcast_module(ReplicaGroup& group, const M& model) {
    return module::map(model, [&](const module::ParamId&, const auto& t) {
        using T = std::remove_cvref_t<decltype(t)>;
        TensorData d = t.to_data();
        auto bytes = d.bytes_mut();
        group.broadcast(std::as_writable_bytes(bytes), 0);
        return from_data_as<T>(std::move(d), t.device());
    });
}

/// Averages a model's gradients over the replicas at every optimizer step: the float parameters
/// that require grad, in the model's parameter order (the same on every replica). With overlap,
/// a leaf-gradient hook stages each parameter's gradient as soon as the backward pass has
/// finished it, so that its bucket is reduced while backward goes on (PyTorch DDP's design).
///
/// Host buckets (over `group`) or device buckets (with a DeviceSum, e.g. NCCL): device buckets
/// are flat tensors of one dtype on the parameters' device, laid out from the last parameter to
/// the first; every replica starts them in that order, each as soon as all its gradients are
/// staged (overlap) or at the end of the step, a parameter without a gradient on this replica
/// counting as zeros. Only then do the flags (which parameters any replica had, stop requests)
/// cross `group`, and the results are waited for.
template <AutodiffBackend B>
class GradientSync final : autodiff::LeafGradientHook<typename B::InnerBackend> {
    using Inner = typename B::InnerBackend;
    using Flat = Tensor<Inner, 1>;

public:
    /// Starts the sum over the replicas of a flat tensor on its device and returns what waits for
    /// it: the sum, with the device's later work ordered after it (NCCL's all-reduce on its own
    /// stream; a synchronous sum returns a function that gives its result).
    using DeviceSum = std::function<std::function<Flat()>(const Flat&)>;

    /// Host buckets over `group`; with `device_sum`, the buckets are tensors on the parameters'
    /// device, summed by it (only the small flags of each step cross `group`).
    GradientSync(ReplicaGroup& group, std::size_t bucket_bytes, DeviceSum device_sum = {})
        : group_(group),
          bucket_bytes_(bucket_bytes),
          device_sum_(std::move(device_sum)),
          reducer_(group, bucket_bytes) {}

    /// The hook, installed while it lives (the step's backward pass runs within it).
    using Scope = autodiff::LeafGradientHookScope<Inner>;

    /// Starts a step of `model`: finds its parameters; returns the scope to run train_step in
    /// (it installs the hook when `overlap`).
    template <class M>
    [[nodiscard]] std::unique_ptr<Scope> begin(const M& model, bool overlap) {
        params_.clear();
        by_node_.clear();
        std::vector<BucketReducer::Spec> specs;
        module::visit(model, [&](const module::ParamId& id, const auto& t) {
            using T = std::remove_cvref_t<decltype(t)>;
            if constexpr (optim::detail::is_float_tensor_of_v<T, B>) {
                if (!t.is_require_grad()) return;
                const auto& node = t.primitive().node;
                if (node) by_node_.emplace(node->id, params_.size());
                params_.push_back({id, T::rank, t.device(), t.shape(), t.dtype()});
                specs.push_back({t.shape(), t.dtype()});
            }
        });
        if (device_sum_) {
            if (specs != device_specs_) {
                check_same_on_replicas(group_, layout_hash(specs, bucket_bytes_),
                                       "the model's trainable parameters (their number, shapes or "
                                       "dtypes)");
                device_specs_ = specs;
                lay_out_device_buckets();
            }
            device_.grads.assign(params_.size(), std::nullopt);
            device_.missing.clear();
            for (const auto& b : device_.buckets) device_.missing.push_back(b.size());
            device_.pending.clear();
            device_.next = 0;
        } else {
            reducer_.begin(specs);
        }
        autodiff::LeafGradientHook<Inner>* hook = this;
        return std::make_unique<Scope>(overlap ? hook : nullptr);
    }

    /// Replaces `grads` with their average over the replicas (a parameter without a gradient
    /// here but with one on another replica gets the average with zeros here; one no replica
    /// has stays absent). Returns whether any replica asked to stop (`stop`: this one's request).
    bool finish(optim::GradientsParams<B>& grads, bool stop) {
        if (device_sum_) return finish_on_device(grads, stop);
        for (std::size_t i = 0; i < params_.size(); ++i) {
            if (reducer_.staged(i)) continue;
            optim::detail::with_rank(params_[i].rank, [&](auto rank) {
                constexpr std::size_t D = decltype(rank)::value;
                if (auto g = grads.template get<D>(params_[i].id)) reducer_.stage(i, g->to_data());
            });
        }
        reducer_.finish(stop);
        for (std::size_t i = 0; i < params_.size(); ++i) {
            optim::detail::with_rank(params_[i].rank, [&](auto rank) {
                constexpr std::size_t D = decltype(rank)::value;
                if (auto avg = reducer_.take(i)) {
                    grads.insert(params_[i].id, from_data_as<Tensor<Inner, D>>(std::move(*avg),
                                                                               params_[i].device));
                } else {
                    (void)grads.template remove<D>(params_[i].id);
                }
            });
        }
        return reducer_.any_stop();
    }

private:
    void ready(autodiff::NodeId leaf, const typename Inner::FloatTensor& grad) override {
        const auto it = by_node_.find(leaf);
        if (it == by_node_.end()) return;  // not a parameter of the model
        if (!device_sum_) {
            reducer_.stage(it->second, Inner::float_into_data(grad));
            return;
        }
        const std::size_t i = it->second;
        if (device_.grads[i]) fail_gradient_finished_twice(i, params_[i].shape);
        optim::detail::with_rank(params_[i].rank, [&](auto rank) {
            constexpr std::size_t D = decltype(rank)::value;
            device_.grads[i] = flat(i, Tensor<Inner, D>(grad));
        });
        --device_.missing[device_.bucket_of[i]];
        // Buckets start in order, each once all its gradients are here.
        while (device_.next < device_.buckets.size() && device_.missing[device_.next] == 0)
            start_device_bucket(device_.next++);
    }

    /// Parameter i's gradient as a flat tensor of the parameter's dtype.
    template <std::size_t D>
    Flat flat(std::size_t i, Tensor<Inner, D> t) const {
        const Param& p = params_[i];
        if (t.dtype() != p.dtype) t = t.cast(p.dtype);
        return t.template reshape<1>(Shape{p.shape.num_elements()});
    }

    /// Buckets of one dtype and at most bucket_bytes_ (or one parameter), from the last
    /// parameter to the first: the order in which backward finishes gradients.
    void lay_out_device_buckets() {
        device_.buckets.clear();
        device_.bucket_of.assign(params_.size(), 0);
        std::size_t bytes = 0;
        for (std::size_t k = params_.size(); k-- > 0;) {
            const Param& p = params_[k];
            const std::size_t b = p.shape.num_elements() * dtype_size(p.dtype);
            if (device_.buckets.empty() ||
                params_[device_.buckets.back().front()].dtype != p.dtype ||
                bytes + b > bucket_bytes_) {
                device_.buckets.emplace_back();
                bytes = 0;
            }
            device_.buckets.back().push_back(k);
            device_.bucket_of[k] = device_.buckets.size() - 1;
            bytes += b;
        }
    }

    /// Starts the sum of bucket b (zeros for the gradients this replica does not have).
    void start_device_bucket(std::size_t b) {
        std::vector<Flat> parts;
        for (std::size_t i : device_.buckets[b]) {
            const Param& p = params_[i];
            parts.push_back(
                device_.grads[i]
                    ? *device_.grads[i]
                    : Flat::zeros(Shape{p.shape.num_elements()}, p.device).cast(p.dtype));
        }
        device_.pending.push_back(device_sum_(Flat::cat(std::move(parts), 0)));
    }

    /// The device path (see the class comment): the buckets not started yet, then the flags over
    /// `group`, then the sums, averaged and split back.
    bool finish_on_device(optim::GradientsParams<B>& grads, bool stop) {
        const std::size_t n = params_.size();
        std::vector<double> flags(n + 1, 0.0);
        for (std::size_t i = 0; i < n; ++i) {
            const Param& p = params_[i];
            optim::detail::with_rank(p.rank, [&](auto rank) {
                constexpr std::size_t D = decltype(rank)::value;
                auto g = grads.template get<D>(p.id);
                flags[i] = g ? 1.0 : 0.0;
                if (g && !device_.grads[i]) device_.grads[i] = flat(i, std::move(*g));
            });
        }
        flags[n] = stop ? 1.0 : 0.0;
        while (device_.next < device_.buckets.size()) start_device_bucket(device_.next++);
        sum_over_replicas(group_, flags);
        const double world = double(group_.world_size());
        for (std::size_t b = 0; b < device_.buckets.size(); ++b) {
            const Flat avg = device_.pending[b]().div_scalar(world);
            std::int64_t offset = 0;
            for (std::size_t i : device_.buckets[b]) {
                const Param& p = params_[i];
                const auto count = static_cast<std::int64_t>(p.shape.num_elements());
                optim::detail::with_rank(p.rank, [&](auto rank) {
                    constexpr std::size_t D = decltype(rank)::value;
                    if (flags[i] > 0)
                        grads.insert(p.id, avg.slice({Slice(offset, offset + count)})
                                               .template reshape<D>(p.shape));
                    else (void)grads.template remove<D>(p.id);
                });
                offset += count;
            }
        }
        device_.grads.clear();
        device_.pending.clear();
        return flags[n] > 0;
    }

    struct Param {
        module::ParamId id;
        std::size_t rank;
        typename Inner::Device device;
        Shape shape;
        DType dtype;
    };
    /// The device buckets: their parameters, and this step's staged gradients and sums.
    struct DeviceBuckets {
        std::vector<std::vector<std::size_t>> buckets;
        std::vector<std::size_t> bucket_of;          // per parameter
        std::vector<std::optional<Flat>> grads;      // per parameter, this step
        std::vector<std::size_t> missing;            // per bucket: gradients not staged yet
        std::vector<std::function<Flat()>> pending;  // per started bucket: waits, gives the sum
        std::size_t next = 0;                        // the next bucket to start
    };
    ReplicaGroup& group_;
    std::size_t bucket_bytes_;
    DeviceSum device_sum_;
    std::vector<BucketReducer::Spec> device_specs_;
    DeviceBuckets device_;
    BucketReducer reducer_;
    std::vector<Param> params_;
    std::unordered_map<autodiff::NodeId, std::size_t> by_node_;
};

}  // namespace burn::train::detail
