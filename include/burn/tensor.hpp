// SPDX-License-Identifier: MIT OR Apache-2.0
// The tensor layer alone (namespace burn): Tensor<B, D, K> with its ops, TensorData, Shape,
// DType, the Backend concept, printing (std::cout << tensor) and closeness checks. What a program
// that only computes with tensors needs; no modules, optimizers, records or training.
// <burn/burn.hpp> includes it with everything else.
//
//   #include <burn/tensor.hpp>
//   #include <burn/backend/cpu.hpp>
//   int main() { std::cout << burn::Tensor<burn::Cpu<>, 2>::ones({2, 3}) << "\n"; }
#pragma once

#include <iostream>

#include "burn/tensor/activation.hpp"
#include "burn/tensor/backend.hpp"
#include "burn/tensor/closeness.hpp"
#include "burn/tensor/data.hpp"
#include "burn/tensor/distribution.hpp"
#include "burn/tensor/dtype.hpp"
#include "burn/tensor/error.hpp"
#include "burn/tensor/kind.hpp"
#include "burn/tensor/module.hpp"
#include "burn/tensor/module_options.hpp"
#include "burn/tensor/print.hpp"
#include "burn/tensor/quantization.hpp"
#include "burn/tensor/quantization_scheme.hpp"
#include "burn/tensor/shape.hpp"
#include "burn/tensor/tensor.hpp"
