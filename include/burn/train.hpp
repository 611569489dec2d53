// SPDX-License-Identifier: MIT OR Apache-2.0
// Training (Burn's burn::train): the Learner and its builder, step outputs, metrics, renderers,
// metric logs, plots, checkpoints and early stopping.
#pragma once

#include "burn/train/learner.hpp"
#include "burn/train/logger.hpp"
#include "burn/train/metric.hpp"
#include "burn/train/metrics.hpp"
#include "burn/train/output.hpp"
#include "burn/train/plot.hpp"
#include "burn/train/renderer.hpp"
