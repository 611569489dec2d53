// SPDX-License-Identifier: MIT OR Apache-2.0
// The host side of the Learner's data-parallel strategy: gradient buckets reduced over a
// ReplicaGroup while the next ones are staged, and the small agreements between the replicas.
#include "burn/train/data_parallel.hpp"

#include <cstdint>
#include <cstring>
#include <exception>
#include <optional>
#include <utility>

#include "burn/tensor/error.hpp"

namespace burn::train::detail {

BucketReducer::BucketReducer(ReplicaGroup& group, std::size_t bucket_bytes)
    : group_(group), bucket_bytes_(bucket_bytes) {}

BucketReducer::~BucketReducer() {
    // A collective still in flight (an exception left finish() unreached) is waited for, never
    // abandoned with the buffers it writes.
    if (inflight_.valid()) {
        try {
            inflight_.get();
        } catch (...) {
        }
    }
}

void BucketReducer::wait() {
    if (inflight_.valid()) inflight_.get();  // rethrows the collective's error
}

/// FNV-1a over the layout.
std::uint64_t layout_hash(const std::vector<BucketReducer::Spec>& specs, std::size_t bucket_bytes) {
    std::uint64_t h = 1469598103934665603ULL;
    auto mix = [&](std::uint64_t v) {
        for (int b = 0; b < 8; ++b) {
            h ^= (v >> (8 * b)) & 0xffu;
            h *= 1099511628211ULL;
        }
    };
    mix(specs.size());
    mix(bucket_bytes);
    for (const auto& s : specs) {
        mix(static_cast<std::uint64_t>(s.dtype));
        mix(s.shape.rank());
        for (std::size_t d = 0; d < s.shape.rank(); ++d) mix(s.shape[d]);
    }
    return h;
}

void BucketReducer::begin(const std::vector<Spec>& specs) {
    wait();
    if (specs != specs_ || buckets_.empty()) {
        // Every replica must lay out the same arrays: checked once here, so that the buckets'
        // collectives can skip their per-call checks.
        check_same_on_replicas(group_, layout_hash(specs, bucket_bytes_),
                               "the model's trainable parameters (their number, shapes or dtypes)");
        specs_ = specs;
        slots_.assign(specs.size(), Slot{});
        buckets_.clear();
        // From the last array to the first; one open bucket per wire dtype (F64 for F64 arrays,
        // F32 for the others).
        std::optional<std::size_t> open[2];
        for (std::size_t k = specs.size(); k-- > 0;) {
            BURN_CHECK(is_float(specs[k].dtype),
                       "data_parallel: cannot average a gradient of dtype ",
                       dtype_name(specs[k].dtype));
            const DType wire = specs[k].dtype == DType::F64 ? DType::F64 : DType::F32;
            auto& o = open[wire == DType::F64 ? 1 : 0];
            const std::size_t n = specs[k].shape.num_elements() * dtype_size(wire);
            if (o && buckets_[*o].bytes.size() > 0 && buckets_[*o].bytes.size() + n > bucket_bytes_)
                o.reset();
            if (!o) {
                buckets_.push_back(Bucket{wire, {}, 0, 0});
                o = buckets_.size() - 1;
            }
            Bucket& b = buckets_[*o];
            slots_[k] = Slot{*o, b.bytes.size(), n};
            b.bytes.resize(b.bytes.size() + n);
            ++b.members;
        }
        // The flags ride in the last bucket (reduced last, once finish() has written them).
        if (buckets_.empty()) buckets_.push_back(Bucket{DType::F32, {}, 0, 0});
        Bucket& last = buckets_.back();
        flags_ = Slot{buckets_.size() - 1, last.bytes.size(),
                      (specs.size() + 1) * dtype_size(last.wire)};
        last.bytes.resize(last.bytes.size() + flags_.bytes);
        ++last.members;
    }
    staged_.assign(specs_.size(), false);
    for (auto& b : buckets_) b.unstaged = b.members;
    next_launch_ = 0;
    any_stop_ = false;
}

void fail_gradient_finished_twice(std::size_t i, const Shape& shape) {
    ::burn::detail::fail("data_parallel: the gradient of parameter ", i, " (shape ", shape,
                         ") was finished twice in one step: the step runs several backward "
                         "passes through the model; pass overlap = false to "
                         "LearnerBuilder::data_parallel");
}

void BucketReducer::stage(std::size_t i, const TensorData& data) {
    BURN_CHECK(i < specs_.size(), "data_parallel: no gradient ", i);
    if (staged_[i]) fail_gradient_finished_twice(i, specs_[i].shape);
    BURN_CHECK(data.shape == specs_[i].shape, "data_parallel: the gradient of parameter ", i,
               " has shape ", data.shape, ", expected ", specs_[i].shape);
    const Slot& slot = slots_[i];
    Bucket& bucket = buckets_[slot.bucket];
    std::optional<TensorData> converted;
    if (data.dtype != bucket.wire) converted = data.convert(bucket.wire);
    const auto src = converted ? converted->bytes() : data.bytes();
    BURN_CHECK(src.size() == slot.bytes, "data_parallel: gradient ", i, " has ", src.size(),
               " bytes, expected ", slot.bytes);
    if (slot.bytes) std::memcpy(bucket.bytes.data() + slot.offset, src.data(), slot.bytes);
    staged_[i] = true;
    if (--bucket.unstaged == 0) launch_ready(true);
}

void BucketReducer::launch_ready(bool async) {
    // In bucket order on every replica, whatever order the buckets filled in.
    while (next_launch_ < buckets_.size() && buckets_[next_launch_].unstaged == 0) {
        wait();
        Bucket& bucket = buckets_[next_launch_++];
        if (async) {
            inflight_ = std::async(std::launch::async, [this, &bucket] {
                group_.all_reduce_sum_trusted(bucket.bytes, bucket.wire);
            });
        } else {
            group_.all_reduce_sum_trusted(bucket.bytes, bucket.wire);
        }
    }
}

void BucketReducer::finish(bool stop) {
    for (std::size_t i = 0; i < specs_.size(); ++i) {
        if (staged_[i]) continue;
        const Slot& slot = slots_[i];
        Bucket& bucket = buckets_[slot.bucket];
        if (slot.bytes) std::memset(bucket.bytes.data() + slot.offset, 0, slot.bytes);
        --bucket.unstaged;
    }
    Bucket& last = buckets_[flags_.bucket];
    std::vector<float> on(specs_.size() + 1);
    for (std::size_t i = 0; i < specs_.size(); ++i) on[i] = staged_[i] ? 1.0f : 0.0f;
    on.back() = stop ? 1.0f : 0.0f;
    const TensorData flags = TensorData(std::move(on), Shape{specs_.size() + 1}).convert(last.wire);
    std::memcpy(last.bytes.data() + flags_.offset, flags.bytes().data(), flags_.bytes);
    --last.unstaged;
    // What is left runs here: nothing else to do meanwhile.
    wait();
    launch_ready(false);
    flag_values_.resize(specs_.size() + 1);
    for (std::size_t i = 0; i <= specs_.size(); ++i) {
        if (last.wire == DType::F64) {
            std::memcpy(&flag_values_[i], last.bytes.data() + flags_.offset + 8 * i, 8);
        } else {
            float f = 0;
            std::memcpy(&f, last.bytes.data() + flags_.offset + 4 * i, 4);
            flag_values_[i] = f;
        }
    }
    any_stop_ = flag(specs_.size()) > 0;
}

namespace {
/// out's `count` values = src's divided by `world` (T: the wire's element type).
template <class T>
void average_into(const std::byte* src, TensorData& out, std::size_t count, int world) {
    const auto* in = reinterpret_cast<const T*>(src);
    auto* d = reinterpret_cast<T*>(out.bytes_mut().data());
    const T w = static_cast<T>(world);
    for (std::size_t k = 0; k < count; ++k) d[k] = in[k] / w;
}
}  // namespace

std::optional<TensorData> BucketReducer::take(std::size_t i) const {
    BURN_CHECK(i < specs_.size(), "data_parallel: no gradient ", i);
    if (!(flag(i) > 0)) return std::nullopt;
    const Slot& slot = slots_[i];
    const Bucket& bucket = buckets_[slot.bucket];
    const Shape& shape = specs_[i].shape;
    const std::size_t count = shape.num_elements();
    // The average, in the wire dtype, copied out in one pass.
    TensorData out = TensorData::zeros(shape, bucket.wire);
    const std::byte* src = bucket.bytes.data() + slot.offset;
    if (bucket.wire == DType::F64) average_into<double>(src, out, count, group_.world_size());
    else average_into<float>(src, out, count, group_.world_size());
    if (specs_[i].dtype != bucket.wire) out = out.convert(specs_[i].dtype);
    return out;
}

bool any_replica(ReplicaGroup& group, bool local) {
    float flag = local ? 1.0f : 0.0f;
    group.all_reduce_sum(std::as_writable_bytes(std::span<float>(&flag, 1)), DType::F32);
    return flag > 0.0f;
}

void sum_over_replicas(ReplicaGroup& group, std::vector<double>& values) {
    if (values.empty()) return;
    group.all_reduce_sum(std::as_writable_bytes(std::span<double>(values)), DType::F64);
}

void check_same_on_replicas(ReplicaGroup& group, std::uint64_t value, const char* what) {
    std::uint64_t root = value;
    group.broadcast(std::as_writable_bytes(std::span<std::uint64_t>(&root, 1)), 0);
    const bool differs = any_replica(group, root != value);
    BURN_CHECK(!differs, "Learner (data parallel): ", what,
               " differs between the replicas (rank 0: ", root, ", rank ", group.rank(), ": ",
               value, ")");
}

}  // namespace burn::train::detail
