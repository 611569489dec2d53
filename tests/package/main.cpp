// SPDX-License-Identifier: MIT OR Apache-2.0
// Uses only the installed headers and libraries (see CMakeLists.txt next to this file).
#include <unistd.h>

#include <burn/backend/cpu.hpp>
#include <burn/burn.hpp>
#include <burn/data/sqlite.hpp>  // opt-in: links SQLite through the package's dependencies
#include <burn/fusion/fusion.hpp>
#include <filesystem>
#include <iostream>
#include <string>

int main() {
    using B = burn::Cpu<>;
    auto x = burn::Tensor<B, 2>::ones({2, 3});
    auto y = (x + x).sum();
    const auto value = y.into_scalar();
    if (value != 12) {
        std::cerr << "package consumer: expected sum 12, got " << value << "\n";
        return 1;
    }
    // Gradients through the installed autodiff headers: d(sum(w * w))/dw = 2w.
    using AD = burn::Autodiff<B>;
    auto w = burn::Tensor<AD, 2>::ones({2, 3}).require_grad();
    auto grads = (w * w).sum().backward();
    const auto g = w.grad(grads)->sum().into_scalar();
    if (g != 12) {
        std::cerr << "package consumer: expected gradient sum 12, got " << g << "\n";
        return 1;
    }
    // Kernel fusion through the installed headers and libraries: three element-wise ops, one
    // fused program.
    using FB = burn::Fusion<B>;
    burn::fusion::reset_stats();
    const auto f = ((burn::Tensor<FB, 2>::ones({2, 3}) * 3.0 + 1.0).sqrt()).sum().into_scalar();
    if (f != 12 || burn::fusion::stats().programs != 1) {
        std::cerr << "package consumer: expected a fused sum 12 from one program, got " << f
                  << " from " << burn::fusion::stats().programs << "\n";
        return 1;
    }
    // An SQLite dataset written and read back through the installed library.
    const auto db = std::filesystem::temp_directory_path() /
                    ("burn_package_consumer_" + std::to_string(::getpid()) + ".db");
    burn::data::write_sqlite_dataset(burn::data::InMemDataset<std::string>({"a", "bc"}), db,
                                     "train");
    const auto text = burn::data::SqliteDataset<std::string>(db, "train").get(1);
    std::filesystem::remove(db);
    if (!text || *text != "bc") {
        std::cerr << "package consumer: the SQLite dataset did not read back\n";
        return 1;
    }
    std::cout << "package consumer: ok (sum = " << value << ", gradient sum = " << g
              << ", fused sum = " << f << ", SQLite dataset read back)\n";
    return 0;
}
