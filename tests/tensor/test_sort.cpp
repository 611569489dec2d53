// SPDX-License-Identifier: MIT OR Apache-2.0
// Sorting: sort/sort_descending/sort_with_indices/sort_descending_with_indices/argsort/
// argsort_descending/topk/topk_with_indices along every dim, on Float and Int, every layout.
// Indices are compared with torch.sort(stable=True): ties (including -0.0 vs 0.0) keep their
// input order in both directions; NaN sorts last ascending and first descending, as torch.
// topk is the first k of the stable descending sort (torch.topk leaves the order of ties
// unspecified; its values are asserted equal in gen_numeric.py).
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "numeric_helpers.hpp"
#include "test_support.hpp"

// Own namespace: the suite is compiled as a unity build (tests/CMakeLists.txt).
namespace burn_test_sort {

namespace {

using burn::Float;
using burn::Int;
using burn::Slice;
using burn::Tensor;
using burn::TensorData;
using burn::testing::close_to;
using burn::testing::equal_to;

using namespace burn::testing::numeric;

/// Values compared exactly for Int, with the tolerance (NaN == NaN) for Float.
template <class B, std::size_t D, class K>
::testing::AssertionResult values_match(const Tensor<B, D, K>& t, const TensorData& e) {
    if constexpr (std::is_same_v<K, Int>) return equal_to(t, e);
    else return close_to(t, e);
}

/// Every sort entry point along `dim` against the stable torch sort stored as
/// {v,i}_{asc,desc}_d<dim>.
template <class B, std::size_t D, class K>
void check_sorts(const Tensor<B, D, K>& x, const std::string& c, std::int64_t dim,
                 std::int64_t stored_dim) {
    const std::string asc = "_asc_d" + std::to_string(stored_dim);
    const std::string desc = "_desc_d" + std::to_string(stored_dim);
    EXPECT_TRUE(values_match(x.sort(dim), expected(c, "v" + asc)));
    EXPECT_TRUE(values_match(x.sort_descending(dim), expected(c, "v" + desc)));
    auto [va, ia] = x.sort_with_indices(dim);
    EXPECT_TRUE(values_match(va, expected(c, "v" + asc)));
    EXPECT_TRUE(equal_to(ia, expected(c, "i" + asc)));
    auto [vd, id] = x.sort_descending_with_indices(dim);
    EXPECT_TRUE(values_match(vd, expected(c, "v" + desc)));
    EXPECT_TRUE(equal_to(id, expected(c, "i" + desc)));
    EXPECT_TRUE(equal_to(x.argsort(dim), expected(c, "i" + asc)));
    EXPECT_TRUE(equal_to(x.argsort_descending(dim), expected(c, "i" + desc)));
}

template <class B>
class SortTest : public ::testing::Test {};
TYPED_TEST_SUITE(SortTest, burn::testing::Backends, burn::testing::BackendNames);

TYPED_TEST(SortTest, Rank2EveryDimEveryLayoutStableTies) {
    using B = TypeParam;
    const std::string c = "sort2d";  // [4, 5] of {-1, 0, 0.5, 1, 2} and three -0.0
    for (auto& [l, x] : layouts<B, 2>(c, "x")) {
        for (std::int64_t d = 0; d < 2; ++d) {
            SCOPED_TRACE(l + ", dim " + std::to_string(d));
            check_sorts(x, c, d, d);
            check_sorts(x, c, d - 2, d);  // negative dim
        }
    }
}

TYPED_TEST(SortTest, Rank3EveryDimEveryLayout) {
    using B = TypeParam;
    const std::string c = "sort3d";
    for (auto& [l, x] : layouts<B, 3>(c, "x")) {
        for (std::int64_t d = 0; d < 3; ++d) {
            SCOPED_TRACE(l + ", dim " + std::to_string(d));
            check_sorts(x, c, d, d);
        }
    }
}

TYPED_TEST(SortTest, NaNLastAscendingFirstDescending) {
    using B = TypeParam;
    const std::string c = "sort_nan";  // NaN, +-inf and ties in both rows
    for (auto& [l, x] : layouts<B, 2>(c, "x")) {
        for (std::int64_t d = 0; d < 2; ++d) {
            SCOPED_TRACE(l + ", dim " + std::to_string(d));
            check_sorts(x, c, d, d);
        }
        SCOPED_TRACE(l);
        auto [v, i] = x.topk_with_indices(3, 1);
        EXPECT_TRUE(close_to(v, expected(c, "topk_v_k3_d1")));
        EXPECT_TRUE(equal_to(i, expected(c, "topk_i_k3_d1")));
    }
    const auto row = input<B, 2>(c, "x").sort(1).to_data().template to_vec<double>();
    EXPECT_TRUE(std::isnan(row[7]) && std::isnan(row[6]));
    EXPECT_EQ(row[0], -INFINITY);
}

TYPED_TEST(SortTest, LongStableSortFloatAndInt) {
    using B = TypeParam;
    const std::string c = "sort_long";  // 1000 values in 0..9
    auto x = input<B, 1>(c, "x");
    check_sorts(x, c, 0, 0);
    auto xi = input<B, 1, Int>(c, "x");
    check_sorts(xi, c, 0, 0);
    auto [v, i] = x.topk_with_indices(10, 0);
    EXPECT_TRUE(close_to(v, expected(c, "topk_v_k10")));
    EXPECT_TRUE(equal_to(i, expected(c, "topk_i_k10")));
    auto [vi, ii] = xi.topk_with_indices(10, 0);
    EXPECT_TRUE(equal_to(vi, expected(c, "topk_v_k10")));
    EXPECT_TRUE(equal_to(ii, expected(c, "topk_i_k10")));
    EXPECT_TRUE(close_to(x.topk(10, -1), expected(c, "topk_v_k10")));
}

TYPED_TEST(SortTest, TopkEveryDim) {
    using B = TypeParam;
    const std::string c = "sort2d";
    for (auto& [l, x] : layouts<B, 2>(c, "x")) {
        SCOPED_TRACE(l);
        for (auto [k, d] : {std::pair<std::size_t, std::int64_t>{3, 1}, {2, 0}, {5, 1}}) {
            const std::string s = "_k" + std::to_string(k) + "_d" + std::to_string(d);
            EXPECT_TRUE(close_to(x.topk(k, d), expected(c, "topk_v" + s))) << s;
            auto [v, i] = x.topk_with_indices(k, d);
            EXPECT_TRUE(close_to(v, expected(c, "topk_v" + s))) << s;
            EXPECT_TRUE(equal_to(i, expected(c, "topk_i" + s))) << s;
            auto [vn, in] = x.topk_with_indices(k, d - 2);  // negative dim
            EXPECT_TRUE(equal_to(in, expected(c, "topk_i" + s))) << s;
        }
        // k = 0 gives an empty result along the dim.
        EXPECT_EQ(x.topk(0, 1).shape(), burn::Shape({4, 0}));
    }
}

TYPED_TEST(SortTest, IntSortEveryDimEveryLayout) {
    using B = TypeParam;
    const std::string c = "int_sort";
    for (auto& [l, x] : layouts<B, 2, Int>(c, "x")) {
        for (std::int64_t d = 0; d < 2; ++d) {
            SCOPED_TRACE(l + ", dim " + std::to_string(d));
            check_sorts(x, c, d, d);
        }
        SCOPED_TRACE(l);
        auto [v, i] = x.topk_with_indices(2, 1);
        EXPECT_TRUE(equal_to(v, expected(c, "topk_v_k2_d1")));
        EXPECT_TRUE(equal_to(i, expected(c, "topk_i_k2_d1")));
        EXPECT_TRUE(equal_to(x.topk(2, -1), expected(c, "topk_v_k2_d1")));
    }
}

TYPED_TEST(SortTest, SortLeavesTheInputUntouchedAndHandlesEdgeShapes) {
    using B = TypeParam;
    const std::string c = "sort2d";
    auto x = input<B, 2>(c, "x");
    const TensorData before = x.to_data();
    (void)x.sort(1);
    (void)x.argsort_descending(0);
    (void)x.topk(2, 1);
    EXPECT_TRUE(close_to(x, before));
    // Size-1 and empty dims.
    using F2 = Tensor<B, 2>;
    auto one = F2::from_floats({{3.0, 1.0, 2.0}});
    EXPECT_TRUE(close_to(one.sort(0), one.to_data()));
    EXPECT_TRUE(equal_to(one.argsort(0), TensorData(std::vector<std::int64_t>{0, 0, 0}, {1, 3})));
    EXPECT_TRUE(equal_to(one.argsort(1), TensorData(std::vector<std::int64_t>{1, 2, 0}, {1, 3})));
    EXPECT_EQ(F2::zeros({0, 3}).sort(0).shape(), burn::Shape({0, 3}));
    EXPECT_EQ(F2::zeros({2, 0}).argsort(1).shape(), burn::Shape({2, 0}));
}

TYPED_TEST(SortTest, ExpandedInputsAreAllTies) {
    // A [1, 5] row expanded to [3, 5]: along dim 0 every column is a tie, so the stable sort
    // keeps the order 0, 1, 2 in both directions; along dim 1 every row sorts like the row.
    using B = TypeParam;
    auto row = input<B, 2>("sort2d", "x").slice({Slice(2, 3)});  // [1, 5], has ties
    auto x = row.expand({3, 5});
    std::vector<std::int64_t> order;
    for (std::int64_t i = 0; i < 3; ++i)
        for (int j = 0; j < 5; ++j) order.push_back(i);
    const TensorData ramp(order, {3, 5});
    auto [v, i] = x.sort_with_indices(0);
    EXPECT_TRUE(close_to(v, x.to_data()));
    EXPECT_TRUE(equal_to(i, ramp));
    EXPECT_TRUE(equal_to(x.argsort_descending(0), ramp));
    EXPECT_TRUE(equal_to(x.argsort(1), row.argsort(1).expand({3, 5}).to_data()));
    EXPECT_TRUE(close_to(x.sort_descending(1), row.sort_descending(1).expand({3, 5}).to_data()));
    auto [tv, ti] = x.topk_with_indices(2, 0);
    EXPECT_TRUE(equal_to(
        ti, TensorData(std::vector<std::int64_t>(order.begin(), order.begin() + 10), {2, 5})));
}

TYPED_TEST(SortTest, ErrorsNameTheOp) {
    using B = TypeParam;
    auto x = Tensor<B, 2>::ones({2, 3});
    auto i = Tensor<B, 2, Int>::ones({2, 3});
    EXPECT_BURN_ERROR(x.sort(2), "Tensor::sort");
    EXPECT_BURN_ERROR(x.sort(-3), "Tensor::sort");
    EXPECT_BURN_ERROR(x.sort_descending(2), "Tensor::sort_descending");
    EXPECT_BURN_ERROR(x.sort_with_indices(5), "Tensor::sort");
    EXPECT_BURN_ERROR(x.sort_descending_with_indices(-4), "Tensor::sort_descending");
    EXPECT_BURN_ERROR(x.argsort(2), "Tensor::argsort");
    EXPECT_BURN_ERROR(x.argsort_descending(2), "Tensor::argsort_descending");
    EXPECT_BURN_ERROR(x.topk(1, 2), "Tensor::topk");
    EXPECT_BURN_ERROR(x.topk(4, 1), "Tensor::topk");  // k larger than the dim
    EXPECT_BURN_ERROR(x.topk_with_indices(3, 0), "Tensor::topk");
    EXPECT_BURN_ERROR(i.sort(2), "Tensor::sort");
    EXPECT_BURN_ERROR(i.topk(4, -1), "Tensor::topk");
}

}  // namespace

}  // namespace burn_test_sort
