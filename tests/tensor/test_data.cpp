// SPDX-License-Identifier: MIT OR Apache-2.0
// TensorData: construction (from_nested, from, full, zeros, raw bytes), dtype conversion between
// every pair of dtypes, with f16/bf16 round-to-nearest-even checked against PyTorch's
// .half()/.bfloat16() bit patterns, to_vec, equality, assert_approx_eq / assert_eq messages, and
// the round trip of every dtype through each backend.
#include <bit>
#include <cmath>

#include "csi_helpers.hpp"

// Own namespace: the suite is compiled as a unity build (tests/CMakeLists.txt).
namespace burn_test_data {

namespace {

using namespace burn;

double json_value(const nlohmann::json& v) {
    if (v.is_string()) {
        const auto s = v.get<std::string>();
        if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
        if (s == "inf") return std::numeric_limits<double>::infinity();
        if (s == "-inf") return -std::numeric_limits<double>::infinity();
        throw Error("bad fixture value " + s);
    }
    if (v.is_boolean()) return v.get<bool>() ? 1.0 : 0.0;
    return v.get<double>();
}

std::vector<double> param_values(const char* key) {
    std::vector<double> out;
    for (const auto& v : csi::params("convert").at(key)) out.push_back(json_value(v));
    return out;
}

/// Compares values exactly (NaN matches NaN; -0.0 and 0.0 are told apart).
void expect_same_values(const TensorData& got, const std::vector<double>& want, const char* what) {
    ASSERT_EQ(got.num_elements(), want.size()) << what;
    for (std::size_t i = 0; i < want.size(); ++i) {
        const double g = got.value_as_double(i), w = want[i];
        if (std::isnan(w)) {
            EXPECT_TRUE(std::isnan(g)) << what << " [" << i << "]: got " << g << ", expected NaN";
        } else {
            EXPECT_TRUE(g == w && std::signbit(g) == std::signbit(w))
                << what << " [" << i << "]: got " << g << ", expected " << w;
        }
    }
}

std::vector<std::uint16_t> bits_of(const TensorData& d) {
    std::vector<std::uint16_t> out(d.num_elements());
    std::memcpy(out.data(), d.bytes().data(), out.size() * 2);
    return out;
}

TEST(TensorDataTest, FromNestedAndFrom) {
    auto d = TensorData::from_nested<float, 2>(NestedList<float, 2>{{1, 2, 3}, {4, 5, 6}});
    EXPECT_EQ(d.shape, Shape({2, 3}));
    EXPECT_EQ(d.dtype, DType::F32);
    EXPECT_EQ(d.rank(), 2u);
    EXPECT_EQ(d.num_elements(), 6u);
    EXPECT_EQ(d.to_vec<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
    auto d3 = TensorData::from_nested<std::int64_t, 3>(
        NestedList<std::int64_t, 3>{{{1}, {2}}, {{3}, {4}}});
    EXPECT_EQ(d3.shape, Shape({2, 2, 1}));
    EXPECT_EQ(d3.dtype, DType::I64);
    EXPECT_EQ(d3.to_vec<std::int64_t>(), (std::vector<std::int64_t>{1, 2, 3, 4}));
    auto b = TensorData::from_nested<bool, 1>(NestedList<bool, 1>{true, false, true});
    EXPECT_EQ(b.dtype, DType::Bool);
    EXPECT_EQ(b.bytes().size(), 3u);
    EXPECT_EQ(b.bytes()[0], 1);
    EXPECT_EQ(b.bytes()[1], 0);
    auto e = TensorData::from_nested<double, 2>(NestedList<double, 2>{});
    EXPECT_EQ(e.num_elements(), 0u);
    EXPECT_BURN_ERROR((TensorData::from_nested<double, 2>(NestedList<double, 2>{{1, 2}, {3}})),
                      "TensorData::from");
    auto f = TensorData::from<std::int32_t>({7, 8});
    EXPECT_EQ(f.dtype, DType::I32);
    EXPECT_EQ(f.shape, Shape({2}));
    auto full = TensorData::full<double>(Shape{2, 2}, 1.5);
    EXPECT_EQ(full.to_vec<double>(), (std::vector<double>{1.5, 1.5, 1.5, 1.5}));
    auto z = TensorData::zeros(Shape{3}, DType::BF16);
    EXPECT_EQ(z.bytes().size(), 6u);
    EXPECT_EQ(z.value_as_double(2), 0.0);
}

TEST(TensorDataTest, ConstructorsValidate) {
    EXPECT_BURN_ERROR((TensorData(std::vector<float>{1, 2, 3}, Shape{2, 2})), "TensorData");
    EXPECT_BURN_ERROR((TensorData(std::vector<std::uint8_t>(7), Shape{2}, DType::F32)),
                      "TensorData");
    auto ok = TensorData(std::vector<std::uint8_t>(8), Shape{2}, DType::F32);
    EXPECT_EQ(ok.to_vec<float>(), (std::vector<float>{0, 0}));
    auto d = TensorData::from<float>({1, 2});
    EXPECT_BURN_ERROR((d.as_span<double>()), "TensorData::as_span");
    EXPECT_BURN_ERROR((d.as_mut_span<std::int64_t>()), "TensorData::as_mut_span");
    d.as_mut_span<float>()[1] = 5;
    EXPECT_EQ(d.as_span<float>()[1], 5.0f);
    EXPECT_BURN_ERROR((d.value_as_double(2)), "TensorData::value_as_double");
    EXPECT_BURN_ERROR((d.convert(DType::QInt8)), "TensorData::convert");
}

TEST(TensorDataTest, ShapeValidates) {
    EXPECT_BURN_ERROR((Shape({1, 1, 1, 1, 1, 1, 1, 1, 1})), "Shape");
    Shape s{1, 2, 3, 4, 5, 6, 7, 8};
    EXPECT_EQ(s.rank(), Shape::max_rank);
    EXPECT_BURN_ERROR((s.push_back(9)), "Shape");
    EXPECT_EQ(Shape({2, 0, 3}).num_elements(), 0u);
    EXPECT_EQ(Shape().num_elements(), 1u);
    EXPECT_EQ(Shape({2, 3}).to_string(), "[2, 3]");
    EXPECT_EQ(broadcast_shapes(Shape{3, 1}, Shape{4}, "op"), Shape({3, 4}));
    EXPECT_EQ(broadcast_shapes(Shape{0, 1}, Shape{1, 5}, "op"), Shape({0, 5}));
    EXPECT_BURN_ERROR((broadcast_shapes(Shape{3, 2}, Shape{4, 2}, "my_op")), "my_op");
}

TEST(TensorDataTest, ToVecConverts) {
    auto d = TensorData::from<double>({-1.75, 0.0, 2.5, 300.0});
    EXPECT_EQ(d.to_vec<float>(), (std::vector<float>{-1.75f, 0.0f, 2.5f, 300.0f}));
    EXPECT_EQ(d.to_vec<std::int64_t>(), (std::vector<std::int64_t>{-1, 0, 2, 300}));
    EXPECT_EQ(d.to_vec<bool>(), (std::vector<bool>{true, false, true, true}));
    auto b = TensorData::from<bool>({true, false});
    EXPECT_EQ(b.to_vec<double>(), (std::vector<double>{1.0, 0.0}));
    EXPECT_EQ(b.to_vec<std::int32_t>(), (std::vector<std::int32_t>{1, 0}));
}

TEST(TensorDataTest, F32ToF16AndBf16MatchTorchBits) {
    const auto f32 = param_values("f32");
    std::vector<float> fv(f32.begin(), f32.end());
    const TensorData src(fv, Shape{fv.size()});
    const auto want16 =
        csi::params("convert").at("f32_to_f16_bits").get<std::vector<std::uint16_t>>();
    const auto wantbf =
        csi::params("convert").at("f32_to_bf16_bits").get<std::vector<std::uint16_t>>();
    const TensorData h = src.convert(DType::F16);
    const TensorData bf = src.convert(DType::BF16);
    ASSERT_EQ(h.dtype, DType::F16);
    ASSERT_EQ(bf.dtype, DType::BF16);
    const auto got16 = bits_of(h), gotbf = bits_of(bf);
    for (std::size_t i = 0; i < fv.size(); ++i) {
        if (std::isnan(fv[i])) {  // any quiet NaN pattern will do
            EXPECT_EQ(got16[i] & 0x7c00u, 0x7c00u);
            EXPECT_NE(got16[i] & 0x03ffu, 0u);
            EXPECT_EQ(gotbf[i] & 0x7f80u, 0x7f80u);
            EXPECT_NE(gotbf[i] & 0x007fu, 0u);
            continue;
        }
        EXPECT_EQ(got16[i], want16[i]) << "f16 of " << fv[i] << " (index " << i << ")";
        EXPECT_EQ(gotbf[i], wantbf[i]) << "bf16 of " << fv[i] << " (index " << i << ")";
        // The element types themselves round the same way.
        EXPECT_EQ(f16(fv[i]).bits, want16[i]) << "f16(float) of " << fv[i];
        EXPECT_EQ(bf16(fv[i]).bits, wantbf[i]) << "bf16(float) of " << fv[i];
    }
    expect_same_values(src.convert(DType::Bool), param_values("f32_to_bool"), "f32 -> bool");
    // f32 -> f64 is exact.
    expect_same_values(src.convert(DType::F64), f32, "f32 -> f64");
}

TEST(TensorDataTest, F64ToF16AndBf16RoundOnce) {
    // Just above a tie of the 16-bit format, and below float's precision: rounding through the
    // nearest float would land on the tie and round to even (down); one rounding goes up.
    const double above16 = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
    const double abovebf = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40);
    const double tie16 = 1.0 + std::ldexp(1.0, -11);
    const TensorData d(std::vector<double>{above16, -above16, tie16, abovebf, 65519.99, 1e300},
                       Shape{6});
    const auto h = bits_of(d.convert(DType::F16));
    EXPECT_EQ(h[0], 0x3c01u);
    EXPECT_EQ(h[1], 0xbc01u);
    EXPECT_EQ(h[2], 0x3c00u);  // an exact tie rounds to even
    EXPECT_EQ(h[4], 0x7bffu);  // 65504, the largest f16
    EXPECT_EQ(h[5], 0x7c00u);  // inf
    const auto bf = bits_of(d.convert(DType::BF16));
    EXPECT_EQ(bf[3], 0x3f81u);
    EXPECT_EQ(bf[2], 0x3f80u);
}

TEST(TensorDataTest, F16AndBf16ToF32MatchTorch) {
    const auto b16 = csi::params("convert").at("f16_bits").get<std::vector<std::uint16_t>>();
    std::vector<f16> hv;
    for (auto b : b16) hv.push_back(f16::from_bits(b));
    const TensorData h(hv, Shape{hv.size()});
    expect_same_values(h.convert(DType::F32), param_values("f16_to_f32"), "f16 -> f32");
    expect_same_values(h.convert(DType::F64), param_values("f16_to_f32"), "f16 -> f64");
    const auto bb = csi::params("convert").at("bf16_bits").get<std::vector<std::uint16_t>>();
    std::vector<bf16> bv;
    for (auto b : bb) bv.push_back(bf16::from_bits(b));
    const TensorData bf(bv, Shape{bv.size()});
    expect_same_values(bf.convert(DType::F32), param_values("bf16_to_f32"), "bf16 -> f32");
    // f16 -> f32 -> f16 is the identity on non-NaN bit patterns.
    const auto back = bits_of(h.convert(DType::F32).convert(DType::F16));
    for (std::size_t i = 0; i < b16.size(); ++i)
        if ((b16[i] & 0x7c00u) != 0x7c00u || (b16[i] & 0x3ffu) == 0)
            EXPECT_EQ(back[i], b16[i]) << i;
}

TEST(TensorDataTest, F64ToF32MatchesTorch) {
    const auto f64 = param_values("f64");
    const TensorData d(f64, Shape{f64.size()});
    const TensorData f = d.convert(DType::F32);
    EXPECT_EQ(f.dtype, DType::F32);
    expect_same_values(f, param_values("f64_to_f32"), "f64 -> f32");
}

TEST(TensorDataTest, IntConversionsMatchTorch) {
    std::vector<std::int64_t> iv;
    for (const auto& v : csi::params("convert").at("i64")) iv.push_back(v.get<std::int64_t>());
    const TensorData d(iv, Shape{iv.size()});
    expect_same_values(d.convert(DType::I32), param_values("i64_to_i32"), "i64 -> i32");
    expect_same_values(d.convert(DType::I16), param_values("i64_to_i16"), "i64 -> i16");
    expect_same_values(d.convert(DType::I8), param_values("i64_to_i8"), "i64 -> i8");
    expect_same_values(d.convert(DType::U8), param_values("i64_to_u8"), "i64 -> u8");
    expect_same_values(d.convert(DType::F32), param_values("i64_to_f32"), "i64 -> f32");
    expect_same_values(d.convert(DType::F64), param_values("i64_to_f64"), "i64 -> f64");
    expect_same_values(d.convert(DType::Bool), param_values("i64_to_bool"), "i64 -> bool");
    // Floats truncate toward zero.
    const auto tv = param_values("trunc");
    expect_same_values(TensorData(tv, Shape{tv.size()}).convert(DType::I64),
                       param_values("trunc_to_i64"), "f64 -> i64");
    const auto ts = param_values("trunc_small");
    const TensorData small(ts, Shape{ts.size()});
    expect_same_values(small.convert(DType::I32), param_values("trunc_small_to_i32"), "f64 -> i32");
    expect_same_values(small.convert(DType::I8), param_values("trunc_small_to_i8"), "f64 -> i8");
    std::vector<float> ts32(ts.begin(), ts.end());
    expect_same_values(TensorData(ts32, Shape{ts32.size()}).convert(DType::I32),
                       param_values("trunc_small_to_i32"), "f32 -> i32");
}

TEST(TensorDataTest, ConvertBetweenEveryDtype) {
    const std::vector<DType> all = {DType::F64, DType::F32, DType::F16, DType::BF16, DType::I64,
                                    DType::I32, DType::I16, DType::I8,  DType::U8,   DType::Bool};
    const std::vector<double> vals = {0, 1, 2, 3, 100};
    for (DType from : all) {
        const bool from_bool = from == DType::Bool;
        const TensorData src = TensorData(vals, Shape{5}).convert(from);
        ASSERT_EQ(src.dtype, from);
        EXPECT_EQ(src.bytes().size(), 5 * dtype_size(from));
        for (DType to : all) {
            SCOPED_TRACE(std::string(dtype_name(from)) + " -> " + std::string(dtype_name(to)));
            const TensorData dst = src.convert(to);
            EXPECT_EQ(dst.dtype, to);
            EXPECT_EQ(dst.shape, Shape({5}));
            for (std::size_t i = 0; i < vals.size(); ++i) {
                double want = from_bool ? (vals[i] != 0) : vals[i];
                if (to == DType::Bool) want = want != 0;
                EXPECT_EQ(dst.value_as_double(i), want) << "index " << i;
            }
        }
        EXPECT_EQ(src.convert(from), src);
    }
    // Empty data converts too.
    EXPECT_EQ(TensorData(std::vector<float>{}, Shape{0, 2}).convert(DType::F16).shape,
              Shape({0, 2}));
}

TEST(TensorDataTest, Equality) {
    const auto a = TensorData::from<float>({1, 2, 3});
    EXPECT_TRUE(a == TensorData::from<float>({1, 2, 3}));
    EXPECT_FALSE(a == TensorData::from<double>({1, 2, 3}));  // dtype differs
    EXPECT_FALSE(a == TensorData::from<float>({1, 2, 4}));
    EXPECT_FALSE(a == TensorData(std::vector<float>{1, 2, 3}, Shape{3, 1}));
    EXPECT_FALSE(a == TensorData::from<float>({1, 2}));
}

TEST(TensorDataTest, AssertApproxEqNamesFirstMismatch) {
    const auto e = TensorData::from_nested<double, 2>(NestedList<double, 2>{{1, 2, 3}, {4, 5, 6}});
    auto g = TensorData::from_nested<float, 2>(NestedList<float, 2>{{1, 2, 3}, {4, 5.5f, 7}});
    EXPECT_NO_THROW(e.assert_approx_eq(e));
    try {
        g.assert_approx_eq(e);
        ADD_FAILURE() << "expected a mismatch";
    } catch (const Error& err) {
        const std::string m = err.what();
        EXPECT_NE(m.find("TensorData::assert_approx_eq"), std::string::npos) << m;
        EXPECT_NE(m.find("[1, 1]"), std::string::npos) << m;  // first mismatching index
        EXPECT_NE(m.find("5.5"), std::string::npos) << m;
        EXPECT_NE(m.find("2 of 6"), std::string::npos) << m;
    }
    // Within tolerance, and with decimal digits.
    const auto near = TensorData::from<double>({1.000001, 2.0});
    EXPECT_NO_THROW(near.assert_approx_eq(TensorData::from<double>({1.0, 2.0})));
    EXPECT_BURN_ERROR(
        (near.assert_approx_eq(TensorData::from<double>({1.0, 2.0}), Tolerance{1e-9, 0})),
        "index [0]");
    EXPECT_NO_THROW(
        TensorData::from<double>({1.004}).assert_approx_eq(TensorData::from<double>({1.0}), 2));
    EXPECT_BURN_ERROR(
        (TensorData::from<double>({1.02}).assert_approx_eq(TensorData::from<double>({1.0}), 2)),
        "assert_approx_eq");
    // NaN matches NaN, infinities match when equal.
    const double nan = std::numeric_limits<double>::quiet_NaN(),
                 inf = std::numeric_limits<double>::infinity();
    EXPECT_NO_THROW(TensorData::from<double>({nan, inf})
                        .assert_approx_eq(TensorData::from<float>({NAN, INFINITY})));
    EXPECT_BURN_ERROR(
        (TensorData::from<double>({inf}).assert_approx_eq(TensorData::from<double>({-inf}))),
        "assert_approx_eq");
    EXPECT_BURN_ERROR(
        (TensorData::from<double>({nan}).assert_approx_eq(TensorData::from<double>({0.0}))),
        "assert_approx_eq");
    EXPECT_BURN_ERROR(
        (TensorData::from<double>({1, 2}).assert_approx_eq(TensorData::from<double>({1, 2, 3}))),
        "shapes differ");
    // Rank 3 index.
    auto z = TensorData::zeros(Shape{2, 3, 4}, DType::F32);
    auto z2 = z;
    z2.as_mut_span<float>()[1 * 12 + 2 * 4 + 3] = 1;
    EXPECT_BURN_ERROR((z2.assert_approx_eq(z)), "[1, 2, 3]");
}

TEST(TensorDataTest, AssertEq) {
    const auto a = TensorData::from<std::int64_t>({1, 2, 3});
    EXPECT_NO_THROW(a.assert_eq(a));
    EXPECT_NO_THROW(a.assert_eq(TensorData::from<double>({1, 2, 3}), false));
    EXPECT_BURN_ERROR((a.assert_eq(TensorData::from<double>({1, 2, 3}))), "dtypes differ");
    EXPECT_BURN_ERROR((a.assert_eq(TensorData::from<std::int64_t>({1, 2, 4}))), "index [2]");
    EXPECT_BURN_ERROR((a.assert_eq(TensorData::from<std::int64_t>({1, 2}))), "shapes differ");
}

template <class B>
class DataRoundTripTest : public ::testing::Test {};
TYPED_TEST_SUITE(DataRoundTripTest, burn::testing::Backends, burn::testing::BackendNames);

TYPED_TEST(DataRoundTripTest, EveryDtypeThroughEveryKind) {
    using B = TypeParam;
    CSI_ALIASES(B);
    const std::vector<DType> all = {DType::F64, DType::F32, DType::F16, DType::BF16, DType::I64,
                                    DType::I32, DType::I16, DType::I8,  DType::U8,   DType::Bool};
    const TensorData vals = TensorData(std::vector<double>{0, 1, 2, 0, 100, 7}, Shape{2, 3});
    for (DType dt : all) {
        SCOPED_TRACE(std::string(dtype_name(dt)));
        const TensorData src = vals.convert(dt);
        const auto f = F2::from_data(src).to_data();
        EXPECT_EQ(f.dtype, B::default_float_dtype);
        EXPECT_EQ(f, src.convert(B::default_float_dtype));
        const auto i = I2::from_data(src).to_data();
        EXPECT_EQ(i.dtype, B::int_dtype);
        EXPECT_EQ(i, src.convert(B::int_dtype));
        const auto b = Bo2::from_data(src).to_data();
        EXPECT_EQ(b.dtype, DType::Bool);
        EXPECT_EQ(b, src.convert(DType::Bool));
    }
    // into_data of views is row-major.
    auto t = F2::from_floats({{1, 2, 3}, {4, 5, 6}});
    EXPECT_EQ(t.transpose().to_data().template to_vec<double>(),
              (std::vector<double>{1, 4, 2, 5, 3, 6}));
    EXPECT_EQ(t.flip({1}).into_data().template to_vec<double>(),
              (std::vector<double>{3, 2, 1, 6, 5, 4}));
    EXPECT_EQ(t.slice({Slice::all(), Slice(0, 3, 2)}).to_data().shape, Shape({2, 2}));
    EXPECT_EQ(std::move(t).into_data().template to_vec<double>(),
              (std::vector<double>{1, 2, 3, 4, 5, 6}));
}

}  // namespace

}  // namespace burn_test_data
