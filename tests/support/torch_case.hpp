// SPDX-License-Identifier: MIT OR Apache-2.0
// Checks an expression on ADF (Autodiff<Cpu<float>>, or Autodiff<Vulkan<>> in the Vulkan instances
// of the suites) against a PyTorch fixture case: the forward value `y` and the gradient of every
// tracked leaf after backpropagating sum(y * gy).
//
//   TorchCase c("nn_linear", "linear_3d");           // tests/fixtures/nn_linear.json
//   auto x = c.input<3>("x");                          // a leaf; its gradient is checked (g_x)
//   nn::Linear<ADF> linear{c.param<2>("weight"), c.param<1>("bias")};
//   c.check(linear.forward(x));                        // y, g_x, g_weight, g_bias
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gradcheck.hpp"
#include "test_support.hpp"

namespace burn::testing {

/// f32 against f64 references: values of order 1 through a few ops lose ~1e-6 relative; 1e-4
/// leaves room for the longer chains (convolutions, softmax) without hiding a wrong formula,
/// whose error is of the order of the values themselves.
inline constexpr Tolerance kTorchTol{1e-4, 1e-4};

/// One fixture case: its leaves, and the checks of y and of every leaf's gradient.
class TorchCase {
public:
    TorchCase(std::string_view file, std::string_view name) : file_(file), name_(name) {}

    /// The float input `n`, as a leaf whose gradient is checked against g_<n>.
    template <std::size_t D>
    Tensor<ADF, D> input(const std::string& n) {
        return track(n, fixture_input<ADF, D>(file_, name_, n).require_grad());
    }
    /// The float input `n`, stored transposed (n@T): its last two dims are swapped back on the
    /// inner backend, so the leaf itself is a strided (non-contiguous) view.
    template <std::size_t D>
    Tensor<ADF, D> strided_input(const std::string& n) {
        auto raw = fixture_input<ADF::InnerBackend, D>(file_, name_, n + "@T").swap_dims(-2, -1);
        return track(n, Tensor<ADF, D>::from_inner(raw).require_grad());
    }
    template <std::size_t D>
    Tensor<ADF, D, Int> ints(const std::string& n) const {
        return fixture_input<ADF, D, Int>(file_, name_, n);
    }
    template <std::size_t D>
    Tensor<ADF, D, Bool> bools(const std::string& n) const {
        return fixture_input<ADF, D, Bool>(file_, name_, n);
    }
    const nlohmann::json& param(const std::string& p) const {
        return fixture(file_, name_).at("params").at(p);
    }
    template <std::size_t N>
    std::array<std::size_t, N> sizes(const std::string& p) const {
        return fixture_sizes<N>(param(p));
    }

    /// Checks y, backpropagates sum(y * gy) and checks the gradient of every leaf.
    template <std::size_t D>
    void check(const Tensor<ADF, D>& y, Tolerance tol = kTorchTol) {
        SCOPED_TRACE("case " + name_);
        EXPECT_TRUE(close_to(y, fixture_output(file_, name_, "y"), tol)) << "forward value y";
        ASSERT_TRUE(y.is_require_grad()) << "the output is not tracked";
        const auto gy = fixture_input<ADF, D>(file_, name_, "gy");
        auto grads = (y * gy).sum().backward();
        // Every gradient in the fixture belongs to a leaf of the test, and the reverse.
        std::size_t expected = 0;
        for (const auto& [k, v] : fixture(file_, name_).at("outputs").items())
            if (k.rfind("g_", 0) == 0) ++expected;
        EXPECT_EQ(expected, leaves_.size()) << "the test and the fixture disagree on the inputs";
        for (const auto& [n, compare] : leaves_)
            EXPECT_TRUE(compare(grads, fixture_output(file_, name_, "g_" + n), tol))
                << "gradient of input " << n;
    }

    /// The float input `n` as a trainable parameter (a module field); its gradient is checked
    /// against g_<n>.
    template <std::size_t D>
    module::Param<Tensor<ADF, D>> param(const std::string& n) {
        module::Param<Tensor<ADF, D>> p(fixture_input<ADF, D>(file_, name_, n));
        track(n, p.val());
        return p;
    }

    /// Records a leaf: its gradient is compared with the fixture (g_<n>) in check().
    template <std::size_t D>
    Tensor<ADF, D> track(const std::string& n, Tensor<ADF, D> t) {
        leaves_.emplace_back(n,
                             [t](const ADF::Gradients& grads, const TensorData& want,
                                 Tolerance tol) -> ::testing::AssertionResult {
                                 const auto g = t.grad(grads);
                                 if (!g) return ::testing::AssertionFailure() << "no gradient";
                                 return close_to(*g, want, tol);
                             });
        return t;
    }

    std::string file_;
    std::string name_;
    using Compare = std::function<::testing::AssertionResult(const ADF::Gradients&,
                                                             const TensorData&, Tolerance)>;
    std::vector<std::pair<std::string, Compare>> leaves_;
};

}  // namespace burn::testing
