// SPDX-License-Identifier: MIT OR Apache-2.0
// Distributed training: collectives between processes (burn::distributed::Communicator). Link
// burn::distributed (CMake component `distributed`, built when Gloo is installed).
#pragma once

#include "burn/distributed/communicator.hpp"
