// SPDX-License-Identifier: MIT OR Apache-2.0
// Optimizers (burn::optim): gradients per parameter, the optimizer adaptor, and SGD, Adam,
// AdamW, RMSProp and AdaGrad, and the loss scaler of f16 training. See docs/optimizers.md.
#pragma once

#include "burn/optim/adagrad.hpp"
#include "burn/optim/adam.hpp"
#include "burn/optim/adamw.hpp"
#include "burn/optim/decay.hpp"
#include "burn/optim/grad_scaler.hpp"
#include "burn/optim/grads.hpp"
#include "burn/optim/optimizer.hpp"
#include "burn/optim/rmsprop.hpp"
#include "burn/optim/sgd.hpp"
