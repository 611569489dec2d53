// SPDX-License-Identifier: MIT OR Apache-2.0
// What every rank program of the distributed tests shares (worker.cpp, learner_worker.cpp,
// nccl_worker.cpp): checks that count failures, exact comparison of TensorData, and main's
// exit status (0: every check held, 1: a check failed or the scenario threw, 2: unknown
// scenario).
#pragma once

#include <burn/tensor.hpp>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

namespace burn_test_checks {

inline int failures = 0;

/// Counts a failed check and prints `what` on stderr.
inline void expect(bool ok, const std::string& what) {
    if (!ok) {
        std::cerr << "check failed: " << what << "\n";
        ++failures;
    }
}

/// `d`'s values equal `want` exactly.
template <class T>
bool same(const burn::TensorData& d, const std::vector<T>& want) {
    const auto got = d.to_vec<T>();
    if (got.size() != want.size()) return false;
    for (std::size_t i = 0; i < got.size(); ++i)
        if (got[i] != want[i]) return false;
    return true;
}

/// The rank program's exit status: runs body(scenario) (argv[1]; body returns false for a
/// scenario it does not know) and reports an exception on stderr with the rank.
template <class F>
int run_scenario(int argc, char** argv, F&& body) {
    const std::string scenario = argc > 1 ? argv[1] : "";
    try {
        if (!body(scenario)) {
            std::cerr << "unknown scenario '" << scenario << "'\n";
            return 2;
        }
    } catch (const std::exception& e) {
        const char* rank = std::getenv("BURN_RANK");
        std::cerr << "rank " << (rank ? rank : "?") << ": " << e.what() << "\n";
        return 1;
    }
    return failures ? 1 : 0;
}

}  // namespace burn_test_checks
