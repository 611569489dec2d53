// SPDX-License-Identifier: MIT OR Apache-2.0
// One rank of the distributed tests (test_distributed.cpp starts several): `worker SCENARIO`,
// with BURN_RANK, BURN_WORLD_SIZE and BURN_STORE_DIR set. Exits 0 when every check of the
// scenario held on this rank, 1 otherwise (the reason on stderr).
#include <burn/autodiff/autodiff.hpp>
#include <burn/backend/cpu.hpp>
#include <burn/distributed.hpp>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "checks.hpp"

namespace {

using namespace burn;
using distributed::Communicator;
using distributed::ReduceOp;
using B = Cpu<double>;
using AD = Autodiff<B>;

using namespace burn_test_checks;

/// Every collective against values computed here.
void collectives(Communicator& comm) {
    const int r = comm.rank(), n = comm.world_size();
    // Sum and mean of f32 data.
    auto sum = comm.all_reduce(TensorData::full<float>(Shape{2, 3}, static_cast<float>(r + 1)));
    expect(same<float>(sum, std::vector<float>(6, static_cast<float>(n * (n + 1) / 2))), "f32 sum");
    expect(sum.shape == Shape({2, 3}), "shape kept");
    auto x = Tensor<B, 2>::from_data(TensorData::full<double>(Shape{4, 5}, 2.0 * r));
    auto mean = comm.all_reduce(x, ReduceOp::Mean).to_data();
    expect(same<double>(mean, std::vector<double>(20, static_cast<double>(n - 1))), "f64 mean");
    // Half-precision sums and means (combined in f32, rounded once per combination).
    const float half_sum = 0.5f * float(n * (n + 1) / 2);
    for (DType dt : {DType::BF16, DType::F16}) {
        auto h =
            comm.all_reduce(TensorData::full<float>(Shape{3}, 0.5f * float(r + 1)).convert(dt));
        expect(h.dtype == dt, "half sum keeps the dtype");
        expect(same<float>(h.convert(DType::F32), std::vector<float>(3, half_sum)), "half sum");
        auto m = comm.all_reduce(TensorData::full<float>(Shape{2}, float(2 * r)).convert(dt),
                                 ReduceOp::Mean);
        expect(same<float>(m.convert(DType::F32), std::vector<float>(2, float(n - 1))),
               "half mean");
        auto mx =
            comm.all_reduce(TensorData::full<float>(Shape{1}, float(r)).convert(dt), ReduceOp::Max);
        expect(same<float>(mx.convert(DType::F32), std::vector<float>{float(n - 1)}), "half max");
    }
    // Integer max, min, product and a truncating mean.
    const auto ints = TensorData(std::vector<std::int64_t>{r, -r, r + 1}, Shape{3});
    expect(same<std::int64_t>(comm.all_reduce(ints, ReduceOp::Max),
                              std::vector<std::int64_t>{n - 1, 0, n}),
           "i64 max");
    expect(same<std::int64_t>(comm.all_reduce(ints, ReduceOp::Min),
                              std::vector<std::int64_t>{0, -(n - 1), 1}),
           "i64 min");
    std::int64_t fact = 1;
    for (int k = 1; k <= n; ++k) fact *= k;
    expect(same<std::int64_t>(comm.all_reduce(ints, ReduceOp::Product),
                              std::vector<std::int64_t>{0, 0, fact}),
           "i64 product");
    const auto i32 = TensorData(std::vector<std::int32_t>{r}, Shape{1});
    expect(same<std::int32_t>(comm.all_reduce(i32, ReduceOp::Mean),
                              std::vector<std::int32_t>{(n * (n - 1) / 2) / n}),
           "i32 mean truncates");
    // Broadcast from the last rank, on an Int tensor.
    auto ib =
        Tensor<B, 1, Int>::from_data(TensorData(std::vector<std::int64_t>{r * 10, 7}, Shape{2}));
    expect(same<std::int64_t>(comm.broadcast(ib, n - 1).to_data(),
                              std::vector<std::int64_t>{(n - 1) * 10, 7}),
           "broadcast");
    // All-gather along dim 0: rank k's rows hold k.
    auto g = comm.all_gather(Tensor<B, 2>::from_data(TensorData::full<double>(Shape{2, 3}, r)));
    expect(g.dims() == std::array<std::size_t, 2>{2 * static_cast<std::size_t>(n), 3},
           "all_gather shape");
    std::vector<double> want_g;
    for (int k = 0; k < n; ++k) want_g.insert(want_g.end(), 6, static_cast<double>(k));
    expect(same<double>(g.to_data(), want_g), "all_gather values");
    // Reduce-scatter: element i of rank k is i + k; this rank gets its part of the sums.
    std::vector<float> rs(static_cast<std::size_t>(n) * 3);
    for (std::size_t i = 0; i < rs.size(); ++i) rs[i] = static_cast<float>(i + r);
    auto part = comm.reduce_scatter(TensorData(rs, Shape{rs.size()}));
    std::vector<float> want_p;
    for (std::size_t i = static_cast<std::size_t>(r) * 3; i < static_cast<std::size_t>(r) * 3 + 3;
         ++i)
        want_p.push_back(static_cast<float>(n * i + n * (n - 1) / 2));
    expect(part.shape == Shape({3}) && same<float>(part, want_p), "reduce_scatter");
    // Raw bytes.
    std::vector<std::byte> bytes(5, std::byte{0});
    if (r == 0) bytes.assign(5, std::byte{42});
    comm.broadcast(bytes, 0);
    expect(bytes[4] == std::byte{42}, "broadcast bytes");
    comm.barrier();
}

/// The ranks pass different sizes: every rank gets a burn::Error naming them, and the
/// communicator refuses later calls.
void mismatch(Communicator& comm) {
    const std::size_t len = comm.rank() == 0 ? 3 : 4;
    try {
        comm.all_reduce(TensorData::full<float>(Shape{len}, 1.0f));
        expect(false, "mismatched sizes were accepted");
    } catch (const Error& e) {
        const std::string m = e.what();
        std::cout << "rank " << comm.rank() << " caught: " << m << std::endl;
        expect(m.find("calls differ") != std::string::npos &&
                   m.find("shape [3]") != std::string::npos &&
                   m.find("shape [4]") != std::string::npos,
               "message names the shapes: " + m);
    }
    try {
        comm.barrier();
        expect(false, "a failed communicator was used again");
    } catch (const Error& e) {
        expect(std::string(e.what()).find("failed earlier") != std::string::npos,
               std::string("second error: ") + e.what());
    }
}

/// Rank 1 exits right after connecting; the others get a burn::Error from the next collective.
void peer_dies(Communicator& comm) {
    if (comm.rank() == 1) std::_Exit(0);
    try {
        comm.all_reduce(TensorData::full<float>(Shape{1000}, 1.0f));
        comm.barrier();
        expect(false, "a collective with an exited peer returned");
    } catch (const Error& e) {
        std::cout << "rank " << comm.rank() << " caught: " << e.what() << std::endl;
        expect(std::string(e.what()).find("distributed::") != std::string::npos,
               std::string("error names the collective: ") + e.what());
    }
}

/// Under burn-run: rank 1 fails at once, the others would wait forever; burn-run must stop them
/// and exit with rank 1's status (3).
void fail_fast(Communicator& comm) {
    if (comm.rank() == 1) std::_Exit(3);
    std::this_thread::sleep_for(std::chrono::seconds(600));
}

/// Data-parallel least squares: each rank takes its rows of a fixed batch, gradients are
/// averaged with all_reduce(Mean), and after 10 SGD steps the weights equal those of one process
/// training on the whole batch (up to the summation order).
void data_parallel(Communicator& comm) {
    const std::size_t rows = 24, cols = 5;
    std::vector<double> xv(rows * cols), yv(rows);
    for (std::size_t i = 0; i < xv.size(); ++i) xv[i] = std::sin(0.7 * static_cast<double>(i));
    for (std::size_t i = 0; i < rows; ++i) yv[i] = std::cos(1.3 * static_cast<double>(i));
    const auto x = Tensor<AD, 2>::from_data(TensorData(xv, Shape{rows, cols}));
    const auto y = Tensor<AD, 2>::from_data(TensorData(yv, Shape{rows, 1}));
    const auto n = static_cast<std::int64_t>(comm.world_size());
    const std::int64_t per = static_cast<std::int64_t>(rows) / n, r0 = comm.rank() * per;
    const auto xs = x.slice({Slice(r0, r0 + per)}), ys = y.slice({Slice(r0, r0 + per)});
    auto step = [](const Tensor<AD, 2>& w, const Tensor<AD, 2>& xb, const Tensor<AD, 2>& yb) {
        auto loss = (xb.matmul(w) - yb).powf_scalar(2.0).mean();
        return w.grad(loss.backward()).value();
    };
    auto w_dp = Tensor<B, 2>::zeros({cols, 1});
    auto w_one = Tensor<B, 2>::zeros({cols, 1});
    for (int it = 0; it < 10; ++it) {
        auto g = step(Tensor<AD, 2>::from_inner(w_dp).require_grad(), xs, ys);
        w_dp = w_dp - comm.all_reduce(g, ReduceOp::Mean) * 0.1;
        w_one = w_one - step(Tensor<AD, 2>::from_inner(w_one).require_grad(), x, y) * 0.1;
    }
    const auto a = w_dp.to_data().to_vec<double>(), b = w_one.to_data().to_vec<double>();
    for (std::size_t i = 0; i < a.size(); ++i)
        expect(std::abs(a[i] - b[i]) <= 1e-12 * (1 + std::abs(b[i])),
               "weight " + std::to_string(i) + ": " + std::to_string(a[i]) + " vs " +
                   std::to_string(b[i]));
    // Every rank holds the same weights.
    auto all = comm.all_gather(w_dp.reshape<2>({1, static_cast<std::int64_t>(cols)}))
                   .to_data()
                   .to_vec<double>();
    for (std::size_t i = 0; i < all.size(); ++i) expect(all[i] == a[i % cols], "ranks agree");
}

}  // namespace

int main(int argc, char** argv) {
    return run_scenario(argc, argv, [](const std::string& scenario) {
        if (scenario == "timeout") {
            // Only rank 0 of 2 is started: connecting fails within the timeout.
            try {
                (void)Communicator::from_env();
                expect(false, "connected without the other rank");
            } catch (const Error& e) {
                expect(std::string(e.what()).find("could not connect") != std::string::npos,
                       std::string("message: ") + e.what());
            }
            return true;
        }
        Communicator comm = Communicator::from_env();
        if (scenario == "collectives") collectives(comm);
        else if (scenario == "mismatch") mismatch(comm);
        else if (scenario == "peer_dies") peer_dies(comm);
        else if (scenario == "data_parallel") data_parallel(comm);
        else if (scenario == "fail_fast") fail_fast(comm);
        else if (scenario == "sleep") std::this_thread::sleep_for(std::chrono::seconds(600));
        else return false;
        return true;
    });
}
