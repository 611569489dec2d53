// SPDX-License-Identifier: MIT OR Apache-2.0
// A CNN trained in PyTorch (train.py writes model.pt and the classes PyTorch predicts for the
// first test images), defined again here with burn-cpp's modules, loaded from the .pt file, and
// checked to predict the same classes on Fashion-MNIST. Then the reverse: the model is saved as
// safetensors in PyTorch's layout, for check_safetensors.py to load into the PyTorch model.
//
//   ./build/default/examples/pytorch-import/pytorch-import                       # the committed
//   files
//   ./build/default/examples/pytorch-import/pytorch-import --save model.safetensors \
//       --save-predictions cpp_predictions.json
//   python3 examples/pytorch-import/check_safetensors.py model.safetensors \
//       --predictions cpp_predictions.json
//
// Exit status 1 when a prediction differs from PyTorch's.
#include <burn/backend/cpu.hpp>
#include <burn/burn.hpp>
#include <burn/data/mnist.hpp>
#include <burn/record/pytorch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace {

using B = burn::Cpu<float>;
using burn::Tensor;

/// The same architecture as train.py's Net, field for field (PyTorch's names: conv1, conv2,
/// fc1, fc2), so that the state dict's keys match without remapping.
template <burn::Backend BB>
struct Net {
    burn::nn::Conv2d<BB> conv1, conv2;
    burn::nn::MaxPool2d pool;
    burn::nn::Linear<BB> fc1, fc2;
    BURN_MODULE(conv1, conv2, pool, fc1, fc2)

    static Net init(const typename BB::Device& device = {}) {
        using namespace burn::nn;
        return {Conv2dConfig{.channels = {{1, 8}}, .kernel_size = {{3, 3}}}.init<BB>(device),
                Conv2dConfig{.channels = {{8, 16}}, .kernel_size = {{3, 3}}}.init<BB>(device),
                MaxPool2dConfig{.kernel_size = {{2, 2}}}.init(),
                LinearConfig{.d_input = 16 * 5 * 5, .d_output = 32}.init<BB>(device),
                LinearConfig{.d_input = 32, .d_output = 10}.init<BB>(device)};
    }

    /// [batch, 1, 28, 28] normalised images -> [batch, 10] logits.
    Tensor<BB, 2> forward(const Tensor<BB, 4>& x) const {
        using burn::activation::relu;
        auto h = pool.forward(relu(conv1.forward(x)));
        h = pool.forward(relu(conv2.forward(h)));
        return fc2.forward(relu(fc1.forward(h.template flatten<2>(1, 3))));
    }
};

/// The first `count` test images, normalised as train.py does: (x / 255 - mean) / std.
Tensor<B, 4> test_images(const burn::data::MnistDataset& test, std::size_t count) {
    std::vector<float> pixels;
    pixels.reserve(count * 28 * 28);
    for (std::size_t i = 0; i < count; ++i) {
        const auto item = *test.get(i);
        for (float p : item.image) pixels.push_back((p / 255.0f - 0.2860f) / 0.3530f);
    }
    return Tensor<B, 4>::from_data(
        burn::TensorData(std::move(pixels), burn::Shape{count, 1, 28, 28}));
}

struct Args {
    std::filesystem::path weights = BURN_EXAMPLE_DIR "/model.pt";
    std::filesystem::path predictions = BURN_EXAMPLE_DIR "/predictions.json";
    std::filesystem::path save;              // model.safetensors for check_safetensors.py
    std::filesystem::path save_predictions;  // this program's predictions, same schema
};

Args parse(int argc, char** argv) {
    Args a;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (flag == "--help" || flag == "-h") {
            std::cout
                << "usage: pytorch-import [--weights model.pt] [--predictions predictions.json]\n"
                   "                      [--save model.safetensors] [--save-predictions F]\n";
            std::exit(0);
        }
        if (i + 1 >= argc) {
            std::cerr << "pytorch-import: " << flag << " needs a value\n";
            std::exit(2);
        }
        const std::string value = argv[++i];
        if (flag == "--weights") a.weights = value;
        else if (flag == "--predictions") a.predictions = value;
        else if (flag == "--save") a.save = value;
        else if (flag == "--save-predictions") a.save_predictions = value;
        else {
            std::cerr << "pytorch-import: unknown option " << flag << "\n";
            std::exit(2);
        }
    }
    return a;
}

}  // namespace

int main(int argc, char** argv) try {
    const Args args = parse(argc, argv);

    // 1. The PyTorch weights, loaded into the burn-cpp model.
    const burn::record::PyTorchFileRecorder<> recorder;
    auto model = Net<B>::init();
    model = model.load_record(recorder.load(burn::record::LoadArgs(args.weights), model));
    std::cout << "loaded " << args.weights.string() << " (" << model.num_params()
              << " parameters)\n";

    // 2. The same predictions as PyTorch on the first test images.
    nlohmann::json expected;
    std::ifstream(args.predictions) >> expected;
    const auto want = expected.at("predicted").get<std::vector<std::int64_t>>();
    const auto test = burn::data::MnistDataset::fashion_test();
    const std::size_t count = std::min<std::size_t>(want.size(), test.len());
    const auto predicted =
        model.forward(test_images(test, count)).argmax(1).to_data().template to_vec<std::int64_t>();
    std::size_t same = 0, correct = 0;
    for (std::size_t i = 0; i < count; ++i) {
        same += predicted[i] == want[i];
        correct += predicted[i] == test.label(i);
    }
    std::cout << "predictions equal to PyTorch's: " << same << "/" << count << "; accuracy "
              << 100.0 * double(correct) / double(count) << "% (PyTorch "
              << 100.0 * expected.at("accuracy").get<double>() << "%)\n";

    // 3. The reverse: safetensors in PyTorch's layout, and this program's predictions.
    if (!args.save.empty()) {
        const auto path = burn::record::SafetensorsFileRecorder<>{}.save(model, args.save);
        std::cout << "saved " << path.string() << "\n";
    }
    if (!args.save_predictions.empty()) {
        nlohmann::json out;
        out["count"] = count;
        out["predicted"] = std::vector<std::int64_t>(predicted.begin(), predicted.begin() + count);
        out["accuracy"] = double(correct) / double(count);
        std::ofstream(args.save_predictions) << out.dump() << "\n";
    }
    return same == count ? 0 : 1;
} catch (const std::exception& e) {
    std::cerr << "pytorch-import: " << e.what() << "\n";
    return 1;
}
