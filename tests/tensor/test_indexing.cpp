// SPDX-License-Identifier: MIT OR Apache-2.0
// Indexing ops against PyTorch: gather (torch.gather), scatter (torch.scatter_add), select
// (torch.index_select), select_assign (torch.index_add), mask_where (torch.where(mask, value,
// self)), mask_fill (masked_fill), argwhere and nonzero; non-contiguous operands, Int kind,
// broadcasting, empty tensors, and out-of-range indices, which must throw, not crash.
#include "csi_helpers.hpp"

// Own namespace: the suite is compiled as a unity build (tests/CMakeLists.txt).
namespace burn_test_indexing {

namespace {

using namespace burn;
using burn::csi::bools;
using burn::csi::floats;
using burn::csi::ints;
using burn::csi::matches;
using burn::csi::out;

template <class B>
class IndexingTest : public ::testing::Test {};
TYPED_TEST_SUITE(IndexingTest, burn::testing::Backends, burn::testing::BackendNames);

TYPED_TEST(IndexingTest, Gather) {
    using B = TypeParam;
    CSI_ALIASES(B);
    const auto g0s = csi::in_layouts<B, 2, Int>("gather", "g0");
    const auto g1 = csi::in<B, 2, Int>("gather", "g1");
    const auto g1w = csi::in<B, 2, Int>("gather", "g1w");
    for (auto& [name, x] : csi::in_layouts<B, 2>("gather", "x")) {
        SCOPED_TRACE(name);
        for (auto& [iname, g0] : g0s) {
            SCOPED_TRACE("indices: " + iname);
            EXPECT_TRUE(matches(x.gather(0, g0), out("gather", "x_0")));
        }
        EXPECT_TRUE(matches(x.gather(1, g1), out("gather", "x_1")));
        EXPECT_TRUE(matches(x.gather(-1, g1), out("gather", "x_1")));
        EXPECT_TRUE(matches(x.gather(1, g1w), out("gather", "x_1w")));
        EXPECT_TRUE(matches(x.transpose().gather(0, g1.transpose()), out("gather", "xt_0")));
        // Empty indices.
        EXPECT_EQ(x.gather(1, I2::zeros({3, 0})).shape(), Shape({3, 0}));
        // Shape and range errors.
        EXPECT_BURN_ERROR((x.gather(2, g1)), "Tensor::gather");
        EXPECT_BURN_ERROR((x.gather(1, I2::zeros({4, 2}))), "Tensor::gather");
        // Range errors may come from the op or, on asynchronous backends (Vulkan), from the next
        // read.
        EXPECT_BURN_ERROR((x.gather(0, I2::full({1, 1}, 3)).to_data()), "gather");
        EXPECT_BURN_ERROR((x.gather(1, I2::full({1, 1}, 4)).to_data()), "gather");
        EXPECT_BURN_ERROR((x.gather(1, I2::full({1, 1}, -1)).to_data()), "gather");
        EXPECT_BURN_ERROR((x.gather(0, I2::from_ints({{0, 1, 1000000, 0}})).to_data()), "gather");
    }
    for (auto& [name, x3] : csi::in_layouts<B, 3>("gather", "x3")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(
            matches(x3.gather(-1, csi::in<B, 3, Int>("gather", "g3")), out("gather", "x3_m1")));
    }
    for (auto& [name, xi] : csi::in_layouts<B, 2, Int>("gather", "xi")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(xi.gather(1, g1), out("gather", "xi_1")));
    }
    // Gathering from an expanded tensor, with expanded indices.
    auto e = F2::from_floats({{1, 2, 3}}).expand({2, 3});
    EXPECT_TRUE(matches(e.gather(1, I2::from_ints({{2}, {0}}).expand({2, 2})),
                        floats<2>({{3, 3}, {1, 1}})));
}

TYPED_TEST(IndexingTest, ScatterIsScatterAdd) {
    using B = TypeParam;
    CSI_ALIASES(B);
    const auto s0s = csi::in_layouts<B, 2, Int>("scatter", "s0");
    const auto s1 = csi::in<B, 2, Int>("scatter", "s1");
    const auto v0s = csi::in_layouts<B, 2>("scatter", "v0");
    const auto v1 = csi::in<B, 2>("scatter", "v1");
    const auto xd = csi::in_data("scatter", "x");
    for (auto& [name, x] : csi::layouts<B, 2>(xd)) {
        SCOPED_TRACE(name);
        for (auto& [iname, s0] : s0s) {
            for (auto& [vname, v0] : v0s) {
                SCOPED_TRACE("indices: " + iname + ", values: " + vname);
                EXPECT_TRUE(matches(x.scatter(0, s0, v0), out("scatter", "x_0")));
            }
        }
        EXPECT_TRUE(matches(x.scatter(1, s1, v1), out("scatter", "x_1")));
        EXPECT_TRUE(matches(x.scatter(-1, s1, v1), out("scatter", "x_1")));
        EXPECT_TRUE(matches(x, xd));  // the input is untouched
        auto copy = x;
        EXPECT_TRUE(matches(std::move(copy).scatter(1, s1, v1), out("scatter", "x_1")));
        // Empty indices change nothing.
        EXPECT_TRUE(matches(x.scatter(0, I2::zeros({0, 5}), F2::zeros({0, 5})), xd));
        EXPECT_BURN_ERROR((x.scatter(2, s1, v1)), "Tensor::scatter");
        EXPECT_BURN_ERROR((x.scatter(1, s1, F2::zeros({3, 2}))),
                          "Tensor::scatter");  // idx > values
        EXPECT_BURN_ERROR((x.scatter(1, I2::zeros({4, 1}), F2::zeros({4, 1}))), "Tensor::scatter");
        EXPECT_BURN_ERROR((x.scatter(0, I2::full({1, 1}, 3), F2::zeros({1, 1})).to_data()),
                          "scatter");
        EXPECT_BURN_ERROR((x.scatter(1, I2::full({1, 1}, -1), F2::zeros({1, 1})).to_data()),
                          "scatter");
    }
    for (auto& [name, xi] : csi::in_layouts<B, 2, Int>("scatter", "xi")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(xi.scatter(0, s0s[0].tensor, csi::in<B, 2, Int>("scatter", "vi")),
                            out("scatter", "xi_0")));
    }
    // Values and indices that alias the destination.
    {
        auto t = F2::from_floats({{1, 2}, {3, 4}});
        auto r = t.scatter(0, I2::from_ints({{1, 0}}), t.slice({Slice(1, 2)}));
        EXPECT_TRUE(matches(r, floats<2>({{1, 6}, {6, 4}})));
        auto it = I1::from_ints({1, 0, 1});
        EXPECT_TRUE(matches(it.select(0, it), ints<1>({0, 1, 0})));
        EXPECT_TRUE(matches(it.gather(0, it), ints<1>({0, 1, 0})));
        EXPECT_TRUE(matches(it.select_assign(0, it, it), ints<1>({1, 2, 1})));
        EXPECT_TRUE(matches(it, ints<1>({1, 0, 1})));
    }
    // Scatter into an expanded tensor must not write through to the source.
    auto row = F2::from_floats({{1, 2}});
    auto r = row.expand({2, 2}).scatter(0, I2::from_ints({{1, 1}}), F2::from_floats({{10, 20}}));
    EXPECT_TRUE(matches(r, floats<2>({{1, 2}, {11, 22}})));
    EXPECT_TRUE(matches(row, floats<2>({{1, 2}})));
}

TYPED_TEST(IndexingTest, SelectIsIndexSelect) {
    using B = TypeParam;
    CSI_ALIASES(B);
    const auto i0s = csi::in_layouts<B, 1, Int>("select", "i0");
    const auto i1 = csi::in<B, 1, Int>("select", "i1");
    for (auto& [name, x] : csi::in_layouts<B, 2>("select", "x")) {
        SCOPED_TRACE(name);
        for (auto& [iname, i0] : i0s) {
            SCOPED_TRACE("indices: " + iname);
            EXPECT_TRUE(matches(x.select(0, i0), out("select", "x_0")));
        }
        EXPECT_TRUE(matches(x.select(1, i1), out("select", "x_1")));
        EXPECT_TRUE(matches(x.select(-1, i1), out("select", "x_1")));
        EXPECT_TRUE(matches(x.select(0, I1::zeros({0})), out("select", "x_empty")));
        EXPECT_TRUE(matches(x.transpose().select(0, i1), out("select", "xt_0")));
        EXPECT_BURN_ERROR((x.select(2, i1)), "Tensor::select");
        EXPECT_BURN_ERROR((x.select(0, I1::from_ints({0, 4})).to_data()), "select");
        EXPECT_BURN_ERROR((x.select(1, I1::from_ints({-1})).to_data()), "select");
        EXPECT_BURN_ERROR((x.select(1, I1::from_ints({3})).to_data()), "select");
    }
    for (auto& [name, x3] : csi::in_layouts<B, 3>("select", "x3")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(
            matches(x3.select(-1, csi::in<B, 1, Int>("select", "i3")), out("select", "x3_m1")));
    }
    for (auto& [name, xi] : csi::in_layouts<B, 2, Int>("select", "xi")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(xi.select(0, i0s[0].tensor), out("select", "xi_0")));
    }
    // From an expanded tensor with expanded indices.
    auto e = F2::from_floats({{1}, {2}}).expand({2, 3});
    EXPECT_TRUE(matches(e.select(0, I1::from_ints({1}).expand({3})),
                        floats<2>({{2, 2, 2}, {2, 2, 2}, {2, 2, 2}})));
}

TYPED_TEST(IndexingTest, SelectAssignIsIndexAdd) {
    using B = TypeParam;
    CSI_ALIASES(B);
    const auto a0s = csi::in_layouts<B, 1, Int>("select_assign", "a0");
    const auto a1 = csi::in<B, 1, Int>("select_assign", "a1");
    const auto v0s = csi::in_layouts<B, 2>("select_assign", "v0");
    const auto v1 = csi::in<B, 2>("select_assign", "v1");
    const auto xd = csi::in_data("select_assign", "x");
    for (auto& [name, x] : csi::layouts<B, 2>(xd)) {
        SCOPED_TRACE(name);
        for (auto& [iname, a0] : a0s) {
            for (auto& [vname, v0] : v0s) {
                SCOPED_TRACE("indices: " + iname + ", values: " + vname);
                EXPECT_TRUE(matches(x.select_assign(0, a0, v0), out("select_assign", "x_0")));
            }
        }
        EXPECT_TRUE(matches(x.select_assign(1, a1, v1), out("select_assign", "x_1")));
        EXPECT_TRUE(matches(x.select_assign(-1, a1, v1), out("select_assign", "x_1")));
        EXPECT_TRUE(matches(x, xd));
        auto copy = x;
        EXPECT_TRUE(matches(std::move(copy).select_assign(1, a1, v1), out("select_assign", "x_1")));
        EXPECT_TRUE(matches(x.select_assign(0, I1::zeros({0}), F2::zeros({0, 3})), xd));
        EXPECT_BURN_ERROR((x.select_assign(2, a1, v1)), "Tensor::select_assign");
        EXPECT_BURN_ERROR((x.select_assign(1, a1, F2::zeros({4, 3}))), "Tensor::select_assign");
        EXPECT_BURN_ERROR((x.select_assign(0, I1::from_ints({4}), F2::zeros({1, 3})).to_data()),
                          "select_add");
        EXPECT_BURN_ERROR((x.select_assign(0, I1::from_ints({-1}), F2::zeros({1, 3})).to_data()),
                          "select_add");
    }
    for (auto& [name, xi] : csi::in_layouts<B, 2, Int>("select_assign", "xi")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(
            matches(xi.select_assign(0, a0s[0].tensor, csi::in<B, 2, Int>("select_assign", "vi")),
                    out("select_assign", "xi_0")));
    }
}

TYPED_TEST(IndexingTest, MaskWhere) {
    using B = TypeParam;
    CSI_ALIASES(B);
    const auto ms = csi::in_layouts<B, 2, Bool>("mask_where", "m");
    const auto vs = csi::in_layouts<B, 2>("mask_where", "v");
    const auto xd = csi::in_data("mask_where", "x");
    for (auto& [name, x] : csi::layouts<B, 2>(xd)) {
        SCOPED_TRACE(name);
        for (auto& [mname, m] : ms) {
            for (auto& [vname, v] : vs) {
                SCOPED_TRACE("mask: " + mname + ", value: " + vname);
                EXPECT_TRUE(matches(x.mask_where(m, v), out("mask_where", "x_m_v")));
            }
        }
        auto m14 = csi::in<B, 2, Bool>("mask_where", "m14");
        auto v31 = csi::in<B, 2>("mask_where", "v31");
        EXPECT_TRUE(matches(x.mask_where(m14, v31), out("mask_where", "x_m14_v31")));
        EXPECT_TRUE(
            matches(x.transpose().mask_where(ms[0].tensor.transpose(), vs[0].tensor.transpose()),
                    out("mask_where", "xt_mt_v")));
        EXPECT_TRUE(matches(x, xd));
        auto copy = x;
        EXPECT_TRUE(matches(std::move(copy).mask_where(m14, v31), out("mask_where", "x_m14_v31")));
        // A mask or value that does not broadcast to the tensor's shape.
        EXPECT_BURN_ERROR((x.mask_where(Bo2::ones({4, 3}), vs[0].tensor)), "Tensor::mask_where");
        EXPECT_BURN_ERROR((x.mask_where(ms[0].tensor, F2::zeros({3, 5}))), "Tensor::mask_where");
        // The value may not grow the result (torch.where would broadcast [1, 4] to [3, 4]).
        EXPECT_BURN_ERROR((x.narrow(0, 0, 1).mask_where(m14, F2::zeros({3, 4}))),
                          "Tensor::mask_where");
        EXPECT_BURN_ERROR((x.narrow(0, 0, 1).mask_where(Bo2::ones({3, 4}), v31.narrow(0, 0, 1))),
                          "Tensor::mask_where");
    }
    for (auto& [name, xi] : csi::in_layouts<B, 2, Int>("mask_where", "xi")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(xi.mask_where(ms[0].tensor, csi::in<B, 2, Int>("mask_where", "vi")),
                            out("mask_where", "xi_m_vi")));
    }
    EXPECT_EQ(F2::zeros({0, 2}).mask_where(Bo2::ones({0, 2}), F2::ones({0, 2})).shape(),
              Shape({0, 2}));
}

TYPED_TEST(IndexingTest, MaskFill) {
    using B = TypeParam;
    CSI_ALIASES(B);
    const auto ms = csi::in_layouts<B, 2, Bool>("mask_fill", "m");
    const auto xd = csi::in_data("mask_fill", "x");
    for (auto& [name, x] : csi::layouts<B, 2>(xd)) {
        SCOPED_TRACE(name);
        for (auto& [mname, m] : ms) {
            SCOPED_TRACE("mask: " + mname);
            EXPECT_TRUE(matches(x.mask_fill(m, -2.5), out("mask_fill", "x_m")));
        }
        EXPECT_TRUE(matches(x.mask_fill(csi::in<B, 2, Bool>("mask_fill", "m31"), 1.5),
                            out("mask_fill", "x_m31")));
        EXPECT_TRUE(matches(x.transpose().mask_fill(ms[0].tensor.transpose(), 0.0),
                            out("mask_fill", "xt_mt")));
        EXPECT_TRUE(matches(x, xd));
        EXPECT_BURN_ERROR((x.mask_fill(Bo2::ones({3, 5}), 1.0)), "Tensor::mask_fill");
        EXPECT_BURN_ERROR((x.mask_fill(Bo2::ones({6, 4}), 1.0)), "Tensor::mask_fill");
    }
    for (auto& [name, xi] : csi::in_layouts<B, 2, Int>("mask_fill", "xi")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(xi.mask_fill(ms[0].tensor, 7), out("mask_fill", "xi_m")));
    }
    // Special values.
    const double inf = std::numeric_limits<double>::infinity();
    auto f = F1::from_floats({1, 2}).mask_fill(Bo1::from_bools({true, false}), -inf);
    EXPECT_TRUE(matches(f, floats<1>({-inf, 2})));
}

TYPED_TEST(IndexingTest, ArgwhereAndNonzero) {
    using B = TypeParam;
    CSI_ALIASES(B);
    for (auto& [name, m2] : csi::in_layouts<B, 2, Bool>("argwhere", "m2")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(m2.argwhere(), out("argwhere", "m2")));
        EXPECT_TRUE(matches(m2.transpose().argwhere(), out("argwhere", "m2t")));
        const TensorData coords = out("argwhere", "m2");
        const auto nz = m2.nonzero();
        ASSERT_EQ(nz.size(), 2u);
        const auto c = coords.to_vec<std::int64_t>();
        const std::size_t n = coords.shape[0];
        for (std::size_t d = 0; d < 2; ++d) {
            std::vector<std::int64_t> col;
            for (std::size_t i = 0; i < n; ++i) col.push_back(c[i * 2 + d]);
            EXPECT_TRUE(matches(nz[d], TensorData(col, Shape{n})));
        }
    }
    for (auto& [name, m3] : csi::in_layouts<B, 3, Bool>("argwhere", "m3")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(m3.argwhere(), out("argwhere", "m3")));
        EXPECT_EQ(m3.nonzero().size(), 3u);
    }
    for (auto& [name, m1] : csi::in_layouts<B, 1, Bool>("argwhere", "m1")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(m1.argwhere(), out("argwhere", "m1")));
    }
    auto none = csi::in<B, 2, Bool>("argwhere", "none");
    EXPECT_TRUE(matches(none.argwhere(), out("argwhere", "none")));
    EXPECT_EQ(none.argwhere().shape(), Shape({0, 2}));
    const auto nz = none.nonzero();
    ASSERT_EQ(nz.size(), 2u);
    EXPECT_EQ(nz[0].shape(), Shape({0}));
    EXPECT_EQ(Bo2::ones({0, 3}).argwhere().shape(), Shape({0, 2}));
    // An expanded mask: every element of the broadcast view counts.
    auto e = Bo2::from_bools({{true}, {false}}).expand({2, 3});
    EXPECT_TRUE(matches(e.argwhere(), ints<2>({{0, 0}, {0, 1}, {0, 2}})));
    // The float -> bool route (nonzero is true).
    EXPECT_TRUE(
        matches(F1::from_floats({0, 1.5, -0.0, -2}).into_bool().argwhere(), ints<2>({{1}, {3}})));
}

}  // namespace

}  // namespace burn_test_indexing
