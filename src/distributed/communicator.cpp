// SPDX-License-Identifier: MIT OR Apache-2.0
// burn::distributed::Communicator over Gloo: TCP pairs between every two ranks (a full mesh),
// rendezvous through Gloo's FileStore, Gloo's collective algorithms. Gloo's exceptions become
// burn::Error naming the collective and the rank; after one the communicator refuses further use.
#include "burn/distributed/communicator.hpp"

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <vector>

namespace burn::distributed {

struct Communicator::Impl {
    int rank = 0;
    int world_size = 1;
    std::chrono::milliseconds timeout{};
    bool check_arguments = true;
    std::shared_ptr<gloo::transport::Device> device;
    std::shared_ptr<gloo::rendezvous::Context> context;  // null when world_size == 1
    std::string broken;  // the failure that made this communicator unusable
};

namespace {

using ReduceFn = void (*)(void*, const void*, const void*, std::size_t);

const char* op_name(ReduceOp op) {
    switch (op) {
        case ReduceOp::Sum: return "Sum";
        case ReduceOp::Mean: return "Mean";
        case ReduceOp::Product: return "Product";
        case ReduceOp::Max: return "Max";
        case ReduceOp::Min: return "Min";
    }
    return "?";
}

/// A half-precision element (H = burn::f16 or burn::bf16) as Gloo moves it: 16 bits, combined
/// in f32 and rounded once per combination.
template <class H>
struct HalfElem {
    using Half = H;
    std::uint16_t bits;
};
template <class T>
inline constexpr bool is_half_elem = requires {
    typename T::Half;
};

template <class H, class Op>
void half_combine(void* c, const void* a, const void* b, std::size_t n) {
    auto* out = static_cast<std::uint16_t*>(c);
    const auto* x = static_cast<const std::uint16_t*>(a);
    const auto* y = static_cast<const std::uint16_t*>(b);
    for (std::size_t i = 0; i < n; ++i)
        out[i] = H(Op{}(float(H::from_bits(x[i])), float(H::from_bits(y[i])))).bits;
}

// Max and min propagate NaN, as the f32 reductions do.
struct MaxOf {
    float operator()(float a, float b) const { return a != a || b != b ? a + b : (a < b ? b : a); }
};
struct MinOf {
    float operator()(float a, float b) const { return a != a || b != b ? a + b : (b < a ? b : a); }
};
struct SumOf {
    float operator()(float a, float b) const { return a + b; }
};
struct ProductOf {
    float operator()(float a, float b) const { return a * b; }
};

template <class T>
ReduceFn reduce_fn_full(ReduceOp op) {
    switch (op) {
        case ReduceOp::Product: return &gloo::product<T>;
        case ReduceOp::Max: return &gloo::max<T>;
        case ReduceOp::Min: return &gloo::min<T>;
        case ReduceOp::Sum:
        case ReduceOp::Mean: break;
    }
    return &gloo::sum<T>;
}

template <class T>
ReduceFn reduce_fn(ReduceOp op) {
    if constexpr (is_half_elem<T>) {
        using H = typename T::Half;
        switch (op) {
            case ReduceOp::Product: return &half_combine<H, ProductOf>;
            case ReduceOp::Max: return &half_combine<H, MaxOf>;
            case ReduceOp::Min: return &half_combine<H, MinOf>;
            case ReduceOp::Sum:
            case ReduceOp::Mean: break;
        }
        return &half_combine<H, SumOf>;
    } else {
        return reduce_fn_full<T>(op);
    }
}

/// Calls f(T{}) with the element type of a reducible dtype.
template <class F>
void dispatch_reducible(const char* what, DType dtype, F&& f) {
    switch (dtype) {
        case DType::F32: return f(float{});
        case DType::F64: return f(double{});
        case DType::I32: return f(std::int32_t{});
        case DType::I64: return f(std::int64_t{});
        case DType::F16: return f(HalfElem<f16>{});
        case DType::BF16: return f(HalfElem<bf16>{});
        default: break;
    }
    detail::fail("distributed::", what, ": dtype ", dtype,
                 " cannot be reduced (F32, F64, F16, BF16, I32 or I64 can)");
}

/// A whole number from the environment variable `name`, or `fallback` when it is unset.
long env_int(const char* name, bool required, long fallback) {
    const char* v = std::getenv(name);
    if (!v || !*v) {
        BURN_CHECK(!required, "distributed::RendezvousOptions::from_env: ", name,
                   " is not set (BURN_RANK, BURN_WORLD_SIZE and BURN_STORE_DIR are required)");
        return fallback;
    }
    char* end = nullptr;
    errno = 0;
    const long n = std::strtol(v, &end, 10);
    BURN_CHECK(errno == 0 && end != v && *end == '\0',
               "distributed::RendezvousOptions::from_env: ", name, "='", v,
               "' is not a whole number");
    return n;
}

std::string env_str(const char* name, std::string fallback) {
    const char* v = std::getenv(name);
    return v && *v ? std::string(v) : fallback;
}

}  // namespace

RendezvousOptions RendezvousOptions::from_env() {
    RendezvousOptions o;
    o.rank = static_cast<int>(env_int("BURN_RANK", true, 0));
    o.world_size = static_cast<int>(env_int("BURN_WORLD_SIZE", true, 1));
    o.store_dir = env_str("BURN_STORE_DIR", "");
    BURN_CHECK(!o.store_dir.empty(),
               "distributed::RendezvousOptions::from_env: BURN_STORE_DIR is "
               "not set (BURN_RANK, BURN_WORLD_SIZE and BURN_STORE_DIR are "
               "required)");
    o.prefix = env_str("BURN_STORE_PREFIX", o.prefix);
    o.hostname = env_str("BURN_HOSTNAME", o.hostname);
    const long timeout_s = env_int("BURN_TIMEOUT_S", false, 60);
    BURN_CHECK(timeout_s > 0,
               "distributed::RendezvousOptions::from_env: BURN_TIMEOUT_S=", timeout_s,
               " must be positive");
    o.timeout = std::chrono::seconds(timeout_s);
    o.check_arguments = env_int("BURN_CHECK_COLLECTIVES", false, 1) != 0;
    return o;
}

Communicator::Communicator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Communicator::Communicator(Communicator&&) noexcept = default;
Communicator& Communicator::operator=(Communicator&&) noexcept = default;
Communicator::~Communicator() = default;

int Communicator::rank() const { return impl_->rank; }
int Communicator::world_size() const { return impl_->world_size; }

Communicator Communicator::connect(const RendezvousOptions& o) {
    BURN_CHECK(o.world_size >= 1, "distributed::connect: world_size is ", o.world_size,
               ", expected at least 1");
    BURN_CHECK(o.rank >= 0 && o.rank < o.world_size, "distributed::connect: rank ", o.rank,
               " is outside [0, ", o.world_size, ")");
    BURN_CHECK(o.timeout.count() > 0, "distributed::connect: the timeout must be positive");
    auto impl = std::make_unique<Impl>();
    impl->rank = o.rank;
    impl->world_size = o.world_size;
    impl->timeout = o.timeout;
    impl->check_arguments = o.check_arguments;
    if (o.world_size == 1) return Communicator(std::move(impl));
    BURN_CHECK(!o.store_dir.empty(), "distributed::connect: rank ", o.rank, " of ", o.world_size,
               ": no store directory (RendezvousOptions::store_dir, BURN_STORE_DIR)");
    std::error_code ec;
    std::filesystem::create_directories(o.store_dir, ec);
    BURN_CHECK(std::filesystem::is_directory(o.store_dir),
               "distributed::connect: store directory '", o.store_dir,
               "' does not exist and cannot be created", ec ? ": " + ec.message() : std::string());
    gloo::rendezvous::FileStore store(o.store_dir);
    // Removes this rank's keys: once every rank has read them, and when connecting fails (a later
    // job using the same directory and prefix must not find them).
    auto remove_keys = [&store] {
        std::error_code ignored;
        for (const auto& path : store.getAllKeyFilePaths()) std::filesystem::remove(path, ignored);
    };
    try {
        gloo::transport::tcp::attr attr;
        attr.hostname = o.hostname;
        impl->device = gloo::transport::tcp::CreateDevice(attr);
        gloo::rendezvous::PrefixStore prefixed(o.prefix, store);
        impl->context = std::make_shared<gloo::rendezvous::Context>(o.rank, o.world_size);
        impl->context->setTimeout(o.timeout);
        impl->context->connectFullMesh(prefixed, impl->device);
        // Every rank has read every address once all have passed this barrier.
        gloo::BarrierOptions barrier(impl->context);
        barrier.setTimeout(o.timeout);
        gloo::barrier(barrier);
        remove_keys();
    } catch (const std::exception& e) {
        remove_keys();
        detail::fail("distributed::connect: rank ", o.rank, " of ", o.world_size,
                     " could not connect to the other ranks (store '", o.store_dir, "', prefix '",
                     o.prefix, "', address ", o.hostname, ", timeout ", o.timeout.count(),
                     " ms): ", e.what());
    }
    return Communicator(std::move(impl));
}

namespace {

/// The collectives, as the ranks' check names them (reduce_scatter runs as an all-reduce).
enum Op : std::int64_t { kAllReduce, kBroadcast, kAllGather, kBarrier, kOpCount };
constexpr const char* kOpNames[kOpCount] = {"all_reduce", "broadcast", "all_gather", "barrier"};

/// What one rank passes to a collective, compared across the ranks before it runs.
struct Call {
    std::int64_t op = kAllReduce;
    std::int64_t arg = 0;     // reduce op, root
    std::int64_t dtype = -1;  // -1: bytes
    std::int64_t bytes = 0;
    std::array<std::int64_t, 9> shape{};  // rank, then dims; all -1 for raw buffers

    std::string describe() const {
        std::ostringstream s;
        s << bytes << " bytes";
        if (dtype >= 0) s << " of " << static_cast<DType>(dtype);
        if (shape[0] >= 0) {
            s << ", shape [";
            for (std::int64_t d = 0; d < shape[0]; ++d) s << (d ? ", " : "") << shape[1 + d];
            s << "]";
        }
        if (op == kAllReduce) s << ", " << op_name(static_cast<ReduceOp>(arg));
        if (op == kBroadcast) s << ", root " << arg;
        return s.str();
    }
};
Call make_call(Op op, std::int64_t arg, std::int64_t dtype, std::size_t bytes, const Shape* shape) {
    Call c;
    c.op = op;
    c.arg = arg;
    c.dtype = dtype;
    c.bytes = static_cast<std::int64_t>(bytes);
    c.shape.fill(-1);
    if (shape && shape->rank() < c.shape.size()) {
        c.shape[0] = static_cast<std::int64_t>(shape->rank());
        for (std::size_t d = 0; d < shape->rank(); ++d)
            c.shape[1 + d] = static_cast<std::int64_t>((*shape)[d]);
    }
    return c;
}

/// Runs one collective: refuses a broken communicator, checks that every rank made the same
/// call, and turns Gloo's exceptions into burn::Error.
template <class F>
void run_collective(Communicator::Impl& impl, const Call& call, F&& body, bool check = true) {
    const char* name = kOpNames[call.op];
    BURN_CHECK(impl.broken.empty(), "distributed::", name, ": rank ", impl.rank, " of ",
               impl.world_size, ": the communicator failed earlier and cannot be used (",
               impl.broken, ")");
    if (!impl.context) return body();  // a single rank
    try {
        if (impl.check_arguments && check) {
            std::vector<Call> all(static_cast<std::size_t>(impl.world_size));
            gloo::AllgatherOptions gather(impl.context);
            gather.setInput(const_cast<Call*>(&call), 1);
            gather.setOutput(all.data(), all.size());
            gather.setTimeout(impl.timeout);
            gloo::allgather(gather);
            for (int r = 0; r < impl.world_size; ++r) {
                const Call& other = all[static_cast<std::size_t>(r)];
                if (std::memcmp(&other, &all[0], sizeof(Call)) == 0) continue;
                std::ostringstream s;
                for (int k = 0; k < impl.world_size; ++k) {
                    const Call& c = all[static_cast<std::size_t>(k)];
                    s << (k ? "; " : "") << "rank " << k << ": "
                      << (c.op >= 0 && c.op < kOpCount ? kOpNames[c.op] : "?") << " of "
                      << c.describe();
                }
                detail::fail("distributed::", name, ": the ranks' calls differ (", s.str(),
                             "); every rank must call the same collectives in the same order "
                             "with the same sizes");
            }
        }
        body();
    } catch (const burn::Error& e) {
        impl.broken = e.what();
        throw;
    } catch (const std::exception& e) {
        std::ostringstream s;
        s << "distributed::" << name << ": rank " << impl.rank << " of " << impl.world_size
          << " failed (a peer exited, or did not join within " << impl.timeout.count()
          << " ms): " << e.what();
        impl.broken = s.str();
        detail::fail(s.str());
    }
}

/// All-reduce of `data` (of `dtype`); `shape`, when given, takes part in the ranks' check (skipped
/// with `check` false).
void reduce_bytes(Communicator::Impl& impl, std::span<std::byte> data, DType dtype, ReduceOp op,
                  const Shape* shape, bool check = true) {
    dispatch_reducible("all_reduce", dtype, [&](auto e) {
        using T = decltype(e);
        BURN_CHECK(data.size() % sizeof(T) == 0, "distributed::all_reduce: ", data.size(),
                   " bytes are not a whole number of ", dtype, " values");
        const std::size_t n = data.size() / sizeof(T);
        T* p = reinterpret_cast<T*>(data.data());
        const Call call = make_call(kAllReduce, static_cast<std::int64_t>(op),
                                    static_cast<std::int64_t>(dtype), data.size(), shape);
        run_collective(
            impl, call,
            [&] {
                if (impl.context && n > 0) {
                    gloo::AllreduceOptions opts(impl.context);
                    opts.setOutput(p, n);
                    opts.setReduceFunction(reduce_fn<T>(op));
                    opts.setTimeout(impl.timeout);
                    gloo::allreduce(opts);
                }
                if (op == ReduceOp::Mean && impl.world_size > 1) {
                    if constexpr (is_half_elem<T>) {
                        using H = typename T::Half;
                        for (std::size_t i = 0; i < n; ++i)
                            p[i].bits =
                                H(float(H::from_bits(p[i].bits)) / float(impl.world_size)).bits;
                    } else {
                        for (std::size_t i = 0; i < n; ++i)
                            p[i] = static_cast<T>(p[i] / impl.world_size);
                    }
                }
            },
            check);
    });
}

/// Broadcast of `data` from `root`; `dtype` (or -1) and `shape` take part in the ranks' check.
void broadcast_bytes(Communicator::Impl& impl, std::span<std::byte> data, int root,
                     std::int64_t dtype, const Shape* shape) {
    BURN_CHECK(root >= 0 && root < impl.world_size, "distributed::broadcast: root ", root,
               " is outside [0, ", impl.world_size, ")");
    run_collective(impl, make_call(kBroadcast, root, dtype, data.size(), shape), [&] {
        if (!impl.context || data.empty()) return;
        gloo::BroadcastOptions opts(impl.context);
        opts.setOutput(reinterpret_cast<std::uint8_t*>(data.data()), data.size());
        opts.setRoot(root);
        opts.setTimeout(impl.timeout);
        gloo::broadcast(opts);
    });
}

/// All-gather of `in` into `out` (world_size x in); `dtype` (or -1) and `shape` as above.
void gather_bytes(Communicator::Impl& impl, std::span<const std::byte> in, std::span<std::byte> out,
                  std::int64_t dtype, const Shape* shape) {
    const auto ws = static_cast<std::size_t>(impl.world_size);
    BURN_CHECK(out.size() == in.size() * ws, "distributed::all_gather: the output has ", out.size(),
               " bytes, expected ", ws, " x ", in.size(), " (world size x input)");
    run_collective(impl, make_call(kAllGather, 0, dtype, in.size(), shape), [&] {
        if (!impl.context) {
            if (!in.empty()) std::memcpy(out.data(), in.data(), in.size());
            return;
        }
        if (in.empty()) return;
        gloo::AllgatherOptions opts(impl.context);
        opts.setInput(const_cast<std::uint8_t*>(reinterpret_cast<const std::uint8_t*>(in.data())),
                      in.size());
        opts.setOutput(reinterpret_cast<std::uint8_t*>(out.data()), out.size());
        opts.setTimeout(impl.timeout);
        gloo::allgather(opts);
    });
}
}  // namespace

void Communicator::all_reduce(std::span<std::byte> data, DType dtype, ReduceOp op) {
    reduce_bytes(*impl_, data, dtype, op, nullptr);
}

void Communicator::all_reduce_sum_trusted(std::span<std::byte> data, DType dtype) {
    reduce_bytes(*impl_, data, dtype, ReduceOp::Sum, nullptr, false);
}

void Communicator::broadcast(std::span<std::byte> data, int root) {
    broadcast_bytes(*impl_, data, root, -1, nullptr);
}

void Communicator::all_gather(std::span<const std::byte> in, std::span<std::byte> out) {
    gather_bytes(*impl_, in, out, -1, nullptr);
}

void Communicator::reduce_scatter(std::span<const std::byte> in, std::span<std::byte> out,
                                  DType dtype, ReduceOp op) {
    const auto ws = static_cast<std::size_t>(impl_->world_size);
    BURN_CHECK(in.size() == out.size() * ws, "distributed::reduce_scatter: the input has ",
               in.size(), " bytes, expected ", ws, " x ", out.size(), " (world size x output)");
    // An all-reduce of the whole input, then this rank's part: Gloo's reduce-scatter algorithms
    // take an in-place buffer with per-rank counts; this keeps one code path (twice the traffic
    // of a ring reduce-scatter).
    std::vector<std::byte> all(in.begin(), in.end());
    all_reduce(all, dtype, op);
    if (!out.empty())
        std::memcpy(out.data(), all.data() + static_cast<std::size_t>(impl_->rank) * out.size(),
                    out.size());
}

void Communicator::barrier() {
    run_collective(*impl_, make_call(kBarrier, 0, -1, 0, nullptr), [&] {
        if (!impl_->context) return;
        gloo::BarrierOptions opts(impl_->context);
        opts.setTimeout(impl_->timeout);
        gloo::barrier(opts);
    });
}

namespace {
void check_data(const char* what, const TensorData& d) {
    BURN_CHECK(!d.is_quantized(), "distributed::", what,
               ": quantized data is not supported (dequantize it first)");
}
}  // namespace

TensorData Communicator::all_reduce(TensorData data, ReduceOp op) {
    check_data("all_reduce", data);
    reduce_bytes(*impl_, std::as_writable_bytes(data.bytes_mut()), data.dtype, op, &data.shape);
    return data;
}

TensorData Communicator::broadcast(TensorData data, int root) {
    check_data("broadcast", data);
    broadcast_bytes(*impl_, std::as_writable_bytes(data.bytes_mut()), root,
                    static_cast<std::int64_t>(data.dtype), &data.shape);
    return data;
}

TensorData Communicator::all_gather(const TensorData& data) {
    check_data("all_gather", data);
    BURN_CHECK(data.rank() >= 1,
               "distributed::all_gather: a rank-0 tensor has no dim 0 to "
               "concatenate along");
    const auto ws = static_cast<std::size_t>(impl_->world_size);
    std::vector<std::uint8_t> out(data.bytes().size() * ws);
    gather_bytes(*impl_, std::as_bytes(data.bytes()), std::as_writable_bytes(std::span(out)),
                 static_cast<std::int64_t>(data.dtype), &data.shape);
    Shape shape = data.shape;
    shape[0] *= ws;
    return TensorData(std::move(out), shape, data.dtype);
}

TensorData Communicator::reduce_scatter(const TensorData& data, ReduceOp op) {
    check_data("reduce_scatter", data);
    const auto ws = static_cast<std::size_t>(impl_->world_size);
    BURN_CHECK(data.rank() >= 1 && data.shape[0] % ws == 0,
               "distributed::reduce_scatter: dim 0 of ", data.shape, " does not split into ", ws,
               " equal parts (one per rank)");
    TensorData all = all_reduce(data, op);
    const std::size_t part = all.bytes().size() / ws;
    const auto* begin = all.bytes().data() + static_cast<std::size_t>(impl_->rank) * part;
    Shape shape = data.shape;
    shape[0] /= ws;
    return TensorData(std::vector<std::uint8_t>(begin, begin + part), shape, data.dtype);
}

}  // namespace burn::distributed
