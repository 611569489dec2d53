// SPDX-License-Identifier: MIT OR Apache-2.0
// libFuzzer target for the state-dict readers of burn/record/state_dict.hpp: arbitrary bytes must
// either decode or throw burn::Error, never crash, hang, read out of bounds (ASan) or trigger
// undefined behaviour (UBSan). Built twice (BURN_FUZZ_STATE_DICT = 0 read_safetensors_bytes,
// 1 read_pytorch_bytes). Run with tests/fuzz/run.sh.
#include <burn/record/state_dict.hpp>
#include <burn/tensor/error.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>

#ifndef BURN_FUZZ_STATE_DICT
#error "define BURN_FUZZ_STATE_DICT (0 safetensors, 1 pytorch)"
#endif

namespace {
using namespace burn::record;

[[noreturn]] void die(const char* what) {
    std::fprintf(stderr, "fuzz_state_dict: %s\n", what);
    std::abort();
}

#if BURN_FUZZ_STATE_DICT == 0
bool same(const Safetensors& a, const Safetensors& b) {
    if (a.metadata != b.metadata || a.tensors.size() != b.tensors.size()) return false;
    for (std::size_t i = 0; i < a.tensors.size(); ++i)
        if (a.tensors[i].key != b.tensors[i].key || !(a.tensors[i].data == b.tensors[i].data))
            return false;
    return true;
}

// Whatever the reader accepts, the writer must write, and the reader read back unchanged: the
// reader accepts nothing the writer refuses (empty or invalid names, bad BOOL bytes, ...), and
// writing twice gives the same bytes.
void check(std::span<const std::uint8_t> bytes) {
    Safetensors st;
    try {
        st = read_safetensors_bytes(bytes, "<fuzz>");
    } catch (const burn::Error&) {
        return;  // rejected with a message: the expected outcome for most inputs
    }
    std::vector<std::uint8_t> written;
    Safetensors again;
    try {
        written = safetensors_to_bytes(st.tensors, st.metadata);
        again = read_safetensors_bytes(written, "<rewritten>");
    } catch (const burn::Error& e) {
        std::fprintf(stderr, "fuzz_state_dict: %s\n", e.what());
        die("a decoded safetensors file cannot be written and read back");
    }
    if (!same(st, again)) die("a decoded safetensors file does not survive a round trip");
    if (safetensors_to_bytes(again.tensors, again.metadata) != written)
        die("writing a decoded safetensors file twice gives different bytes");
}
#else
void check(std::span<const std::uint8_t> bytes) {
    try {
        (void)read_pytorch_bytes(bytes, {}, "<fuzz>");
    } catch (const burn::Error&) {
    }
}
#endif
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    check(std::span<const std::uint8_t>(data, size));
    return 0;
}
