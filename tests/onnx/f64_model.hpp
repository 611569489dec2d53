// SPDX-License-Identifier: MIT OR Apache-2.0
// Whether an ONNX model computes in float64: shared by the conformance runner and the generated
// models' checks (such models run on a backend's double instance, or are skipped without one).
#pragma once

#include <burn/onnx/model.hpp>

namespace burn::onnx::testing {

/// A float64 graph input or initializer.
inline bool is_f64_model(const ModelDesc& m) {
    for (const auto& i : m.inputs)
        if (i.type == ElemType::Double) return true;
    for (const auto& [_, t] : m.initializers)
        if (t.type == ElemType::Double) return true;
    return false;
}

}  // namespace burn::onnx::testing
