// SPDX-License-Identifier: MIT OR Apache-2.0
// Random programs, run on Vulkan<> (or, built with BURN_GPU_TEST_CUDA as burn_cuda_random_program,
// on Cuda<>) and on Cpu<float, int32> (the reference) in lockstep: a seeded
// generator draws 20-40 steps over a small pool of live rank-3 tensors (float, and a few int):
// unary math, activations, broadcast binary and scalar ops, batched matmul, views (swap_dims,
// permute, reshape, slice with steps, narrow, flip, expand), cat, keepdim reductions, softmax,
// gather / select with in-range indices (some computed on the device with int ops), comparisons
// with mask_where / mask_fill, cumsum, and int ops. Every live tensor is compared at the end and
// at a few random points in between; a second test runs programs through Autodiff<> and compares
// the gradients of every input. A failure prints the seed and the program's steps; reproduce with
//   BURN_VK_RANDOM_SEED=<seed> ./burn_vk_random_program --gtest_filter=<the test>
// (BURN_VK_RANDOM_SEEDS=<n> runs n seeds instead of the default count; BURN_VK_RANDOM_PRINT=1
// prints every program.)
//
// Values stay bounded (results are clamped to [-4, 4], divisors kept away from 0, exp of clamped
// inputs). Ops whose result jumps on a near tie (comparisons; max/min gradients) are decided on
// the CPU's values where two inputs are within the tolerance of each other: there the Vulkan
// mask may differ and is replaced by the CPU's, elsewhere it must match exactly.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <numeric>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "vk_support.hpp"

using namespace burn;
using namespace burn::vktest;

namespace {

using Dims = std::array<std::size_t, 3>;
constexpr double kBound = 4.0;  // every float result is clamped to [-kBound, kBound]
constexpr std::size_t kMaxFloats = 6, kMaxInts = 3;
// Results stay below this many elements (cat, matmul); dims up to 600 reach the kernels'
// multi-workgroup paths (lanes longer than a workgroup).
constexpr std::size_t kMaxElems = 8192;

template <class... A>
std::string str(const A&... a) {
    std::ostringstream os;
    (os << ... << a);
    return os.str();
}

std::string dims_str(const Dims& d) { return str("[", d[0], ", ", d[1], ", ", d[2], "]"); }

/// The live tensors of one backend. `tmp*` hold a step's extra operands (new inputs, indices,
/// masks); `leaves` every float input (tracked under Autodiff).
template <class B>
struct Pool {
    using Backend = B;
    std::vector<Tensor<B, 3>> f;
    std::vector<Tensor<B, 3, Int>> i;
    std::vector<Tensor<B, 3>> leaves;
    std::vector<Tensor<B, 3>> tmp;
    std::vector<Tensor<B, 3, Int>> itmp;
    std::vector<Tensor<B, 1, Int>> idx1;
    std::vector<Tensor<B, 3, Bool>> masks;
    void clear_step() {
        tmp.clear();
        itmp.clear();
        idx1.clear();
        masks.clear();
    }
};

/// An operand: a pool slot or a step temporary.
struct Ref {
    bool tmp = false;
    std::size_t k = 0;
};

template <class P>
auto& fget(P& p, Ref r) {
    return r.tmp ? p.tmp[r.k] : p.f[r.k];
}
template <class P>
auto& iget(P& p, Ref r) {
    return r.tmp ? p.itmp[r.k] : p.i[r.k];
}

/// "" when `got` matches `want` (floats within tol * (max|want|, 1) + tol * |want|, ints and
/// bools exactly), else a description of the first difference.
std::string mismatch(const TensorData& got, const TensorData& want, double tol) {
    if (got.shape != want.shape) return str("shape ", got.shape, " vs ", want.shape);
    if (got.dtype != want.dtype)
        return str("dtype ", dtype_name(got.dtype), " vs ", dtype_name(want.dtype));
    const std::size_t n = want.num_elements();
    const bool exact = !is_float(want.dtype);
    double scale = 1.0;
    for (std::size_t j = 0; j < n; ++j) scale = std::max(scale, std::abs(want.value_as_double(j)));
    for (std::size_t j = 0; j < n; ++j) {
        const double g = got.value_as_double(j), w = want.value_as_double(j);
        const bool ok = exact ? g == w : std::abs(g - w) <= tol * scale + tol * std::abs(w);
        if (!ok) {
            std::ostringstream os;
            os.precision(9);
            os << "element " << j << " of " << want.shape << ": " << kGpuName << " " << g
               << ", cpu " << w;
            return os.str();
        }
    }
    return "";
}

/// One random program on two backends: BV (checked) and BC (the reference).
template <class BV, class BC>
class Program {
public:
    Program(std::uint64_t seed, bool autodiff) : seed_(seed), autodiff_(autodiff), rng_(seed) {}

    /// Runs the program; on a mismatch reports it (ADD_FAILURE) and returns false.
    bool run() {
        try {
            for (int k = 0; k < 3; ++k) put_f_leaf(k == 0 ? wide_dims() : random_dims());
            put_i_leaf(random_dims());
            const std::size_t steps = range(20, 40);
            int checks = 0;
            for (std::size_t s = 0; s < steps && failure_.empty(); ++s) {
                v_.clear_step();
                c_.clear_step();
                step();
                if (failure_.empty() && checks < 3 && chance(0.1)) {
                    ++checks;
                    check_all(str("after step ", log_.size()));
                }
            }
            if (failure_.empty()) check_all("at the end");
            if (failure_.empty() && autodiff_) check_gradients();
        } catch (const std::exception& e) {
            fail(str("exception: ", e.what()));
        }
        const char* print = std::getenv("BURN_VK_RANDOM_PRINT");
        if (failure_.empty() && !(print && *print && *print != '0')) return true;
        std::ostringstream os;
        os << "random program, seed " << seed_ << (autodiff_ ? " (autodiff)" : "") << ": "
           << (failure_.empty() ? "passed" : failure_)
           << "\nreproduce: BURN_VK_RANDOM_SEED=" << seed_
           << (std::string_view(kGpuName) == "cuda" ? " ./burn_cuda_random_program"
                                                    : " ./burn_vk_random_program")
           << " --gtest_filter=" << kGpuSuiteName << "RandomProgram."
           << (autodiff_ ? "AutodiffGradientsMatchCpu" : "MatchesCpu") << "\nprogram:\n";
        for (std::size_t j = 0; j < log_.size(); ++j) os << "  " << j << ": " << log_[j] << "\n";
        if (failure_.empty()) {
            std::cout << os.str();
            return true;
        }
        ADD_FAILURE() << os.str();
        return false;
    }

private:
    std::uint64_t seed_;
    bool autodiff_;
    std::mt19937_64 rng_;
    Pool<BV> v_;
    Pool<BC> c_;
    std::vector<std::string> log_;
    std::string failure_;
    static constexpr double kTol = 5e-4;  // relative to max(1, max |cpu value|)

    void fail(std::string what) {
        if (failure_.empty()) failure_ = std::move(what);
    }

    // ------------------------------------------------------------------ random choices
    std::size_t range(std::size_t lo, std::size_t hi) {
        return std::uniform_int_distribution<std::size_t>(lo, hi)(rng_);
    }
    std::size_t pick(std::size_t n) { return range(0, n - 1); }
    bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }
    double uniform(double lo, double hi) {
        return std::uniform_real_distribution<double>(lo, hi)(rng_);
    }
    Dims random_dims() { return {range(1, 5), range(1, 5), range(1, 5)}; }
    /// Small dims, one of them often long (the position random).
    Dims wide_dims() {
        Dims d{range(1, 3), range(1, 4), range(2, 5)};
        static constexpr std::size_t kLong[] = {64, 130, 257, 600};
        if (chance(0.7)) d[2] = kLong[pick(4)];
        std::shuffle(d.begin(), d.end(), rng_);
        return d;
    }
    TensorData floats(const Dims& d, double lo, double hi) {
        std::vector<float> v(Shape(d).num_elements());
        for (auto& x : v) x = static_cast<float>(uniform(lo, hi));
        return TensorData(std::move(v), Shape(d));
    }
    TensorData ints(const Shape& s, std::int32_t lo, std::int32_t hi) {
        std::vector<std::int32_t> v(s.num_elements());
        for (auto& x : v) x = std::uniform_int_distribution<std::int32_t>(lo, hi)(rng_);
        return TensorData(std::move(v), s);
    }
    /// A scalar with two decimals (readable in the listing).
    double scalar(double lo, double hi) { return std::round(uniform(lo, hi) * 100.0) / 100.0; }

    Dims fdims(Ref r) { return fget(c_, r).dims(); }
    Dims idims(Ref r) { return iget(c_, r).dims(); }
    std::string fname(Ref r) { return str(r.tmp ? "t" : "f", r.k); }
    std::string iname(Ref r) { return str(r.tmp ? "it" : "i", r.k); }
    Ref pick_f() { return {false, pick(c_.f.size())}; }

    // ------------------------------------------------------------------ placing results
    template <class Tv, class Tc>
    static void place(std::vector<Tv>& pv, std::vector<Tc>& pc, std::size_t slot, Tv tv, Tc tc) {
        if (slot == pc.size()) {
            pv.push_back(std::move(tv));
            pc.push_back(std::move(tc));
        } else {
            pv[slot] = std::move(tv);
            pc[slot] = std::move(tc);
        }
    }
    /// Computes `f(pool)` on both backends (clamped when `bound`) and stores it in a slot.
    template <class F>
    void put_f(const std::string& desc, F f, bool bound = true) {
        put_f_at(c_.f.size() < kMaxFloats ? c_.f.size() : pick(kMaxFloats), desc, std::move(f),
                 bound);
    }
    template <class F>
    void put_f_at(std::size_t slot, const std::string& desc, F f, bool bound = true) {
        auto tv = f(v_);
        auto tc = f(c_);
        if (bound) {
            tv = std::move(tv).clamp(-kBound, kBound);
            tc = std::move(tc).clamp(-kBound, kBound);
        }
        place(v_.f, c_.f, slot, std::move(tv), std::move(tc));
        log_.push_back(str("f", slot, " = ", desc, (bound ? " (clamped)" : ""), "  -> ",
                           dims_str(c_.f[slot].dims())));
    }
    template <class F>
    void put_i(const std::string& desc, F f) {
        auto tv = f(v_);
        auto tc = f(c_);
        const std::size_t slot = c_.i.size() < kMaxInts ? c_.i.size() : pick(kMaxInts);
        place(v_.i, c_.i, slot, std::move(tv), std::move(tc));
        log_.push_back(str("i", slot, " = ", desc, "  -> ", dims_str(c_.i[slot].dims())));
    }
    /// A new float input in the pool.
    void put_f_leaf(const Dims& d) {
        const TensorData data = floats(d, -2.0, 2.0);
        put_f(
            "input uniform(-2, 2)", [&](auto& p) { return leaf(p, data); }, false);
    }
    void put_i_leaf(const Dims& d) {
        const TensorData data = ints(Shape(d), -20, 20);
        put_i("input ints(-20, 20)", [&](auto& p) {
            using B = typename std::decay_t<decltype(p)>::Backend;
            return Tensor<B, 3, Int>::from_data(data);
        });
    }
    template <class P>
    static auto leaf(P& p, const TensorData& data) {
        using B = typename P::Backend;
        auto t = Tensor<B, 3>::from_data(data);
        if constexpr (AutodiffBackend<B>) t = t.require_grad();
        p.leaves.push_back(t);
        return t;
    }
    /// A new float input as a step temporary.
    Ref tmp_leaf(const Dims& d) {
        const TensorData data = floats(d, -2.0, 2.0);
        v_.tmp.push_back(leaf(v_, data));
        c_.tmp.push_back(leaf(c_, data));
        log_.push_back(str("t", c_.tmp.size() - 1, " = input uniform(-2, 2) ", dims_str(d)));
        return {true, c_.tmp.size() - 1};
    }
    Ref tmp_ints(const Shape& s, std::int32_t lo, std::int32_t hi) {
        const TensorData data = ints(s, lo, hi);
        v_.itmp.push_back(Tensor<BV, 3, Int>::from_data(data));
        c_.itmp.push_back(Tensor<BC, 3, Int>::from_data(data));
        log_.push_back(str("it", c_.itmp.size() - 1, " = input ints(", lo, ", ", hi, ") ", s));
        return {true, c_.itmp.size() - 1};
    }

    // ------------------------------------------------------------------ operand choices
    static bool broadcasts_into(const Dims& from, const Dims& to) {
        for (std::size_t d = 0; d < 3; ++d)
            if (from[d] != to[d] && from[d] != 1) return false;
        return true;
    }
    static bool mutual(const Dims& a, const Dims& b) {
        for (std::size_t d = 0; d < 3; ++d)
            if (a[d] != b[d] && a[d] != 1 && b[d] != 1) return false;
        return true;
    }
    Dims squeezed(const Dims& s) {
        Dims d = s;
        for (auto& x : d)
            if (chance(0.3)) x = 1;
        return d;
    }
    /// A float operand broadcasting with (mutual) or into `s`: a live one, or a new input.
    Ref partner(const Dims& s, bool into) {
        std::vector<std::size_t> cand;
        for (std::size_t k = 0; k < c_.f.size(); ++k) {
            const Dims d = c_.f[k].dims();
            if (into ? broadcasts_into(d, s) : mutual(d, s)) cand.push_back(k);
        }
        if (cand.empty() || chance(0.3)) return tmp_leaf(squeezed(s));
        return {false, cand[pick(cand.size())]};
    }

    // ------------------------------------------------------------------ checks
    void check_all(const std::string& when) {
        for (std::size_t k = 0; k < c_.f.size() && failure_.empty(); ++k) {
            const auto m = mismatch(v_.f[k].to_data(), c_.f[k].to_data(), kTol);
            if (!m.empty()) fail(str("f", k, " differs ", when, ": ", m));
        }
        for (std::size_t k = 0; k < c_.i.size() && failure_.empty(); ++k) {
            const auto m = mismatch(v_.i[k].to_data(), c_.i[k].to_data(), 0.0);
            if (!m.empty()) fail(str("i", k, " differs ", when, ": ", m));
        }
    }
    void check_gradients() {
        if constexpr (AutodiffBackend<BV>) check_gradients_impl();
    }
    void check_gradients_impl() {
        auto loss = [](auto& p) {
            auto l = p.f[0].sum();
            for (std::size_t k = 1; k < p.f.size(); ++k)
                l = l + p.f[k].sum() * (0.5 * static_cast<double>(k + 1));
            for (auto& x : p.leaves) l = l + x.sum() * 0.1;  // every input gets a gradient
            return l;
        };
        const auto gv = loss(v_).backward();
        const auto gc = loss(c_).backward();
        for (std::size_t k = 0; k < c_.leaves.size() && failure_.empty(); ++k) {
            const auto a = v_.leaves[k].grad(gv);
            const auto b = c_.leaves[k].grad(gc);
            if (a.has_value() != b.has_value()) {
                fail(str("gradient of input ", k, ": present on ", a ? kGpuName : "cpu", " only"));
            } else if (a) {
                const auto m = mismatch(a->to_data(), b->to_data(), 4 * kTol);
                if (!m.empty()) fail(str("gradient of input ", k, " differs: ", m));
            }
        }
    }
    /// Both masks of a comparison whose operands differ by `diff` (from the CPU): they must agree
    /// where |diff| is above the tolerance; near ties, Vulkan's is replaced by the CPU's.
    template <class Mv, class Mc>
    void settle_mask(Mv mv, Mc mc, const TensorData& diff, const TensorData& base) {
        const TensorData dv = mv.to_data(), dc = mc.to_data();
        std::size_t ties = 0;
        if (dv.shape != dc.shape) return fail(str("mask shape ", dv.shape, " vs ", dc.shape));
        for (std::size_t j = 0; j < dc.num_elements(); ++j) {
            if (dv.value_as_double(j) == dc.value_as_double(j)) continue;
            const double margin = kTol * (1.0 + std::abs(base.value_as_double(j)));
            if (std::abs(diff.value_as_double(j)) > margin)
                return fail(str("comparison mask element ", j, " of ", dc.shape, ": ", kGpuName,
                                " ", dv.value_as_double(j), ", cpu ", dc.value_as_double(j),
                                " (operands differ by ", diff.value_as_double(j), ")"));
            ++ties;
        }
        if (ties > 0) {
            log_.push_back(str("   (", ties, " near-tie mask elements taken from the cpu)"));
            mv = Mv::from_data(dc);
        }
        v_.masks.push_back(std::move(mv));
        c_.masks.push_back(std::move(mc));
    }
    /// Whether two values along `dim` of the CPU tensor are within the tolerance (a max/min
    /// gradient would then depend on rounding).
    bool near_tie(const TensorData& data, const Dims& s, std::size_t dim) {
        const auto v = data.to_vec<float>();
        Dims st{s[1] * s[2], s[2], 1};
        std::array<std::size_t, 2> others{dim == 0 ? 1u : 0u, dim == 2 ? 1u : 2u};
        for (std::size_t a = 0; a < s[others[0]]; ++a)
            for (std::size_t b = 0; b < s[others[1]]; ++b) {
                std::vector<float> lane;
                for (std::size_t x = 0; x < s[dim]; ++x)
                    lane.push_back(v[a * st[others[0]] + b * st[others[1]] + x * st[dim]]);
                std::sort(lane.begin(), lane.end());
                for (std::size_t x = 1; x < lane.size(); ++x)
                    if (lane[x] - lane[x - 1] <= kTol * (1.0 + std::abs(lane[x]))) return true;
            }
        return false;
    }

    // ------------------------------------------------------------------ the steps
    void step() {
        // Weighted: views and elementwise ops most often.
        static constexpr int kWeights[] = {4, 3, 4, 2, 3, 5, 2, 3, 2, 2, 3, 2, 3, 1, 3};
        int total = 0;
        for (int w : kWeights) total += w;
        int r = static_cast<int>(pick(static_cast<std::size_t>(total)));
        std::size_t op = 0;
        while (r >= kWeights[op]) r -= kWeights[op++];
        switch (op) {
            case 0: return unary();
            case 1: return activation();
            case 2: return binary();
            case 3: return scalar_op();
            case 4: return matmul();
            case 5: return view();
            case 6: return concat();
            case 7: return reduce();
            case 8: return gather();
            case 9: return select();
            case 10: return compare_mask();
            case 11: return cumsum();
            case 12: return int_op();
            case 13: return in_place();
            default:
                return put_f_leaf(chance(0.3) ? wide_dims()
                                              : Dims{range(2, 5), range(2, 5), range(2, 5)});
        }
    }

    void unary() {
        const Ref a = pick_f();
        const std::string x = fname(a);
        switch (pick(8)) {
            case 0:
                return put_f(str("exp(clamp(", x, ", -3, 3))"),
                             [=](auto& p) { return fget(p, a).clamp(-3.0, 3.0).exp(); });
            case 1:
                return put_f(
                    str("tanh(", x, ")"), [=](auto& p) { return fget(p, a).tanh(); }, false);
            case 2:
                return put_f(
                    str("abs(", x, ")"), [=](auto& p) { return fget(p, a).abs(); }, false);
            case 3:
                return put_f(
                    str("-", x), [=](auto& p) { return -fget(p, a); }, false);
            case 4:
                return put_f(
                    str("sqrt(abs(", x, ") + 0.01)"),
                    [=](auto& p) { return (fget(p, a).abs() + 0.01).sqrt(); }, false);
            case 5:
                return put_f(
                    str("log(abs(", x, ") + 1)"),
                    [=](auto& p) { return (fget(p, a).abs() + 1.0).log(); }, false);
            case 6:
                return put_f(
                    str("sin(", x, ")"), [=](auto& p) { return fget(p, a).sin(); }, false);
            default:
                return put_f(
                    str("1 / (abs(", x, ") + 0.5)"),
                    [=](auto& p) { return (fget(p, a).abs() + 0.5).recip(); }, false);
        }
    }

    /// An op on a slot's own tensor, moved (the backend may write into its buffer when no other
    /// tensor or view shares it), stored back in that slot.
    void in_place() {
        const Ref a = pick_f();
        const std::string x = fname(a);
        const double s = scalar(-2.0, 2.0);
        switch (pick(5)) {
            case 0:
                return put_f_at(a.k, str("exp(clamp(move ", x, ", -3, 3))"), [=](auto& p) {
                    return std::move(fget(p, a)).clamp(-3.0, 3.0).exp();
                });
            case 1:
                return put_f_at(a.k, str("(move ", x, ") * ", s, " + 0.5"),
                                [=](auto& p) { return std::move(fget(p, a)) * s + 0.5; });
            case 2:
                return put_f_at(
                    a.k, str("abs(tanh(move ", x, "))"),
                    [=](auto& p) { return std::move(fget(p, a)).tanh().abs(); }, false);
            default: {
                // b broadcasts into a, so the result has a's shape; b may share a's buffer.
                const Ref b = partner(fdims(a), true);
                const bool sub = chance(0.5);
                return put_f_at(a.k, str("(move ", x, ") ", sub ? "- " : "* ", fname(b)),
                                [=](auto& p) {
                                    auto y = fget(p, b);
                                    return sub ? std::move(fget(p, a)) - std::move(y)
                                               : std::move(fget(p, a)) * std::move(y);
                                });
            }
        }
    }

    void activation() {
        const Ref a = pick_f();
        const std::string x = fname(a);
        const auto d = static_cast<std::int64_t>(pick(3));
        switch (pick(5)) {
            case 0:
                return put_f(
                    str("relu(", x, ")"), [=](auto& p) { return activation::relu(fget(p, a)); },
                    false);
            case 1:
                return put_f(
                    str("gelu(", x, ")"), [=](auto& p) { return activation::gelu(fget(p, a)); },
                    false);
            case 2:
                return put_f(
                    str("sigmoid(", x, ")"),
                    [=](auto& p) { return activation::sigmoid(fget(p, a)); }, false);
            case 3:
                return put_f(
                    str("softmax(", x, ", ", d, ")"),
                    [=](auto& p) { return activation::softmax(fget(p, a), d); }, false);
            default:
                return put_f(str("log_softmax(", x, ", ", d, ")"),
                             [=](auto& p) { return activation::log_softmax(fget(p, a), d); });
        }
    }

    void binary() {
        const Ref a = pick_f();
        const Ref b = partner(fdims(a), false);
        const std::string x = fname(a), y = fname(b);
        switch (pick(4)) {
            case 0:
                return put_f(str(x, " + ", y), [=](auto& p) { return fget(p, a) + fget(p, b); });
            case 1:
                return put_f(str(x, " - ", y), [=](auto& p) { return fget(p, a) - fget(p, b); });
            case 2:
                return put_f(str(x, " * ", y), [=](auto& p) { return fget(p, a) * fget(p, b); });
            default: {
                const bool neg = chance(0.5);
                return put_f(str(x, " / (", neg ? "-" : "", "(abs(", y, ") + 0.5))"), [=](auto& p) {
                    auto den = fget(p, b).abs() + 0.5;
                    return fget(p, a) / (neg ? -den : den);
                });
            }
        }
    }

    void scalar_op() {
        const Ref a = pick_f();
        const std::string x = fname(a);
        const double s = scalar(-2.0, 2.0);
        switch (pick(4)) {
            case 0: return put_f(str(x, " + ", s), [=](auto& p) { return fget(p, a) + s; });
            case 1: return put_f(str(x, " * ", s), [=](auto& p) { return fget(p, a) * s; });
            case 2: {
                const double den = (s < 0 ? -1.0 : 1.0) * (std::abs(s) + 0.5);
                return put_f(str(x, " / ", den), [=](auto& p) { return fget(p, a) / den; });
            }
            default: return put_f(str(s, " - ", x), [=](auto& p) { return s - fget(p, a); });
        }
    }

    void matmul() {
        const Ref a = pick_f();
        const Dims s = fdims(a);
        // a [b, m, k] times a live [b or 1, k, n], a new input, or a's own transpose; results
        // stay below kMaxElems.
        std::vector<std::size_t> cand;
        for (std::size_t k = 0; k < c_.f.size(); ++k) {
            const Dims d = c_.f[k].dims();
            if (d[1] == s[2] && (d[0] == s[0] || d[0] == 1 || s[0] == 1) &&
                std::max(d[0], s[0]) * s[1] * d[2] <= kMaxElems)
                cand.push_back(k);
        }
        const bool self_ok = s[0] * s[1] * s[1] <= kMaxElems;
        const double scale = 1.0 / static_cast<double>(s[2]);
        const std::size_t how = pick(3);
        if (how == 0 && !cand.empty()) {
            const Ref b{false, cand[pick(cand.size())]};
            return put_f(str("matmul(", fname(a), ", ", fname(b), ") * ", scale),
                         [=](auto& p) { return fget(p, a).matmul(fget(p, b)) * scale; });
        }
        if (how == 1 && self_ok) {
            return put_f(
                str("matmul(", fname(a), ", swap_dims(", fname(a), ", 1, 2)) * ", scale),
                [=](auto& p) { return fget(p, a).matmul(fget(p, a).swap_dims(1, 2)) * scale; });
        }
        const std::size_t n = range(1, std::clamp<std::size_t>(kMaxElems / (s[0] * s[1]), 1, 5));
        const Ref b = tmp_leaf({chance(0.3) ? 1 : s[0], s[2], n});
        return put_f(str("matmul(", fname(a), ", ", fname(b), ") * ", scale),
                     [=](auto& p) { return fget(p, a).matmul(fget(p, b)) * scale; });
    }

    void view() {
        const Ref a = pick_f();
        const Dims s = fdims(a);
        const std::string x = fname(a);
        switch (pick(7)) {
            case 0: {
                const auto d0 = static_cast<std::int64_t>(pick(3)),
                           d1 = static_cast<std::int64_t>(pick(3));
                return put_f(
                    str("swap_dims(", x, ", ", d0, ", ", d1, ")"),
                    [=](auto& p) { return fget(p, a).swap_dims(d0, d1); }, false);
            }
            case 1: {
                std::array<std::int64_t, 3> perm{0, 1, 2};
                std::shuffle(perm.begin(), perm.end(), rng_);
                return put_f(
                    str("permute(", x, ", [", perm[0], ", ", perm[1], ", ", perm[2], "])"),
                    [=](auto& p) { return fget(p, a).permute(perm); }, false);
            }
            case 2: {
                // A random factorisation of the element count into three dims.
                const std::size_t n = s[0] * s[1] * s[2];
                auto divisor = [&](std::size_t m) {
                    std::vector<std::size_t> ds;
                    for (std::size_t q = 1; q <= m; ++q)
                        if (m % q == 0) ds.push_back(q);
                    return ds[pick(ds.size())];
                };
                std::size_t d0 = divisor(n), d1 = divisor(n / d0), d2 = n / d0 / d1;
                const std::array<std::int64_t, 3> to{static_cast<std::int64_t>(d0),
                                                     static_cast<std::int64_t>(d1),
                                                     static_cast<std::int64_t>(d2)};
                return put_f(
                    str("reshape(", x, ", [", d0, ", ", d1, ", ", d2, "])"),
                    [=](auto& p) { return fget(p, a).reshape(to); }, false);
            }
            case 3: {
                std::vector<Slice> sl;
                std::string desc = str("slice(", x, ", [");
                for (std::size_t d = 0; d < 3; ++d) {
                    const auto lo = static_cast<std::int64_t>(pick(s[d]));
                    const auto hi =
                        static_cast<std::int64_t>(range(static_cast<std::size_t>(lo) + 1, s[d]));
                    const std::int64_t st = chance(0.3) ? 2 : 1;
                    sl.emplace_back(lo, hi, st);
                    desc += str(d ? ", " : "", lo, "..", hi, st > 1 ? " step 2" : "");
                }
                return put_f(
                    desc + "])", [=](auto& p) { return fget(p, a).slice(sl); }, false);
            }
            case 4: {
                const std::size_t d = pick(3);
                const std::size_t start = pick(s[d]), len = range(1, s[d] - start);
                return put_f(
                    str("narrow(", x, ", ", d, ", ", start, ", ", len, ")"),
                    [=](auto& p) {
                        return fget(p, a).narrow(static_cast<std::int64_t>(d), start, len);
                    },
                    false);
            }
            case 5: {
                std::vector<std::int64_t> axes;
                for (std::int64_t d = 0; d < 3; ++d)
                    if (chance(0.5)) axes.push_back(d);
                if (axes.empty()) axes.push_back(static_cast<std::int64_t>(pick(3)));
                std::string desc = str("flip(", x, ", [");
                for (std::size_t j = 0; j < axes.size(); ++j) desc += str(j ? ", " : "", axes[j]);
                return put_f(
                    desc + "])", [=](auto& p) { return fget(p, a).flip(axes); }, false);
            }
            default: {
                // Expand the size-1 dims (stride-0 views); none: a view of a new [1, ...] input.
                std::array<std::int64_t, 3> to{};
                bool any = false;
                for (std::size_t d = 0; d < 3; ++d) {
                    to[d] = static_cast<std::int64_t>(s[d] == 1 ? range(1, 4) : s[d]);
                    any = any || s[d] == 1;
                }
                if (!any) {
                    const Ref b = tmp_leaf({1, s[1], 1});
                    const std::array<std::int64_t, 3> t2{static_cast<std::int64_t>(s[0]),
                                                         static_cast<std::int64_t>(s[1]),
                                                         static_cast<std::int64_t>(range(2, 4))};
                    return put_f(
                        str("expand(", fname(b), ", [", t2[0], ", ", t2[1], ", ", t2[2], "])"),
                        [=](auto& p) { return fget(p, b).expand(t2); }, false);
                }
                return put_f(
                    str("expand(", x, ", [", to[0], ", ", to[1], ", ", to[2], "])"),
                    [=](auto& p) { return fget(p, a).expand(to); }, false);
            }
        }
    }

    void concat() {
        const Ref a = pick_f();
        const Dims s = fdims(a);
        const std::size_t d = pick(3);
        std::vector<Ref> parts{a};
        const std::size_t row = s[0] * s[1] * s[2] / s[d];  // elements per index along d
        std::size_t len = s[d];
        for (std::size_t k = 0; k < c_.f.size() && parts.size() < 3; ++k) {
            const Dims o = c_.f[k].dims();
            bool same = true;
            for (std::size_t j = 0; j < 3; ++j) same = same && (j == d || o[j] == s[j]);
            if (same && (len + o[d]) * row <= kMaxElems && chance(0.6)) {
                parts.push_back({false, k});
                len += o[d];
            }
        }
        if (parts.size() == 1) {
            Dims o = s;
            o[d] = range(1, 3);
            parts.push_back(tmp_leaf(o));
        }
        std::string desc = "cat([";
        for (std::size_t j = 0; j < parts.size(); ++j) desc += str(j ? ", " : "", fname(parts[j]));
        desc += str("], ", d, ")");
        put_f(
            desc,
            [=](auto& p) {
                using T = std::decay_t<decltype(p.f[0])>;
                std::vector<T> ts;
                for (const Ref& r : parts) ts.push_back(fget(p, r));
                return T::cat(std::move(ts), static_cast<std::int64_t>(d));
            },
            false);
    }

    void reduce() {
        const Ref a = pick_f();
        const auto d = static_cast<std::int64_t>(pick(3));
        const std::string x = fname(a);
        std::size_t op = pick(4);
        if (op >= 2 && autodiff_ &&
            near_tie(fget(c_, a).to_data(), fdims(a), static_cast<std::size_t>(d))) {
            log_.push_back(str("   (", op == 2 ? "max" : "min", "_dim of ", x,
                               " has near ties: mean_dim instead)"));
            op = 1;
        }
        switch (op) {
            case 0:
                return put_f(str("sum_dim(", x, ", ", d, ")"),
                             [=](auto& p) { return fget(p, a).sum_dim(d); });
            case 1:
                return put_f(
                    str("mean_dim(", x, ", ", d, ")"),
                    [=](auto& p) { return fget(p, a).mean_dim(d); }, false);
            case 2:
                return put_f(
                    str("max_dim(", x, ", ", d, ")"),
                    [=](auto& p) { return fget(p, a).max_dim(d); }, false);
            default:
                return put_f(
                    str("min_dim(", x, ", ", d, ")"),
                    [=](auto& p) { return fget(p, a).min_dim(d); }, false);
        }
    }

    void gather() {
        const Ref a = pick_f();
        const Dims s = fdims(a);
        const std::size_t d = pick(3);
        Shape is{s[0], s[1], s[2]};
        for (std::size_t j = 0; j < 3; ++j)
            if (chance(0.3)) is[j] = range(1, s[j]);
        is[d] = range(1, 5);
        const bool on_device = chance(0.5);
        const auto n = static_cast<std::int64_t>(s[d]);
        // Indices in range, or in [0, 40) brought in range on the device (abs, remainder).
        const Ref idx =
            on_device ? tmp_ints(is, -40, 40) : tmp_ints(is, 0, static_cast<std::int32_t>(n - 1));
        const std::string ix = on_device ? str("abs(", iname(idx), ") % ", n) : iname(idx);
        put_f(
            str("gather(", fname(a), ", ", d, ", ", ix, ")"),
            [=](auto& p) {
                auto i = iget(p, idx);
                if (on_device) i = i.abs().rem_scalar(n);
                return fget(p, a).gather(static_cast<std::int64_t>(d), i);
            },
            false);
    }

    void select() {
        const Ref a = pick_f();
        const Dims s = fdims(a);
        const std::size_t d = pick(3);
        const TensorData idx = ints(Shape{range(1, 5)}, 0, static_cast<std::int32_t>(s[d] - 1));
        v_.idx1.push_back(Tensor<BV, 1, Int>::from_data(idx));
        c_.idx1.push_back(Tensor<BC, 1, Int>::from_data(idx));
        std::string list;
        for (std::size_t j = 0; j < idx.num_elements(); ++j)
            list += str(j ? ", " : "", idx.value_as_double(j));
        put_f(
            str("select(", fname(a), ", ", d, ", [", list, "])"),
            [=](auto& p) { return fget(p, a).select(static_cast<std::int64_t>(d), p.idx1[0]); },
            false);
    }

    void compare_mask() {
        const Ref a = pick_f();
        const Dims s = fdims(a);
        const std::size_t op = pick(4);
        static constexpr const char* kOps[] = {">", ">=", "<", "<="};
        auto cmp = [op](const auto& x, const auto& y) {
            switch (op) {
                case 0: return x.greater(y);
                case 1: return x.greater_equal(y);
                case 2: return x.lower(y);
                default: return x.lower_equal(y);
            }
        };
        auto cmp_elem = [op](const auto& x, double y) {
            switch (op) {
                case 0: return x.greater_elem(y);
                case 1: return x.greater_equal_elem(y);
                case 2: return x.lower_elem(y);
                default: return x.lower_equal_elem(y);
            }
        };
        std::string cond;
        if (chance(0.4)) {
            const double t = scalar(-1.5, 1.5);
            cond = str(fname(a), " ", kOps[op], " ", t);
            const auto diff = (fget(c_, a).detach() - t).to_data();
            settle_mask(cmp_elem(fget(v_, a), t), cmp_elem(fget(c_, a), t), diff,
                        fget(c_, a).to_data());
        } else {
            const Ref b = partner(s, true);
            cond = str(fname(a), " ", kOps[op], " ", fname(b));
            const auto diff = (fget(c_, a).detach() - fget(c_, b).detach()).to_data();
            settle_mask(cmp(fget(v_, a), fget(v_, b)), cmp(fget(c_, a), fget(c_, b)), diff,
                        fget(c_, a).to_data());
        }
        if (!failure_.empty()) return;
        // Where the mask holds: a value, or a live tensor (or new input) broadcasting into a.
        if (chance(0.4)) {
            const double v = scalar(-3.0, 3.0);
            return put_f(
                str("mask_fill(", fname(a), ", ", cond, ", ", v, ")"),
                [=](auto& p) { return fget(p, a).mask_fill(p.masks[0], v); }, false);
        }
        const Ref b = partner(s, true);
        put_f(
            str("mask_where(", fname(a), ", ", cond, ", ", fname(b), ")"),
            [=](auto& p) { return fget(p, a).mask_where(p.masks[0], fget(p, b)); }, false);
    }

    void cumsum() {
        const Ref a = pick_f();
        const auto d = static_cast<std::int64_t>(pick(3));
        put_f(str("cumsum(", fname(a), ", ", d, ")"),
              [=](auto& p) { return fget(p, a).cumsum(d); });
    }

    void int_op() {
        if (c_.i.empty() || chance(0.15)) {
            const Dims d = chance(0.5) ? random_dims() : fdims(pick_f());
            return put_i_leaf(d);
        }
        const Ref a{false, pick(c_.i.size())};
        const Dims s = idims(a);
        const std::string x = iname(a);
        const auto dim = static_cast<std::int64_t>(pick(3));
        switch (pick(7)) {
            case 0: {
                // Another live int tensor broadcasting with a, or a new input of a's shape.
                std::vector<std::size_t> cand;
                for (std::size_t k = 0; k < c_.i.size(); ++k)
                    if (mutual(c_.i[k].dims(), s)) cand.push_back(k);
                const Ref b = cand.empty() || chance(0.3) ? tmp_ints(Shape(squeezed(s)), -20, 20)
                                                          : Ref{false, cand[pick(cand.size())]};
                const std::size_t op = pick(3);
                static constexpr const char* kOps[] = {"+", "-", "*"};
                return put_i(str("clamp(", x, " ", kOps[op], " ", iname(b), ", -1000, 1000)"),
                             [=](auto& p) {
                                 auto r = op == 0   ? iget(p, a) + iget(p, b)
                                          : op == 1 ? iget(p, a) - iget(p, b)
                                                    : iget(p, a) * iget(p, b);
                                 return r.clamp(std::int64_t{-1000}, std::int64_t{1000});
                             });
            }
            case 1:
                return put_i(str("clamp(sum_dim(", x, ", ", dim, "), -1000, 1000)"), [=](auto& p) {
                    return iget(p, a).sum_dim(dim).clamp(std::int64_t{-1000}, std::int64_t{1000});
                });
            case 2:
                return put_i(str("clamp(cumsum(", x, ", ", dim, "), -1000, 1000)"), [=](auto& p) {
                    return iget(p, a).cumsum(dim).clamp(std::int64_t{-1000}, std::int64_t{1000});
                });
            case 3:
                return put_i(str("abs(", x, ") % 7 - 3"), [=](auto& p) {
                    return iget(p, a).abs().rem_scalar(std::int64_t{7}) - std::int64_t{3};
                });
            case 4: {
                const auto d1 = static_cast<std::int64_t>(pick(3));
                return put_i(str("flip(swap_dims(", x, ", ", dim, ", ", d1, "), [", dim, "])"),
                             [=](auto& p) { return iget(p, a).swap_dims(dim, d1).flip({dim}); });
            }
            case 5:
                return put_f(str("float(", x, ") * 0.05"),
                             [=](auto& p) { return iget(p, a).into_float() * 0.05; });
            default: {
                // An int comparison (exact) masking a float tensor of the same shape.
                std::vector<std::size_t> cand;
                for (std::size_t k = 0; k < c_.f.size(); ++k)
                    if (c_.f[k].dims() == s) cand.push_back(k);
                const Ref f = cand.empty() ? tmp_leaf(s) : Ref{false, cand[pick(cand.size())]};
                const auto t = static_cast<std::int64_t>(range(0, 10)) - 5;
                const double v = scalar(-3.0, 3.0);
                return put_f(
                    str("mask_fill(", fname(f), ", ", x, " > ", t, ", ", v, ")"),
                    [=](auto& p) { return fget(p, f).mask_fill(iget(p, a).greater_elem(t), v); },
                    false);
            }
        }
    }
};

/// The seeds to run: BURN_VK_RANDOM_SEED=<s> runs only s; BURN_VK_RANDOM_SEEDS=<n> runs n.
std::vector<std::uint64_t> seeds(std::uint64_t first, std::size_t count) {
    if (const char* e = std::getenv("BURN_VK_RANDOM_SEED"); e && *e)
        return {std::strtoull(e, nullptr, 10)};
    if (const char* e = std::getenv("BURN_VK_RANDOM_SEEDS"); e && *e)
        count = std::strtoull(e, nullptr, 10);
    std::vector<std::uint64_t> out(count);
    std::iota(out.begin(), out.end(), first);
    return out;
}

}  // namespace

#if defined(BURN_GPU_TEST_CUDA) && defined(BURN_GPU_TEST_FUSION)
#define BURN_RANDOM_PROGRAM_SUITE CudaFusionRandomProgram
#elif defined(BURN_GPU_TEST_CUDA)
#define BURN_RANDOM_PROGRAM_SUITE CudaRandomProgram
#elif defined(BURN_GPU_TEST_VULKAN) && defined(BURN_GPU_TEST_FUSION)
#define BURN_RANDOM_PROGRAM_SUITE VulkanFusionRandomProgram
#elif defined(BURN_GPU_TEST_FUSION)
#define BURN_RANDOM_PROGRAM_SUITE FusionRandomProgram
#else
#define BURN_RANDOM_PROGRAM_SUITE VulkanRandomProgram
#endif

TEST(BURN_RANDOM_PROGRAM_SUITE, MatchesCpu) {
    BURN_REQUIRE_VULKAN();
    std::size_t failed = 0;
    for (const auto seed : seeds(1, 50)) {
        if (!Program<VB, CB>(seed, false).run() && ++failed >= 3) break;  // a few, not fifty
    }
}

TEST(BURN_RANDOM_PROGRAM_SUITE, AutodiffGradientsMatchCpu) {
    BURN_REQUIRE_VULKAN();
    std::size_t failed = 0;
    for (const auto seed : seeds(1001, 12)) {
        if (!Program<Autodiff<VB>, Autodiff<CB>>(seed, true).run() && ++failed >= 3) break;
    }
}
