// SPDX-License-Identifier: MIT OR Apache-2.0
// Kind conversions (into_int / into_float / into_bool), into_scalar, metadata (dims, shape,
// num_elements, device, dtype, to_device), equal / not_equal and all / any / all_dim / any_dim,
// against PyTorch, on non-contiguous inputs and empty dims.
#include "csi_helpers.hpp"

// Own namespace: the suite is compiled as a unity build (tests/CMakeLists.txt).
namespace burn_test_kind_compare {

namespace {

using namespace burn;
using burn::csi::bools;
using burn::csi::floats;
using burn::csi::ints;
using burn::csi::matches;
using burn::csi::out;

template <class B>
class KindCompareTest : public ::testing::Test {};
TYPED_TEST_SUITE(KindCompareTest, burn::testing::Backends, burn::testing::BackendNames);

TYPED_TEST(KindCompareTest, KindConversions) {
    using B = TypeParam;
    BURN_REQUIRE_FULL_PRECISION(B, "1e-30 is zero in the half types");
    CSI_ALIASES(B);
    for (auto& [name, f] : csi::in_layouts<B, 1>("kind_conversions", "f")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(f.into_int(), out("kind_conversions", "f_int")));  // truncation
        EXPECT_TRUE(matches(f.into_bool(), out("kind_conversions", "f_bool")));
        EXPECT_TRUE(matches(f.into_float(), csi::in_data("kind_conversions", "f")));
    }
    for (auto& [name, i] : csi::in_layouts<B, 1, Int>("kind_conversions", "i")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(i.into_float(), out("kind_conversions", "i_float")));
        EXPECT_TRUE(matches(i.into_bool(), out("kind_conversions", "i_bool")));
        EXPECT_TRUE(matches(i.into_int(), csi::in_data("kind_conversions", "i")));
    }
    for (auto& [name, b] : csi::in_layouts<B, 1, Bool>("kind_conversions", "b")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(b.into_int(), out("kind_conversions", "b_int")));
        EXPECT_TRUE(matches(b.into_float(), out("kind_conversions", "b_float")));
        EXPECT_TRUE(matches(b.into_bool(), csi::in_data("kind_conversions", "b")));
    }
    // NaN is non-zero, so true (torch.tensor(nan).bool() is True); large ints stay exact in f64.
    const double nan = std::numeric_limits<double>::quiet_NaN();
    EXPECT_TRUE(
        matches(F1::from_floats({nan, -0.0, 1e-30}).into_bool(), bools<1>({true, false, true})));
    EXPECT_TRUE(matches(I1::from_ints({-7, 1LL << 20}).into_float(), floats<1>({-7, 1 << 20})));
    // Expanded and empty inputs.
    EXPECT_TRUE(matches(F2::from_floats({{1.9}, {-1.9}}).expand({2, 2}).into_int(),
                        ints<2>({{1, 1}, {-1, -1}})));
    EXPECT_EQ(F2::zeros({0, 3}).into_int().shape(), Shape({0, 3}));
    EXPECT_EQ(Bo2::zeros({2, 0}).into_float().shape(), Shape({2, 0}));
}

TYPED_TEST(KindCompareTest, IntoScalar) {
    using B = TypeParam;
    CSI_ALIASES(B);
    EXPECT_EQ(F1::from_floats({2.5}).into_scalar(), 2.5);
    static_assert(
        std::same_as<decltype(F1::from_floats({2.5}).into_scalar()), typename B::FloatElem>);
    EXPECT_EQ(F3::full({1, 1, 1}, -4.0).into_scalar(), -4.0);
    if constexpr (burn::testing::int64_backend<B>)
        EXPECT_EQ(I2::from_ints({{1LL << 40}}).into_scalar(), 1LL << 40);
    else  // 32-bit ints: exact at the top of the type (not through f32)
        EXPECT_EQ(I2::from_ints({{INT32_MAX - 1}}).into_scalar(), INT32_MAX - 1);
    static_assert(std::same_as<decltype(I1::from_ints({1}).into_scalar()), typename B::IntElem>);
    EXPECT_EQ(Bo1::from_bools({true}).into_scalar(), true);
    EXPECT_EQ(Bo1::from_bools({false}).into_scalar(), false);
    // A one-element view of a larger tensor.
    auto x = F2::from_floats({{1, 2}, {3, 4}});
    EXPECT_EQ(x.slice({Slice::index(1), Slice::index(0)}).into_scalar(), 3.0);
    EXPECT_EQ(x.flip({0, 1}).slice({Slice::index(0), Slice::index(0)}).into_scalar(), 4.0);
    EXPECT_EQ(x.sum().into_scalar(), 10.0);
    EXPECT_BURN_ERROR((x.into_scalar()), "Tensor::into_scalar");
    EXPECT_BURN_ERROR((F1::zeros({0}).into_scalar()), "Tensor::into_scalar");
    EXPECT_BURN_ERROR((Bo1::ones({2}).into_scalar()), "Tensor::into_scalar");
}

TYPED_TEST(KindCompareTest, MetadataAndDevice) {
    using B = TypeParam;
    CSI_ALIASES(B);
    auto x = F3::zeros({2, 3, 4});
    EXPECT_EQ(x.dims(), (std::array<std::size_t, 3>{2, 3, 4}));
    EXPECT_EQ(x.shape(), Shape({2, 3, 4}));
    EXPECT_EQ(x.num_elements(), 24u);
    EXPECT_EQ(F3::rank, 3u);
    EXPECT_EQ(x.dtype(), B::default_float_dtype);
    EXPECT_EQ(I1::zeros({1}).dtype(), B::int_dtype);
    EXPECT_EQ(Bo1::zeros({1}).dtype(), DType::Bool);
    auto v = x.swap_dims(0, 2).slice({Slice(0, 4, 2)});
    EXPECT_EQ(v.dims(), (std::array<std::size_t, 3>{2, 3, 2}));
    EXPECT_EQ(v.num_elements(), 12u);
    EXPECT_EQ(F2::zeros({0, 5}).num_elements(), 0u);
    EXPECT_EQ(F2::zeros({0, 5}).dims(), (std::array<std::size_t, 2>{0, 5}));
    // Devices.
    const typename B::Device dev{};
    EXPECT_EQ(x.device(), dev);
    auto moved = x.swap_dims(0, 1).to_device(dev);
    EXPECT_EQ(moved.device(), dev);
    EXPECT_EQ(moved.shape(), Shape({3, 2, 4}));
    auto src = F2::from_floats({{1, 2}, {3, 4}}).transpose();
    EXPECT_TRUE(matches(src.to_device(dev), floats<2>({{1, 3}, {2, 4}})));
    EXPECT_TRUE(matches(I1::from_ints({5}).to_device(dev), ints<1>({5})));
    EXPECT_TRUE(matches(Bo1::from_bools({true}).to_device(dev), bools<1>({true})));
    EXPECT_EQ(F1::zeros({2}, dev).device(), dev);
    // Data leaves with the backend's dtype.
    EXPECT_EQ(x.to_data().dtype, B::default_float_dtype);
    EXPECT_EQ(F2::from_floats({{1}}).into_data().dtype, B::default_float_dtype);
}

TYPED_TEST(KindCompareTest, EqualNotEqual) {
    using B = TypeParam;
    CSI_ALIASES(B);
    const auto bd = csi::in_data("equal", "b");
    for (auto& [name, a] : csi::in_layouts<B, 2, Int>("equal", "a")) {
        SCOPED_TRACE(name);
        for (auto& [bname, b] : csi::layouts<B, 2, Int>(bd)) {
            SCOPED_TRACE("other: " + bname);
            EXPECT_TRUE(matches(a.equal(b), out("equal", "eq")));
            EXPECT_TRUE(matches(a.not_equal(b), out("equal", "ne")));
            // Float kind, same values.
            EXPECT_TRUE(matches(a.into_float().equal(b.into_float()), out("equal", "eq")));
            EXPECT_TRUE(matches(a.into_float().not_equal(b.into_float()), out("equal", "ne")));
            // Bool kind.
            EXPECT_TRUE(
                matches(a.greater_elem(0).equal(b.greater_elem(0)), out("equal", "eq_bool")));
        }
        // Broadcasting a [1, 4] operand.
        auto b1 = csi::in<B, 2, Int>("equal", "b1");
        EXPECT_TRUE(matches(a.equal(b1), out("equal", "eq_b1")));
        EXPECT_TRUE(matches(a.not_equal(b1), out("equal", "ne_b1")));
        EXPECT_BURN_ERROR((a.equal(I2::zeros({2, 4}))), "Tensor::equal");
        EXPECT_BURN_ERROR((a.not_equal(I2::zeros({3, 3}))), "Tensor::not_equal");
    }
    // NaN is never equal, even to itself; +0 == -0.
    const double nan = std::numeric_limits<double>::quiet_NaN();
    auto f = F1::from_floats({nan, 0.0, 1.0});
    EXPECT_TRUE(
        matches(f.equal(F1::from_floats({nan, -0.0, 2.0})), bools<1>({false, true, false})));
    EXPECT_TRUE(matches(f.not_equal(f), bools<1>({true, false, false})));
    EXPECT_EQ(F2::zeros({0, 2}).equal(F2::zeros({0, 2})).shape(), Shape({0, 2}));
    EXPECT_BURN_ERROR((Bo1::ones({2}).equal(Bo1::ones({3}))), "Tensor::equal");
}

TYPED_TEST(KindCompareTest, AllAny) {
    using B = TypeParam;
    CSI_ALIASES(B);
    for (auto& [name, b] : csi::in_layouts<B, 2, Bool>("all_any", "b")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(b.all(), out("all_any", "b_all")));
        EXPECT_TRUE(matches(b.any(), out("all_any", "b_any")));
        EXPECT_TRUE(matches(b.all_dim(0), out("all_any", "b_all_0")));
        EXPECT_TRUE(matches(b.any_dim(1), out("all_any", "b_any_1")));
        EXPECT_TRUE(matches(b.all_dim(-1), out("all_any", "b_all_m1")));
        EXPECT_TRUE(matches(b.transpose().all_dim(1), out("all_any", "bt_all_1")));
        EXPECT_BURN_ERROR((b.all_dim(2)), "Tensor::all_dim");
        EXPECT_BURN_ERROR((b.any_dim(-3)), "Tensor::any_dim");
    }
    for (auto& [name, ba] : csi::in_layouts<B, 2, Bool>("all_any", "ba")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(ba.all_dim(0), out("all_any", "ba_all_0")));
        EXPECT_TRUE(matches(ba.all_dim(1), out("all_any", "ba_all_1")));
        EXPECT_TRUE(matches(ba.transpose().all_dim(1), out("all_any", "bat_all_1")));
    }
    for (auto& [name, fz] : csi::in_layouts<B, 2>("all_any", "fz")) {
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(fz.all_dim(1), out("all_any", "fz_all_1")));
        EXPECT_TRUE(matches(fz.any_dim(1), out("all_any", "fz_any_1")));
        EXPECT_TRUE(matches(fz.any_dim(0), out("all_any", "fz_any_0")));
        EXPECT_TRUE(matches(fz.mul_scalar(4).into_int().any_dim(1), out("all_any", "fz_any_1")));
        EXPECT_FALSE(fz.all().into_scalar());
        EXPECT_TRUE(fz.any().into_scalar());
    }
    EXPECT_TRUE(F2::ones({2, 2}).all().into_scalar());
    EXPECT_FALSE(I1::zeros({3}).any().into_scalar());
    EXPECT_EQ(Bo2::ones({2, 3}).all().shape(), Shape({1}));
    // Empty tensors: all() is true and any() is false (torch); along an empty dim likewise.
    EXPECT_TRUE(matches(Bo2::ones({0, 3}).all(), bools<1>({true})));
    EXPECT_TRUE(matches(Bo2::ones({0, 3}).any(), bools<1>({false})));
    EXPECT_TRUE(matches(Bo2::ones({2, 0}).all_dim(1), bools<2>({{true}, {true}})));
    EXPECT_TRUE(matches(Bo2::ones({2, 0}).any_dim(1), bools<2>({{false}, {false}})));
    EXPECT_EQ(Bo2::ones({2, 0}).all_dim(0).shape(), Shape({1, 0}));
    // Expanded input.
    auto e = Bo2::from_bools({{true}, {false}}).expand({2, 3});
    EXPECT_TRUE(matches(e.all_dim(1), bools<2>({{true}, {false}})));
    EXPECT_TRUE(matches(e.any_dim(0), bools<2>({{true, true, true}})));
}

}  // namespace

}  // namespace burn_test_kind_compare
