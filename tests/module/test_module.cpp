// SPDX-License-Identifier: MIT OR Apache-2.0
// BURN_MODULE and the generic module algorithms: traversal, visit/map, num_params, devices,
// to_device/fork/no_grad, valid (Autodiff<X> -> X), into_record/load_record.
#include <map>
#include <set>

#include "test_modules.hpp"

// A namespace of its own: the suite is a unity build (tests/CMakeLists.txt).
namespace burn::testing::module_module {
namespace {

using module::Ignored;
using module::Param;
using module::ParamId;
using module::RunningState;

template <Backend B>
struct Net {
    Affine<B> input;
    std::vector<Affine<B>> blocks;
    Param<Tensor<B, 1, Int>> counts;
    RunningState<Tensor<B, 1>> running_mean;
    Tensor<B, 1> table;  // a constant tensor: moved with the module, not recorded
    Scale scale;
    std::size_t hidden = 3;
    Ignored<std::string> tag;
    BURN_MODULE(input, blocks, counts, running_mean, table, scale, hidden, tag)

    static Net init(const typename B::Device& d = {}) {
        return Net{Affine<B>::init(4, 3, true, d),
                   {Affine<B>::init(3, 3, false, d), Affine<B>::init(3, 3, true, d)},
                   Param<Tensor<B, 1, Int>>(Tensor<B, 1, Int>::from_ints({1, 2, 3}, d)),
                   RunningState<Tensor<B, 1>>(Tensor<B, 1>::zeros({3}, d)),
                   Tensor<B, 1>::from_floats({0.5, 1.5}, d),
                   Scale{},
                   3,
                   {"net"}};
    }
    Tensor<B, 2> forward(Tensor<B, 2> x) const {
        x = input.forward(x);
        for (const auto& b : blocks) x = activation::relu(b.forward(x));
        return x * scale.factor;
    }
};

static_assert(module::Module<Net<Cpu<float>>> && module::Module<Scale>);
static_assert(module::check_fields<Net<Cpu<float>>>());
static_assert(module::check_fields<Affine<Cpu<float>>>());
static_assert(module::check_fields<Scale>());

using B = Cpu<float>;
using AD = Autodiff<Cpu<float>>;

TEST(Module, TraversalNamesEveryLeaf) {
    const auto net = Net<B>::init();
    std::vector<std::string> paths;
    module::for_each_leaf(net, "", [&](std::string_view p, const auto&) { paths.emplace_back(p); });
    const std::vector<std::string> want{"input.weight",    "input.bias",    "blocks.0.weight",
                                        "blocks.1.weight", "blocks.1.bias", "counts",
                                        "running_mean"};
    EXPECT_EQ(paths, want);
}

TEST(Module, NumParamsAndDevices) {
    const auto net = Net<B>::init();
    // 4*3 + 3 + 3*3 + 3*3 + 3 + 3 (int counts)
    EXPECT_EQ(net.num_params(), 12u + 3 + 9 + 9 + 3 + 3);
    EXPECT_EQ(net.devices().size(), 1u);
    EXPECT_EQ(Scale{}.num_params(), 0u);
}

TEST(Module, VisitSeesEveryParamWithItsId) {
    const auto net = Net<B>::init();
    std::set<ParamId> ids;
    std::size_t floats = 0, ints = 0;
    net.visit([&](const ParamId& id, const auto& t) {
        ids.insert(id);
        using T = std::decay_t<decltype(t)>;
        if constexpr (std::same_as<typename T::Kind, Float>) floats += t.num_elements();
        else ints += t.num_elements();
    });
    EXPECT_EQ(ids.size(), 6u);
    EXPECT_EQ(floats, 36u);
    EXPECT_EQ(ints, 3u);
}

/// A ModuleMapper written as a struct, as in the book.
struct Halve {
    template <std::size_t D, class K>
    Tensor<B, D, K> map(const ParamId&, Tensor<B, D, K> t) {
        if constexpr (std::same_as<K, Float>) return t * 0.5;
        else return t;
    }
};

TEST(Module, MapKeepsIdsAndRequireGrad) {
    const auto net = Net<B>::init();
    Halve h;
    const auto half = net.map(h);
    EXPECT_EQ(half.input.weight.id(), net.input.weight.id());
    EXPECT_TRUE(close_to(half.input.weight.val(), (net.input.weight.val() * 0.5).to_data()));
    EXPECT_TRUE(close_to(half.counts.val(), net.counts.val().to_data()));
    EXPECT_EQ(half.hidden, 3u);
    EXPECT_EQ(*half.tag, "net");
    EXPECT_FALSE(half.blocks[0].bias.has_value());
}

TEST(Module, GradientsAndValidOnAutodiff) {
    const auto net = Net<AD>::init();
    const auto x = Tensor<AD, 2>::random({5, 4});
    auto grads = net.forward(x).sum().backward();
    EXPECT_TRUE(net.input.weight.val().grad(grads).has_value());
    EXPECT_TRUE(net.blocks[1].bias->val().grad(grads).has_value());
    // valid(): the same module on the inner backend, same ids and values.
    const Net<B> v = net.valid();
    EXPECT_EQ(v.input.weight.id(), net.input.weight.id());
    EXPECT_TRUE(close_to(v.forward(x.inner()), net.forward(x).to_data()));
    EXPECT_TRUE(close_to(v.table, net.table.to_data()));
    // no_grad(): kept in the module, out of training.
    const auto frozen = net.no_grad();
    EXPECT_FALSE(frozen.input.weight.is_require_grad());
    auto g2 = frozen.forward(x).sum().backward();
    EXPECT_FALSE(frozen.input.weight.val().grad(g2).has_value());
}

TEST(Module, RecordRoundTripThroughLoadRecord) {
    const auto a = Net<B>::init();
    a.running_mean.update(Tensor<B, 1>::from_floats({1, 2, 3}));
    const record::Record r = a.into_record();
    ASSERT_TRUE(r.is_map());
    EXPECT_TRUE(r.field("input")->field("weight")->is_tensor());
    EXPECT_EQ(r.field("scale"), nullptr);  // constants are not recorded
    EXPECT_TRUE(r.field("blocks")->is_list());
    const auto b = Net<B>::init().load_record(r);
    EXPECT_EQ(b.input.weight.id(), a.input.weight.id());
    EXPECT_TRUE(close_to(b.input.weight.val(), a.input.weight.val().to_data()));
    EXPECT_TRUE(close_to(b.running_mean.value(), TensorData::from_nested<double, 1>({1, 2, 3})));
    EXPECT_TRUE(close_to(b.counts.val(), a.counts.val().to_data()));
    // Cross precision: the f32 record loads into Cpu<double>.
    const auto d = Net<Cpu<double>>::init().load_record(r);
    EXPECT_TRUE(close_to(d.blocks[1].weight.val(), a.blocks[1].weight.val().to_data()));
}

TEST(Module, LoadRecordNamesTheFirstMismatch) {
    const auto a = Net<B>::init();
    record::Record r = a.into_record();
    auto wrong = Net<B>::init();
    wrong.input = Affine<B>::init(3, 4, true);  // transposed shape
    EXPECT_BURN_ERROR(wrong.load_record(r), "input.weight: expected shape [3, 4], found [4, 3]");
    record::Record missing = a.into_record();
    auto& blocks =
        missing.as<record::Record::Map>("").at(1).second.as<record::Record::List>("blocks");
    blocks[1] = record::Record(record::Record::Map{{"weight", *blocks[1].field("weight")}});
    EXPECT_BURN_ERROR(a.load_record(missing), "blocks.1.bias: missing");
}

TEST(Module, ToDeviceAndForkKeepIds) {
    const auto net = Net<AD>::init();
    const auto moved = net.to_device(CpuDevice{});
    EXPECT_EQ(moved.input.weight.id(), net.input.weight.id());
    const auto forked = net.fork(CpuDevice{});
    EXPECT_TRUE(forked.input.weight.val().is_require_grad());
    // A fork is a new graph: gradients of the copy do not reach the original's tensors.
    auto grads = forked.forward(Tensor<AD, 2>::ones({1, 4})).sum().backward();
    EXPECT_TRUE(forked.input.weight.val().grad(grads).has_value());
    EXPECT_FALSE(net.input.weight.val().grad(grads).has_value());
}

}  // namespace
}  // namespace burn::testing::module_module

namespace burn::testing::module_module {
namespace {

TEST(Module, QuantizeWeightsKeepsForwardClose) {
    using B = Cpu<float>;
    const auto net = Net<B>::init();
    const auto q = net.quantize_weights(module::Quantizer<>{});
    EXPECT_TRUE(q.input.weight.val().is_quantized());
    EXPECT_FALSE(q.input.bias->val().is_quantized());  // vectors stay in float by default
    EXPECT_EQ(q.input.weight.id(), net.input.weight.id());
    const auto x = Tensor<B, 2>::random({5, 4}, Distribution::Uniform(-1, 1));
    // int8 per-tensor symmetric: each weight within scale/2 = max|w|/254 of its value.
    const auto diff = (q.forward(x) - net.forward(x)).abs().max().into_scalar();
    EXPECT_LT(diff, 0.1f);
    // The record holds QInt8 data; loading it gives quantized parameters again.
    const auto r = q.into_record();
    EXPECT_EQ(r.field("input")->field("weight")->as<record::TensorItem>("").data.dtype,
              DType::QInt8);
    const auto loaded = Net<B>::init().load_record(r);
    EXPECT_TRUE(loaded.input.weight.val().is_quantized());
    EXPECT_TRUE(close_to(loaded.forward(x), q.forward(x).to_data()));
}

}  // namespace
}  // namespace burn::testing::module_module
