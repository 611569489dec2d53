// SPDX-License-Identifier: MIT OR Apache-2.0
// The custom-op API (<burn/autodiff/custom_op.hpp>): ops with their own backward function,
// compared with the same computation written with ordinary tensor ops. Untracked and absent
// inputs, an input used twice, several outputs, errors naming the op, the graph's lifetime, and
// BalancedCheckpointing. On ADF: Autodiff<Cpu<float>>, or Autodiff<Vulkan<>> in
// burn_autodiff_tests_vulkan.
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "gradcheck.hpp"

// A namespace of its own: the suites are unity builds (tests/CMakeLists.txt).
namespace burn::testing::autodiff_custom_op {
namespace {

using IB = TestFloatBackend;
using P = IB::FloatTensor;
using Grads = std::vector<std::optional<P>>;
using ADC = Autodiff<TestFloatBackend, BalancedCheckpointing>;

/// What a backward function saw: how often it ran, which inputs it was told are tracked, and
/// the output gradients it received.
struct Seen {
    int calls = 0;
    std::vector<bool> tracked;
    std::vector<TensorData> out_grads;
};

P prim(const auto& t) { return t.primitive().primitive; }

/// The custom op "mul_add": a * b, plus c broadcast over the rows when given ([n] for a, b
/// [m, n]), computed on the inner backend, with its own backward function. Keeps each factor
/// only when the other one is tracked, as the checkpointing strategy of A says.
template <class A>
Tensor<A, 2> mul_add(const Tensor<A, 2>& a, const Tensor<A, 2>& b,
                     const std::optional<Tensor<A, 1>>& c, std::shared_ptr<Seen> seen = nullptr) {
    using C = typename A::CheckpointStrategy;
    autodiff::OpInputs<IB> in{a, b, c};
    std::optional<autodiff::Saved<P>> ka, kb;
    if (in.tracked()[1]) ka = autodiff::save<C>(a.primitive());
    if (in.tracked()[0]) kb = autodiff::save<C>(b.primitive());
    P out = IB::float_mul(prim(a), prim(b));
    if (c) out = IB::float_add(std::move(out), prim(*c));
    return Tensor<A, 2>::from_primitive(autodiff::custom_op(
        "mul_add", std::move(in), std::move(out), [ka, kb, seen](P g, const autodiff::Tracked& t) {
            if (seen) {
                ++seen->calls;
                seen->tracked = {t[0], t[1], t[2]};
            }
            Grads d(3);
            if (t[0]) d[0] = IB::float_mul(g, kb->get());
            if (t[1]) d[1] = IB::float_mul(g, ka->get());
            if (t[2]) d[2] = autodiff::reduce_to<IB>(g, t.shape(2));
            return d;
        }));
}

/// The custom op "sum_and_product" with two outputs, a + b and a * b; records the output
/// gradients its backward function receives.
std::pair<Tensor<ADF, 2>, Tensor<ADF, 2>> sum_and_product(const Tensor<ADF, 2>& a,
                                                          const Tensor<ADF, 2>& b,
                                                          std::shared_ptr<Seen> seen) {
    std::vector<P> outs{IB::float_add(prim(a), prim(b)), IB::float_mul(prim(a), prim(b))};
    auto r = autodiff::custom_op(
        "sum_and_product", autodiff::OpInputs<IB>{a, b}, std::move(outs),
        [pa = prim(a), pb = prim(b), seen](std::vector<P> g, const autodiff::Tracked& t) {
            ++seen->calls;
            for (const P& gi : g) seen->out_grads.push_back(IB::float_into_data(gi));
            Grads d(2);
            if (t[0]) d[0] = IB::float_add(g[0], IB::float_mul(g[1], pb));
            if (t[1]) d[1] = IB::float_add(g[0], IB::float_mul(g[1], pa));
            return d;
        });
    return {Tensor<ADF, 2>::from_primitive(std::move(r[0])),
            Tensor<ADF, 2>::from_primitive(std::move(r[1]))};
}

/// A weighted sum: every output element gets its own gradient.
template <class A>
Tensor<A, 1> loss(const Tensor<A, 2>& y) {
    return (y * uniform<2, A>(y.shape(), 0.5, 1.5, 99)).sum();
}

template <class A, std::size_t D>
void expect_same_grad(const Tensor<A, D>& t, const typename A::Gradients& custom,
                      const typename A::Gradients& reference, const char* what) {
    const auto a = t.grad(custom), b = t.grad(reference);
    ASSERT_EQ(a.has_value(), b.has_value()) << what;
    if (a) EXPECT_TRUE(close_to(*a, b->to_data())) << what;
}

TEST(AutodiffCustomOp, MatchesOrdinaryOpsWithAnUntrackedInput) {
    const auto a = uniform<2, ADF>({3, 4}).require_grad();
    const auto b = uniform<2, ADF>({3, 4}, -1, 1, 2);  // untracked
    const auto c = uniform<1, ADF>({4}, -1, 1, 3).require_grad();
    const auto seen = std::make_shared<Seen>();
    const auto y = mul_add<ADF>(a, b, c, seen);
    const auto ref = a * b + c.template unsqueeze<2>();
    EXPECT_TRUE(y.is_require_grad());
    EXPECT_TRUE(close_to(y, ref.to_data()));
    const auto g = loss(y).backward();
    const auto gr = loss(ref).backward();
    EXPECT_EQ(seen->calls, 1);
    EXPECT_EQ(seen->tracked, (std::vector<bool>{true, false, true}));
    expect_same_grad(a, g, gr, "a");
    expect_same_grad(c, g, gr, "c (broadcast over the rows)");
    EXPECT_FALSE(b.grad(g).has_value());
}

TEST(AutodiffCustomOp, AbsentOptionalInputIsNeverTracked) {
    const auto a = uniform<2, ADF>({2, 3}).require_grad();
    const auto b = uniform<2, ADF>({2, 3}, -1, 1, 2).require_grad();
    const auto seen = std::make_shared<Seen>();
    const auto y = mul_add<ADF>(a, b, std::nullopt, seen);
    const auto ref = a * b;
    const auto g = loss(y).backward();
    const auto gr = loss(ref).backward();
    EXPECT_EQ(seen->tracked, (std::vector<bool>{true, true, false}));
    expect_same_grad(a, g, gr, "a");
    expect_same_grad(b, g, gr, "b");
}

TEST(AutodiffCustomOp, InputUsedTwiceAndOutputUsedTwiceAccumulate) {
    const auto x = uniform<2, ADF>({3, 2}).require_grad();
    const auto y = mul_add<ADF>(x, x, std::nullopt);  // x * x: both gradients go to x
    const auto ref = x * x;
    const auto g = loss(y + y * y).backward();
    const auto gr = loss(ref + ref * ref).backward();
    expect_same_grad(x, g, gr, "x");
}

TEST(AutodiffCustomOp, NoTrackedInputRecordsNothing) {
    const auto before = autodiff::live_nodes();
    const auto seen = std::make_shared<Seen>();
    const auto a = uniform<2, ADF>({2, 2});
    const auto y = mul_add<ADF>(a, a, std::nullopt, seen);
    EXPECT_FALSE(y.is_require_grad());
    EXPECT_EQ(autodiff::live_nodes(), before);
    EXPECT_EQ(seen.use_count(), 1) << "the unused backward function is dropped";
    EXPECT_TRUE(close_to(y, (a * a).to_data()));
    EXPECT_TRUE(loss(y).backward().empty());
    EXPECT_EQ(seen->calls, 0);
}

TEST(AutodiffCustomOp, SeveralOutputs) {
    const auto a = uniform<2, ADF>({2, 3}).require_grad();
    const auto b = uniform<2, ADF>({2, 3}, -1, 1, 2).require_grad();
    {
        // Both outputs in the loss, the second one twice.
        const auto seen = std::make_shared<Seen>();
        const auto [s, p] = sum_and_product(a, b, seen);
        EXPECT_TRUE(close_to(s, (a + b).to_data()));
        EXPECT_TRUE(close_to(p, (a * b).to_data()));
        const auto g = loss(s * p + p).backward();
        const auto gr = loss((a + b) * (a * b) + a * b).backward();
        EXPECT_EQ(seen->calls, 1);
        expect_same_grad(a, g, gr, "a");
        expect_same_grad(b, g, gr, "b");
    }
    {
        // Only the second output in the loss: the first one's gradient is zeros.
        const auto seen = std::make_shared<Seen>();
        const auto [s, p] = sum_and_product(a, b, seen);
        const auto g = loss(p).backward();
        const auto gr = loss(a * b).backward();
        EXPECT_EQ(seen->calls, 1);
        ASSERT_EQ(seen->out_grads.size(), 2u);
        EXPECT_NO_THROW(
            seen->out_grads[0].assert_eq(Tensor<IB, 2>::zeros({2, 3}).to_data(), false));
        expect_same_grad(a, g, gr, "a");
        expect_same_grad(b, g, gr, "b");
    }
    {
        // Backward from one output frees the op's node: a later backward from the other throws.
        const auto seen = std::make_shared<Seen>();
        const auto [s, p] = sum_and_product(a, b, seen);
        (void)s.sum().backward();
        EXPECT_BURN_ERROR((void)p.sum().backward(), "already freed");
        EXPECT_EQ(seen->calls, 1);
    }
}

TEST(AutodiffCustomOp, ItsGraphIsFreedByBackwardAndByDropping) {
    const auto x = uniform<2, ADF>({2, 2}).require_grad();
    const auto base = autodiff::live_nodes();
    {
        const auto seen = std::make_shared<Seen>();
        auto [s, p] = sum_and_product(x, x, seen);
        EXPECT_EQ(autodiff::live_nodes(), base + 3);  // the op's node and one per output
        (void)loss(s + p).backward();
    }
    {
        const auto seen = std::make_shared<Seen>();
        { auto [s, p] = sum_and_product(x, x, seen); }
        EXPECT_EQ(seen.use_count(), 1) << "the dropped graph released the backward function";
    }
    EXPECT_EQ(autodiff::live_nodes(), base);
}

TEST(AutodiffCustomOp, ErrorsNameTheOp) {
    const auto a = uniform<2, ADF>({2, 3}).require_grad();
    const auto wrong_shape = Tensor<ADF, 2>::from_primitive(autodiff::custom_op(
        "my_scale", autodiff::OpInputs<IB>{a}, IB::float_mul_scalar(prim(a), 2.0),
        [](P g, const autodiff::Tracked&) {
            return Grads{IB::float_sum_dim(std::move(g), 0)};  // [1, 3] for an input [2, 3]
        }));
    EXPECT_BURN_ERROR((void)wrong_shape.sum().backward(), "my_scale");
    const auto wrong_count = Tensor<ADF, 2>::from_primitive(autodiff::custom_op(
        "my_scale", autodiff::OpInputs<IB>{a, std::nullopt}, IB::float_mul_scalar(prim(a), 2.0),
        [](P g, const autodiff::Tracked&) { return Grads{std::move(g)}; }));  // 1 for 2 inputs
    EXPECT_BURN_ERROR((void)wrong_count.sum().backward(), "my_scale");
    // The shape of an input that is not tracked is not kept.
    const autodiff::OpInputs<IB> in{a, uniform<2, ADF>({2, 3})};
    EXPECT_EQ(in.tracked().shape(0), Shape({2, 3}));
    EXPECT_BURN_ERROR((void)in.tracked().shape(1), "not tracked");
    EXPECT_BURN_ERROR((void)in.tracked()[2], "input 2");
}

TEST(AutodiffCustomOp, BalancedCheckpointingGivesTheSameGradients) {
    // The inputs come from memory-bound ops (recomputed during backward under balanced
    // checkpointing, from the recipes that save<C> kept), and the output feeds memory-bound ops.
    const auto grads_of = [](auto tag) {
        using A = decltype(tag);
        const auto a = uniform<2, A>({3, 4}).require_grad();
        const auto b = uniform<2, A>({3, 4}, -1, 1, 2).require_grad();
        const auto c = uniform<1, A>({4}, -1, 1, 3).require_grad();
        const auto y = mul_add<A>((a * 2.0).exp(), b.sin(), c);
        // Custom ops are compute-bound: no recipe, their output is kept.
        EXPECT_TRUE(y.primitive().node->recipe == nullptr);
        const auto g = loss((y.tanh() * y + 1.0).cos()).backward();
        return std::vector<TensorData>{a.grad(g)->to_data(), b.grad(g)->to_data(),
                                       c.grad(g)->to_data()};
    };
    const auto plain = grads_of(ADF{});
    const auto balanced = grads_of(ADC{});
    ASSERT_EQ(balanced.size(), plain.size());
    for (std::size_t i = 0; i < plain.size(); ++i) balanced[i].assert_approx_eq(plain[i], {0, 0});
    // And the same with ordinary ops.
    const auto a = uniform<2, ADC>({3, 4}).require_grad();
    const auto b = uniform<2, ADC>({3, 4}, -1, 1, 2).require_grad();
    const auto c = uniform<1, ADC>({4}, -1, 1, 3).require_grad();
    const auto y = (a * 2.0).exp() * b.sin() + c.template unsqueeze<2>();
    const auto g = loss((y.tanh() * y + 1.0).cos()).backward();
    balanced[0].assert_approx_eq(a.grad(g)->to_data(), tolerance<ADC>());
    balanced[1].assert_approx_eq(b.grad(g)->to_data(), tolerance<ADC>());
    balanced[2].assert_approx_eq(c.grad(g)->to_data(), tolerance<ADC>());
}

}  // namespace
}  // namespace burn::testing::autodiff_custom_op
