// SPDX-License-Identifier: MIT OR Apache-2.0
// Copying shape ops against PyTorch: repeat, repeat_dim, narrow, chunk, split, slice,
// slice_assign, cat, stack, pad; on non-contiguous inputs, Int and Bool kinds, empty dims, and
// every invalid argument.
#include "csi_helpers.hpp"

// Own namespace: the suite is compiled as a unity build (tests/CMakeLists.txt).
namespace burn_test_shape_slice {

namespace {

using namespace burn;
using burn::csi::bools;
using burn::csi::floats;
using burn::csi::ints;
using burn::csi::matches;
using burn::csi::out;

constexpr std::int64_t kEnd = INT64_MAX;

template <class B>
class ShapeSliceTest : public ::testing::Test {};
TYPED_TEST_SUITE(ShapeSliceTest, burn::testing::Backends, burn::testing::BackendNames);

TYPED_TEST(ShapeSliceTest, RepeatAndRepeatDim) {
    using B = TypeParam;
    CSI_ALIASES(B);
    for (auto& [name, x] : csi::in_layouts<B, 2>("repeat", "x")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(x.repeat({2, 3}), out("repeat", "r_2_3")));
        EXPECT_TRUE(matches(x.repeat({1, 2}), out("repeat", "r_1_2")));
        EXPECT_TRUE(matches(x.repeat({3, 1}), out("repeat", "r_3_1")));
        EXPECT_TRUE(matches(x.repeat({0, 2}), out("repeat", "r_0_2")));
        EXPECT_TRUE(matches(x.repeat({1, 1}), csi::in_data("repeat", "x")));
        EXPECT_TRUE(matches(x.repeat_dim(0, 3), out("repeat", "d_0_3")));
        EXPECT_TRUE(matches(x.repeat_dim(1, 2), out("repeat", "d_1_2")));
        EXPECT_TRUE(matches(x.repeat_dim(-1, 4), out("repeat", "d_m1_4")));
        EXPECT_TRUE(matches(x.transpose().repeat_dim(0, 2), out("repeat", "t_d_0_2")));
        EXPECT_BURN_ERROR((x.repeat_dim(2, 2)), "Tensor::repeat_dim");
        EXPECT_BURN_ERROR((x.repeat_dim(-3, 2)), "Tensor::repeat_dim");
    }
    for (auto& [name, x3] : csi::in_layouts<B, 3>("repeat", "x3")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(x3.repeat({1, 4, 2}), out("repeat", "r3_1_4_2")));
    }
    EXPECT_TRUE(matches(I1::from_ints({1, 2}).repeat_dim(0, 3), ints<1>({1, 2, 1, 2, 1, 2})));
    EXPECT_TRUE(matches(Bo2::from_bools({{true, false}}).repeat({2, 1}),
                        bools<2>({{true, false}, {true, false}})));
    // Repeating an expanded tensor, and an empty one.
    EXPECT_TRUE(matches(F2::from_floats({{1}, {2}}).expand({2, 2}).repeat_dim(1, 2),
                        floats<2>({{1, 1, 1, 1}, {2, 2, 2, 2}})));
    EXPECT_EQ(F2::zeros({0, 2}).repeat({3, 2}).shape(), Shape({0, 4}));
}

TYPED_TEST(ShapeSliceTest, Narrow) {
    using B = TypeParam;
    CSI_ALIASES(B);
    for (auto& [name, x] : csi::in_layouts<B, 2>("narrow", "x")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(x.narrow(0, 1, 2), out("narrow", "n_0_1_2")));
        EXPECT_TRUE(matches(x.narrow(1, 0, 5), out("narrow", "n_1_0_5")));
        EXPECT_TRUE(matches(x.narrow(-1, 3, 2), out("narrow", "n_m1_3_2")));
        EXPECT_TRUE(matches(x.narrow(0, 4, 0), out("narrow", "n_0_4_0")));
        EXPECT_TRUE(matches(x.transpose().narrow(0, 1, 3), out("narrow", "t_n_0_1_3")));
        EXPECT_BURN_ERROR((x.narrow(0, 3, 2)), "Tensor::narrow");
        EXPECT_BURN_ERROR((x.narrow(1, 6, 0)), "Tensor::narrow");
        EXPECT_BURN_ERROR((x.narrow(2, 0, 1)), "Tensor::narrow");
    }
    EXPECT_TRUE(matches(I1::arange(0, 6).narrow(0, 2, 3), ints<1>({2, 3, 4})));
    EXPECT_TRUE(
        matches(Bo1::from_bools({true, false, true}).narrow(0, 1, 2), bools<1>({false, true})));
}

/// Compares the pieces of chunk/split with the fixture's `<tag>_<i>` outputs (their count is
/// params[tag]).
template <class T>
void check_pieces(const std::vector<T>& pieces, std::string_view c, const std::string& tag) {
    const auto& sizes = csi::params(c).at(tag);
    ASSERT_EQ(pieces.size(), sizes.size()) << tag << ": number of pieces";
    for (std::size_t i = 0; i < pieces.size(); ++i) {
        SCOPED_TRACE(tag + " piece " + std::to_string(i));
        EXPECT_TRUE(matches(pieces[i], out(c, tag + "_" + std::to_string(i))));
    }
}

TYPED_TEST(ShapeSliceTest, ChunkMatchesTorchChunk) {
    using B = TypeParam;
    CSI_ALIASES(B);
    const auto& p = csi::params("chunk");
    for (auto& [name, x] : csi::in_layouts<B, 2>("chunk", "x")) {
        SCOPED_TRACE(name);
        check_pieces(x.chunk(4, 0), "chunk", "c4_0");
        check_pieces(x.chunk(2, 1), "chunk", "c2_1");
        check_pieces(x.chunk(3, -1), "chunk", "c3_1");
        check_pieces(x.narrow(0, 0, 6).chunk(6, 0), "chunk", "c6_0");
        check_pieces(x.narrow(0, 0, 4).chunk(5, 0), "chunk", "c5_0");
        check_pieces(x.chunk(1, 0), "chunk", "c1_0");
        EXPECT_BURN_ERROR((x.chunk(0, 0)), "Tensor::chunk");
        EXPECT_BURN_ERROR((x.chunk(2, 2)), "Tensor::chunk");
    }
    auto ic = I1::arange(0, 5).chunk(2, 0);
    ASSERT_EQ(ic.size(), 2u);
    EXPECT_TRUE(matches(ic[1], ints<1>({3, 4})));
    // torch.chunk of an empty dim gives `chunks` empty pieces.
    const auto& sizes = p.at("empty_3");
    auto e = F2::zeros({0, 3}).chunk(3, 0);
    ASSERT_EQ(e.size(), sizes.size());
    for (auto& t : e) EXPECT_EQ(t.shape(), Shape({0, 3}));
}

TYPED_TEST(ShapeSliceTest, SplitMatchesTorchSplit) {
    using B = TypeParam;
    CSI_ALIASES(B);
    const auto& p = csi::params("split");
    for (auto& [name, x] : csi::in_layouts<B, 2>("split", "x")) {
        SCOPED_TRACE(name);
        check_pieces(x.split(3, 0), "split", "s3_0");
        check_pieces(x.split(2, 1), "split", "s2_1");
        check_pieces(x.split(10, 0), "split", "s10_0");
        check_pieces(x.split(4, -2), "split", "s4_m2");
        check_pieces(x.split(20, 0), "split", "s20_0");
        EXPECT_BURN_ERROR((x.split(0, 0)), "Tensor::split");
        EXPECT_BURN_ERROR((x.split(2, -3)), "Tensor::split");
    }
    auto bs = Bo1::from_bools({true, false, true}).split(2, 0);
    ASSERT_EQ(bs.size(), 2u);
    EXPECT_TRUE(matches(bs[1], bools<1>({true})));
    // torch.split of an empty dim gives one empty piece.
    const auto& sizes = p.at("empty_2");
    auto e = F2::zeros({0, 3}).split(2, 0);
    ASSERT_EQ(e.size(), sizes.size());
    for (auto& t : e) EXPECT_EQ(t.shape(), Shape({0, 3}));
}

TYPED_TEST(ShapeSliceTest, Slice) {
    using B = TypeParam;
    CSI_ALIASES(B);
    for (auto& [name, x] : csi::in_layouts<B, 3>("slice", "x")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(x.slice({{1, 3}, {-4, -1}, Slice(0, kEnd, 2)}), out("slice", "s1")));
        EXPECT_TRUE(matches(x.slice({Slice(0, kEnd, 2), Slice(1, kEnd), Slice::index(-1)}),
                            out("slice", "s2")));
        EXPECT_TRUE(matches(x.slice({Slice(-10, 2)}), out("slice", "s3")));
        EXPECT_TRUE(matches(x.slice({Slice(0, 4, 3), Slice(1, 5, 2), Slice::index(2)}),
                            out("slice", "s4")));
        EXPECT_TRUE(matches(x.slice({Slice::all(), Slice(3, 1)}), out("slice", "s5")));
        EXPECT_TRUE(matches(x.slice({Slice(1, 100)}), out("slice", "s6")));
        EXPECT_TRUE(
            matches(x.slice({Slice::all(), Slice::all(), Slice(-3, kEnd)}), out("slice", "s7")));
        EXPECT_TRUE(matches(x.slice({Slice::index(2), Slice::index(0), Slice::index(5)}),
                            out("slice", "s8")));
        EXPECT_TRUE(matches(x.slice({Slice::all(), Slice(0, kEnd, 4), Slice(1, kEnd, 3)}),
                            out("slice", "s9")));
        EXPECT_TRUE(matches(x.swap_dims(0, 2).slice({Slice(1, 5, 2), Slice(0, kEnd, 2)}),
                            out("slice", "t1")));
        EXPECT_TRUE(matches(x.flip({2}).slice({Slice::all(), Slice(1, kEnd), Slice(0, kEnd, 2)}),
                            out("slice", "f1")));
        EXPECT_TRUE(matches(
            x.slice({Slice(0, kEnd, 2), Slice(1, kEnd)}).slice({Slice::all(), Slice(0, kEnd, 2)}),
            out("slice", "ss")));
        EXPECT_TRUE(matches(x.slice(std::vector<Slice>{Slice(-10, 2)}), out("slice", "s3")));
        EXPECT_TRUE(matches(x.slice({}), csi::in_data("slice", "x")));
        // A start equal to the size with an equal end is an empty range.
        EXPECT_EQ(x.slice({Slice(4, 4)}).shape(), Shape({0, 5, 6}));
        EXPECT_BURN_ERROR((x.slice({Slice::all(), Slice::all(), Slice::all(), Slice::all()})),
                          "Tensor::slice");
        EXPECT_BURN_ERROR((x.slice({Slice(0, 2, 0)})), "Tensor::slice");
        EXPECT_BURN_ERROR((x.slice({Slice(0, 2, -1)})), "Tensor::slice");
        EXPECT_BURN_ERROR((x.slice({Slice(4, 6)})), "Tensor::slice");
        EXPECT_BURN_ERROR((x.slice({Slice::all(), Slice::index(5)})), "Tensor::slice");
    }
    EXPECT_TRUE(matches(I1::arange(0, 10).slice({Slice(-4, kEnd, 2)}), ints<1>({6, 8})));
    EXPECT_TRUE(matches(Bo1::from_bools({true, false, true, true}).slice({Slice(1, 3)}),
                        bools<1>({false, true})));
    // Slicing an expanded tensor.
    EXPECT_TRUE(matches(
        F2::from_floats({{1}, {2}, {3}}).expand({3, 4}).slice({Slice(1, 3), Slice(0, 4, 3)}),
        floats<2>({{2, 2}, {3, 3}})));
    EXPECT_EQ(F2::zeros({0, 3}).slice({Slice::all(), Slice(1, 2)}).shape(), Shape({0, 1}));
}

TYPED_TEST(ShapeSliceTest, SliceAssign) {
    using B = TypeParam;
    CSI_ALIASES(B);
    const auto v1s = csi::in_layouts<B, 2>("slice_assign", "v1");
    const auto v2 = csi::in<B, 2>("slice_assign", "v2");
    const auto v3 = csi::in<B, 2>("slice_assign", "v3");
    const auto v4 = csi::in<B, 2>("slice_assign", "v4");
    const auto xd = csi::in_data("slice_assign", "x");
    for (auto& [name, x] : csi::layouts<B, 2>(xd)) {
        SCOPED_TRACE(name);
        for (auto& [vname, v1] : v1s) {
            SCOPED_TRACE("values: " + vname);
            EXPECT_TRUE(matches(x.slice_assign({Slice(1, 3), Slice(0, kEnd, 2)}, v1),
                                out("slice_assign", "a1")));
        }
        EXPECT_TRUE(matches(x.slice_assign({Slice::all(), Slice(-1, kEnd)}, v2),
                            out("slice_assign", "a2")));
        EXPECT_TRUE(matches(x.slice_assign({Slice(0, kEnd, 3)}, v3), out("slice_assign", "a3")));
        EXPECT_TRUE(matches(x.slice_assign({Slice(-2, kEnd), Slice(1, 4, 2)}, v4),
                            out("slice_assign", "a4")));
        EXPECT_TRUE(
            matches(x.slice_assign({Slice(2, 2)}, F2::zeros({0, 5})), out("slice_assign", "a5")));
        EXPECT_TRUE(matches(x.slice_assign(std::vector<Slice>{Slice(0, kEnd, 3)}, v3),
                            out("slice_assign", "a3")));
        // The input is untouched by the const& overload.
        EXPECT_TRUE(matches(x, xd));
        // The rvalue overload gives the same values.
        auto copy = x;
        EXPECT_TRUE(matches(std::move(copy).slice_assign({Slice(0, kEnd, 3)}, v3),
                            out("slice_assign", "a3")));
        EXPECT_TRUE(matches(x, xd));
        EXPECT_BURN_ERROR((x.slice_assign({Slice(1, 3)}, v1s[0].tensor)), "Tensor::slice_assign");
        EXPECT_BURN_ERROR((x.slice_assign({Slice(0, 2, 0)}, v1s[0].tensor)),
                          "Tensor::slice_assign");
        EXPECT_BURN_ERROR((x.slice_assign({Slice(5, 6)}, F2::zeros({1, 5}))),
                          "Tensor::slice_assign");
        EXPECT_BURN_ERROR((x.slice_assign({Slice::all(), Slice::all(), Slice::all()}, x)),
                          "Tensor::slice_assign");
    }
    // Into an expanded (stride 0) tensor: only the region changes, and the source is untouched.
    auto col = F2::from_floats({{1}, {2}, {3}});
    auto e = col.expand({3, 2}).slice_assign({Slice::index(0)}, F2::from_floats({{8, 9}}));
    EXPECT_TRUE(matches(e, floats<2>({{8, 9}, {2, 2}, {3, 3}})));
    EXPECT_TRUE(matches(col, floats<2>({{1}, {2}, {3}})));
    // Values that are an expanded view.
    auto z = F2::zeros({2, 3}).slice_assign({Slice::all(), Slice(1, 3)},
                                            F2::from_floats({{5, 6}}).expand({2, 2}));
    EXPECT_TRUE(matches(z, floats<2>({{0, 5, 6}, {0, 5, 6}})));
    // Values that alias the destination's buffer (x[0:3] = x[1:4] and x[1:4] = x[0:3] in torch,
    // which copies the right-hand side first).
    {
        auto t = F1::from_floats({1, 2, 3, 4});
        auto r = std::move(t).slice_assign({Slice(0, 3)}, t.slice({Slice(1, 4)}));
        EXPECT_TRUE(matches(r, floats<1>({2, 3, 4, 4})));
        auto u = F1::from_floats({1, 2, 3, 4});
        auto view = u.slice({Slice(0, 3)});
        auto r2 = std::move(u).slice_assign({Slice(1, 4)}, view);
        EXPECT_TRUE(matches(r2, floats<1>({1, 1, 2, 3})));
        EXPECT_TRUE(matches(view, floats<1>({1, 2, 3})));
        auto w = F2::from_floats({{1, 2}, {3, 4}});
        EXPECT_TRUE(matches(w.slice_assign({Slice::all(), Slice::all()}, w.transpose()),
                            floats<2>({{1, 3}, {2, 4}})));
        EXPECT_TRUE(matches(w, floats<2>({{1, 2}, {3, 4}})));
    }
    // Int and Bool.
    auto i = I1::zeros({5}).slice_assign({Slice(1, kEnd, 2)}, I1::from_ints({7, 8}));
    EXPECT_TRUE(matches(i, ints<1>({0, 7, 0, 8, 0})));
    auto b = Bo2::zeros({2, 2}).slice_assign({Slice::index(-1)}, Bo2::from_bools({{true, false}}));
    EXPECT_TRUE(matches(b, bools<2>({{false, false}, {true, false}})));
}

TYPED_TEST(ShapeSliceTest, Cat) {
    using B = TypeParam;
    CSI_ALIASES(B);
    auto b = csi::in<B, 2>("cat", "b");
    auto c = csi::in<B, 2>("cat", "c");
    auto d = csi::in<B, 2>("cat", "d");
    auto e = csi::in<B, 2>("cat", "e");
    for (auto& [name, a] : csi::in_layouts<B, 2>("cat", "a")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(F2::cat({a, b, c}, 0), out("cat", "abc_0")));
        EXPECT_TRUE(matches(F2::cat({a, d, e}, 1), out("cat", "ade_1")));
        EXPECT_TRUE(matches(F2::cat({a, d, e}, -1), out("cat", "ade_m1")));
        EXPECT_TRUE(matches(burn::cat(std::vector<F2>{a, b, c}, 0), out("cat", "abc_0")));
        EXPECT_TRUE(
            matches(F2::cat({a.transpose().transpose(), c.flip({0})}, 0), out("cat", "at_c_0")));
        // One tensor, and empty parts.
        EXPECT_TRUE(matches(F2::cat({a}, 0), csi::in_data("cat", "a")));
        EXPECT_TRUE(matches(F2::cat({F2::zeros({2, 0}), a, F2::zeros({2, 0})}, 1),
                            csi::in_data("cat", "a")));
        EXPECT_BURN_ERROR((F2::cat({a, b}, 1)), "Tensor::cat");
        EXPECT_BURN_ERROR((F2::cat({a, e}, 0)), "Tensor::cat");
        EXPECT_BURN_ERROR((F2::cat({a, b}, 2)), "Tensor::cat");
        EXPECT_BURN_ERROR((F2::cat({a, b}, -3)), "Tensor::cat");
    }
    for (auto& [name, p] : csi::in_layouts<B, 3>("cat", "p")) {
        SCOPED_TRACE(name);
        for (auto& [rname, r] : csi::in_layouts<B, 3>("cat", "r")) {
            SCOPED_TRACE(rname);
            EXPECT_TRUE(matches(F3::cat({p, r}, 1), out("cat", "pr_1")));
        }
    }
    EXPECT_TRUE(
        matches(I2::cat({csi::in<B, 2, Int>("cat", "ia"), csi::in<B, 2, Int>("cat", "ib")}, 0),
                out("cat", "i_0")));
    EXPECT_TRUE(matches(Bo1::cat({Bo1::from_bools({true}), Bo1::from_bools({false, true})}, 0),
                        bools<1>({true, false, true})));
    // Expanded parts.
    EXPECT_TRUE(matches(F2::cat({F2::from_floats({{1}, {2}}).expand({2, 2}), F2::ones({2, 1})}, 1),
                        floats<2>({{1, 1, 1}, {2, 2, 1}})));
    EXPECT_BURN_ERROR((F2::cat({}, 0)), "Tensor::cat");
}

TYPED_TEST(ShapeSliceTest, Stack) {
    using B = TypeParam;
    CSI_ALIASES(B);
    auto b = csi::in<B, 2>("stack", "b");
    auto c = csi::in<B, 2>("stack", "c");
    for (auto& [name, a] : csi::in_layouts<B, 2>("stack", "a")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(F2::stack({a, b, c}, 0), out("stack", "s_0")));
        EXPECT_TRUE(matches(F2::stack({a, b, c}, 1), out("stack", "s_1")));
        EXPECT_TRUE(matches(F2::stack({a, b, c}, 2), out("stack", "s_2")));
        EXPECT_TRUE(matches(F2::stack({a, b, c}, -1), out("stack", "s_m1")));
        EXPECT_TRUE(matches(F2::stack({a, b, c}, -3), out("stack", "s_m3")));
        EXPECT_BURN_ERROR((F2::stack({a, a.transpose()}, 0)), "Tensor::stack");
        EXPECT_BURN_ERROR((F2::stack({a, b}, 3)), "Tensor::stack");
        EXPECT_BURN_ERROR((F2::stack({a, b}, -4)), "Tensor::stack");
    }
    EXPECT_TRUE(matches(I1::stack({I1::from_ints({1, 2}), I1::from_ints({3, 4})}, 1),
                        ints<2>({{1, 3}, {2, 4}})));
    EXPECT_TRUE(matches(Bo1::stack({Bo1::from_bools({true}), Bo1::from_bools({false})}, 0),
                        bools<2>({{true}, {false}})));
    EXPECT_EQ(F2::stack({F2::zeros({0, 2}), F2::zeros({0, 2})}, 1).shape(), Shape({0, 2, 2}));
    EXPECT_BURN_ERROR((F2::stack({}, 0)), "Tensor::stack");
}

TYPED_TEST(ShapeSliceTest, PadMatchesTorchPad) {
    using B = TypeParam;
    CSI_ALIASES(B);
    for (auto& [name, x] : csi::in_layouts<B, 2>("pad", "x")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(x.pad({1, 2}, 0.0), out("pad", "p_1_2")));
        EXPECT_TRUE(matches(x.pad({1, 2, 0, 3}, 0.5), out("pad", "p_1_2_0_3")));
        EXPECT_TRUE(matches(x.pad({0, 0, 2, 1}, -1.0), out("pad", "p_0_0_2_1")));
        EXPECT_TRUE(matches(x.pad(std::vector<std::size_t>{1, 2}, 0), out("pad", "p_1_2")));
        EXPECT_TRUE(matches(x.transpose().pad({1, 1}, 0.0), out("pad", "pt_1_1")));
        EXPECT_TRUE(matches(x.pad({}, 3.0), csi::in_data("pad", "x")));
        EXPECT_BURN_ERROR((x.pad({1}, 0.0)), "Tensor::pad");
        EXPECT_BURN_ERROR((x.pad({1, 1, 1, 1, 1, 1}, 0.0)), "Tensor::pad");
    }
    for (auto& [name, x3] : csi::in_layouts<B, 3>("pad", "x3")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(x3.pad({1, 1, 1, 1, 1, 1}, 9.0), out("pad", "p3_1x6")));
    }
    for (auto& [name, xi] : csi::in_layouts<B, 2, Int>("pad", "xi")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(xi.pad({2, 0, 1, 1}, 7), out("pad", "pi_2_0_1_1")));
    }
    EXPECT_TRUE(matches(Bo2::from_bools({{false}}).pad({1, 0}, true), bools<2>({{true, false}})));
    EXPECT_TRUE(matches(F2::zeros({0, 2}).pad({0, 0, 1, 0}, 4.0), floats<2>({{4, 4}})));
}

}  // namespace

}  // namespace burn_test_shape_slice
