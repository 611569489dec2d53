// SPDX-License-Identifier: MIT OR Apache-2.0
// Batchers and data loaders (Burn's burn::data::dataloader): a Batcher turns a list of dataset
// items into one batch (usually tensors on a device); a DataLoader walks a Dataset in batches,
// optionally shuffled (a new seeded permutation every epoch) and prefetched by worker threads.
//
//   struct MyBatcher {
//       MyBatch batch(std::vector<MyItem> items, const B::Device& device) const;
//   };
//   auto loader = data::DataLoaderBuilder(MyBatcher{})
//                     .batch_size(64).shuffle(42).num_workers(4)
//                     .drop_last(true)               // optional: no last partial batch
//                     .build(std::move(dataset));    // std::shared_ptr<DataLoader<MyBatch>>
//   for (auto batch : *loader) { ... }              // one epoch; the next loop reshuffles
//
// Determinism: the sequence of batches depends only on the dataset, the batch size, the seed and
// the epoch (how many times the loader was iterated before), never on the number of workers.
#pragma once

#include <algorithm>
#include <any>
#include <atomic>
#include <concepts>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <variant>
#include <vector>

#include "burn/data/dataset.hpp"
#include "burn/tensor/error.hpp"

namespace burn::data {

// ============================================================================ Batcher
/// What a batcher's `batch` member takes and returns, deduced from `&Bt::batch` when it is a
/// single non-template member function
///   O batch(std::vector<I> items, const Device& device) const;
/// (or taking `const std::vector<I>&`). Specialise it for batchers whose `batch` is a template or
/// overloaded: it must provide `Item`, `Output` and `Device`.
template <class Bt>
struct batcher_traits {};

namespace detail {
template <class F>
struct batch_signature {};
template <class C, class O, class I, class Dev>
struct batch_signature<O (C::*)(std::vector<I>, const Dev&) const> {
    using Item = I;
    using Output = O;
    using Device = Dev;
};
template <class C, class O, class I, class Dev>
struct batch_signature<O (C::*)(std::vector<I>, const Dev&) const noexcept>
    : batch_signature<O (C::*)(std::vector<I>, const Dev&) const> {};
template <class C, class O, class I, class Dev>
struct batch_signature<O (C::*)(const std::vector<I>&, const Dev&) const>
    : batch_signature<O (C::*)(std::vector<I>, const Dev&) const> {};
template <class C, class O, class I, class Dev>
struct batch_signature<O (C::*)(const std::vector<I>&, const Dev&) const noexcept>
    : batch_signature<O (C::*)(std::vector<I>, const Dev&) const> {};
}  // namespace detail

template <class Bt>
requires requires { &Bt::batch; }
struct batcher_traits<Bt> : detail::batch_signature<decltype(&Bt::batch)> {};

/// The device type a batcher takes (Burn's B::Device of Batcher<B, I, O>).
template <class Bt>
using BatcherDevice = typename batcher_traits<Bt>::Device;
/// The item type a batcher takes.
template <class Bt>
using BatcherItem = typename batcher_traits<Bt>::Item;
/// The batch type a batcher returns.
template <class Bt>
using BatcherOutput = typename batcher_traits<Bt>::Output;

/// Burn's Batcher<B, I, O>: `bt.batch(std::vector<I>, const Device&)` gives an O. It is called
/// from the loader's worker threads at once, so it must be thread-safe (const, no shared state).
template <class Bt, class I, class O>
concept Batcher = requires {
    typename BatcherDevice<Bt>;
}
&&requires(const Bt& bt, std::vector<I> items, const BatcherDevice<Bt>& device) {
    { bt.batch(std::move(items), device) } -> std::convertible_to<O>;
};

// ============================================================================ Shuffling
/// The seed of epoch `epoch` of a loader shuffled with `seed` (a splitmix64 mix of both).
std::uint64_t epoch_seed(std::uint64_t seed, std::uint64_t epoch);

/// A permutation of 0..n-1, the same on every platform for a given seed (Fisher-Yates driven by
/// splitmix64, unbiased bounded draws; std::shuffle is not portable).
std::vector<std::size_t> seeded_permutation(std::size_t n, std::uint64_t seed);

// ============================================================================ DataLoader
/// How far an iteration has come (Burn's Progress): items yielded so far / items of the epoch.
struct Progress {
    std::size_t items_processed = 0;
    std::size_t items_total = 0;
    friend bool operator==(const Progress&, const Progress&) = default;
};

namespace detail {
/// One epoch's stream of batches (type-erased over the dataset and the batcher).
template <class O>
class BatchSource {
public:
    virtual ~BatchSource() = default;
    /// The next batch, nullopt at the end. Throws burn::Error if loading a batch failed; the
    /// iteration is then over.
    virtual std::optional<O> next() = 0;
    virtual Progress progress() const = 0;
};
}  // namespace detail

/// One epoch of a DataLoader (Burn's DataLoaderIterator). Either pull batches with next(), or
/// iterate it as a range (single pass):
///   auto it = loader->iter();
///   for (auto& batch : it) { ...; it.progress(); }
/// Destroying it (also after a break) stops and joins the worker threads.
template <class O>
class DataLoaderIterator {
public:
    explicit DataLoaderIterator(std::shared_ptr<detail::BatchSource<O>> source)
        : source_(std::move(source)) {}

    /// The next batch, or nullopt when the epoch is over.
    std::optional<O> next() { return source_->next(); }
    /// Items yielded so far out of the epoch's total.
    Progress progress() const { return source_->progress(); }

    /// Input iterator over the remaining batches; shares the epoch's state.
    class iterator {
    public:
        using value_type = O;
        using difference_type = std::ptrdiff_t;
        using reference = O&;
        using iterator_category = std::input_iterator_tag;

        iterator() = default;
        explicit iterator(std::shared_ptr<detail::BatchSource<O>> source)
            : source_(std::move(source)), current_(source_->next()) {}

        O& operator*() const { return *current_; }
        O* operator->() const { return &*current_; }
        iterator& operator++() {
            current_ = source_->next();
            return *this;
        }
        void operator++(int) { ++*this; }
        friend bool operator==(const iterator& it, std::default_sentinel_t) {
            return !it.current_.has_value();
        }

    private:
        std::shared_ptr<detail::BatchSource<O>> source_;
        mutable std::optional<O> current_;
    };

    /// Fetches the first remaining batch.
    iterator begin() { return iterator(source_); }
    std::default_sentinel_t end() const { return {}; }

private:
    std::shared_ptr<detail::BatchSource<O>> source_;
};

/// Burn's DataLoader<B, O> (shared as std::shared_ptr<DataLoader<O>>, as Burn's Arc<dyn
/// DataLoader>): every iteration is one epoch. With shuffling, epoch e (the e-th call of iter()
/// or begin(), from 0) uses the permutation of epoch_seed(seed, e).
template <class O>
class DataLoader {
public:
    using Batch = O;
    virtual ~DataLoader() = default;

    /// Starts a new epoch (starting the workers, which begin prefetching at once).
    virtual DataLoaderIterator<O> iter() const = 0;
    /// Items of an epoch: the dataset's len(), or with DataLoaderBuilder::shard, the shard's
    /// ceil(len() / num_shards). With drop_last, an epoch yields only num_batches() * batch_size
    /// of them (its Progress::items_total).
    virtual std::size_t num_items() const = 0;
    /// Batches per epoch: ceil(num_items / batch_size), the last one possibly partial; with
    /// drop_last, floor(num_items / batch_size), all full.
    virtual std::size_t num_batches() const = 0;

    /// The loader of shard `shard` of `num_shards` of this loader's items (as
    /// DataLoaderBuilder::shard), handing its batcher `device` (a std::any holding the batcher's
    /// device type) instead of this loader's: Burn's DataLoader slice and to_device, with which
    /// the Learner gives each device of a multi-device run its share. The new loader starts at
    /// epoch 0 (the same shuffled orders as this loader's epochs). Loaders that cannot be split
    /// throw burn::Error.
    virtual std::shared_ptr<DataLoader<O>> shard_to_device(std::size_t shard,
                                                           std::size_t num_shards,
                                                           const std::any& device) const {
        (void)shard;
        (void)num_shards;
        (void)device;
        ::burn::detail::fail(
            "DataLoader::shard_to_device: this loader cannot be split across devices "
            "(build it with DataLoaderBuilder)");
    }

    /// `for (auto batch : *loader)`: iterates a new epoch.
    typename DataLoaderIterator<O>::iterator begin() const { return iter().begin(); }
    std::default_sentinel_t end() const { return {}; }
};

namespace detail {

/// What a loader's epoch needs, shared by the loader and its live iterations.
template <class D, class Bt>
struct LoaderShared {
    std::shared_ptr<const D> dataset;
    std::shared_ptr<const Bt> batcher;
    BatcherDevice<Bt> device;
    std::size_t batch_size = 1;
    std::optional<std::uint64_t> seed;
    std::size_t num_workers = 0;
    bool drop_last = false;
    std::size_t shard = 0;       ///< this loader's shard, in [0, num_shards)
    std::size_t num_shards = 1;  ///< 1: the whole dataset
};

/// Items per epoch of shard `shard` of `num_shards` over `len` items: ceil(len / num_shards)
/// (every shard the same size, the last ones padded by wrapping around, as PyTorch's
/// DistributedSampler).
inline std::size_t shard_len(std::size_t len, std::size_t num_shards) {
    return (len + num_shards - 1) / num_shards;
}

/// The dataset indices of one epoch: the permutation (or the identity without shuffling), and
/// with several shards, its items shard, shard + num_shards, shard + 2 * num_shards, ... (indices
/// past the end wrap around to the start). Empty means the identity over the whole dataset.
std::vector<std::size_t> epoch_indices(std::size_t len, std::optional<std::uint64_t> seed,
                                       std::uint64_t epoch, std::size_t shard,
                                       std::size_t num_shards);

/// Batches per epoch of `len` items.
inline std::size_t batches_per_epoch(std::size_t len, std::size_t batch_size, bool drop_last) {
    return drop_last ? len / batch_size : (len + batch_size - 1) / batch_size;
}

/// Loads batch `b` of an epoch: get() each of its items, then batch(); any failure becomes a
/// burn::Error naming the batch and the item.
template <class D, class Bt>
BatcherOutput<Bt> load_batch(const LoaderShared<D, Bt>& s, const std::vector<std::size_t>& perm,
                             std::size_t len, std::size_t b) {
    const std::size_t first = b * s.batch_size;
    const std::size_t last = std::min(len, first + s.batch_size);
    std::vector<typename D::Item> items;
    items.reserve(last - first);
    std::size_t index = 0;
    try {
        for (std::size_t i = first; i < last; ++i) {
            index = perm.empty() ? i : perm[i];
            auto item = s.dataset->get(index);
            BURN_CHECK(item.has_value(), "dataset.get(", index,
                       ") returned no item although len() = ", len);
            items.push_back(std::move(*item));
        }
    } catch (const std::exception& e) {
        ::burn::detail::fail("DataLoader: batch ", b, ": loading item ", index,
                             " failed: ", e.what());
    } catch (...) {
        ::burn::detail::fail("DataLoader: batch ", b, ": loading item ", index,
                             " failed: unknown exception");
    }
    try {
        return s.batcher->batch(std::move(items), s.device);
    } catch (const std::exception& e) {
        ::burn::detail::fail("DataLoader: batch ", b, " (items ", first, "..", last,
                             " of the epoch): ", "batcher failed: ", e.what());
    } catch (...) {
        ::burn::detail::fail("DataLoader: batch ", b, " (items ", first, "..", last,
                             " of the epoch): ", "batcher failed: unknown exception");
    }
}

/// One epoch: synchronous (no workers) or prefetched by worker threads that claim batches in
/// order, at most `window` batches ahead of the consumer, and hand them back in order.
template <class D, class Bt>
class EpochSource final : public BatchSource<BatcherOutput<Bt>> {
public:
    using O = BatcherOutput<Bt>;

    EpochSource(std::shared_ptr<const LoaderShared<D, Bt>> shared, std::uint64_t epoch)
        : shared_(std::move(shared)), len_(shared_->dataset->len()) {
        perm_ = epoch_indices(len_, shared_->seed, epoch, shared_->shard, shared_->num_shards);
        if (shared_->num_shards > 1) len_ = perm_.size();
        num_batches_ = batches_per_epoch(len_, shared_->batch_size, shared_->drop_last);
        // With drop_last the epoch yields only whole batches (of the permuted order).
        epoch_items_ = std::min(len_, num_batches_ * shared_->batch_size);
        const std::size_t workers = std::min(shared_->num_workers, num_batches_);
        window_ = std::max<std::size_t>(2, 2 * workers);
        threads_.reserve(workers);
        try {
            for (std::size_t w = 0; w < workers; ++w) threads_.emplace_back([this] { work(); });
        } catch (...) {
            shutdown();
            throw;
        }
    }

    ~EpochSource() override { shutdown(); }

    EpochSource(const EpochSource&) = delete;
    EpochSource& operator=(const EpochSource&) = delete;

    std::optional<O> next() override {
        if (finished_ || next_ >= num_batches_) return std::nullopt;
        const std::size_t b = next_;
        const std::size_t size =
            std::min(len_, (b + 1) * shared_->batch_size) - b * shared_->batch_size;
        if (threads_.empty()) {
            try {
                std::optional<O> out(load_batch(*shared_, perm_, len_, b));
                advance(size);
                return out;
            } catch (...) {
                finished_ = true;
                throw;
            }
        }
        std::unique_lock lock(mutex_);
        ready_cv_.wait(lock, [&] { return results_.count(b) != 0; });
        auto node = results_.extract(b);
        lock.unlock();
        if (auto* error = std::get_if<std::exception_ptr>(&node.mapped())) {
            finished_ = true;
            shutdown();
            std::rethrow_exception(*error);
        }
        std::optional<O> out(std::move(std::get<O>(node.mapped())));
        {
            std::lock_guard guard(mutex_);
            advance(size);
        }
        claim_cv_.notify_all();
        return out;
    }

    Progress progress() const override {
        return {processed_.load(std::memory_order_relaxed), epoch_items_};
    }

private:
    void advance(std::size_t size) {
        ++next_;
        processed_.fetch_add(size, std::memory_order_relaxed);
    }

    void work() {
        for (;;) {
            std::size_t b = 0;
            {
                std::unique_lock lock(mutex_);
                claim_cv_.wait(lock, [&] {
                    return stop_ || claimed_ >= num_batches_ || claimed_ < next_ + window_;
                });
                if (stop_ || claimed_ >= num_batches_) return;
                b = claimed_++;
            }
            std::variant<O, std::exception_ptr> result(std::in_place_index<1>);
            try {
                result.template emplace<0>(load_batch(*shared_, perm_, len_, b));
            } catch (...) {
                result.template emplace<1>(std::current_exception());
            }
            {
                std::lock_guard guard(mutex_);
                results_.emplace(b, std::move(result));
            }
            ready_cv_.notify_all();
        }
    }

    void shutdown() {
        {
            std::lock_guard guard(mutex_);
            stop_ = true;
        }
        claim_cv_.notify_all();
        for (auto& t : threads_)
            if (t.joinable()) t.join();
    }

    std::shared_ptr<const LoaderShared<D, Bt>> shared_;
    std::size_t len_ = 0;
    std::size_t num_batches_ = 0;
    std::size_t epoch_items_ = 0;
    std::vector<std::size_t> perm_;  // empty: no shuffling
    std::size_t window_ = 2;
    // Consumer state (next_ is also read by the workers, under mutex_ when workers exist).
    std::size_t next_ = 0;
    bool finished_ = false;
    std::atomic<std::size_t> processed_{0};
    // Worker state, under mutex_.
    std::mutex mutex_;
    std::condition_variable claim_cv_;
    std::condition_variable ready_cv_;
    std::size_t claimed_ = 0;
    bool stop_ = false;
    std::map<std::size_t, std::variant<O, std::exception_ptr>> results_;
    std::vector<std::thread> threads_;  // last: joined before the rest is destroyed
};

/// The DataLoader of a dataset type and a batcher type.
template <class D, class Bt>
class BatchDataLoader final : public DataLoader<BatcherOutput<Bt>> {
public:
    using O = BatcherOutput<Bt>;

    explicit BatchDataLoader(std::shared_ptr<const LoaderShared<D, Bt>> shared)
        : shared_(std::move(shared)) {}

    DataLoaderIterator<O> iter() const override {
        const std::uint64_t epoch = epoch_.fetch_add(1, std::memory_order_relaxed);
        return DataLoaderIterator<O>(std::make_shared<EpochSource<D, Bt>>(shared_, epoch));
    }
    std::size_t num_items() const override {
        const std::size_t len = shared_->dataset->len();
        return shared_->num_shards > 1 ? shard_len(len, shared_->num_shards) : len;
    }
    std::size_t num_batches() const override {
        return batches_per_epoch(num_items(), shared_->batch_size, shared_->drop_last);
    }
    std::shared_ptr<DataLoader<O>> shard_to_device(std::size_t shard, std::size_t num_shards,
                                                   const std::any& device) const override {
        using Device = BatcherDevice<Bt>;
        BURN_CHECK(num_shards >= 1 && shard < num_shards, "DataLoader::shard_to_device: shard ",
                   shard, " of ", num_shards, ": expected num_shards >= 1 and shard < num_shards");
        BURN_CHECK(shared_->num_shards == 1,
                   "DataLoader::shard_to_device: the loader is already "
                   "shard ",
                   shared_->shard, " of ", shared_->num_shards,
                   " (DataLoaderBuilder::shard); split an unsharded loader");
        const Device* d = std::any_cast<Device>(&device);
        BURN_CHECK(d != nullptr, "DataLoader::shard_to_device: the device is a ",
                   device.type().name(), ", the batcher takes a ", typeid(Device).name());
        auto shared = std::make_shared<LoaderShared<D, Bt>>(*shared_);
        shared->shard = shard;
        shared->num_shards = num_shards;
        shared->device = *d;
        return std::make_shared<BatchDataLoader<D, Bt>>(std::move(shared));
    }

private:
    std::shared_ptr<const LoaderShared<D, Bt>> shared_;
    mutable std::atomic<std::uint64_t> epoch_{0};
};

}  // namespace detail

/// Burn's DataLoaderBuilder: DataLoaderBuilder(batcher).batch_size(n).shuffle(seed)
/// .num_workers(k).set_device(device).build(dataset). Defaults as Burn's: batch size 1, no
/// shuffling, no workers (batches loaded on the iterating thread), the device's default value,
/// and the last partial batch kept (drop_last(false)).
template <class Bt>
requires Batcher<Bt, BatcherItem<Bt>, BatcherOutput<Bt>>
class DataLoaderBuilder {
public:
    using Item = BatcherItem<Bt>;
    using Output = BatcherOutput<Bt>;
    using Device = BatcherDevice<Bt>;

    explicit DataLoaderBuilder(Bt batcher) : batcher_(std::move(batcher)) {}

    /// Items per batch (> 0); the last batch of an epoch holds the remainder.
    DataLoaderBuilder& batch_size(std::size_t n) & {
        BURN_CHECK(n > 0, "DataLoaderBuilder::batch_size: batch_size must be > 0, got ", n);
        batch_size_ = n;
        return *this;
    }
    DataLoaderBuilder&& batch_size(std::size_t n) && { return std::move(batch_size(n)); }

    /// Shuffles the items with a new permutation every epoch, derived from `seed` and the epoch.
    DataLoaderBuilder& shuffle(std::uint64_t seed) & {
        seed_ = seed;
        return *this;
    }
    DataLoaderBuilder&& shuffle(std::uint64_t seed) && { return std::move(shuffle(seed)); }

    /// Worker threads prefetching batches (0: none). Does not change the batches' order.
    DataLoaderBuilder& num_workers(std::size_t k) & {
        num_workers_ = k;
        return *this;
    }
    DataLoaderBuilder&& num_workers(std::size_t k) && { return std::move(num_workers(k)); }

    /// Whether to drop the last batch of an epoch when it holds fewer than batch_size items
    /// (PyTorch's DataLoader(drop_last=True)). With shuffling, the dropped items are the last
    /// ones of that epoch's permutation, so they differ from epoch to epoch.
    DataLoaderBuilder& drop_last(bool drop) & {
        drop_last_ = drop;
        return *this;
    }
    DataLoaderBuilder&& drop_last(bool drop) && { return std::move(drop_last(drop)); }

    /// Iterates only shard `shard` of `num_shards` (data-parallel training: rank r of n loads
    /// shard(r, n)): each epoch's order (shuffled with the same seed on every rank, or not) is
    /// dealt out in turn, item i to shard i % num_shards, so batch b of the n shards together
    /// holds the items that batch b of an unsharded loader with n times the batch size holds.
    /// Every shard has ceil(len / num_shards) items: the last shards are padded with items from
    /// the start of the epoch's order (PyTorch's DistributedSampler), so that every rank runs the
    /// same number of steps.
    DataLoaderBuilder& shard(std::size_t shard, std::size_t num_shards) & {
        BURN_CHECK(num_shards >= 1 && shard < num_shards, "DataLoaderBuilder::shard: shard ", shard,
                   " of ", num_shards, ": expected num_shards >= 1 and shard < num_shards");
        shard_ = shard;
        num_shards_ = num_shards;
        return *this;
    }
    DataLoaderBuilder&& shard(std::size_t shard, std::size_t num_shards) && {
        return std::move(this->shard(shard, num_shards));
    }

    /// The device handed to the batcher.
    DataLoaderBuilder& set_device(Device device) & {
        device_ = std::move(device);
        return *this;
    }
    DataLoaderBuilder&& set_device(Device device) && {
        return std::move(set_device(std::move(device)));
    }

    /// The loader of a dataset shared with the caller (get() must be thread-safe).
    template <Dataset D>
    requires std::same_as<typename D::Item, Item> std::shared_ptr<DataLoader<Output>> build(
        std::shared_ptr<const D> dataset)
    const {
        BURN_CHECK(dataset != nullptr, "DataLoaderBuilder::build: the dataset is null");
        auto shared = std::make_shared<detail::LoaderShared<D, Bt>>();
        shared->dataset = std::move(dataset);
        shared->batcher = std::make_shared<const Bt>(batcher_);
        shared->device = device_;
        shared->batch_size = batch_size_;
        shared->seed = seed_;
        shared->num_workers = num_workers_;
        shared->drop_last = drop_last_;
        shared->shard = shard_;
        shared->num_shards = num_shards_;
        return std::make_shared<detail::BatchDataLoader<D, Bt>>(std::move(shared));
    }
    template <Dataset D>
    requires std::same_as<typename D::Item, Item> std::shared_ptr<DataLoader<Output>> build(
        std::shared_ptr<D> dataset)
    const { return build(std::shared_ptr<const D>(std::move(dataset))); }
    /// The loader of a dataset it takes (moved or copied).
    template <class D>
    requires Dataset<std::remove_cvref_t<D>> &&
        std::same_as<typename std::remove_cvref_t<D>::Item, Item>
            std::shared_ptr<DataLoader<Output>> build(D&& dataset)
    const {
        return build(std::make_shared<const std::remove_cvref_t<D>>(std::forward<D>(dataset)));
    }

private:
    Bt batcher_;
    std::size_t batch_size_ = 1;
    std::optional<std::uint64_t> seed_;
    std::size_t num_workers_ = 0;
    bool drop_last_ = false;
    std::size_t shard_ = 0;
    std::size_t num_shards_ = 1;
    Device device_{};
};

}  // namespace burn::data
