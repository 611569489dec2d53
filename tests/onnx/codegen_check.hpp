// SPDX-License-Identifier: MIT OR Apache-2.0
// A generated model (burn_onnx_generate) run on a test folder of the ONNX backend test suite, on
// any backend: shared by test_onnx_codegen.cpp (Cpu<float>) and test_onnx_codegen_gpu.cpp
// (Vulkan<>, Cuda<>).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <burn/backend/capabilities.hpp>
#include <burn/onnx/graph.hpp>
#include <cmath>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "f64_model.hpp"

namespace burn::onnx::testing {

namespace fs = std::filesystem;

/// Empty when `got` matches `want` (the ONNX test runner's rtol 1e-3, atol 1e-7; exact dtype and
/// shape; NaN == NaN).
inline std::string mismatch(const burn::TensorData& got, const burn::TensorData& want) {
    if (got.dtype != want.dtype)
        return "dtype " + std::string(burn::dtype_name(got.dtype)) + " vs " +
               std::string(burn::dtype_name(want.dtype));
    if (got.shape != want.shape)
        return "shape " + got.shape.to_string() + " vs " + want.shape.to_string();
    const auto g = got.to_vec<double>(), w = want.to_vec<double>();
    for (std::size_t i = 0; i < g.size(); ++i) {
        if (std::isnan(g[i]) && std::isnan(w[i])) continue;
        if (!(std::abs(g[i] - w[i]) <= 1e-7 + 1e-3 * std::abs(w[i])))
            return "element " + std::to_string(i) + ": " + std::to_string(g[i]) + " vs " +
                   std::to_string(w[i]);
    }
    return {};
}

inline std::vector<fs::path> sorted(const fs::path& dir, std::string_view prefix) {
    std::vector<fs::path> v;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().filename().string().rfind(prefix, 0) == 0) v.push_back(e.path());
    std::sort(v.begin(), v.end(), [](const fs::path& a, const fs::path& b) {
        const auto num = [](const fs::path& p) {
            const auto s = p.stem().string();
            return std::stoul(s.substr(s.rfind('_') + 1));
        };
        return num(a) < num(b);
    });
    return v;
}

/// Runs the generated model M on every test_data_set_* of `dir`: outputs compared with the
/// expected .pb files and with Graph<B> on the same model (the same op functions: equal values on
/// a deterministic backend, else within the suite's tolerance). Returns false, running nothing,
/// for a float64 model on a backend without float64 tensors.
template <class B, template <class> class M>
bool check_generated(const fs::path& dir, const fs::path& record) {
    SCOPED_TRACE(dir.string());
    if (!burn::capabilities<B>.float64 && is_f64_model(load_model(dir / "model.onnx")))
        return false;
    const auto model = M<B>::from_file(record);
    const auto desc = load_model(dir / "model.onnx");
    const auto graph = burn::onnx::Graph<B>(desc);
    // Test files are tensors, sequences or optionals, as the model declares each value.
    auto category = [](const std::vector<ValueInfo>& v, std::size_t i) {
        return i < v.size() ? v[i].category : ValueCategory::Tensor;
    };
    std::size_t sets = 0;
    for (const auto& set : sorted(dir, "test_data_set_")) {
        SCOPED_TRACE(set.filename().string());
        std::vector<burn::onnx::Value<B>> in;
        for (const auto& p : sorted(set, "input_"))
            in.push_back(burn::onnx::Value<B>::from_value_data(
                load_value_proto(p, category(desc.inputs, in.size())), {}));
        const auto want = sorted(set, "output_");
        const auto got = model.forward_values(in);
        const auto ref = graph.run(in);
        EXPECT_EQ(got.size(), want.size());
        if (got.size() != want.size()) return true;
        for (std::size_t o = 0; o < want.size(); ++o) {
            const auto gv = got[o].to_value_data(), rv = ref[o].to_value_data();
            const auto wv = load_value_proto(want[o], category(desc.outputs, o));
            EXPECT_EQ(gv.kind, wv.kind) << "output " << o;
            EXPECT_EQ(gv.items.size(), wv.items.size()) << "output " << o;
            if (gv.kind != wv.kind || gv.items.size() != wv.items.size()) continue;
            for (std::size_t k = 0; k < gv.items.size(); ++k) {
                const auto& g = gv.items[k].data;
                EXPECT_EQ(mismatch(g, wv.items[k].data), "") << "output " << o << " item " << k;
                if constexpr (burn::capabilities<B>.deterministic)
                    EXPECT_EQ(g.template to_vec<double>(),
                              rv.items[k].data.template to_vec<double>())
                        << "output " << o << " differs from Graph<B>";
                else
                    EXPECT_EQ(mismatch(g, rv.items[k].data), "")
                        << "output " << o << " vs Graph<B>";
            }
        }
        ++sets;
    }
    EXPECT_GT(sets, 0u);
    return true;
}

}  // namespace burn::onnx::testing
