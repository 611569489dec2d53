// SPDX-License-Identifier: MIT OR Apache-2.0
// The guide's inference (the Burn book's src/inference.rs): load the training configuration and
// the trained weights, then predict the class of an image.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <vector>

#include <burn/burn.hpp>

#include "data.hpp"
#include "model.hpp"
#include "training.hpp"

namespace guide {

/// The model trained by train(), on backend B (no autodiff needed).
template <Backend B>
Model<B> load_model(const std::filesystem::path& artifact_dir, const typename B::Device& device = {}) {
    const auto config = TrainingConfig::load(artifact_dir / "config.json");
    const auto record = burn::record::CompactRecorder{}.load(artifact_dir / "model");
    return config.model.init<B>(device).load_record(record);
}

/// The predicted class of `item` (the book's infer, returning the prediction).
template <Backend B>
std::int64_t infer(const Model<B>& model, const burn::data::MnistItem& item, const typename B::Device& device = {}) {
    const auto batch = MnistBatcher<B>{}.batch({item}, device);
    const auto output = model.forward(batch.images);
    return output.argmax(1).template flatten<1>(0, 1).into_scalar();
}

}  // namespace guide
