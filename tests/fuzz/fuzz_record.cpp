// SPDX-License-Identifier: MIT OR Apache-2.0
// libFuzzer target for the binary record loaders: arbitrary bytes given to a recorder's
// from_bytes must either decode or throw burn::Error; they must never crash, hang, read out of
// bounds (ASan) or trigger undefined behaviour (UBSan). Built four times, once per loader
// (BURN_FUZZ_FORMAT = 0 NamedMpk, 1 Bin = BinBytesRecorder, 2 the gzip forms, whose first input
// byte picks NamedMpkGz or BinGz, 3 the JSON forms, whose first input byte picks
// PrettyJsonFileRecorder or JsonGzFileRecorder). Run with tests/fuzz/run.sh.
#include <burn/record/recorder.hpp>
#include <burn/tensor/error.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>

#ifndef BURN_FUZZ_FORMAT
#error "define BURN_FUZZ_FORMAT (0 NamedMpk, 1 Bin, 2 gzip, 3 JSON)"
#endif

namespace {
using namespace burn::record;

// A decoded record must encode again, and that encoding must decode and re-encode to the same
// bytes: the loaders accept nothing that the writers cannot reproduce.
template <class R>
void check(const R& recorder, std::span<const std::uint8_t> bytes) {
    Record record;
    try {
        record = recorder.from_bytes(bytes);
    } catch (const burn::Error&) {
        return;  // rejected with a message: the expected outcome for most inputs
    }
    const auto again = recorder.to_bytes(record);
    if (recorder.to_bytes(recorder.from_bytes(again)) != again) {
        std::fprintf(stderr, "fuzz_record: a decoded record does not survive a round trip\n");
        std::abort();
    }
}

// The first input byte picks one of two recorders (even: `A`, odd: `B`); the rest is the data.
template <class A, class B>
void check_either(std::span<const std::uint8_t> bytes) {
    if (bytes.empty()) return;
    const bool first = (bytes[0] & 1) == 0;
    bytes = bytes.subspan(1);
    if (first) check(A{}, bytes);
    else check(B{}, bytes);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::span<const std::uint8_t> bytes(data, size);
#if BURN_FUZZ_FORMAT == 0
    check(NamedMpkFileRecorder<FullPrecisionSettings>{}, bytes);
#elif BURN_FUZZ_FORMAT == 1
    check(BinBytesRecorder<FullPrecisionSettings>{}, bytes);
#elif BURN_FUZZ_FORMAT == 2
    check_either<NamedMpkGzFileRecorder<FullPrecisionSettings>,
                 BinGzFileRecorder<FullPrecisionSettings>>(bytes);
#else
    check_either<PrettyJsonFileRecorder<FullPrecisionSettings>,
                 JsonGzFileRecorder<FullPrecisionSettings>>(bytes);
#endif
    return 0;
}
