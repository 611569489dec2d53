// SPDX-License-Identifier: MIT OR Apache-2.0
// The burn-cpp prelude: everything a model needs, generic over the backend.
// Backends have their own headers: <burn/backend/cpu.hpp>.
#pragma once

#include "burn/autodiff/autodiff.hpp"
#include "burn/autodiff/custom_op.hpp"
#include "burn/config/config.hpp"
#include "burn/data.hpp"
#include "burn/lr_scheduler/lr_scheduler.hpp"
#include "burn/module/display.hpp"
#include "burn/module/module.hpp"
#include "burn/module/param.hpp"
#include "burn/nn.hpp"
#include "burn/optim.hpp"
#include "burn/record/param_id.hpp"
#include "burn/record/record.hpp"
#include "burn/record/recorder.hpp"
#include "burn/tensor.hpp"
#include "burn/train.hpp"
