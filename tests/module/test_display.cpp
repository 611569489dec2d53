// SPDX-License-Identifier: MIT OR Apache-2.0
// Module display: the default layout, the settings, the customisation hooks, constants, and
// operator<< (found for modules, never taking over other types).
#include <array>
#include <burn/module/display.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "test_modules.hpp"

/// A module outside namespace burn that is not over a backend: ADL cannot find burn's operator<<.
namespace display_user {
struct Relu {
    BURN_MODULE()
};
struct NotAModule {
    int x = 0;
};
// Brings burn's operator<< for modules into this namespace (it takes only modules: below,
// NotAModule stays unprintable and tensors keep their own operator).
using burn::operator<<;
inline std::string print(const Relu& r) {
    std::ostringstream os;
    os << r;
    return os.str();
}
template <class T>
concept UserStreamable = requires(std::ostream& os, const T& v) {
    {os << v};
};
}  // namespace display_user

// A namespace of its own: the suite is a unity build (tests/CMakeLists.txt).
namespace burn::testing::module_display {
namespace {

using module::DisplayContent;
using module::DisplaySettings;
using module::Ignored;
using module::Param;
using module::ParamId;
using module::RunningState;

enum class Mode { Train, Eval };
enum class Activation { relu, gelu };
BURN_CONFIG_ENUM(Activation, relu, gelu)
enum Unscoped { kFirst, kSecond };
struct Opaque {
    int v = 0;
};

template <Backend B>
struct Net {
    Affine<B> input;
    std::vector<Affine<B>> blocks;
    std::optional<Affine<B>> head;
    Param<Tensor<B, 1, Int>> counts;
    RunningState<Tensor<B, 1>> running_mean;
    Tensor<B, 1> table;
    Scale scale;
    std::size_t hidden = 3;
    Ignored<std::string> tag;
    BURN_MODULE(input, blocks, head, counts, running_mean, table, scale, hidden, tag)

    static Net init(bool with_head) {
        Net n{Affine<B>::with_ids(4, 3, true, 0x10),
              {Affine<B>::with_ids(3, 3, false, 0x20), Affine<B>::with_ids(3, 3, true, 0x30)},
              std::nullopt,
              Param<Tensor<B, 1, Int>>(ParamId(0xc0), Tensor<B, 1, Int>::from_ints({1, 2, 3})),
              RunningState<Tensor<B, 1>>(Tensor<B, 1>::zeros({3}), ParamId(0xd0)),
              Tensor<B, 1>::from_floats({0.5, 1.5}),
              Scale{},
              3,
              {"net"}};
        if (with_head) n.head = Affine<B>::with_ids(3, 2, true, 0x40);
        return n;
    }
};

static_assert(module::check_fields<Net<Cpu<float>>>());
static_assert(module::check_fields<Scale>());

using B = Cpu<float>;

TEST(Display, DefaultLayout) {
    const std::string expected =
        "Net {\n"
        "  input: Affine {\n"
        "    weight: Param[shape=[4, 3], dtype=f32]\n"
        "    bias: Param[shape=[3], dtype=f32]\n"
        "    params: 15\n"
        "  }\n"
        "  blocks: vector[2] {\n"
        "    0: Affine {\n"
        "      weight: Param[shape=[3, 3], dtype=f32]\n"
        "      bias: None\n"
        "      params: 9\n"
        "    }\n"
        "    1: Affine {\n"
        "      weight: Param[shape=[3, 3], dtype=f32]\n"
        "      bias: Param[shape=[3], dtype=f32]\n"
        "      params: 12\n"
        "    }\n"
        "    params: 21\n"
        "  }\n"
        "  head: None\n"
        "  counts: Param[shape=[3], dtype=i64]\n"
        "  running_mean: RunningState[shape=[3], dtype=f32]\n"
        "  table: Tensor[shape=[2], dtype=f32]\n"
        "  scale: Scale\n"
        "  params: 39\n"
        "}";
    const auto net = Net<B>::init(false);
    EXPECT_EQ(module::to_string(net), expected);
    std::ostringstream os;
    os << net;  // found by argument-dependent lookup through burn::Cpu
    EXPECT_EQ(os.str(), expected);
}

TEST(Display, PresentOptionalAndOtherBackends) {
    const auto net = Net<B>::init(true);
    const std::string s =
        module::to_string(net, DisplaySettings{}.with_new_line_after_attribute(false));
    EXPECT_NE(s.find("head: Affine {weight: Param[shape=[3, 2], dtype=f32], bias: Param[shape=[2], "
                     "dtype=f32], "
                     "params: 8}"),
              std::string::npos)
        << s;
    EXPECT_NE(s.find(", params: 47}"), std::string::npos) << s;
    // On Cpu<double> the element type changes and nothing else; Autodiff<X> displays as X.
    const std::string d = module::to_string(Net<Cpu<double>>::init(false));
    EXPECT_NE(d.find("weight: Param[shape=[4, 3], dtype=f64]"), std::string::npos) << d;
    EXPECT_EQ(module::to_string(Net<Autodiff<B>>::init(false)),
              module::to_string(Net<B>::init(false)));
}

TEST(Display, AllAttributesAndParamIds) {
    const auto net = Net<B>::init(false);
    const auto settings = DisplaySettings{}.with_show_all_attributes(true).with_show_param_id(true);
    const std::string expected =
        "Net {\n"
        "  input: Affine {\n"
        "    weight: Param[shape=[4, 3], dtype=f32, id=0000000000000011]\n"
        "    bias: Param[shape=[3], dtype=f32, id=0000000000000012]\n"
        "    params: 15\n"
        "  }\n"
        "  blocks: vector[2] {\n"
        "    0: Affine {\n"
        "      weight: Param[shape=[3, 3], dtype=f32, id=0000000000000021]\n"
        "      bias: None\n"
        "      params: 9\n"
        "    }\n"
        "    1: Affine {\n"
        "      weight: Param[shape=[3, 3], dtype=f32, id=0000000000000031]\n"
        "      bias: Param[shape=[3], dtype=f32, id=0000000000000032]\n"
        "      params: 12\n"
        "    }\n"
        "    params: 21\n"
        "  }\n"
        "  head: None\n"
        "  counts: Param[shape=[3], dtype=i64, id=00000000000000c0]\n"
        "  running_mean: RunningState[shape=[3], dtype=f32, id=00000000000000d0]\n"
        "  table: Tensor[shape=[2], dtype=f32]\n"
        "  scale: Scale {\n"
        "    factor: 2\n"
        "  }\n"
        "  hidden: 3\n"
        "  tag: net\n"
        "  params: 39\n"
        "}";
    EXPECT_EQ(module::to_string(net, settings), expected);
}

struct Holder {
    std::vector<Affine<B>> layers;
    BURN_MODULE(layers)
};

TEST(Display, NoParamCountsAndIndentation) {
    const auto a = Affine<B>::init(2, 2, true);
    EXPECT_EQ(module::to_string(a, DisplaySettings{}.with_show_num_parameters(false)),
              "Affine {\n"
              "  weight: Param[shape=[2, 2], dtype=f32]\n"
              "  bias: Param[shape=[2], dtype=f32]\n"
              "}");
    const std::vector<Affine<B>> list{a};
    EXPECT_EQ(module::to_string(Holder{list}, DisplaySettings{.indentation_size = 4}),
              "Holder {\n"
              "    layers: vector[1] {\n"
              "        0: Affine {\n"
              "            weight: Param[shape=[2, 2], dtype=f32]\n"
              "            bias: Param[shape=[2], dtype=f32]\n"
              "            params: 6\n"
              "        }\n"
              "        params: 6\n"
              "    }\n"
              "    params: 6\n"
              "}");
    // An empty list and a module with nothing to show print their name alone.
    EXPECT_EQ(module::to_string(Holder{}), "Holder {\n  layers: vector[0]\n}");
    EXPECT_EQ(module::to_string(Scale{}), "Scale");
}

TEST(Display, SingleLine) {
    const auto net = Net<B>::init(false);
    EXPECT_EQ(
        module::to_string(net, DisplaySettings{}.with_new_line_after_attribute(false)),
        "Net {input: Affine {weight: Param[shape=[4, 3], dtype=f32], bias: Param[shape=[3], "
        "dtype=f32], "
        "params: 15}, blocks: vector[2] {0: Affine {weight: Param[shape=[3, 3], dtype=f32], bias: "
        "None, "
        "params: 9}, 1: Affine {weight: Param[shape=[3, 3], dtype=f32], bias: Param[shape=[3], "
        "dtype=f32], "
        "params: 12}, params: 21}, head: None, counts: Param[shape=[3], dtype=i64], "
        "running_mean: RunningState[shape=[3], dtype=f32], table: Tensor[shape=[2], dtype=f32], "
        "scale: Scale, params: 39}");
}

TEST(Display, SettingsSettersAndDefaults) {
    constexpr DisplaySettings d{};
    static_assert(!d.show_all_attributes && d.new_line_after_attribute && d.show_num_parameters &&
                  d.indentation_size == 2 && !d.show_param_id);
    constexpr auto s = d.with_show_all_attributes(true)
                           .with_new_line_after_attribute(false)
                           .with_show_num_parameters(false)
                           .with_indentation_size(3)
                           .with_show_param_id(true);
    static_assert(s == DisplaySettings{.show_all_attributes = true,
                                       .new_line_after_attribute = false,
                                       .show_num_parameters = false,
                                       .indentation_size = 3,
                                       .show_param_id = true});
    static_assert(d == DisplaySettings{});  // the setters return copies
}

// ------------------------------------------------------------------------------ hooks
/// Shown on one line with chosen entries, as Burn's Conv2d; keeps the other inherited settings.
template <Backend B>
struct Conv {
    Param<Tensor<B, 2>> weight;
    std::array<std::size_t, 2> kernel_size{3, 3};
    std::size_t groups = 1;
    BURN_MODULE(weight, kernel_size, groups)

    DisplaySettings display_settings(const DisplaySettings& inherited) const {
        return inherited.with_new_line_after_attribute(false);
    }
    void display_content(DisplayContent& c) const {
        c.add("kernel_size", kernel_size).add("groups", groups);
        if (c.settings().show_param_id) c.add("weight", weight);
    }
};

/// A constant shown whatever show_all_attributes says, on one line, like Burn's Dropout.
struct Dropout {
    double prob = 0.5;
    BURN_MODULE(prob)
    DisplaySettings display_settings(const DisplaySettings& inherited) const {
        return inherited.with_new_line_after_attribute(false);
    }
    void display_content(DisplayContent& c) const { c.add("prob", prob); }
};

/// Settings replaced as a whole, the default fields plus one entry, and a new type name.
template <Backend B>
struct Wide {
    Affine<B> inner;
    int level = 7;
    BURN_MODULE(inner, level)
    DisplaySettings display_settings() const { return DisplaySettings{.indentation_size = 4}; }
    void display_content(DisplayContent& c) const {
        c.set_type_name("Wide(custom)");
        c.add_fields(*this).add("anything", "anything_else");
    }
};

template <Backend B>
struct Model {
    Conv<B> conv;
    Dropout dropout;
    display_user::Relu activation;
    Wide<B> wide;
    BURN_MODULE(conv, dropout, activation, wide)
};

Model<B> make_model() {
    return Model<B>{Conv<B>{Param<Tensor<B, 2>>(ParamId(0xa), Tensor<B, 2>::zeros({2, 9}))},
                    Dropout{},
                    {},
                    Wide<B>{Affine<B>::with_ids(2, 1, false, 0xb0)}};
}

TEST(Display, CustomSettingsAndContent) {
    const auto model = make_model();
    EXPECT_EQ(module::to_string(model),
              "Model {\n"
              "  conv: Conv {kernel_size: [3, 3], groups: 1, params: 18}\n"
              "  dropout: Dropout {prob: 0.5}\n"
              "  activation: Relu\n"
              "  wide: Wide(custom) {\n"
              "      inner: Affine {\n"
              "          weight: Param[shape=[2, 1], dtype=f32]\n"
              "          bias: None\n"
              "          params: 2\n"
              "      }\n"
              "      anything: anything_else\n"
              "      params: 2\n"
              "  }\n"
              "  params: 20\n"
              "}");
    // The one-argument hook keeps what it does not change (show_param_id reaches Conv); the
    // no-argument one replaces every setting (Wide shows no ids, and not its constant `level`).
    const std::string s = module::to_string(
        model, DisplaySettings{}.with_show_param_id(true).with_show_all_attributes(true));
    EXPECT_NE(s.find("conv: Conv {kernel_size: [3, 3], groups: 1, "
                     "weight: Param[shape=[2, 9], dtype=f32, id=000000000000000a], params: 18}"),
              std::string::npos)
        << s;
    EXPECT_NE(s.find("weight: Param[shape=[2, 1], dtype=f32]\n"), std::string::npos) << s;
    EXPECT_EQ(s.find("level"), std::string::npos) << s;
}

// ------------------------------------------------------------------------------ constants
struct Constants {
    Mode mode = Mode::Eval;
    Unscoped which = kSecond;
    Activation activation = Activation::gelu;  // listed with BURN_CONFIG_ENUM: by name
    Opaque opaque;
    std::optional<double> rate;
    std::optional<int> steps = 4;
    std::vector<int> sizes{1, 2, 3};
    bool flag = true;
    std::string name = "abc";
    Shape shape{4, 3};
    BURN_MODULE(mode, which, activation, opaque, rate, steps, sizes, flag, name, shape)
};

TEST(Display, ConstantsAreShownOnRequest) {
    EXPECT_EQ(module::to_string(Constants{}), "Constants");
    EXPECT_EQ(module::to_string(Constants{}, DisplaySettings{}.with_show_all_attributes(true)),
              "Constants {\n"
              "  mode: Mode(1)\n"
              "  which: Unscoped(1)\n"
              "  activation: gelu\n"
              "  opaque: Opaque\n"
              "  rate: None\n"
              "  steps: 4\n"
              "  sizes: [1, 2, 3]\n"
              "  flag: true\n"
              "  name: abc\n"
              "  shape: [4, 3]\n"
              "}");
}

TEST(Display, TypeNamesAreSimplified) {
    using module::detail::simplify_type_name;
    EXPECT_EQ(simplify_type_name("ns::Outer<int, std::vector<int> >::Inner<burn::Cpu<float> >"),
              "Inner");
    EXPECT_EQ(simplify_type_name("burn::testing::(anonymous namespace)::Net<burn::Cpu<float> >"),
              "Net");
    EXPECT_EQ(simplify_type_name("f()::Local"), "Local");
    EXPECT_EQ(simplify_type_name("unsigned long"), "unsigned long");
    EXPECT_EQ(module::detail::type_name<Net<Autodiff<B>>>(), "Net");
    EXPECT_EQ(module::detail::type_name<display_user::Relu>(), "Relu");
}

// ------------------------------------------------------------------------------ operator<<
TEST(Display, StreamOperatorIsOnlyForModules) {
    // Outside namespace burn, a module not over a backend needs `using burn::operator<<`.
    EXPECT_EQ(display_user::print(display_user::Relu{}), "Relu");
    static_assert(!display_user::UserStreamable<display_user::NotAModule>);
    static_assert(display_user::UserStreamable<Tensor<B, 1>>);
    // Tensors, shapes and dtypes still print as themselves.
    const auto t = Tensor<B, 1>::from_floats({0.5, 1.5});
    std::ostringstream os;
    os << t;
    EXPECT_EQ(os.str(), to_string(t));
    EXPECT_NE(os.str().find("[0.5, 1.5]"), std::string::npos) << os.str();
    std::ostringstream shape_os;
    shape_os << Shape{4, 3} << " " << DType::F32;
    EXPECT_EQ(shape_os.str(), "[4, 3] f32");
}

}  // namespace
}  // namespace burn::testing::module_display
