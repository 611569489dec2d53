// SPDX-License-Identifier: MIT OR Apache-2.0
// data::DataLoaderBuilder / DataLoader / Batcher: batch counts and sizes, order, seeded
// shuffling (deterministic, new every epoch, independent of the worker count), progress, early
// stop with workers, errors from workers, empty datasets and invalid settings.
#include <atomic>
#include <burn/data/dataloader.hpp>
#include <chrono>
#include <numeric>
#include <set>
#include <stdexcept>
#include <thread>

#include "test_support.hpp"

namespace burn::testing {
namespace {

using B = Cpu<float>;

/// Items 0..n-1; get() can be told to fail at one index or to be slow.
struct IntDataset {
    using Item = int;
    std::size_t n = 0;
    std::optional<std::size_t> throw_at;
    std::optional<std::size_t> missing_at;
    std::chrono::microseconds delay{0};
    std::shared_ptr<std::atomic<std::size_t>> gets = std::make_shared<std::atomic<std::size_t>>(0);

    std::optional<int> get(std::size_t index) const {
        gets->fetch_add(1);
        if (delay.count() > 0) std::this_thread::sleep_for(delay);
        if (throw_at && index == *throw_at) throw std::runtime_error("disk on fire");
        if (missing_at && index == *missing_at) return std::nullopt;
        if (index >= n) return std::nullopt;
        return static_cast<int>(index);
    }
    std::size_t len() const { return n; }
};
static_assert(data::Dataset<IntDataset>);

/// Items as a plain vector (no tensors).
struct VecBatcher {
    std::vector<int> batch(std::vector<int> items, const B::Device&) const { return items; }
};

/// Items as a float tensor on the device; can be told to fail on batches holding one value.
struct TensorBatcher {
    std::optional<int> fail_on;
    Tensor<B, 1> batch(std::vector<int> items, const B::Device& device) const {
        std::vector<float> values;
        for (int v : items) {
            if (fail_on && v == *fail_on)
                throw Error("TensorBatcher: cannot batch " + std::to_string(v));
            values.push_back(static_cast<float>(v));
        }
        const std::size_t n = values.size();
        return Tensor<B, 1>::from_data(TensorData(std::move(values), Shape{n}), device);
    }
};
static_assert(data::Batcher<VecBatcher, int, std::vector<int>>);
static_assert(data::Batcher<TensorBatcher, int, Tensor<B, 1>>);
static_assert(!data::Batcher<VecBatcher, double, std::vector<int>>);
static_assert(std::same_as<data::BatcherDevice<TensorBatcher>, B::Device>);
static_assert(std::input_iterator<data::DataLoaderIterator<std::vector<int>>::iterator>);
static_assert(std::sentinel_for<std::default_sentinel_t,
                                data::DataLoaderIterator<std::vector<int>>::iterator>);

/// One epoch's batches.
template <class O>
std::vector<O> epoch(const data::DataLoader<O>& loader) {
    std::vector<O> out;
    for (auto batch : loader) out.push_back(std::move(batch));
    return out;
}

std::vector<int> flatten(const std::vector<std::vector<int>>& batches) {
    std::vector<int> out;
    for (const auto& b : batches) out.insert(out.end(), b.begin(), b.end());
    return out;
}

std::vector<int> iota(int n) {
    std::vector<int> v(static_cast<std::size_t>(n));
    std::iota(v.begin(), v.end(), 0);
    return v;
}

TEST(DataLoader, BatchCountsAndLastPartialBatch) {
    auto loader = data::DataLoaderBuilder(VecBatcher{}).batch_size(4).build(IntDataset{.n = 10});
    EXPECT_EQ(loader->num_items(), 10u);
    EXPECT_EQ(loader->num_batches(), 3u);
    const auto batches = epoch(*loader);
    ASSERT_EQ(batches.size(), 3u);
    EXPECT_EQ(batches[0], (std::vector<int>{0, 1, 2, 3}));
    EXPECT_EQ(batches[1], (std::vector<int>{4, 5, 6, 7}));
    EXPECT_EQ(batches[2], (std::vector<int>{8, 9}));

    auto exact = data::DataLoaderBuilder(VecBatcher{}).batch_size(5).build(IntDataset{.n = 10});
    EXPECT_EQ(exact->num_batches(), 2u);
    EXPECT_EQ(epoch(*exact).size(), 2u);

    // Burn's default batch size is 1.
    auto ones = data::DataLoaderBuilder(VecBatcher{}).build(IntDataset{.n = 3});
    EXPECT_EQ(epoch(*ones), (std::vector<std::vector<int>>{{0}, {1}, {2}}));
}

TEST(DataLoader, TensorBatchesInOrderWithoutShuffle) {
    auto loader = data::DataLoaderBuilder(TensorBatcher{}).batch_size(3).build(IntDataset{.n = 7});
    const auto batches = epoch(*loader);
    ASSERT_EQ(batches.size(), 3u);
    EXPECT_TRUE(close_to(batches[0], TensorData(std::vector<float>{0, 1, 2}, Shape{3})));
    EXPECT_TRUE(close_to(batches[1], TensorData(std::vector<float>{3, 4, 5}, Shape{3})));
    EXPECT_TRUE(close_to(batches[2], TensorData(std::vector<float>{6}, Shape{1})));
    // Unshuffled epochs repeat.
    const auto again = epoch(*loader);
    ASSERT_EQ(again.size(), 3u);
    EXPECT_TRUE(close_to(again[2], TensorData(std::vector<float>{6}, Shape{1})));
}

TEST(DataLoader, ShuffleIsAPermutationDeterministicPerSeedAndNewEachEpoch) {
    auto make = [](std::uint64_t seed) {
        return data::DataLoaderBuilder(VecBatcher{})
            .batch_size(8)
            .shuffle(seed)
            .build(IntDataset{.n = 50});
    };
    auto a = make(42), b = make(42), c = make(7);
    const auto a0 = epoch(*a), a1 = epoch(*a), b0 = epoch(*b), b1 = epoch(*b), c0 = epoch(*c);
    ASSERT_EQ(a0.size(), 7u);
    EXPECT_EQ(a0.back().size(), 2u);
    auto sorted = flatten(a0);
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, iota(50));       // every item exactly once
    EXPECT_NE(flatten(a0), iota(50));  // shuffled
    EXPECT_EQ(a0, b0);                 // same seed, same epoch: same batches
    EXPECT_EQ(a1, b1);
    EXPECT_NE(a0, a1);  // a new permutation every epoch
    EXPECT_NE(a0, c0);  // another seed, another order
}

TEST(DataLoader, PortablePermutation) {
    // seeded_permutation is platform independent: pin one value so that a change is noticed.
    const auto p = data::seeded_permutation(10, data::epoch_seed(42, 0));
    auto sorted = p;
    std::sort(sorted.begin(), sorted.end());
    std::vector<std::size_t> expected(10);
    std::iota(expected.begin(), expected.end(), std::size_t{0});
    EXPECT_EQ(sorted, expected);
    EXPECT_EQ(p, data::seeded_permutation(10, data::epoch_seed(42, 0)));
    EXPECT_EQ(data::epoch_seed(42, 0), 13701348038191128800ULL);
    EXPECT_EQ(p, (std::vector<std::size_t>{7, 9, 5, 1, 8, 4, 2, 0, 3, 6}));
    EXPECT_NE(data::epoch_seed(42, 0), data::epoch_seed(42, 1));
    EXPECT_NE(data::epoch_seed(42, 0), data::epoch_seed(43, 0));
    EXPECT_TRUE(data::seeded_permutation(0, 1).empty());
    EXPECT_EQ(data::seeded_permutation(1, 1), std::vector<std::size_t>{0});
}

TEST(DataLoader, SameSequenceForAnyWorkerCount) {
    for (bool shuffle : {false, true}) {
        std::vector<std::vector<std::vector<int>>> reference;  // per epoch
        for (std::size_t workers : {0u, 1u, 2u, 4u}) {
            auto builder = data::DataLoaderBuilder(VecBatcher{}).batch_size(3).num_workers(workers);
            if (shuffle) builder.shuffle(123);
            auto loader =
                builder.build(IntDataset{.n = 40, .delay = std::chrono::microseconds(50)});
            for (std::size_t e = 0; e < 3; ++e) {
                auto batches = epoch(*loader);
                ASSERT_EQ(batches.size(), 14u);
                if (workers == 0) reference.push_back(std::move(batches));
                else
                    EXPECT_EQ(batches, reference[e])
                        << "workers " << workers << " epoch " << e << " shuffle " << shuffle;
            }
        }
    }
}

TEST(DataLoader, TensorBatchesWithWorkers) {
    auto loader = data::DataLoaderBuilder(TensorBatcher{})
                      .batch_size(4)
                      .num_workers(3)
                      .build(IntDataset{.n = 10});
    const auto batches = epoch(*loader);
    ASSERT_EQ(batches.size(), 3u);
    EXPECT_TRUE(close_to(batches[1], TensorData(std::vector<float>{4, 5, 6, 7}, Shape{4})));
    EXPECT_TRUE(close_to(batches[2], TensorData(std::vector<float>{8, 9}, Shape{2})));
}

TEST(DataLoader, Progress) {
    for (std::size_t workers : {0u, 2u}) {
        auto loader = data::DataLoaderBuilder(VecBatcher{})
                          .batch_size(4)
                          .num_workers(workers)
                          .build(IntDataset{.n = 10});
        auto it = loader->iter();
        EXPECT_EQ(it.progress(), (data::Progress{0, 10}));
        ASSERT_TRUE(it.next().has_value());
        EXPECT_EQ(it.progress(), (data::Progress{4, 10}));
        ASSERT_TRUE(it.next().has_value());
        EXPECT_EQ(it.progress(), (data::Progress{8, 10}));
        ASSERT_TRUE(it.next().has_value());
        EXPECT_EQ(it.progress(), (data::Progress{10, 10}));
        EXPECT_FALSE(it.next().has_value());
        EXPECT_FALSE(it.next().has_value());
        EXPECT_EQ(it.progress(), (data::Progress{10, 10}));

        // The range form of the same iterator.
        auto it2 = loader->iter();
        std::vector<std::size_t> seen;
        for (auto& batch : it2) {
            (void)batch;
            seen.push_back(it2.progress().items_processed);
        }
        EXPECT_EQ(seen, (std::vector<std::size_t>{4, 8, 10}));
    }
}

TEST(DataLoader, EarlyBreakWithWorkersStopsCleanly) {
    IntDataset dataset{.n = 10000, .delay = std::chrono::microseconds(20)};
    auto gets = dataset.gets;
    auto loader = data::DataLoaderBuilder(VecBatcher{})
                      .batch_size(10)
                      .num_workers(4)
                      .shuffle(1)
                      .build(std::move(dataset));
    const auto start = std::chrono::steady_clock::now();
    int n = 0;
    for (auto batch : *loader) {
        EXPECT_EQ(batch.size(), 10u);
        if (++n == 2) break;
    }
    // Workers prefetch a bounded window: far fewer than all items were read, and the break
    // returned quickly (the workers were stopped and joined).
    EXPECT_LT(gets->load(), 200u);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
    const auto after = gets->load();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ(gets->load(), after);  // nothing runs after the loop

    // An iterator dropped before being read, and a loader destroyed while an epoch is live.
    { auto unused = loader->iter(); }
    auto it = loader->iter();
    loader.reset();
    EXPECT_TRUE(it.next().has_value());
}

TEST(DataLoader, ErrorsFromGetAndBatchAreRethrown) {
    for (std::size_t workers : {0u, 1u, 3u}) {
        SCOPED_TRACE("workers " + std::to_string(workers));
        auto throwing = data::DataLoaderBuilder(VecBatcher{})
                            .batch_size(4)
                            .num_workers(workers)
                            .build(IntDataset{.n = 20, .throw_at = 9});
        auto it = throwing->iter();
        EXPECT_TRUE(it.next().has_value());
        EXPECT_TRUE(it.next().has_value());
        EXPECT_BURN_ERROR(it.next(), "DataLoader: batch 2: loading item 9 failed: disk on fire");
        EXPECT_FALSE(it.next().has_value());  // the epoch is over after an error

        auto missing = data::DataLoaderBuilder(VecBatcher{})
                           .batch_size(4)
                           .num_workers(workers)
                           .build(IntDataset{.n = 20, .missing_at = 13});
        EXPECT_BURN_ERROR(
            epoch(*missing),
            "loading item 13 failed: dataset.get(13) returned no item although len() = 20");

        auto bad_batch = data::DataLoaderBuilder(TensorBatcher{.fail_on = 5})
                             .batch_size(4)
                             .num_workers(workers)
                             .build(IntDataset{.n = 20});
        EXPECT_BURN_ERROR(epoch(*bad_batch),
                          "DataLoader: batch 1 (items 4..8 of the epoch): batcher failed: "
                          "TensorBatcher: cannot batch 5");
        // A failed epoch does not poison the next one of another loader... nor the loader.
        auto fine = data::DataLoaderBuilder(VecBatcher{})
                        .batch_size(4)
                        .num_workers(workers)
                        .build(IntDataset{.n = 20});
        EXPECT_EQ(flatten(epoch(*fine)), iota(20));
    }
}

TEST(DataLoader, EmptyDataset) {
    for (std::size_t workers : {0u, 2u}) {
        auto loader = data::DataLoaderBuilder(VecBatcher{})
                          .batch_size(4)
                          .num_workers(workers)
                          .shuffle(3)
                          .build(IntDataset{.n = 0});
        EXPECT_EQ(loader->num_items(), 0u);
        EXPECT_EQ(loader->num_batches(), 0u);
        EXPECT_TRUE(epoch(*loader).empty());
        auto it = loader->iter();
        EXPECT_FALSE(it.next().has_value());
        EXPECT_EQ(it.progress(), (data::Progress{0, 0}));
    }
}

TEST(DataLoader, InvalidSettings) {
    EXPECT_BURN_ERROR(data::DataLoaderBuilder(VecBatcher{}).batch_size(0),
                      "DataLoaderBuilder::batch_size: batch_size must be > 0, got 0");
    EXPECT_BURN_ERROR(
        data::DataLoaderBuilder(VecBatcher{}).build(std::shared_ptr<const IntDataset>()),
        "DataLoaderBuilder::build: the dataset is null");
}

TEST(DataLoader, SharedDatasetAndBuilderReuse) {
    auto dataset = std::make_shared<IntDataset>(IntDataset{.n = 6});
    data::DataLoaderBuilder builder(VecBatcher{});
    builder.batch_size(4);
    auto train = builder.build(dataset);
    auto valid = builder.batch_size(6).build(dataset);
    EXPECT_EQ(train->num_batches(), 2u);
    EXPECT_EQ(valid->num_batches(), 1u);
    EXPECT_EQ(flatten(epoch(*train)), iota(6));
    // A loader built from an lvalue copies the dataset.
    IntDataset local{.n = 2};
    auto copied = builder.build(local);
    local.n = 100;
    EXPECT_EQ(copied->num_items(), 2u);
    // A Learner can hold loaders of any dataset through DataLoader<O>.
    std::shared_ptr<data::DataLoader<std::vector<int>>> any = copied;
    EXPECT_EQ(epoch(*any).size(), 1u);
}

TEST(DataLoader, DropLastDropsTheLastPartialBatch) {
    for (std::size_t workers : {0u, 1u, 3u}) {
        SCOPED_TRACE("workers " + std::to_string(workers));
        auto loader = data::DataLoaderBuilder(VecBatcher{})
                          .batch_size(4)
                          .num_workers(workers)
                          .drop_last(true)
                          .build(IntDataset{.n = 10});
        EXPECT_EQ(loader->num_items(), 10u);
        EXPECT_EQ(loader->num_batches(), 2u);
        auto it = loader->iter();
        EXPECT_EQ(it.progress(), (data::Progress{0, 8}));
        std::vector<std::vector<int>> batches;
        for (auto& b : it) batches.push_back(b);
        EXPECT_EQ(batches, (std::vector<std::vector<int>>{{0, 1, 2, 3}, {4, 5, 6, 7}}));
        EXPECT_EQ(it.progress(), (data::Progress{8, 8}));

        // Nothing to drop when the batch size divides the length; false keeps today's default.
        auto exact = data::DataLoaderBuilder(VecBatcher{})
                         .batch_size(5)
                         .num_workers(workers)
                         .drop_last(true)
                         .build(IntDataset{.n = 10});
        EXPECT_EQ(exact->num_batches(), 2u);
        EXPECT_EQ(flatten(epoch(*exact)), iota(10));
        auto kept = data::DataLoaderBuilder(VecBatcher{})
                        .batch_size(4)
                        .num_workers(workers)
                        .drop_last(false)
                        .build(IntDataset{.n = 10});
        EXPECT_EQ(kept->num_batches(), 3u);
        EXPECT_EQ(epoch(*kept).back(), (std::vector<int>{8, 9}));

        // Fewer items than one batch: no batch at all.
        auto small = data::DataLoaderBuilder(VecBatcher{})
                         .batch_size(4)
                         .num_workers(workers)
                         .drop_last(true)
                         .build(IntDataset{.n = 3});
        EXPECT_EQ(small->num_batches(), 0u);
        EXPECT_TRUE(epoch(*small).empty());
    }
}

TEST(DataLoader, DropLastWithShuffleKeepsFullBatchesOfEachEpochsPermutation) {
    auto build = [](std::size_t workers, bool drop) {
        return data::DataLoaderBuilder(VecBatcher{})
            .batch_size(3)
            .shuffle(11)
            .num_workers(workers)
            .drop_last(drop)
            .build(IntDataset{.n = 11});
    };
    for (std::size_t workers : {0u, 2u}) {
        SCOPED_TRACE("workers " + std::to_string(workers));
        auto dropped = build(workers, true);
        auto reference = build(0, false);
        EXPECT_EQ(dropped->num_batches(), 3u);
        std::set<int> dropped_items_seen;
        for (int e = 0; e < 3; ++e) {
            const auto all = epoch(*reference);  // same seed and epoch: same permutation
            const auto kept = epoch(*dropped);
            ASSERT_EQ(all.size(), 4u);
            ASSERT_EQ(kept.size(), 3u);
            for (std::size_t b = 0; b < 3; ++b) EXPECT_EQ(kept[b], all[b]) << "epoch " << e;
            ASSERT_EQ(all[3].size(), 2u);
            for (int v : all[3]) dropped_items_seen.insert(v);
        }
        // The dropped items change with the epoch's permutation.
        EXPECT_GT(dropped_items_seen.size(), 2u);
    }
}

TEST(DataLoader, ShardsDealOutEachEpochsOrderAndPadToEqualLengths) {
    // 10 items over 3 shards: 4 each (two padded from the start of the epoch's order); batch b of
    // the three shards together holds batch b of one loader with 3x the batch size.
    for (std::size_t workers : {0u, 2u}) {
        SCOPED_TRACE("workers " + std::to_string(workers));
        auto whole = data::DataLoaderBuilder(VecBatcher{})
                         .batch_size(6)
                         .shuffle(5)
                         .build(IntDataset{.n = 10});
        std::vector<std::shared_ptr<data::DataLoader<std::vector<int>>>> shards;
        for (std::size_t r = 0; r < 3; ++r)
            shards.push_back(data::DataLoaderBuilder(VecBatcher{})
                                 .batch_size(2)
                                 .shuffle(5)
                                 .num_workers(workers)
                                 .shard(r, 3)
                                 .build(IntDataset{.n = 10}));
        for (const auto& s : shards) {
            EXPECT_EQ(s->num_items(), 4u);
            EXPECT_EQ(s->num_batches(), 2u);
        }
        for (int e = 0; e < 2; ++e) {
            const auto order = flatten(epoch(*whole));  // the epoch's permutation
            std::vector<std::vector<std::vector<int>>> parts;
            for (const auto& s : shards) parts.push_back(epoch(*s));
            for (std::size_t r = 0; r < 3; ++r) {
                const auto got = flatten(parts[r]);
                ASSERT_EQ(got.size(), 4u);
                for (std::size_t k = 0; k < 4; ++k)
                    EXPECT_EQ(got[k], order[(r + 3 * k) % 10]) << "epoch " << e << " shard " << r;
            }
            // Batch 0 of the shards = the first 6 items of the epoch's order.
            std::multiset<int> first(order.begin(), order.begin() + 6), joined;
            for (const auto& p : parts) joined.insert(p[0].begin(), p[0].end());
            EXPECT_EQ(joined, first);
        }
    }
    // Without shuffling, shard r holds r, r + n, r + 2n, ...
    auto plain =
        data::DataLoaderBuilder(VecBatcher{}).batch_size(4).shard(1, 2).build(IntDataset{.n = 7});
    EXPECT_EQ(flatten(epoch(*plain)), (std::vector<int>{1, 3, 5, 0}));
    EXPECT_THROW(data::DataLoaderBuilder(VecBatcher{}).shard(2, 2), Error);
    EXPECT_THROW(data::DataLoaderBuilder(VecBatcher{}).shard(0, 0), Error);
}

}  // namespace
}  // namespace burn::testing
