// SPDX-License-Identifier: MIT OR Apache-2.0
// The ONNX op library: functions named after the ONNX ops (burn::onnx::ops::add, conv, gemm,
// reshape, ...) over burn::onnx::Value<B>, for any Backend B. Graph<B> calls them through the
// registry; generated code can call them directly.
#pragma once

#include "burn/onnx/ops_common.hpp"
#include "burn/onnx/ops_math.hpp"
#include "burn/onnx/ops_nn.hpp"
#include "burn/onnx/ops_reduce.hpp"
#include "burn/onnx/ops_rnn.hpp"
#include "burn/onnx/ops_sequence.hpp"
#include "burn/onnx/ops_shape.hpp"
#include "burn/onnx/ops_signal.hpp"
#include "burn/onnx/ops_training.hpp"
#include "burn/onnx/ops_vision.hpp"
