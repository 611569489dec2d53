// SPDX-License-Identifier: MIT OR Apache-2.0
// The Learner (Burn's burn::train::Learner and LearnerBuilder): the training loop, with metrics,
// live progress, metric logs, plots, checkpoints, resumption, gradient accumulation, early
// stopping and a clean stop on Ctrl-C.
//
// The model provides its two steps as member functions (Burn's TrainStep and ValidStep traits):
//
//   template <Backend B>
//   struct Model {
//       ...
//       TrainOutput<ClassificationOutput<B>> train_step(const MnistBatch<B>& batch) const
//           requires AutodiffBackend<B>;                      // on Model<Autodiff<X>>
//       ClassificationOutput<B> valid_step(const MnistBatch<B>& batch) const;  // on Model<X>
//   };
//
//   auto learner = train::LearnerBuilder<Model<AD>>(artifact_dir)
//                      .metric_train_numeric(train::AccuracyMetric{})
//                      .metric_valid_numeric(train::AccuracyMetric{})
//                      .metric_train_numeric(train::LossMetric{})
//                      .metric_valid_numeric(train::LossMetric{})
//                      .with_file_checkpointer(record::CompactRecorder{})
//                      .num_epochs(10)
//                      .summary()
//                      .build(model, optim, 1e-4);             // or an LR scheduler
//   Model<AD> trained = learner.fit(loader_train, loader_valid);
//
// C++ cannot infer the model type from later statements as Rust does, so the builder names it:
// LearnerBuilder<M>, M the model on an autodiff backend. The batch and output types are read
// from the signatures of M::train_step and valid_step on the validation model (M with the inner
// backend, model.valid()); specialise train_step_traits / valid_step_traits when those are
// templates or overloaded.
//
// Artifacts under artifact_dir (the book's layout):
//   experiment.log                        what happened, with times
//   checkpoint/model-<N>.<ext>            model, optimizer and scheduler after epoch N
//   checkpoint/optim-<N>.<ext>            (the last `checkpoints_keep` epochs, 2 by default,
//   checkpoint/scheduler-<N>.<ext>         and the epoch of the lowest validation loss)
//   train/epoch-<N>/<Metric>.log          one line per step: "<value>,<batch size>"
//   valid/epoch-<N>/<Metric>.log
//   plots/<Metric>.svg                    every numeric metric, train vs valid, per epoch and step
#pragma once

#include <any>
#include <atomic>
#include <chrono>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "burn/data/dataloader.hpp"
#include "burn/lr_scheduler/lr_scheduler.hpp"
#include "burn/module/module.hpp"
#include "burn/optim/grads.hpp"
#include "burn/optim/optimizer.hpp"
#include "burn/record/recorder.hpp"
#include "burn/tensor/backend.hpp"
#include "burn/tensor/error.hpp"
#include "burn/train/data_parallel.hpp"
#include "burn/train/logger.hpp"
#include "burn/train/metric.hpp"
#include "burn/train/output.hpp"
#include "burn/train/plot.hpp"
#include "burn/train/renderer.hpp"

namespace burn::train {

// ============================================================================ step traits
namespace detail {
template <class F>
struct step_signature {};
template <class C, class R, class I>
struct step_signature<R (C::*)(I) const> {
    using Batch = std::remove_cvref_t<I>;
    using Result = R;
};
template <class C, class R, class I>
struct step_signature<R (C::*)(I) const noexcept> : step_signature<R (C::*)(I) const> {};

template <class T>
struct train_output_item {};
template <class TO, class B>
struct train_output_item<TrainOutput<TO, B>> {
    using type = TO;
};
}  // namespace detail

/// What M::train_step takes and returns (Batch, Output = the TrainOutput's item type), deduced
/// from `&M::train_step` when it is a single non-template const member function taking one
/// batch. Specialise it otherwise (Batch and Output).
template <class M>
struct train_step_traits {};
template <class M>
requires requires { &M::train_step; }
struct train_step_traits<M> {
    using Batch = typename detail::step_signature<decltype(&M::train_step)>::Batch;
    using Output = typename detail::train_output_item<
        typename detail::step_signature<decltype(&M::train_step)>::Result>::type;
};

/// What MV::valid_step takes and returns (Batch, Output), deduced likewise.
template <class MV>
struct valid_step_traits {};
template <class MV>
requires requires { &MV::valid_step; }
struct valid_step_traits<MV> {
    using Batch = typename detail::step_signature<decltype(&MV::valid_step)>::Batch;
    using Output = typename detail::step_signature<decltype(&MV::valid_step)>::Result;
};

/// Burn's TrainStep<TI, TO>: `model.train_step(batch)` gives TrainOutput<TO>.
template <class M, class TI, class TO>
concept TrainStep = requires(const M& m, const TI& batch) {
    { m.train_step(batch) } -> std::convertible_to<TrainOutput<TO, module::module_backend_t<M>>>;
};
/// Burn's ValidStep<VI, VO>: `model.valid_step(batch)` gives VO.
template <class M, class VI, class VO>
concept ValidStep = requires(const M& m, const VI& batch) {
    { m.valid_step(batch) } -> std::convertible_to<VO>;
};

// ============================================================================ early stopping
/// When early stopping looks at a metric: the best epoch value in a direction.
enum class Direction { Lowest, Highest };
/// How the epoch value is obtained from the steps (the mean, weighted by batch sizes: what
/// numeric metrics report).
enum class Aggregate { Mean };
/// Stop when the metric has not improved for `n_epochs` epochs (Burn's
/// StoppingCondition::NoImprovementSince).
struct NoImprovementSince {
    std::size_t n_epochs = 1;
};

/// Burn's MetricEarlyStoppingStrategy: watches the epoch value of a numeric metric on a split and
/// stops training when it has not improved (strictly) for `condition.n_epochs` epochs.
class MetricEarlyStoppingStrategy {
public:
    MetricEarlyStoppingStrategy(std::string metric_name, Aggregate aggregate, Direction direction,
                                Split split, NoImprovementSince condition);
    /// Watches `metric` (by its name()).
    template <Numeric Me>
    MetricEarlyStoppingStrategy(const Me& metric, Aggregate aggregate, Direction direction,
                                Split split, NoImprovementSince condition)
        : MetricEarlyStoppingStrategy(std::string(metric.name()), aggregate, direction, split,
                                      condition) {}

    /// Records the epoch's value; true when training should stop after this epoch.
    bool should_stop(std::size_t epoch, double value);
    const std::string& metric_name() const { return metric_; }
    Split split() const { return split_; }
    /// The best value so far and its epoch (nullopt before the first epoch).
    std::optional<std::pair<std::size_t, double>> best() const;
    /// "Loss (valid) has not improved for 2 epochs: best 0.312 at epoch 3".
    std::string reason() const;

private:
    std::string metric_;
    Direction direction_;
    Split split_;
    std::size_t patience_;
    std::optional<std::size_t> best_epoch_;
    double best_value_ = 0.0;
    std::size_t last_epoch_ = 0;
};

// ============================================================================ interruption
/// Burn's TrainingInterrupter: ask a running fit() to stop after the current step (from any
/// thread). fit() also stops on SIGINT (Ctrl-C) unless handle_sigint(false) was given: it then
/// writes a checkpoint and returns the model. A second Ctrl-C ends the process at once.
class TrainingInterrupter {
public:
    TrainingInterrupter();
    void stop();
    bool should_stop() const;
    void reset();

private:
    std::shared_ptr<std::atomic<bool>> flag_;
};

namespace detail {
/// Installs a SIGINT handler for the lifetime of the object (nested ones are no-ops) and
/// restores the previous one. sigint_requested() tells whether Ctrl-C was pressed meanwhile.
class SigintGuard {
public:
    SigintGuard();
    ~SigintGuard();
    SigintGuard(const SigintGuard&) = delete;
    SigintGuard& operator=(const SigintGuard&) = delete;
    static bool sigint_requested();

private:
    bool installed_ = false;
};

/// experiment.log: timestamped lines, appended (nothing with `write` false).
class ExperimentLog {
public:
    explicit ExperimentLog(const std::filesystem::path& path, bool write = true);
    ~ExperimentLog();
    void line(const std::string& text);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// Checkpoint files of one recorder (type-erased): checkpoint/<kind>-<epoch>.<ext>.
class CheckpointStore {
public:
    virtual ~CheckpointStore() = default;
    virtual void save(const std::string& kind, std::size_t epoch,
                      const record::Record& r) const = 0;
    virtual record::Record load(const std::string& kind, std::size_t epoch) const = 0;
    virtual std::filesystem::path path(const std::string& kind, std::size_t epoch) const = 0;
};
template <record::FileRecorder R>
class RecorderCheckpointStore final : public CheckpointStore {
public:
    RecorderCheckpointStore(R recorder, std::filesystem::path dir)
        : recorder_(std::move(recorder)), dir_(std::move(dir)) {}
    void save(const std::string& kind, std::size_t epoch, const record::Record& r) const override {
        std::filesystem::create_directories(dir_);
        recorder_.record(r, base(kind, epoch));
    }
    record::Record load(const std::string& kind, std::size_t epoch) const override {
        return recorder_.load(base(kind, epoch));
    }
    std::filesystem::path path(const std::string& kind, std::size_t epoch) const override {
        return recorder_.file_path(base(kind, epoch));
    }

private:
    std::filesystem::path base(const std::string& kind, std::size_t epoch) const {
        return dir_ / (kind + "-" + std::to_string(epoch));
    }
    R recorder_;
    std::filesystem::path dir_;
};

/// Removes the checkpoints of `epoch` (model, optim, scheduler) if present, marker first.
void remove_checkpoint(const CheckpointStore& store, std::size_t epoch);
/// A checkpoint of an epoch is a set of files (model, optim, scheduler) completed by a marker
/// file `complete-<epoch>` written last: begin_checkpoint removes the marker before the files
/// are (re)written, finish_checkpoint writes it (atomically) after them.
void begin_checkpoint(const CheckpointStore& store, std::size_t epoch);
void finish_checkpoint(const CheckpointStore& store, std::size_t epoch);
/// Throws burn::Error unless the checkpoint of `epoch` is complete (its marker exists; in a
/// folder without any marker, written before markers existed, its three files), naming the
/// complete ones to resume from instead.
void check_checkpoint_complete(const CheckpointStore& store, std::size_t epoch);

/// The first number of a serialized metric entry ("0.25,64" -> 0.25), if it starts with one.
std::optional<double> leading_number(const std::string& serialized);

/// The learner summary table (Burn's LearnerSummary) from the epoch histories.
struct SummaryRow {
    Split split;
    std::string metric;
    std::vector<double> epochs;  ///< value per epoch (NaN where absent)
};
std::string format_summary(const std::string& model_name, std::size_t total_epochs,
                           const std::vector<SummaryRow>& rows);

/// "1:02:03" / "2:03" for a number of seconds.
std::string format_duration(double seconds);

/// A metric registered for the steps' output O, type-erased.
template <class O>
class MetricSlot {
public:
    virtual ~MetricSlot() = default;
    virtual MetricEntry update(const O& output, const MetricMetadata& md) = 0;
    virtual void clear() = 0;
    virtual std::string name() const = 0;
    virtual std::optional<double> value() const = 0;  ///< numeric metrics only
    virtual bool plotted() const = 0;
    /// A fresh copy (the same metric, cleared) for another replica of a multi-device run.
    virtual std::unique_ptr<MetricSlot> clone() const = 0;
};
template <class O, Metric Me>
class MetricSlotOf final : public MetricSlot<O> {
public:
    MetricSlotOf(Me metric, bool numeric) : metric_(std::move(metric)), numeric_(numeric) {}
    MetricEntry update(const O& output, const MetricMetadata& md) override {
        return metric_.update(Adaptor<typename Me::Input, O>::adapt(output), md);
    }
    void clear() override { metric_.clear(); }
    std::string name() const override { return std::string(metric_.name()); }
    std::optional<double> value() const override {
        if constexpr (Numeric<Me>) {
            if (numeric_) return double(metric_.value());
        }
        return std::nullopt;
    }
    bool plotted() const override { return numeric_; }
    std::unique_ptr<MetricSlot<O>> clone() const override {
        if constexpr (std::is_copy_constructible_v<Me>) {
            auto copy = std::make_unique<MetricSlotOf>(metric_, numeric_);
            copy->clear();
            return copy;
        } else {
            ::burn::detail::fail("Learner: the metric \"", name(),
                                 "\" cannot be copied for the other devices' replicas (training "
                                 "on several devices needs copyable metrics)");
        }
    }

private:
    Me metric_;
    bool numeric_;
};
}  // namespace detail

// ============================================================================ Learner
/// How the data-parallel strategy combines the replicas' gradients (LearnerBuilder::data_parallel).
struct DataParallelOptions {
    /// Gradients are all-reduced in buckets of at most this many bytes (PyTorch DDP's 25 MiB).
    std::size_t bucket_bytes = std::size_t(25) << 20;
    /// Reduce a bucket as soon as the backward pass has finished its gradients, while the rest of
    /// backward runs. Needs a train_step that runs one backward pass through the model, whose
    /// gradients it returns (the usual case; a second pass is reported as an error); false
    /// reduces every gradient after train_step returns. With a device group (NCCL), the buckets
    /// reduce on the group's own stream beside the backward pass.
    bool overlap = true;
};

/// The options a LearnerBuilder collects (shared by the builder and the learner).
struct LearnerOptions {
    std::filesystem::path artifact_dir;
    std::size_t num_epochs = 1;
    std::optional<std::size_t> checkpoint;  ///< resume after this epoch
    std::size_t grads_accumulation = 1;
    std::size_t checkpoints_keep = 2;
    bool summary = false;
    bool handle_sigint = true;
    bool plots = true;
    /// Training and validation steps run in an Autocast scope of this dtype (F16 or BF16).
    std::optional<DType> autocast;
    /// Data-parallel training: the replicas, and how gradients are combined.
    std::shared_ptr<ReplicaGroup> replicas;
    DataParallelOptions data_parallel;
};

template <class M, class O, class S>
class Learner;

namespace detail {

/// An optimizer whose state a captured training step can keep (OptimizerAdaptor: the
/// optimizers of burn/optim).
template <class O, class M>
concept ReplayableOptimizer = requires(O& o) {
    o.count_replayed_step();
    o.for_each_state_tensor(
        [](const std::string&,
           const typename module::module_backend_t<M>::InnerBackend::FloatTensor&) {});
};

/// The Learner's optimizer as a captured training step sees it (with_step_capture): the update,
/// and the state a graph keeps with it (OptimizerAdaptor's for_each_state_tensor and
/// count_replayed_step).
template <class M>
class OptimizerHandle {
public:
    using Backend = module::module_backend_t<M>;
    using Primitive = typename Backend::InnerBackend::FloatTensor;
    virtual ~OptimizerHandle() = default;
    virtual M step(double lr, const M& model, optim::GradientsParams<Backend> grads) = 0;
    virtual void for_each_state_tensor(
        const std::function<void(const std::string&, const Primitive&)>& f) const = 0;
    virtual void count_replayed_step() = 0;
};

template <class M, class O>
class OptimizerHandleOf final : public OptimizerHandle<M> {
public:
    using typename OptimizerHandle<M>::Backend;
    using typename OptimizerHandle<M>::Primitive;
    explicit OptimizerHandleOf(O& o) : o_(o) {}
    M step(double lr, const M& model, optim::GradientsParams<Backend> grads) override {
        return o_.step(lr, model, std::move(grads));
    }
    void for_each_state_tensor(
        const std::function<void(const std::string&, const Primitive&)>& f) const override {
        o_.for_each_state_tensor(f);
    }
    void count_replayed_step() override { o_.count_replayed_step(); }

private:
    O& o_;
};

}  // namespace detail

/// Burn's LearnerBuilder, for the model type M (on an autodiff backend).
template <class M>
class LearnerBuilder {
public:
    using Backend = module::module_backend_t<M>;
    static_assert(AutodiffBackend<Backend>,
                  "LearnerBuilder<M>: M must be the model on an autodiff backend (Autodiff<...>)");
    using ValidModel = decltype(std::declval<const M&>().valid());
    using TrainBatch = typename train_step_traits<M>::Batch;
    using TrainItem = typename train_step_traits<M>::Output;
    using ValidBatch = typename valid_step_traits<ValidModel>::Batch;
    using ValidItem = typename valid_step_traits<ValidModel>::Output;
    using Device = typename Backend::Device;

    /// Everything is written under `artifact_dir` (created if needed).
    explicit LearnerBuilder(std::filesystem::path artifact_dir) {
        options_.artifact_dir = std::move(artifact_dir);
    }

    // A metric whose Input the step output does not adapt to is one static_assert (not a list
    // of unsatisfied constraints); the "In instantiation of" line names both types.
#define BURN_LEARNER_ADAPT_MESSAGE_(step)                                                   \
    "this metric does not fit the " step                                                    \
    " step's output: its Input cannot be made from that output (the metrics of "            \
    "burn/train/metrics.hpp take ClassificationOutput or RegressionOutput, as documented; " \
    "for another output type specialise burn::train::Adaptor<Input, Output>)"

    /// Registers a training metric (shown and logged).
    template <Metric Me>
    LearnerBuilder& metric_train(Me metric) & {
        static_assert(Adapts<TrainItem, typename Me::Input>,
                      BURN_LEARNER_ADAPT_MESSAGE_("training"));
        train_metrics_.push_back(
            std::make_unique<detail::MetricSlotOf<TrainItem, Me>>(std::move(metric), false));
        return *this;
    }
    /// Registers a validation metric (shown and logged).
    template <Metric Me>
    LearnerBuilder& metric_valid(Me metric) & {
        static_assert(Adapts<ValidItem, typename Me::Input>,
                      BURN_LEARNER_ADAPT_MESSAGE_("validation"));
        valid_metrics_.push_back(
            std::make_unique<detail::MetricSlotOf<ValidItem, Me>>(std::move(metric), false));
        return *this;
    }
    /// Registers a numeric training metric: also summarised, plotted and usable for early stopping.
    template <Numeric Me>
    LearnerBuilder& metric_train_numeric(Me metric) & {
        static_assert(Adapts<TrainItem, typename Me::Input>,
                      BURN_LEARNER_ADAPT_MESSAGE_("training"));
        train_metrics_.push_back(
            std::make_unique<detail::MetricSlotOf<TrainItem, Me>>(std::move(metric), true));
        return *this;
    }
    /// Registers a numeric validation metric.
    template <Numeric Me>
    LearnerBuilder& metric_valid_numeric(Me metric) & {
        static_assert(Adapts<ValidItem, typename Me::Input>,
                      BURN_LEARNER_ADAPT_MESSAGE_("validation"));
        valid_metrics_.push_back(
            std::make_unique<detail::MetricSlotOf<ValidItem, Me>>(std::move(metric), true));
        return *this;
    }

    /// Saves the model, optimizer and scheduler with `recorder` after every epoch (and when
    /// interrupted) under artifact_dir/checkpoint.
    template <record::FileRecorder R>
    LearnerBuilder& with_file_checkpointer(R recorder) & {
        checkpointer_ = std::make_shared<detail::RecorderCheckpointStore<R>>(
            std::move(recorder), options_.artifact_dir / "checkpoint");
        return *this;
    }
    /// How many of the latest epochs' checkpoints are kept (>= 1; default 2). The epoch with the
    /// lowest validation loss (when a "Loss" validation metric is registered) is kept as well.
    LearnerBuilder& checkpoints_keep(std::size_t n) & {
        BURN_CHECK(n >= 1,
                   "LearnerBuilder::checkpoints_keep: must keep at least 1 checkpoint, got ", n);
        options_.checkpoints_keep = n;
        return *this;
    }
    /// Resumes from the checkpoint written after `epoch` (needs with_file_checkpointer): training
    /// continues with epoch + 1, with the saved model, optimizer and scheduler states.
    LearnerBuilder& checkpoint(std::size_t epoch) & {
        options_.checkpoint = epoch;
        return *this;
    }
    /// Sums the gradients of `n` steps before each optimizer step (n >= 1).
    LearnerBuilder& grads_accumulation(std::size_t n) & {
        BURN_CHECK(n >= 1, "LearnerBuilder::grads_accumulation: n must be >= 1, got ", n);
        options_.grads_accumulation = n;
        return *this;
    }
    /// Stops training early (see MetricEarlyStoppingStrategy).
    LearnerBuilder& early_stopping(MetricEarlyStoppingStrategy strategy) & {
        early_stopping_ = std::move(strategy);
        return *this;
    }
    /// Data-parallel training over processes (PyTorch DDP's design): this process is one replica
    /// of `replicas` (a burn::distributed::Communicator), training on its shard of every epoch
    /// (build the training loader with DataLoaderBuilder::shard(rank, world_size)). fit() starts
    /// every replica from rank 0's parameters, averages the gradients over the replicas before
    /// every optimizer step (in buckets, each all-reduced as soon as backward has finished its
    /// gradients: see DataParallelOptions), averages the epoch values of the numeric metrics
    /// (weighted by the items each replica saw), and stops all replicas together (Ctrl-C,
    /// interrupter, early stopping). Only rank 0 writes artifacts (logs, plots, checkpoints) and
    /// shows progress; every rank reads a checkpoint to resume, so artifact_dir must be readable by
    /// all.
    LearnerBuilder& data_parallel(std::shared_ptr<ReplicaGroup> replicas,
                                  DataParallelOptions options = {}) & {
        BURN_CHECK(replicas != nullptr, "LearnerBuilder::data_parallel: the replica group is null");
        BURN_CHECK(options.bucket_bytes > 0,
                   "LearnerBuilder::data_parallel: bucket_bytes must be > 0");
        options_.replicas = std::move(replicas);
        options_.data_parallel = options;
        device_sum_ = {};
        return *this;
    }
    LearnerBuilder&& data_parallel(std::shared_ptr<ReplicaGroup> replicas,
                                   DataParallelOptions options = {}) && {
        return std::move(this->data_parallel(std::move(replicas), options));
    }
    /// Data-parallel training whose gradients are summed on the parameters' device by
    /// `device_group` (burn::distributed::NcclGroup for a model on Cuda: NCCL, GPU to GPU), in
    /// buckets of one dtype; `replicas` (the Communicator the group was made from) carries only
    /// the small per-step flags and the epoch metrics. With `options.overlap`, a bucket's sum
    /// starts as soon as the backward pass has finished its gradients, and where the group has
    /// `all_reduce_async` (NcclGroup: its own stream) it runs beside the rest of the backward
    /// pass. Otherwise as above.
    template <class DeviceGroup>
    requires requires(DeviceGroup& g, const Tensor<typename Backend::InnerBackend, 1>& t) {
        { g.all_reduce(t) } -> std::convertible_to<Tensor<typename Backend::InnerBackend, 1>>;
    }
    LearnerBuilder& data_parallel(std::shared_ptr<ReplicaGroup> replicas,
                                  std::shared_ptr<DeviceGroup> device_group,
                                  DataParallelOptions options = {}) & {
        BURN_CHECK(device_group != nullptr,
                   "LearnerBuilder::data_parallel: the device group is null");
        data_parallel(std::move(replicas), options);
        using Flat = Tensor<typename Backend::InnerBackend, 1>;
        device_sum_ = [g = std::move(device_group)](const Flat& t) -> std::function<Flat()> {
            if constexpr (requires { g->all_reduce_async(t).wait(); }) {
                auto pending =
                    std::make_shared<decltype(g->all_reduce_async(t))>(g->all_reduce_async(t));
                return [pending] { return Flat(pending->wait()); };
            } else {
                return [sum = Flat(g->all_reduce(t))] { return sum; };
            }
        };
        return *this;
    }
    template <class DeviceGroup>
    LearnerBuilder&& data_parallel(std::shared_ptr<ReplicaGroup> replicas,
                                   std::shared_ptr<DeviceGroup> device_group,
                                   DataParallelOptions options = {}) && {
        return std::move(
            this->data_parallel(std::move(replicas), std::move(device_group), options));
    }
    /// The devices to train on (Burn's multi-device training). One device: the model moves there.
    /// Several: one replica per device in this process, each on a thread of its own, with a
    /// copy of the model, the optimizer, the scheduler and the metrics; fit() gives replica r
    /// shard r of the loaders' items (DataLoader::shard_to_device, batches made on device r),
    /// starts every replica from the first device's parameters, averages the gradients over the
    /// replicas before every optimizer step (through host memory: LocalReplicas) and returns
    /// the first device's model; artifacts, logs and the display are the first replica's. It
    /// is data_parallel() with threads for processes, with the same options and results (the
    /// global batch is the number of devices times the loaders' batch size). Not combinable
    /// with data_parallel().
    LearnerBuilder& devices(std::vector<Device> devices) & {
        devices_ = std::move(devices);
        return *this;
    }
    LearnerBuilder&& devices(std::vector<Device> devices) && {
        return std::move(this->devices(std::move(devices)));
    }
    LearnerBuilder& num_epochs(std::size_t n) & {
        BURN_CHECK(n >= 1, "LearnerBuilder::num_epochs: must be >= 1, got ", n);
        options_.num_epochs = n;
        return *this;
    }
    /// Prints (and logs) a summary of the metrics per epoch when fit() ends.
    LearnerBuilder& summary() & {
        options_.summary = true;
        return *this;
    }
    /// How progress is shown (default: default_renderer()).
    LearnerBuilder& renderer(std::unique_ptr<MetricsRenderer> r) & {
        renderer_ = std::move(r);
        return *this;
    }
    /// A handle to stop fit() from another thread.
    /// A training step as the capture gives it: the batch and the step's learning rate in, the
    /// step's output out (the model and the optimizer updated).
    using StepRunner = std::function<TrainItem(const TrainBatch&, double)>;
    /// Runs the training steps through `capture`, a value with
    ///   template <class Batch, class Item, class Model, class Optim>
    ///   std::function<Item(const Batch&, double)> runner(Model&, Optim&) const;
    /// burn::CudaGraphs (<burn/backend/cuda/graph.hpp>) captures the step as a CUDA graph and
    /// replays it. Not with gradient accumulation or several devices or replicas; the optimizer
    /// must be an OptimizerAdaptor (the optimizers of burn/optim).
    template <class C>
    LearnerBuilder& with_step_capture(C capture) & {
        step_capture_ = [capture](M& model, detail::OptimizerHandle<M>& optim) {
            return capture.template runner<TrainBatch, TrainItem>(model, optim);
        };
        return *this;
    }
    LearnerBuilder& with_interrupter(TrainingInterrupter interrupter) & {
        interrupter_ = std::move(interrupter);
        return *this;
    }
    /// Whether fit() catches Ctrl-C (default true).
    LearnerBuilder& handle_sigint(bool on) & {
        options_.handle_sigint = on;
        return *this;
    }
    /// Runs every training and validation step in a burn::Autocast scope of `dtype` (BF16 by
    /// default, or F16): matmuls and convolutions in half precision, softmax, norms and losses in
    /// f32 (docs/precision.md). The parameters, their gradients and the optimizer stay as they
    /// are (f32 master weights). F16 needs a loss scale the Learner cannot apply (the loss is
    /// scaled before backward, inside train_step): use optim::GradScaler in a loop of your own.
    LearnerBuilder& autocast(DType dtype = DType::BF16) & {
        BURN_CHECK(dtype == DType::BF16 || dtype == DType::F16,
                   "LearnerBuilder::autocast: expected DType::BF16 or DType::F16, got ",
                   dtype_name(dtype));
        options_.autocast = dtype;
        return *this;
    }
    LearnerBuilder&& autocast(DType dtype = DType::BF16) && {
        return std::move(this->autocast(dtype));
    }
    /// Whether SVG plots are written after every epoch (default true).
    LearnerBuilder& plots(bool on) & {
        options_.plots = on;
        return *this;
    }

    // Rvalue forms, so that a builder can be chained from a temporary.
#define BURN_LEARNER_RVALUE(name)                                                  \
    template <class... A>                                                          \
        LearnerBuilder&& name(A&&... a) && requires requires(LearnerBuilder & b) { \
        b.name(std::forward<A>(a)...);                                             \
    }                                                                              \
    { return std::move(this->name(std::forward<A>(a)...)); }
    BURN_LEARNER_RVALUE(metric_train)
    BURN_LEARNER_RVALUE(metric_valid)
    BURN_LEARNER_RVALUE(metric_train_numeric)
    BURN_LEARNER_RVALUE(metric_valid_numeric)
    BURN_LEARNER_RVALUE(with_file_checkpointer)
    BURN_LEARNER_RVALUE(checkpoints_keep)
    BURN_LEARNER_RVALUE(checkpoint)
    BURN_LEARNER_RVALUE(grads_accumulation)
    BURN_LEARNER_RVALUE(early_stopping)
    BURN_LEARNER_RVALUE(num_epochs)
    BURN_LEARNER_RVALUE(summary)
    BURN_LEARNER_RVALUE(renderer)
    BURN_LEARNER_RVALUE(with_interrupter)
    BURN_LEARNER_RVALUE(with_step_capture)
    BURN_LEARNER_RVALUE(handle_sigint)
    BURN_LEARNER_RVALUE(plots)
#undef BURN_LEARNER_RVALUE
#undef BURN_LEARNER_ADAPT_MESSAGE_

    /// The learner of `model` with `optim` and a learning rate: a number (constant) or an LR
    /// scheduler (Burn's LrScheduler).
    template <class O, class S>
    requires optim::Optimizer<O, M, Backend> &&
        (lr_scheduler::LrScheduler<S> ||
         std::convertible_to<S, double>)auto build(M model, O optim, S lr_or_scheduler) {
        BURN_CHECK(devices_.size() <= 1 || !options_.replicas,
                   "LearnerBuilder::build: ", devices_.size(),
                   " devices and data_parallel() given: train on several "
                   "devices of this process (devices) or as one replica of several processes "
                   "(data_parallel), not both");
        BURN_CHECK(!options_.checkpoint || checkpointer_ != nullptr,
                   "LearnerBuilder::build: checkpoint(", options_.checkpoint.value_or(0),
                   ") needs with_file_checkpointer(recorder) (the recorder the checkpoints were "
                   "saved with)");
        BURN_CHECK(!step_capture_ || (devices_.size() <= 1 && !options_.replicas &&
                                      options_.grads_accumulation <= 1),
                   "LearnerBuilder::build: with_step_capture runs one optimizer step per batch on "
                   "one device: not with gradient accumulation, several devices or replicas");
        if constexpr (!detail::ReplayableOptimizer<O, M>) {
            BURN_CHECK(!step_capture_,
                       "LearnerBuilder::build: with_step_capture needs an optimizer "
                       "whose state a captured step can keep (an OptimizerAdaptor: "
                       "the optimizers of burn/optim)");
        }
        if (!devices_.empty()) model = model.to_device(devices_.front());
        using Sched = std::conditional_t<lr_scheduler::LrScheduler<S>, S, lr_scheduler::ConstantLr>;
        Sched sched = [&] {
            if constexpr (lr_scheduler::LrScheduler<S>) return std::move(lr_or_scheduler);
            else return lr_scheduler::ConstantLr(double(lr_or_scheduler));
        }();
        if (options_.replicas && options_.replicas->rank() != 0) renderer_ = silent_renderer();
        if (!renderer_) renderer_ = default_renderer();
        using L = Learner<M, O, Sched>;
        if (devices_.size() <= 1) {
            L one(std::move(options_), std::move(model), std::move(optim), std::move(sched),
                  std::move(train_metrics_), std::move(valid_metrics_), std::move(checkpointer_),
                  std::move(early_stopping_), std::move(renderer_), std::move(interrupter_),
                  std::move(device_sum_));
            if constexpr (detail::ReplayableOptimizer<O, M>)
                one.step_capture_ = std::move(step_capture_);
            return one;
        }
        // Several devices: replica r (r >= 1) is a learner of its own on a copy of everything.
        if constexpr (!std::is_copy_constructible_v<O> || !std::is_copy_constructible_v<Sched>) {
            ::burn::detail::fail("LearnerBuilder::build: training on ", devices_.size(),
                                 " devices copies the optimizer and the learning-rate scheduler "
                                 "for each device; this optimizer or scheduler cannot be copied");
        } else {
            const int n = static_cast<int>(devices_.size());
            auto local = std::make_shared<LocalReplicas>(n);
            std::vector<std::unique_ptr<L>> others;
            for (int r = 1; r < n; ++r) {
                LearnerOptions o = options_;
                o.replicas = local->group(r);
                o.handle_sigint = false;  // the first replica's stop request reaches every one
                others.push_back(std::make_unique<L>(
                    std::move(o), model.to_device(devices_[std::size_t(r)]), optim, sched,
                    clone_slots(train_metrics_), clone_slots(valid_metrics_), checkpointer_,
                    early_stopping_, silent_renderer(), interrupter_));
            }
            options_.replicas = local->group(0);
            L lead(std::move(options_), std::move(model), std::move(optim), std::move(sched),
                   std::move(train_metrics_), std::move(valid_metrics_), std::move(checkpointer_),
                   std::move(early_stopping_), std::move(renderer_), std::move(interrupter_));
            lead.local_ = {std::move(local), devices_, std::move(others)};
            return lead;
        }
    }

private:
    template <class Slot>
    static std::vector<std::unique_ptr<Slot>> clone_slots(
        const std::vector<std::unique_ptr<Slot>>& slots) {
        std::vector<std::unique_ptr<Slot>> out;
        for (const auto& s : slots) out.push_back(s->clone());
        return out;
    }

    LearnerOptions options_;
    std::vector<std::unique_ptr<detail::MetricSlot<TrainItem>>> train_metrics_;
    std::vector<std::unique_ptr<detail::MetricSlot<ValidItem>>> valid_metrics_;
    std::shared_ptr<detail::CheckpointStore> checkpointer_;
    std::optional<MetricEarlyStoppingStrategy> early_stopping_;
    std::vector<Device> devices_;
    typename detail::GradientSync<Backend>::DeviceSum device_sum_;
    std::unique_ptr<MetricsRenderer> renderer_;
    std::optional<TrainingInterrupter> interrupter_;
    std::function<StepRunner(M&, detail::OptimizerHandle<M>&)> step_capture_;
};

/// How fit() ended.
enum class StopReason { Completed, EarlyStopping, Interrupted };

/// Burn's Learner: built by LearnerBuilder; fit() trains and returns the model.
template <class M, class O, class S>
class Learner {
    template <class>
    friend class LearnerBuilder;

public:
    using Backend = module::module_backend_t<M>;
    using Device = typename Backend::Device;
    using ValidModel = decltype(std::declval<const M&>().valid());
    using TrainBatch = typename train_step_traits<M>::Batch;
    using TrainItem = typename train_step_traits<M>::Output;
    using ValidBatch = typename valid_step_traits<ValidModel>::Batch;
    using ValidItem = typename valid_step_traits<ValidModel>::Output;

    Learner(LearnerOptions options, M model, O optim, S sched,
            std::vector<std::unique_ptr<detail::MetricSlot<TrainItem>>> train_metrics,
            std::vector<std::unique_ptr<detail::MetricSlot<ValidItem>>> valid_metrics,
            std::shared_ptr<detail::CheckpointStore> checkpointer,
            std::optional<MetricEarlyStoppingStrategy> early_stopping,
            std::unique_ptr<MetricsRenderer> renderer,
            std::optional<TrainingInterrupter> interrupter,
            typename detail::GradientSync<Backend>::DeviceSum device_sum = {})
        : options_(std::move(options)),
          model_(std::move(model)),
          optim_(std::move(optim)),
          sched_(std::move(sched)),
          train_metrics_(std::move(train_metrics)),
          valid_metrics_(std::move(valid_metrics)),
          checkpointer_(std::move(checkpointer)),
          early_stopping_(std::move(early_stopping)),
          renderer_(std::move(renderer)),
          interrupter_(std::move(interrupter)),
          device_sum_(std::move(device_sum)) {}

    /// Trains for the remaining epochs on `train`, validating on `valid` after each, and returns
    /// the trained model (also when stopped early or interrupted: see stop_reason()).
    M fit(std::shared_ptr<data::DataLoader<TrainBatch>> train,
          std::shared_ptr<data::DataLoader<ValidBatch>> valid) {
        BURN_CHECK(train != nullptr, "Learner::fit: the training data loader is null");
        BURN_CHECK(valid != nullptr, "Learner::fit: the validation data loader is null");
        if (local_.replicas) return fit_devices(*train, *valid);
        return fit_replica(std::move(train), std::move(valid));
    }

private:
    /// Several devices: replica r trains on its thread with shard r of the loaders (the first
    /// replica on this one); a replica that fails aborts the others' collectives, and fit
    /// rethrows the first failure once every thread has ended.
    M fit_devices(const data::DataLoader<TrainBatch>& train,
                  const data::DataLoader<ValidBatch>& valid) {
        const std::size_t n = local_.devices.size();
        std::mutex mutex;
        std::exception_ptr first;
        auto run = [&](Learner& replica, std::size_t r) {
            try {
                const std::any device = local_.devices[r];
                replica.fit_replica(train.shard_to_device(r, n, device),
                                    valid.shard_to_device(r, n, device));
            } catch (const std::exception& e) {
                {
                    std::lock_guard lock(mutex);
                    if (!first) first = std::current_exception();
                }
                local_.replicas->abort("replica " + std::to_string(r) + ": " + e.what());
            }
        };
        std::vector<std::thread> threads;
        for (std::size_t r = 1; r < n; ++r)
            threads.emplace_back(run, std::ref(*local_.others[r - 1]), r);
        run(*this, 0);
        for (auto& t : threads) t.join();
        if (first) std::rethrow_exception(first);
        return model_;
    }

    /// fit() of one replica: this process's only one, one of a data-parallel job, or one device's.
    M fit_replica(std::shared_ptr<data::DataLoader<TrainBatch>> train,
                  std::shared_ptr<data::DataLoader<ValidBatch>> valid) {
        namespace fs = std::filesystem;
        const bool lead = is_lead();  // writes the artifacts (every process without replicas)
        if (lead) fs::create_directories(options_.artifact_dir);
        detail::ExperimentLog log(options_.artifact_dir / "experiment.log", lead);
        FileMetricLogger logger(options_.artifact_dir, lead);
        std::optional<detail::SigintGuard> sigint;
        if (options_.handle_sigint) sigint.emplace();
        auto interrupted = [&] {
            return (interrupter_ && interrupter_->should_stop()) ||
                   detail::SigintGuard::sigint_requested();
        };
        stop_reason_ = StopReason::Completed;

        std::size_t first_epoch = 1;
        if (options_.checkpoint) {
            const std::size_t c = *options_.checkpoint;
            detail::check_checkpoint_complete(*checkpointer_, c);
            model_ = model_.load_record(checkpointer_->load("model", c));
            optim_ = optim_.load_record(checkpointer_->load("optim", c));
            sched_ = sched_.load_record(checkpointer_->load("scheduler", c));
            first_epoch = c + 1;
            // Replay the loaders' epoch counters: a shuffled loader draws each epoch's order from
            // its seed and the number of epochs iterated before, so the resumed epochs get the
            // orders an uninterrupted run would have used (starting an epoch only prefetches a
            // few batches, dropped at once).
            for (std::size_t e = 0; e < c; ++e) {
                (void)train->iter();
                (void)valid->iter();
            }
            log.line("resumed from the checkpoint of epoch " + std::to_string(c) + " (" +
                     checkpointer_->path("model", c).string() + ")");
            reload_history(logger, c);
        }
        if (ReplicaGroup* g = options_.replicas.get()) {
            sync_ = std::make_unique<detail::GradientSync<Backend>>(
                *g, options_.data_parallel.bucket_bytes, device_sum_);
            detail::check_same_on_replicas(
                *g, train->num_batches(),
                "the number of training batches per epoch (build each replica's training loader "
                "with DataLoaderBuilder::shard(rank, world_size) and the same batch size)");
            model_ = detail::broadcast_module(*g, model_);
            log.line("data parallel: " + std::to_string(g->world_size()) +
                     " replicas, every one starting from rank 0's parameters");
        }
        {
            std::ostringstream os;
            os << "training for epochs " << first_epoch << ".." << options_.num_epochs << " ("
               << train->num_items() << " training items in " << train->num_batches()
               << " batches, " << valid->num_items() << " validation items); model with "
               << model_.num_params() << " parameters";
            log.line(os.str());
        }

        struct RendererFinish {
            MetricsRenderer* r;
            ~RendererFinish() { r->finish(); }
        } finish_guard{renderer_.get()};

        try {
            for (std::size_t epoch = first_epoch; epoch <= options_.num_epochs; ++epoch) {
                const bool stopped = train_epoch(*train, epoch, logger, log, interrupted);
                if (stopped) {
                    stop_reason_ = StopReason::Interrupted;
                    const std::string msg = "interrupted during epoch " + std::to_string(epoch) +
                                            ": stopped after the current step";
                    log.line(msg);
                    renderer_->message(msg);
                    if (checkpointer_) {
                        save_checkpoint(epoch, log);
                        const std::string m2 =
                            "checkpoint of the partial epoch " + std::to_string(epoch) +
                            " written; resume with .checkpoint(" + std::to_string(epoch) +
                            ") (continues with epoch " + std::to_string(epoch + 1) + ")";
                        log.line(m2);
                        renderer_->message(m2);
                    }
                    break;
                }
                const bool valid_stopped = valid_epoch(*valid, epoch, logger, log, interrupted);
                write_plots(log);
                if (checkpointer_) save_checkpoint(epoch, log);
                if (valid_stopped) {
                    stop_reason_ = StopReason::Interrupted;
                    const std::string msg =
                        "interrupted during the validation of epoch " + std::to_string(epoch) +
                        (checkpointer_ ? "; checkpoint " + std::to_string(epoch) + " written" : "");
                    log.line(msg);
                    renderer_->message(msg);
                    break;
                }
                if (early_stopping_) {
                    const auto& hist =
                        early_stopping_->split() == Split::Train ? train_epochs_ : valid_epochs_;
                    const auto it = hist.find(early_stopping_->metric_name());
                    BURN_CHECK(it != hist.end(), "Learner::fit: early stopping watches \"",
                               early_stopping_->metric_name(), "\" on the ",
                               split_name(early_stopping_->split()),
                               " split, but no numeric metric of that name is registered there");
                    bool stop = early_stopping_->should_stop(epoch, it->second.back());
                    // The replicas see the same averaged values; they stop together regardless.
                    if (ReplicaGroup* g = options_.replicas.get())
                        stop = detail::any_replica(*g, stop);
                    if (stop) {
                        stop_reason_ = StopReason::EarlyStopping;
                        const std::string msg = "early stopping after epoch " +
                                                std::to_string(epoch) + ": " +
                                                early_stopping_->reason();
                        log.line(msg);
                        renderer_->message(msg);
                        break;
                    }
                }
            }
        } catch (const std::exception& e) {
            log.line(std::string("training failed: ") + e.what());
            throw;
        }
        if (options_.summary) {
            const std::string s = summary_text();
            renderer_->message(s);
            log.line("summary:\n" + s);
        }
        log.line("training finished");
        // Rank 0 may still be writing the last checkpoint: fit() returns on every replica once
        // the artifacts are complete.
        if (ReplicaGroup* g = options_.replicas.get()) g->barrier();
        return model_;
    }

public:
    StopReason stop_reason() const { return stop_reason_; }
    /// The epoch values of the numeric metrics: {metric name: [value of epoch 1, 2, ...]}.
    const std::map<std::string, std::vector<double>>& train_history() const {
        return train_epochs_;
    }
    const std::map<std::string, std::vector<double>>& valid_history() const {
        return valid_epochs_;
    }
    /// Seconds spent waiting for the training data loader in the last training epoch.
    double last_data_wait_seconds() const { return data_wait_; }
    /// The learner summary (as summary() prints it).
    std::string summary_text() const {
        std::vector<detail::SummaryRow> rows;
        for (const auto& [name, values] : train_epochs_)
            rows.push_back({Split::Train, name, values});
        for (const auto& [name, values] : valid_epochs_)
            rows.push_back({Split::Valid, name, values});
        return detail::format_summary(module_name(), options_.num_epochs, rows);
    }

private:
    using Clock = std::chrono::steady_clock;

    /// step(), inside an Autocast scope when the builder asked for one.
    template <class F>
    auto in_autocast(F&& step) {
        std::optional<Autocast> scope;
        if (options_.autocast) scope.emplace(*options_.autocast);
        return step();
    }

    /// Whether this process writes the artifacts: rank 0 of the replicas, or the only process.
    bool is_lead() const { return !options_.replicas || options_.replicas->rank() == 0; }

    /// One optimizer step with `grads` (averaged over the replicas first, if any; `begun`: the
    /// step's GradientSync::begin ran before its backward pass). Returns whether any replica
    /// asked to stop (`stop` is this one's request; without replicas, false).
    bool optimizer_step(double lr, optim::GradientsParams<Backend> grads, bool stop,
                        bool begun = false) {
        bool stop_all = false;
        if (sync_) {
            if (!begun) (void)sync_->begin(model_, false);
            stop_all = sync_->finish(grads, stop);
        }
        model_ = optim_.step(lr, model_, std::move(grads));
        return stop_all;
    }

    std::string module_name() const {
        return "model with " + std::to_string(model_.num_params()) + " parameters";
    }

    template <class Item, class Slots>
    void update_metrics(Slots& slots, const Item& item, const MetricMetadata& md, Split split,
                        std::size_t epoch, FileMetricLogger& logger,
                        std::map<std::string, std::vector<double>>& steps) {
        for (auto& slot : slots) {
            MetricEntry entry = slot->update(item, md);
            logger.log(split, epoch, entry);
            std::optional<double> v;
            if (slot->plotted()) {
                v = detail::leading_number(entry.serialized);
                if (!v) v = slot->value();
                if (v) steps[entry.name].push_back(*v);
            }
            MetricState state{std::move(entry), v};
            if (split == Split::Train) renderer_->update_train(state);
            else renderer_->update_valid(state);
        }
    }

    template <class Slots>
    void end_epoch(Slots& slots, Split split, std::size_t epoch, double seconds, std::size_t items,
                   FileMetricLogger& logger, detail::ExperimentLog& log) {
        logger.end_epoch(split, epoch);
        // name and value of every numeric metric; with replicas, the mean over all of them
        // weighted by the items each one saw (and the items of all of them).
        std::vector<std::pair<std::string, std::optional<double>>> values;
        for (auto& slot : slots)
            if (slot->plotted()) values.emplace_back(slot->name(), slot->value());
        if (ReplicaGroup* g = options_.replicas.get()) {
            std::vector<double> sums;
            for (const auto& [name, v] : values) {
                sums.push_back(v ? *v * double(items) : 0.0);
                sums.push_back(v ? double(items) : 0.0);
            }
            sums.push_back(double(items));
            detail::sum_over_replicas(*g, sums);
            for (std::size_t i = 0; i < values.size(); ++i)
                values[i].second = sums[2 * i + 1] > 0
                                       ? std::optional<double>(sums[2 * i] / sums[2 * i + 1])
                                       : std::nullopt;
            items = static_cast<std::size_t>(sums.back());
        }
        EpochSummary summary{split, epoch, options_.num_epochs, {}, seconds, items};
        auto& hist = split == Split::Train ? train_epochs_ : valid_epochs_;
        for (const auto& [name, v] : values)
            if (v) {
                summary.values.emplace_back(name, *v);
                auto& h = hist[name];
                h.resize(epoch - 1, std::nan(""));
                h.push_back(*v);
            }
        renderer_->on_epoch_end(summary);
        std::ostringstream os;
        os << "epoch " << epoch << "/" << options_.num_epochs << " " << split_name(split) << ": "
           << items << " items in " << seconds << " s ("
           << (seconds > 0 ? double(items) / seconds : 0.0) << " item/s)";
        if (split == Split::Train) os << ", waiting for data " << data_wait_ << " s";
        for (const auto& [name, v] : summary.values) os << ", " << name << " " << v;
        log.line(os.str());
    }

    template <class Interrupted>
    bool train_epoch(const data::DataLoader<TrainBatch>& loader, std::size_t epoch,
                     FileMetricLogger& logger, detail::ExperimentLog& log,
                     const Interrupted& interrupted) {
        if (is_lead())
            std::filesystem::remove_all(logger.dir() / split_name(Split::Train) /
                                        ("epoch-" + std::to_string(epoch)));
        for (auto& m : train_metrics_) m->clear();
        optim::GradientsAccumulator<Backend> accumulator;
        std::size_t accumulated = 0;
        double last_lr = 0.0;
        data_wait_ = 0.0;
        const auto start = Clock::now();
        auto it = loader.iter();
        std::size_t iteration = 0;
        bool stopped = false;
        // with_step_capture: this epoch's steps run through the capture's runner (made here, as
        // it holds references to the model and the optimizer of this learner).
        std::unique_ptr<detail::OptimizerHandle<M>> handle;
        std::function<TrainItem(const TrainBatch&, double)> captured;
        if constexpr (detail::ReplayableOptimizer<O, M>) {
            if (step_capture_) {
                handle = std::make_unique<detail::OptimizerHandleOf<M, O>>(optim_);
                captured = step_capture_(model_, *handle);
            }
        }
        for (;;) {
            const auto wait_start = Clock::now();
            auto batch = it.next();
            data_wait_ += std::chrono::duration<double>(Clock::now() - wait_start).count();
            if (!batch) break;
            ++iteration;
            const double lr = sched_.step();
            last_lr = lr;
            // With replicas, the gradients of a step that ends with an optimizer step are reduced
            // while its backward pass runs (overlap), and the replicas agree whether to stop.
            bool stop_all = false;
            const TrainItem item = [&]() -> TrainItem {
                if (captured) return in_autocast([&] { return captured(*batch, lr); });
                std::unique_ptr<typename detail::GradientSync<Backend>::Scope> hook;
                if (sync_ && options_.grads_accumulation <= 1)
                    hook = sync_->begin(model_, options_.data_parallel.overlap);
                auto out = in_autocast([&] { return model_.train_step(*batch); });
                hook.reset();
                if (options_.grads_accumulation <= 1) {
                    stop_all = optimizer_step(lr, std::move(out.grads), interrupted(), true);
                } else {
                    accumulator.accumulate(model_, std::move(out.grads));
                    if (++accumulated >= options_.grads_accumulation) {
                        stop_all = optimizer_step(lr, accumulator.grads(), interrupted());
                        accumulated = 0;
                    }
                }
                return std::move(out.item);
            }();
            const auto progress = it.progress();
            MetricMetadata md{progress.items_processed,
                              progress.items_total,
                              epoch,
                              options_.num_epochs,
                              iteration,
                              lr};
            update_metrics(train_metrics_, item, md, Split::Train, epoch, logger, train_steps_);
            renderer_->render_train(TrainingProgress{progress.items_processed, progress.items_total,
                                                     epoch, options_.num_epochs, iteration});
            if (options_.replicas ? stop_all : interrupted()) {
                stopped = true;
                break;
            }
        }
        // The gradients of a partial accumulation at the end of the epoch are applied (with the
        // last step's learning rate) rather than lost.
        if (accumulated > 0 && !stopped) optimizer_step(last_lr, accumulator.grads(), false);
        const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
        end_epoch(train_metrics_, Split::Train, epoch, seconds, it.progress().items_processed,
                  logger, log);
        mark_epoch_start(train_steps_, train_starts_, epoch);
        return stopped;
    }

    template <class Interrupted>
    bool valid_epoch(const data::DataLoader<ValidBatch>& loader, std::size_t epoch,
                     FileMetricLogger& logger, detail::ExperimentLog& log,
                     const Interrupted& interrupted) {
        if (is_lead())
            std::filesystem::remove_all(logger.dir() / split_name(Split::Valid) /
                                        ("epoch-" + std::to_string(epoch)));
        for (auto& m : valid_metrics_) m->clear();
        const ValidModel model = model_.valid();
        const auto start = Clock::now();
        auto it = loader.iter();
        std::size_t iteration = 0;
        bool stopped = false;
        while (auto batch = it.next()) {
            ++iteration;
            auto out = in_autocast([&] { return model.valid_step(*batch); });
            const auto progress = it.progress();
            MetricMetadata md{progress.items_processed,
                              progress.items_total,
                              epoch,
                              options_.num_epochs,
                              iteration,
                              std::nullopt};
            update_metrics(valid_metrics_, out, md, Split::Valid, epoch, logger, valid_steps_);
            renderer_->render_valid(TrainingProgress{progress.items_processed, progress.items_total,
                                                     epoch, options_.num_epochs, iteration});
            if (interrupted()) {
                stopped = true;
                break;
            }
        }
        const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
        end_epoch(valid_metrics_, Split::Valid, epoch, seconds, it.progress().items_processed,
                  logger, log);
        mark_epoch_start(valid_steps_, valid_starts_, epoch);
        if (ReplicaGroup* g = options_.replicas.get()) return detail::any_replica(*g, stopped);
        return stopped;
    }

    /// Remembers where epoch `epoch + 1` starts in every metric's step history.
    static void mark_epoch_start(const std::map<std::string, std::vector<double>>& steps,
                                 std::map<std::string, std::vector<std::size_t>>& starts,
                                 std::size_t epoch) {
        for (const auto& [name, values] : steps) {
            auto& s = starts[name];
            if (s.empty()) s.push_back(0);
            s.resize(epoch, s.back());
            s.push_back(values.size());  // the start of the next epoch
        }
    }

    void save_checkpoint(std::size_t epoch, detail::ExperimentLog& log) {
        if (!is_lead()) return;  // rank 0's replica is every replica's
        detail::begin_checkpoint(*checkpointer_, epoch);
        checkpointer_->save("model", epoch, model_.into_record());
        checkpointer_->save("optim", epoch, optim_.to_record());
        checkpointer_->save("scheduler", epoch, sched_.to_record());
        detail::finish_checkpoint(*checkpointer_, epoch);
        log.line("checkpoint " + std::to_string(epoch) +
                 " written: " + checkpointer_->path("model", epoch).string());
        // Keep the last `checkpoints_keep` epochs and the one of the lowest validation loss.
        std::optional<std::size_t> best;
        if (auto it = valid_epochs_.find("Loss"); it != valid_epochs_.end()) {
            double best_v = 0;
            for (std::size_t i = 0; i < it->second.size(); ++i)
                if (!std::isnan(it->second[i]) && (!best || it->second[i] < best_v)) {
                    best = i + 1;
                    best_v = it->second[i];
                }
        }
        if (epoch > options_.checkpoints_keep) {
            const std::size_t old = epoch - options_.checkpoints_keep;
            if (!best || *best != old) detail::remove_checkpoint(*checkpointer_, old);
            // A previous best that is no longer the best and is outside the window goes too.
            for (std::size_t e = 1; e < old; ++e)
                if (!best || *best != e) detail::remove_checkpoint(*checkpointer_, e);
        }
    }

    void reload_history(const FileMetricLogger& logger, std::size_t last_epoch) {
        auto load = [&](Split split, const auto& slots,
                        std::map<std::string, std::vector<double>>& epochs,
                        std::map<std::string, std::vector<double>>& steps,
                        std::map<std::string, std::vector<std::size_t>>& starts) {
            for (const auto& slot : slots) {
                if (!slot->plotted()) continue;
                const std::string name = slot->name();
                for (std::size_t e = 1; e <= last_epoch; ++e) {
                    auto v = logger.read_epoch_value(split, e, name);
                    auto& h = epochs[name];
                    h.push_back(v.value_or(std::nan("")));
                    auto& s = starts[name];
                    if (s.empty()) s.push_back(0);
                    for (double x : logger.read_numeric(split, e, name)) steps[name].push_back(x);
                    s.push_back(steps[name].size());
                }
            }
        };
        load(Split::Train, train_metrics_, train_epochs_, train_steps_, train_starts_);
        load(Split::Valid, valid_metrics_, valid_epochs_, valid_steps_, valid_starts_);
        if (early_stopping_) {
            const auto& hist =
                early_stopping_->split() == Split::Train ? train_epochs_ : valid_epochs_;
            if (auto it = hist.find(early_stopping_->metric_name()); it != hist.end())
                for (std::size_t e = 0; e < it->second.size(); ++e)
                    if (!std::isnan(it->second[e]))
                        early_stopping_->should_stop(e + 1, it->second[e]);
        }
    }

    void write_plots(detail::ExperimentLog& log) {
        if (!options_.plots || !is_lead()) return;
        std::map<std::string, MetricHistory> plots;
        auto add = [&](const auto& epochs, const auto& steps, const auto& starts, bool train) {
            for (const auto& [name, values] : epochs) {
                auto& h = plots[name];
                h.name = name;
                (train ? h.train_epochs : h.valid_epochs) = values;
                if (auto it = steps.find(name); it != steps.end())
                    (train ? h.train_iterations : h.valid_iterations) = it->second;
                if (auto it = starts.find(name); it != starts.end()) {
                    auto s = it->second;
                    if (!s.empty()) s.pop_back();  // the last entry is the start of the next epoch
                    (train ? h.train_epoch_starts : h.valid_epoch_starts) = std::move(s);
                }
            }
        };
        add(train_epochs_, train_steps_, train_starts_, true);
        add(valid_epochs_, valid_steps_, valid_starts_, false);
        for (const auto& [name, history] : plots) {
            try {
                write_metric_plot(
                    options_.artifact_dir / "plots" / (metric_file_name(name) + ".svg"), history);
            } catch (const std::exception& e) {
                log.line(std::string("could not write the plot of ") + name + ": " + e.what());
            }
        }
    }

    LearnerOptions options_;
    M model_;
    O optim_;
    S sched_;
    /// with_step_capture: makes the runner of an epoch's training steps.
    std::function<std::function<TrainItem(const TrainBatch&, double)>(M&,
                                                                      detail::OptimizerHandle<M>&)>
        step_capture_;
    std::unique_ptr<detail::GradientSync<Backend>> sync_;  // with replicas
    typename detail::GradientSync<Backend>::DeviceSum device_sum_;
    std::vector<std::unique_ptr<detail::MetricSlot<TrainItem>>> train_metrics_;
    std::vector<std::unique_ptr<detail::MetricSlot<ValidItem>>> valid_metrics_;
    std::shared_ptr<detail::CheckpointStore> checkpointer_;
    std::optional<MetricEarlyStoppingStrategy> early_stopping_;
    std::unique_ptr<MetricsRenderer> renderer_;
    std::optional<TrainingInterrupter> interrupter_;
    StopReason stop_reason_ = StopReason::Completed;
    double data_wait_ = 0.0;
    std::map<std::string, std::vector<double>> train_epochs_, valid_epochs_;
    std::map<std::string, std::vector<double>> train_steps_, valid_steps_;
    std::map<std::string, std::vector<std::size_t>> train_starts_, valid_starts_;
    /// With several devices (on the first replica only): the group, the devices, and the
    /// learners of replicas 1, 2, ...
    struct Local {
        std::shared_ptr<LocalReplicas> replicas;
        std::vector<Device> devices;
        std::vector<std::unique_ptr<Learner>> others;
    } local_;
};

}  // namespace burn::train
