// SPDX-License-Identifier: MIT OR Apache-2.0
// Writes the seed corpora of the record fuzzers: a few valid records (nested maps, lists, every
// tensor dtype, a quantized tensor, scalars, strings, empty tensors) encoded by each loader's
// recorder, so that the fuzzers start from inputs that pass the header checks; small
// safetensors files; and the committed torch.save outputs of tests/fuzz/seeds/pytorch
// (gen_pytorch_seeds.py writes them; BURN_FUZZ_SEED_DIR is tests/fuzz/seeds).
//
//   burn_fuzz_make_seeds <dir>   # writes <dir>/mpk, <dir>/bin, <dir>/gz, <dir>/safetensors,
//                                # <dir>/pytorch
#include <burn/record/recorder.hpp>
#include <burn/record/state_dict.hpp>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#ifndef BURN_FUZZ_SEED_DIR
#error "define BURN_FUZZ_SEED_DIR (tests/fuzz/seeds)"
#endif

namespace {
using namespace burn;
using namespace burn::record;

std::vector<Record> seed_records() {
    std::vector<Record> out;
    out.emplace_back(Record::Map{});

    Record small;
    small.add("weight", TensorItem{TensorData::from_nested<float, 2>({{1, 2, 3}, {4, 5, 6}}),
                                   module::ParamId(0x1234)});
    small.add("bias", TensorItem{TensorData::from<float>({0.5f, -1.0f}), module::ParamId(7)});
    out.push_back(small);

    Record all;
    all.add("f64", TensorItem{TensorData::from<double>({1.5, -2.25}), module::ParamId(1)});
    all.add("f16", TensorItem{TensorData::from<f16>({f16(1.0f), f16(-3.5f)}), module::ParamId(2)});
    all.add("i64", TensorItem{TensorData::from<std::int64_t>({-9, 8}), module::ParamId(3)});
    all.add("i32", TensorItem{TensorData::from<std::int32_t>({4}), module::ParamId(4)});
    all.add("u8", TensorItem{TensorData::from<std::uint8_t>({0, 255}), module::ParamId(5)});
    all.add("mask", TensorItem{TensorData::from<bool>({true, false, true}), module::ParamId(6)});
    all.add("empty", TensorItem{TensorData::zeros(Shape{0, 3}, DType::F32), module::ParamId(8)});
    QuantizationInfo q;
    q.scales = {0.1f};
    q.offsets = {3};
    all.add("q",
            TensorItem{TensorData::quantized({-4, 0, 9, 127}, Shape{2, 2}, q), module::ParamId(9)});
    Record nested;
    nested.add("epsilon", Record(1e-5));
    nested.add("steps", Record(std::int64_t{42}));
    nested.add("affine", Record(true));
    nested.add("name", Record(std::string("block")));
    nested.add("absent", Record(Record::None{}));
    all.add("config", nested);
    Record::List blocks;
    for (int i = 0; i < 3; ++i) {
        Record b;
        b.add("w", TensorItem{TensorData::full(Shape{2, 2}, float(i)), module::ParamId(10 + i)});
        blocks.push_back(b);
    }
    all.add("blocks", Record(std::move(blocks)));
    out.push_back(all);
    return out;
}

std::vector<Safetensors> seed_safetensors() {
    std::vector<Safetensors> out;
    out.push_back({});
    Safetensors linear;
    linear.tensors.push_back({"fc.weight", TensorData::from_nested<float, 2>({{1, 2}, {3, 4}})});
    linear.tensors.push_back({"fc.bias", TensorData::from<float>({0.5f, -1.0f})});
    linear.metadata = {{"format", "pt"}};
    out.push_back(std::move(linear));
    Safetensors all;
    all.tensors.push_back({"f64", TensorData::from<double>({1.5, -2.25})});
    all.tensors.push_back({"f16", TensorData::from<f16>({f16(1.0f), f16(-3.5f)})});
    all.tensors.push_back({"bf16", TensorData::from<bf16>({bf16(0.5f)})});
    all.tensors.push_back({"i64", TensorData::from<std::int64_t>({-9, 8})});
    all.tensors.push_back({"i32", TensorData::from<std::int32_t>({4})});
    all.tensors.push_back({"i16", TensorData::from<std::int16_t>({-300})});
    all.tensors.push_back({"i8", TensorData::from<std::int8_t>({-128, 127})});
    all.tensors.push_back({"u8", TensorData::from<std::uint8_t>({0, 255})});
    all.tensors.push_back({"mask", TensorData::from<bool>({true, false, true})});
    all.tensors.push_back({"empty", TensorData::zeros(Shape{0, 3}, DType::F32)});
    all.tensors.push_back({"scalar", TensorData(std::vector<float>{42.0f}, Shape{})});
    all.tensors.push_back({"r3", TensorData::zeros(Shape{1, 2, 2}, DType::F32)});
    all.metadata = {{"framework", "burn-cpp"}, {"note", "\"quoted\" \u00e9"}};
    out.push_back(std::move(all));
    return out;
}

void write(const std::filesystem::path& path, const std::vector<std::uint8_t>& bytes) {
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    if (!f) throw Error("burn_fuzz_make_seeds: cannot write " + path.string());
}
}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s <corpus dir>\n", argv[0]);
        return 2;
    }
    const std::filesystem::path root = argv[1];
    for (const char* sub : {"mpk", "bin", "gz", "safetensors", "pytorch"})
        std::filesystem::create_directories(root / sub);
    const auto records = seed_records();
    for (std::size_t i = 0; i < records.size(); ++i) {
        const std::string n = "seed" + std::to_string(i);
        write(root / "mpk" / n, NamedMpkFileRecorder<FullPrecisionSettings>{}.to_bytes(records[i]));
        write(root / "bin" / n, BinBytesRecorder<FullPrecisionSettings>{}.to_bytes(records[i]));
        // The gzip fuzzer's first byte picks the format: even = NamedMpkGz, odd = BinGz.
        auto gz_mpk = NamedMpkGzFileRecorder<FullPrecisionSettings>{}.to_bytes(records[i]);
        gz_mpk.insert(gz_mpk.begin(), std::uint8_t{0});
        write(root / "gz" / (n + "-mpk"), gz_mpk);
        auto gz_bin = BinGzFileRecorder<FullPrecisionSettings>{}.to_bytes(records[i]);
        gz_bin.insert(gz_bin.begin(), std::uint8_t{1});
        write(root / "gz" / (n + "-bin"), gz_bin);
    }
    const auto st = seed_safetensors();
    for (std::size_t i = 0; i < st.size(); ++i)
        write(root / "safetensors" / ("seed" + std::to_string(i)),
              safetensors_to_bytes(st[i].tensors, st[i].metadata));
    const std::filesystem::path pt = std::filesystem::path(BURN_FUZZ_SEED_DIR) / "pytorch";
    for (const auto& e : std::filesystem::directory_iterator(pt))
        if (e.path().extension() == ".pt")
            std::filesystem::copy_file(e.path(), root / "pytorch" / e.path().filename(),
                                       std::filesystem::copy_options::overwrite_existing);
    return 0;
}
