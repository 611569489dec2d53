// SPDX-License-Identifier: MIT OR Apache-2.0
// Data loading (namespace burn::data): the Dataset concept, in-memory datasets (vectors, CSV,
// JSON lines), lazy transforms (shuffle, sample, partial, map, compose, windows), MNIST and
// Fashion-MNIST, and the multi-threaded DataLoader with its Batcher. Included by <burn/burn.hpp>.
#pragma once

#include "burn/data/dataloader.hpp"
#include "burn/data/dataset.hpp"
#include "burn/data/image_folder.hpp"
#include "burn/data/in_memory.hpp"
#include "burn/data/mnist.hpp"
#include "burn/data/transform.hpp"
