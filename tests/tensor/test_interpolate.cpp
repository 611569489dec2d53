// SPDX-License-Identifier: MIT OR Apache-2.0
// burn::module::interpolate (nearest, bilinear, bicubic; align_corners both ways; upsampling,
// downsampling, same size, to and from size 1, exact 2x) against torch.nn.functional.interpolate,
// and the backend's interpolate_backward against torch autograd for a random upstream gradient.
// Inputs also come as strided views. Larger inputs check the parallel path through invariants
// (constants stay constant, the backward is the adjoint of the forward). Expected values:
// tests/fixtures/pool.json (tests/fixtures/gen_pool.py).
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "test_support.hpp"

// Own namespace: the suite is compiled as a unity build (tests/CMakeLists.txt).
namespace burn_test_interpolate {

namespace {

using burn::InterpolateMode;
using burn::InterpolateOptions;
using burn::Shape;
using burn::Tensor;
using burn::TensorData;
using burn::testing::close_to;
using burn::testing::fixture;
using burn::testing::fixture_input;
using burn::testing::fixture_output;
namespace module = burn::module;

constexpr const char* kFile = "pool";

std::vector<std::string> cases_of(const std::string& group) {
    return burn::testing::fixture_case_list(kFile, group);
}

InterpolateMode mode_of(const std::string& m) {
    if (m == "nearest") return InterpolateMode::Nearest;
    if (m == "bilinear") return InterpolateMode::Bilinear;
    if (m == "bicubic") return InterpolateMode::Bicubic;
    throw burn::Error("fixture: unknown mode " + m);
}

template <class B>
class InterpolateTest : public ::testing::Test {};
TYPED_TEST_SUITE(InterpolateTest, burn::testing::Backends, burn::testing::BackendNames);

TYPED_TEST(InterpolateTest, MatchesTorchForwardAndBackward) {
    using B = TypeParam;
    std::size_t checked = 0;
    for (const auto& c : cases_of("interpolate")) {
        const auto& p = fixture(kFile, c).at("params");
        const InterpolateOptions o{mode_of(p.at("mode").get<std::string>()),
                                   p.at("align_corners").get<bool>()};
        const std::array<std::size_t, 2> size{p.at("output_size").at(0).get<std::size_t>(),
                                              p.at("output_size").at(1).get<std::size_t>()};
        auto g = fixture_input<B, 4>(kFile, c, "g");
        std::vector<std::pair<std::string, Tensor<B, 4>>> xs;
        xs.emplace_back("contiguous", fixture_input<B, 4>(kFile, c, "x"));
        const auto& ins = fixture(kFile, c).at("inputs");
        if (ins.contains("x@T")) {
            xs.emplace_back("transposed", fixture_input<B, 4>(kFile, c, "x@T").transpose());
            xs.emplace_back("batch/channel swapped",
                            fixture_input<B, 4>(kFile, c, "x@perm").swap_dims(0, 1));
        }
        for (auto& [l, x] : xs) {
            SCOPED_TRACE(c + ", " + l);
            auto y = module::interpolate(x, size, o);
            EXPECT_EQ(y.dims(),
                      (std::array<std::size_t, 4>{x.dims()[0], x.dims()[1], size[0], size[1]}));
            EXPECT_TRUE(close_to(y, fixture_output(kFile, c, "y")));
            Tensor<B, 4> gx(B::interpolate_backward(x.primitive(), g.primitive(), size, o));
            EXPECT_TRUE(close_to(gx, fixture_output(kFile, c, "gx")));
            ++checked;
        }
    }
    EXPECT_GE(checked, 42u);  // 3 modes x 7 sizes x 2 align_corners, plus the views
}

TYPED_TEST(InterpolateTest, DefaultOptionsAreNearest) {
    using B = TypeParam;
    auto x = Tensor<B, 4>::from_floats({{{{1.0, 2.0}, {3.0, 4.0}}}});
    auto y = module::interpolate(x, {3, 4});
    // rows floor(i * 2 / 3) = 0 0 1, cols floor(j * 2 / 4) = 0 0 1 1
    EXPECT_TRUE(close_to(
        y, TensorData(std::vector<double>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4}, Shape{1, 1, 3, 4})));
}

/// Deterministic values, multiples of 2^-8 in [-4, 4).
std::vector<double> pattern(std::size_t n, std::uint32_t salt) {
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i)
        v[i] = static_cast<double>((i * 2654435761u + salt * 40503u) % 2048u) / 256.0 - 4.0;
    return v;
}

TYPED_TEST(InterpolateTest, LargeInputsKeepConstantsAndBackwardIsAdjoint) {
    using B = TypeParam;
    BURN_REQUIRE_FULL_PRECISION(B, "the adjoint identity over large sums, at f32 tolerance");
    const std::size_t b = 2, c = 16, H = 37, W = 53;
    auto ones = Tensor<B, 4>::full(Shape{b, c, H, W}, 1.5);
    auto x = Tensor<B, 4>::from_data(TensorData(pattern(b * c * H * W, 1), Shape{b, c, H, W}));
    const double tol = std::is_same_v<typename B::FloatElem, float> ? 1e-3 : 1e-9;
    for (auto mode :
         {InterpolateMode::Nearest, InterpolateMode::Bilinear, InterpolateMode::Bicubic}) {
        for (bool ac : {false, true}) {
            for (const auto& size :
                 {std::array<std::size_t, 2>{80, 120}, std::array<std::size_t, 2>{19, 24}}) {
                SCOPED_TRACE("mode " + std::to_string(static_cast<int>(mode)) + " align_corners " +
                             std::to_string(ac) + " size " + std::to_string(size[0]));
                const InterpolateOptions o{mode, ac};
                // the weights of every output sum to 1
                auto yc = module::interpolate(ones, size, o);
                EXPECT_TRUE(close_to(yc, Tensor<B, 4>::full(yc.shape(), 1.5).to_data()));
                // <interpolate(x), g> == <x, interpolate_backward(g)>
                auto y = module::interpolate(x, size, o);
                auto g = Tensor<B, 4>::from_data(
                    TensorData(pattern(y.shape().num_elements(), 7), y.shape()));
                Tensor<B, 4> gx(B::interpolate_backward(x.primitive(), g.primitive(), size, o));
                const double lhs = (y * g).sum().into_scalar(), rhs = (x * gx).sum().into_scalar();
                EXPECT_NEAR(lhs, rhs, tol * (std::abs(lhs) + 1.0));
            }
        }
    }
}

TYPED_TEST(InterpolateTest, InvalidArgumentsThrow) {
    using B = TypeParam;
    auto x = Tensor<B, 4>::zeros(Shape{1, 2, 3, 3});
    EXPECT_BURN_ERROR(module::interpolate(x, {0, 4}), "interpolate");
    EXPECT_BURN_ERROR(module::interpolate(x, {4, 0}, {InterpolateMode::Bilinear, true}),
                      "interpolate");
    auto empty = Tensor<B, 4>::zeros(Shape{1, 2, 0, 3});
    EXPECT_BURN_ERROR(module::interpolate(empty, {2, 2}), "interpolate");
}

}  // namespace

}  // namespace burn_test_interpolate
