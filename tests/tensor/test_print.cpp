// SPDX-License-Identifier: MIT OR Apache-2.0
// Printing: operator<< / to_string give Burn's Display block (data, shape, device, backend, kind,
// dtype); PrintOptions precision, threshold and edge_items summarisation; TensorData printing.
#include <sstream>

#include "csi_helpers.hpp"

// Own namespace: the suite is compiled as a unity build (tests/CMakeLists.txt).
namespace burn_test_print {

namespace {

using namespace burn;

template <class B>
class PrintTest : public ::testing::Test {
protected:
    void TearDown() override { set_print_options(PrintOptions{}); }
};
TYPED_TEST_SUITE(PrintTest, burn::testing::Backends, burn::testing::BackendNames);

template <class T>
std::string streamed(const T& t) {
    std::ostringstream os;
    os << t;
    return os.str();
}

/// The Display block of a tensor of backend B on its default device ("Cpu", "Vulkan(0)").
template <class B>
std::string block(const std::string& data, const std::string& shape, const std::string& backend,
                  const std::string& kind, const std::string& dtype) {
    return "Tensor {\n  data:\n" + data + ",\n  shape:  " + shape +
           ",\n  device:  " + burn::testing::device_name<B>() + ",\n  backend:  \"" + backend +
           "\",\n  kind:  \"" + kind + "\",\n  dtype:  \"" + dtype + "\",\n}";
}

TYPED_TEST(PrintTest, FloatBlock) {
    using B = TypeParam;
    CSI_ALIASES(B);
    const std::string fdt(dtype_name(B::default_float_dtype));
    auto t = F2::from_floats({{1.5, -2.25, 3}, {4, 5, 6}});
    const std::string want =
        block<B>("[[1.5, -2.25, 3.0],\n [4.0, 5.0, 6.0]]", "[2, 3]", B::name(), "Float", fdt);
    EXPECT_EQ(streamed(t), want);
    EXPECT_EQ(burn::to_string(t), want);
    // Decorators wrap the inner name: "autodiff<cpu<f32>>".
    if constexpr (burn::testing::cpu_backend<B>) {
        EXPECT_EQ(burn::testing::device_name<B>(), "Cpu");
        EXPECT_NE(B::name().find("cpu<" + fdt + ">"), std::string::npos) << B::name();
    }
    if constexpr (requires { typename B::InnerBackend; })
        EXPECT_EQ(B::name(), "autodiff<" + B::InnerBackend::name() + ">");
    // A transposed view prints its logical values.
    EXPECT_EQ(streamed(t.transpose()), block<B>("[[1.5, 4.0],\n [-2.25, 5.0],\n [3.0, 6.0]]",
                                                "[3, 2]", B::name(), "Float", fdt));
}

TYPED_TEST(PrintTest, IntAndBoolBlocks) {
    using B = TypeParam;
    CSI_ALIASES(B);
    const std::string idt(dtype_name(B::int_dtype));
    EXPECT_EQ(streamed(I1::from_ints({-1, 0, 42})),
              block<B>("[-1, 0, 42]", "[3]", B::name(), "Int", idt));
    EXPECT_EQ(streamed(Bo2::from_bools({{true, false}})),
              block<B>("[[true, false]]", "[1, 2]", B::name(), "Bool", "bool"));
    // Rank 3: blank line between the outer blocks, indentation by depth.
    EXPECT_EQ(streamed(I1::arange(1, 9).template reshape<3>({2, 2, 2})),
              block<B>("[[[1, 2],\n  [3, 4]],\n\n [[5, 6],\n  [7, 8]]]", "[2, 2, 2]", B::name(),
                       "Int", idt));
}

TYPED_TEST(PrintTest, ShortestRoundTripAndSpecialValues) {
    using B = TypeParam;
    BURN_REQUIRE_FULL_PRECISION(B, "the printed digits are those of f32 values");
    CSI_ALIASES(B);
    const bool f32 = std::is_same_v<typename B::FloatElem, float>;
    auto t = F2::full({2, 3}, 0.123456789);
    const std::string v = f32 ? "0.12345679" : "0.123456789";
    const std::string row = "[" + v + ", " + v + ", " + v + "]";
    EXPECT_EQ(streamed(t), block<B>("[" + row + ",\n " + row + "]", "[2, 3]", B::name(), "Float",
                                    std::string(dtype_name(B::default_float_dtype))));
    const double inf = std::numeric_limits<double>::infinity();
    const std::string d =
        format_data(F1::from_floats({std::nan(""), inf, -inf, -0.5, 1e20}).to_data(), {});
    EXPECT_EQ(d, "[NaN, inf, -inf, -0.5, 1e+20]");
}

TYPED_TEST(PrintTest, Precision) {
    using B = TypeParam;
    CSI_ALIASES(B);
    auto t = F2::full({2, 3}, 0.123456789);
    PrintOptions o;
    o.precision = 2;
    const std::string fdt(dtype_name(B::default_float_dtype));
    const std::string want =
        block<B>("[[0.12, 0.12, 0.12],\n [0.12, 0.12, 0.12]]", "[2, 3]", B::name(), "Float", fdt);
    EXPECT_EQ(burn::to_string(t, o), want);
    set_print_options(o);
    EXPECT_EQ(print_options().precision, std::optional<int>(2));
    EXPECT_EQ(streamed(t), want);
    set_print_options(PrintOptions{});
    EXPECT_FALSE(print_options().precision.has_value());
    o.precision = 0;
    EXPECT_EQ(format_data(F1::from_floats({2.5, -1.25, 3.75}).to_data(), o), "[2, -1, 4]");
    // Precision does not apply to ints.
    EXPECT_EQ(format_data(I1::from_ints({3}).to_data(), o), "[3]");
#if defined(__cpp_lib_format)
    EXPECT_EQ(std::format("{:.2}", t), want);
#endif
}

TYPED_TEST(PrintTest, Summarisation) {
    using B = TypeParam;
    CSI_ALIASES(B);
    // Default threshold 1000, edge_items 3.
    auto big = I1::arange(0, 2000);
    EXPECT_EQ(format_data(big.to_data(), print_options()), "[0, 1, 2, ..., 1997, 1998, 1999]");
    EXPECT_EQ(format_data(I1::arange(0, 1000).to_data(), print_options()).find("..."),
              std::string::npos);
    PrintOptions o;
    o.threshold = 5;
    o.edge_items = 2;
    EXPECT_EQ(format_data(F1::from_floats({0, 1, 2, 3, 4, 5}).to_data(), o),
              "[0.0, 1.0, ..., 4.0, 5.0]");
    EXPECT_EQ(format_data(F1::from_floats({0, 1, 2, 3, 4}).to_data(), o),
              "[0.0, 1.0, 2.0, 3.0, 4.0]");
    auto m = I1::arange(0, 100).template reshape<2>({10, 10});
    o.threshold = 50;
    EXPECT_EQ(format_data(m.to_data(), o),
              "[[0, 1, ..., 8, 9],\n [10, 11, ..., 18, 19],\n ...,\n [80, 81, ..., 88, 89],\n"
              " [90, 91, ..., 98, 99]]");
    // Summarised through the global options and operator<<.
    set_print_options(o);
    const std::string s = streamed(m);
    EXPECT_NE(s.find("[[0, 1, ..., 8, 9],"), std::string::npos) << s;
    EXPECT_NE(s.find("shape:  [10, 10]"), std::string::npos) << s;
    // Rank 3: only the edges of each dim appear.
    const std::string s3 =
        format_data(I1::arange(0, 216).template reshape<3>({6, 6, 6}).to_data(), o);
    EXPECT_NE(s3.find("[[[0, 1, ..., 4, 5],"), std::string::npos) << s3;
    EXPECT_NE(s3.find("[210, 211, ..., 214, 215]]]"), std::string::npos) << s3;
    EXPECT_NE(s3.find("[[36, 37, ..., 40, 41],"), std::string::npos) << s3;  // block 1 of dim 0
    EXPECT_EQ(s3.find("[[72,"), std::string::npos) << s3;  // ...block 2 is summarised away
}

TYPED_TEST(PrintTest, EmptyAndTensorData) {
    using B = TypeParam;
    CSI_ALIASES(B);
    EXPECT_EQ(streamed(F2::zeros({0, 3})),
              block<B>("[]", "[0, 3]", B::name(), "Float",
                       std::string(dtype_name(B::default_float_dtype))));
    EXPECT_EQ(streamed(TensorData::from<std::int32_t>({1, 2})), "[1, 2]");
    EXPECT_EQ(TensorData::from<bool>({true}).to_string(), "[true]");
    EXPECT_EQ(streamed(TensorData::from<f16>({f16(0.5f)})), "[0.5]");
}

}  // namespace

}  // namespace burn_test_print
