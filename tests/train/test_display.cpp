// SPDX-License-Identifier: MIT OR Apache-2.0
// train::PlainRenderer / TerminalRenderer (lines, throttling, summaries, escapes), the
// FileMetricLogger (layout, reading back, errors) and the SVG metric plots (structure, edge
// cases, atomic writes).
#include <burn/train/logger.hpp>
#include <burn/train/plot.hpp>
#include <burn/train/renderer.hpp>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <regex>
#include <sstream>
#include <thread>

#include "test_support.hpp"

namespace burn::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using train::Split;

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) lines.push_back(line);
    return lines;
}

std::size_t count(const std::string& text, const std::string& needle) {
    std::size_t n = 0;
    for (auto pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + needle.size())) ++n;
    return n;
}

train::MetricState state(const std::string& name, double epoch_value, double batch_value, const std::string& unit) {
    auto fmt = [](double v) {
        std::ostringstream os;
        os.setf(std::ios::fixed);
        os.precision(2);
        os << v;
        return os.str();
    };
    const std::string u = unit.empty() ? "" : " " + unit;
    return {train::MetricEntry{name, "epoch " + fmt(epoch_value) + u + " - batch " + fmt(batch_value) + u,
                               fmt(batch_value) + ",32"},
            batch_value};
}

train::TrainingProgress progress(std::size_t iteration, std::size_t iterations, std::size_t batch,
                                 std::size_t epoch = 1, std::size_t epochs = 2) {
    train::TrainingProgress p;
    p.items_total = iterations * batch;
    p.items_processed = std::min(iteration * batch, p.items_total);
    p.epoch = epoch;
    p.epoch_total = epochs;
    p.iteration = iteration;
    return p;
}

/// One training epoch of `iterations` steps on `r`.
void train_epoch(train::MetricsRenderer& r, std::size_t iterations, std::size_t epoch = 1) {
    for (std::size_t i = 1; i <= iterations; ++i) {
        r.update_train(state("Accuracy", 80.0 + double(i), 90.0, "%"));
        r.update_train(state("Loss", 1.0 / double(i), 0.5, ""));
        r.render_train(progress(i, iterations, 32, epoch));
    }
}

/// The summary of an epoch; by default the values of train_epoch(r, n) for `steps` = n.
train::EpochSummary summary(Split split, std::size_t epoch = 1, std::size_t steps = 0) {
    train::EpochSummary s;
    s.split = split;
    s.epoch = epoch;
    s.epoch_total = 2;
    if (steps > 0) s.values = {{"Accuracy", 80.0 + double(steps)}, {"Loss", 1.0 / double(steps)}};
    else s.values = {{"Accuracy", 85.2345}, {"Loss", 0.41234}};
    s.seconds = 12.34;
    s.items = 64000;
    return s;
}

// ================================================================================ renderers
TEST(Display, SplitNames) {
    EXPECT_STREQ(train::split_name(Split::Train), "train");
    EXPECT_STREQ(train::split_name(Split::Valid), "valid");
}

TEST(Display, PlainLargeIntervalPrintsFirstAndLastStep) {
    std::ostringstream out;
    train::PlainRenderer r(out, std::chrono::hours(1));
    train_epoch(r, 10);
    const auto lines = lines_of(out.str());
    ASSERT_EQ(lines.size(), 2u) << out.str();
    EXPECT_EQ(lines[0].rfind("[train] epoch 1/2 iteration 1/10 (10%)", 0), 0u) << lines[0];
    EXPECT_NE(lines[0].find("| Accuracy: epoch 81.00 % - batch 90.00 % | Loss: epoch 1.00 - batch 0.50"),
              std::string::npos)
        << lines[0];
    EXPECT_EQ(lines[1].rfind("[train] epoch 1/2 iteration 10/10 (100%)", 0), 0u) << lines[1];
    EXPECT_NE(lines[1].find("ETA 0:00"), std::string::npos) << lines[1];
    EXPECT_NE(lines[1].find("Accuracy: epoch 90.00 %"), std::string::npos) << lines[1];
    EXPECT_EQ(out.str().find('\x1b'), std::string::npos);
}

TEST(Display, PlainZeroIntervalPrintsEveryStep) {
    std::ostringstream out;
    train::PlainRenderer r(out, 0ms);
    train_epoch(r, 7);
    const auto lines = lines_of(out.str());
    ASSERT_EQ(lines.size(), 7u) << out.str();
    for (std::size_t i = 0; i < 7; ++i)
        EXPECT_NE(lines[i].find("iteration " + std::to_string(i + 1) + "/7"), std::string::npos) << lines[i];
}

TEST(Display, PlainIntervalThrottlesBetweenFirstAndLast) {
    std::ostringstream out;
    train::PlainRenderer r(out, 200ms);
    for (std::size_t i = 1; i <= 6; ++i) {
        r.update_train(state("Loss", 1.0, 1.0, ""));
        r.render_train(progress(i, 6, 10));
        if (i == 3) std::this_thread::sleep_for(250ms);
    }
    // Step 1 (first), step 4 (the interval passed after step 3), step 6 (last).
    const auto lines = lines_of(out.str());
    ASSERT_EQ(lines.size(), 3u) << out.str();
    EXPECT_NE(lines[1].find("iteration 4/6"), std::string::npos) << lines[1];
    EXPECT_NE(lines[1].find("item/s"), std::string::npos) << lines[1];
    EXPECT_NE(lines[1].find("ETA "), std::string::npos) << lines[1];
}

TEST(Display, PlainSummaryMessagesAndSplits) {
    std::ostringstream out;
    train::PlainRenderer r(out, std::chrono::hours(1));
    train_epoch(r, 3);
    r.on_epoch_end(summary(Split::Train, 1, 3));
    r.message("checkpoint written");
    r.update_valid(state("Accuracy", 88.0, 87.0, "%"));
    r.render_valid(progress(1, 2, 32));
    r.update_valid(state("Accuracy", 88.5, 89.0, "%"));
    r.render_valid(progress(2, 2, 32));
    train::EpochSummary vs = summary(Split::Valid);
    vs.values = {{"Accuracy", 88.5}};
    r.on_epoch_end(vs);
    // A new epoch of training starts with a line again.
    train_epoch(r, 2, 2);
    r.finish();
    const auto lines = lines_of(out.str());
    ASSERT_EQ(lines.size(), 9u) << out.str();
    // The epoch values as the metrics formatted them; a value without a "epoch ... - batch" text
    // falls back to a short number.
    EXPECT_EQ(lines[2], "[epoch 1/2] train: Accuracy 83.00 %, Loss 0.33 (12.3 s, 5186 item/s)");
    EXPECT_EQ(lines[3], "checkpoint written");
    EXPECT_EQ(lines[4].rfind("[valid] epoch 1/2 iteration 1/2 (50%)", 0), 0u) << lines[4];
    EXPECT_EQ(lines[5].rfind("[valid] epoch 1/2 iteration 2/2 (100%)", 0), 0u) << lines[5];
    EXPECT_EQ(lines[6], "[epoch 1/2] valid: Accuracy 88.50 % (12.3 s, 5186 item/s)");
    EXPECT_EQ(lines[7].rfind("[train] epoch 2/2 iteration 1/2", 0), 0u) << lines[7];
}

TEST(Display, SummaryWithoutFormattedEntries) {
    std::ostringstream out;
    train::PlainRenderer r(out);
    train::EpochSummary s = summary(Split::Train);
    s.values.emplace_back("Learning Rate", 0.000123);
    s.seconds = 0.0;
    r.on_epoch_end(s);
    EXPECT_EQ(out.str(), "[epoch 1/2] train: Accuracy 85.23, Loss 0.412, Learning Rate 1.230e-04 (0.0 s)\n");

    // An epoch without steps (interrupted at once) does not reuse the last epoch's texts.
    std::ostringstream out2;
    train::PlainRenderer r2(out2, std::chrono::hours(1));
    train_epoch(r2, 2);
    r2.on_epoch_end(summary(Split::Train, 1, 2));
    r2.on_epoch_end(summary(Split::Train, 2));
    const auto lines = lines_of(out2.str());
    ASSERT_EQ(lines.size(), 4u) << out2.str();
    EXPECT_EQ(lines[2], "[epoch 1/2] train: Accuracy 82.00 %, Loss 0.50 (12.3 s, 5186 item/s)");
    EXPECT_EQ(lines[3], "[epoch 2/2] train: Accuracy 85.23, Loss 0.412 (12.3 s, 5186 item/s)");

    // A summary value that the metric's text does not show (the learning rate's value is the last
    // one, its text the epoch's mean) is written with the text's digits and unit.
    std::ostringstream out3;
    train::PlainRenderer r3(out3, std::chrono::hours(1));
    r3.update_train({{"Accuracy", "epoch 83.00 % - batch 90.00 %", "90,32"}, 90.0});
    r3.update_train({{"Learning Rate", "epoch 1.50e-3 - batch 1.00e-3", "0.001,1"}, 0.001});
    r3.update_train({{"Speed", "epoch 1200 item/s - batch 1300 item/s", "1300,1"}, 1300.0});
    r3.render_train(progress(1, 1, 32));
    train::EpochSummary s3 = summary(Split::Train);
    s3.values = {{"Accuracy", 83.004}, {"Learning Rate", 0.001}, {"Speed", 1234.6}};
    r3.on_epoch_end(s3);
    EXPECT_EQ(lines_of(out3.str()).back(),
              "[epoch 1/2] train: Accuracy 83.00 %, Learning Rate 0.001, Speed 1235 item/s (12.3 s, 5186 item/s)");
}

TEST(Display, PlainLastBatchSmaller) {
    // 100 items in batches of 32: 4 iterations, the last one of 4 items.
    std::ostringstream out;
    train::PlainRenderer r(out, 0ms);
    for (std::size_t i = 1; i <= 4; ++i) {
        train::TrainingProgress p;
        p.items_total = 100;
        p.items_processed = std::min<std::size_t>(i * 32, 100);
        p.iteration = i;
        r.render_train(p);
    }
    const auto lines = lines_of(out.str());
    ASSERT_EQ(lines.size(), 4u);
    EXPECT_NE(lines[0].find("iteration 1/4 (32%)"), std::string::npos) << lines[0];
    EXPECT_NE(lines[3].find("iteration 4/4 (100%)"), std::string::npos) << lines[3];
}

TEST(Display, TerminalRedrawsInPlaceAndEndsClean) {
    ::setenv("COLUMNS", "80", 1);
    std::ostringstream out;
    {
        train::TerminalRenderer r(out, std::chrono::hours(1));
        train_epoch(r, 50);
        const std::string during = out.str();
        // First and last step drawn (the interval is long): the block has 3 lines (header, 2 metrics),
        // erased once before the second drawing.
        EXPECT_EQ(count(during, "Train  epoch 1/2"), 2u) << during;
        EXPECT_EQ(count(during, "\x1b[3A"), 1u) << during;
        EXPECT_NE(during.find("Train  epoch 1/2  iteration 50/50  [####################] 100%"),
                  std::string::npos)
            << during;
        EXPECT_NE(during.find("  Accuracy: epoch 130.00 % - batch 90.00 %"), std::string::npos);
        r.on_epoch_end(summary(Split::Train, 1, 50));
        r.message("saved checkpoint 1");
        // Validation: the training block stays on screen above it.
        r.update_valid(state("Accuracy", 88.0, 87.0, "%"));
        r.render_valid(progress(1, 4, 32));
        const std::string with_valid = out.str().substr(out.str().rfind("\x1b[J"));
        EXPECT_NE(with_valid.find("Train  epoch 1/2"), std::string::npos) << with_valid;
        EXPECT_NE(with_valid.find("Valid  epoch 1/2  iteration 1/4"), std::string::npos) << with_valid;
        r.finish();
        const auto at_finish = out.str().size();
        r.finish();  // again, and the destructor: nothing more
        EXPECT_EQ(out.str().size(), at_finish);
    }
    ::unsetenv("COLUMNS");
    const std::string text = out.str();
    EXPECT_NE(text.find("[epoch 1/2] train: Accuracy 130.00 %, Loss 0.02 (12.3 s, 5186 item/s)\n"),
              std::string::npos);
    EXPECT_NE(text.find("saved checkpoint 1\n"), std::string::npos);
    // Interrupted during validation: the last state stays (drawn once more, from the line under
    // the messages) and the cursor is on a fresh line below everything.
    const std::string tail = text.substr(text.rfind("\x1b[J") + 3);
    EXPECT_EQ(tail.rfind("Train  epoch 1/2  iteration 50/50", 0), 0u) << tail;
    EXPECT_EQ(count(tail, "\n"), 5u) << tail;
    ASSERT_GE(text.size(), 4u);
    EXPECT_EQ(text.substr(text.size() - 4), "\x1b[K\n");
    EXPECT_EQ(text.find("\x1b[?25"), std::string::npos);  // the cursor is never hidden
    // Never wider than the terminal (80 columns: at most 79 characters; the header with its rate
    // and ETA is longer and gets cut).
    for (const auto& line : lines_of(text)) {
        std::string visible = std::regex_replace(line, std::regex("\x1b\\[[0-9;?]*[A-Za-z]"), "");
        visible.erase(std::remove(visible.begin(), visible.end(), '\r'), visible.end());
        EXPECT_LE(visible.size(), 79u) << visible;
    }
}

TEST(Display, TerminalFinishAfterSummariesErasesTheBlock) {
    ::setenv("COLUMNS", "200", 1);
    std::ostringstream out;
    train::TerminalRenderer r(out, 0ms);
    train_epoch(r, 3);
    r.on_epoch_end(summary(Split::Train, 1, 3));
    r.finish();
    ::unsetenv("COLUMNS");
    const std::string text = out.str();
    // The summary was printed above the block, the block erased at the end: the last visible
    // line is the summary and the output ends with the clearing.
    EXPECT_NE(text.find("[epoch 1/2] train: Accuracy 83.00 %"), std::string::npos);
    EXPECT_EQ(text.substr(text.size() - 8), "\x1b[3A\r\x1b[J") << text;
    // A message after finish is a plain line.
    r.message("done");
    EXPECT_EQ(out.str().substr(text.size()), "done\n");
}

TEST(Display, TerminalMessageKeepsTheBlock) {
    std::ostringstream out;
    train::TerminalRenderer r(out, 0ms);
    r.update_train(state("Loss", 1.0, 1.0, ""));
    r.render_train(progress(1, 10, 8));
    const auto before = out.str().size();
    r.message("hello");
    const std::string after = out.str().substr(before);
    // Erase the 2 lines, print the message, draw them again.
    EXPECT_EQ(after.rfind("\x1b[2A\r\x1b[Jhello\nTrain  epoch 1/2  iteration 1/10", 0), 0u) << after;
    r.finish();
}

TEST(Display, TerminalBlockFitsTheScreen) {
    ::setenv("LINES", "6", 1);
    std::ostringstream out;
    train::TerminalRenderer r(out, 0ms);
    for (int m = 0; m < 8; ++m) r.update_train(state("M" + std::to_string(m), 1.0, 1.0, ""));
    r.render_train(progress(1, 10, 8));
    r.render_train(progress(2, 10, 8));
    r.finish();
    ::unsetenv("LINES");
    // 9 lines do not fit in 6 rows: 4 are drawn and a fifth counts the rest; the redraw goes up 5.
    const std::string text = out.str();
    EXPECT_EQ(count(text, "  (5 more lines: enlarge the terminal)"), 3u) << text;
    EXPECT_EQ(count(text, "\x1b[5A"), 2u) << text;  // at step 2 and at finish()
    EXPECT_EQ(text.find("M3:"), std::string::npos);
}

TEST(Display, DefaultRendererOnAPipeIsPlain) {
    if (::isatty(STDOUT_FILENO)) GTEST_SKIP() << "stdout is a terminal";
    auto r = train::default_renderer();
    EXPECT_NE(dynamic_cast<train::PlainRenderer*>(r.get()), nullptr);
}

// ================================================================================ logger
struct TempDir {
    fs::path path;
    TempDir() {
        path = fs::temp_directory_path() / ("burn_display_" + std::to_string(::getpid()) + "_" +
                                             std::to_string(std::rand()));
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::permissions(path, fs::perms::owner_all, fs::perm_options::add, ec);
        fs::remove_all(path, ec);
    }
};

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(Display, FileNames) {
    EXPECT_EQ(train::metric_file_name("Accuracy"), "Accuracy");
    EXPECT_EQ(train::metric_file_name("Top-5 Accuracy"), "Top-5_Accuracy");
    EXPECT_EQ(train::metric_file_name("Learning Rate"), "Learning_Rate");
    EXPECT_EQ(train::metric_file_name("F1/macro:x"), "F1_macro_x");
    EXPECT_EQ(train::metric_file_name(""), "_");
    EXPECT_EQ(train::metric_file_name(".."), "___");
}

TEST(Display, LoggerLayoutAndReadBack) {
    TempDir tmp;
    const fs::path dir = tmp.path / "artifacts";
    train::FileMetricLogger logger(dir);
    EXPECT_FALSE(fs::exists(dir));  // nothing before the first write
    logger.log(Split::Train, 1, {"Accuracy", "...", "50,10"});
    logger.log(Split::Train, 1, {"Accuracy", "...", "100,30"});
    logger.log(Split::Train, 1, {"Loss", "...", "0.5,10"});
    logger.log(Split::Valid, 2, {"Loss", "...", "0.25,4"});
    logger.log(Split::Valid, 2, {"Loss", "...", "0.75,12"});
    // Readable while the epoch runs.
    EXPECT_EQ(logger.read_numeric(Split::Train, 1, "Accuracy"), (std::vector<double>{50, 100}));
    logger.end_epoch(Split::Train, 1);
    logger.end_epoch(Split::Valid, 2);
    EXPECT_EQ(slurp(dir / "train" / "epoch-1" / "Accuracy.log"), "50,10\n100,30\n");
    EXPECT_EQ(slurp(dir / "train" / "epoch-1" / "Loss.log"), "0.5,10\n");
    EXPECT_EQ(slurp(dir / "valid" / "epoch-2" / "Loss.log"), "0.25,4\n0.75,12\n");
    EXPECT_EQ(logger.read_numeric(Split::Valid, 2, "Loss"), (std::vector<double>{0.25, 0.75}));
    EXPECT_DOUBLE_EQ(*logger.read_epoch_value(Split::Train, 1, "Accuracy"), (50.0 * 10 + 100.0 * 30) / 40);
    EXPECT_DOUBLE_EQ(*logger.read_epoch_value(Split::Valid, 2, "Loss"), (0.25 * 4 + 0.75 * 12) / 16);
    // Missing logs.
    EXPECT_TRUE(logger.read_numeric(Split::Valid, 1, "Loss").empty());
    EXPECT_FALSE(logger.read_epoch_value(Split::Train, 3, "Loss").has_value());

    // Appends after a restart (resume), lines without a weight count 1, odd names are mapped.
    train::FileMetricLogger again(dir);
    again.log(Split::Train, 1, {"Accuracy", "...", "75"});
    again.log(Split::Train, 1, {"CPU/Memory", "...", "1.5\n"});
    again.end_epoch(Split::Train, 1);
    EXPECT_EQ(slurp(dir / "train" / "epoch-1" / "Accuracy.log"), "50,10\n100,30\n75\n");
    EXPECT_EQ(slurp(dir / "train" / "epoch-1" / "CPU_Memory.log"), "1.5 \n");
    EXPECT_DOUBLE_EQ(*again.read_epoch_value(Split::Train, 1, "Accuracy"), (500.0 + 3000.0 + 75.0) / 41);
    EXPECT_EQ(again.read_numeric(Split::Train, 1, "CPU/Memory"), (std::vector<double>{1.5}));

    // Undefined steps ("NaN", as metrics write them) read back as NaN and are left out of the
    // epoch's mean; exponents are read.
    again.log(Split::Valid, 3, {"Precision", "...", "NaN,5"});
    again.log(Split::Valid, 3, {"Precision", "...", "0.5,1"});
    again.log(Split::Valid, 3, {"Precision", "...", "1e-1,1"});
    again.end_epoch(Split::Valid, 3);
    const auto p = again.read_numeric(Split::Valid, 3, "Precision");
    ASSERT_EQ(p.size(), 3u);
    EXPECT_TRUE(std::isnan(p[0]));
    EXPECT_DOUBLE_EQ(p[2], 0.1);
    EXPECT_DOUBLE_EQ(*again.read_epoch_value(Split::Valid, 3, "Precision"), 0.3);

    // Moving keeps working.
    train::FileMetricLogger moved = std::move(again);
    moved.log(Split::Train, 2, {"Loss", "...", "2,1"});
    moved.end_epoch(Split::Train, 2);
    EXPECT_EQ(moved.read_numeric(Split::Train, 2, "Loss"), (std::vector<double>{2}));
}

TEST(Display, LoggerErrorsNameTheFile) {
    TempDir tmp;
    const fs::path dir = tmp.path / "logs";
    {
        train::FileMetricLogger logger(dir);
        fs::create_directories(dir / "train" / "epoch-1");
        std::ofstream(dir / "train" / "epoch-1" / "Loss.log") << "0.5,2\n\nabc,3\n";
        EXPECT_BURN_ERROR(logger.read_numeric(Split::Train, 1, "Loss"), "Loss.log:3: expected a number, got 'abc'");
        EXPECT_BURN_ERROR(logger.read_epoch_value(Split::Train, 1, "Loss"), "Loss.log:3");
        std::ofstream(dir / "train" / "epoch-1" / "Acc.log") << "0.5,x\n";
        EXPECT_BURN_ERROR(logger.read_epoch_value(Split::Train, 1, "Acc"), "Acc.log:1: expected a weight");
        EXPECT_EQ(logger.read_numeric(Split::Train, 1, "Acc"), (std::vector<double>{0.5}));
    }
    // A file where a directory should be.
    std::ofstream(tmp.path / "blocked") << "x";
    train::FileMetricLogger blocked(tmp.path / "blocked");
    EXPECT_BURN_ERROR(blocked.log(Split::Valid, 1, {"Loss", "", "1,1"}), "valid/epoch-1/Loss.log");
    if (::geteuid() != 0) {
        // A directory that cannot be written.
        const fs::path ro = tmp.path / "readonly";
        fs::create_directories(ro);
        fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
        train::FileMetricLogger logger(ro);
        EXPECT_BURN_ERROR(logger.log(Split::Train, 1, {"Accuracy", "", "1,1"}), "train/epoch-1/Accuracy.log");
        fs::permissions(ro, fs::perms::owner_all);
    }
}

// ================================================================================ plots
/// Rough well-formedness: every opened element is closed in order; returns the first problem.
std::string check_tags(const std::string& svg) {
    std::vector<std::string> stack;
    std::size_t pos = 0;
    while ((pos = svg.find('<', pos)) != std::string::npos) {
        const auto end = svg.find('>', pos);
        if (end == std::string::npos) return "unterminated tag at " + std::to_string(pos);
        const std::string tag = svg.substr(pos + 1, end - pos - 1);
        pos = end + 1;
        if (tag.empty()) return "empty tag";
        if (tag[0] == '?' || tag[0] == '!') continue;
        if (tag[0] == '/') {
            if (stack.empty() || stack.back() != tag.substr(1)) return "unexpected </" + tag.substr(1) + ">";
            stack.pop_back();
            continue;
        }
        if (tag.back() == '/') continue;
        stack.push_back(tag.substr(0, tag.find_first_of(" \n")));
    }
    if (!stack.empty()) return "unclosed <" + stack.back() + ">";
    // Text content holds no raw '&' except entities.
    std::size_t amp = 0;
    while ((amp = svg.find('&', amp)) != std::string::npos) {
        const auto semi = svg.find(';', amp);
        if (semi == std::string::npos || semi - amp > 6) return "raw &";
        ++amp;
    }
    return "";
}

train::MetricHistory history(std::size_t epochs, std::size_t per_epoch) {
    train::MetricHistory h;
    h.name = "Accuracy";
    h.unit = "%";
    for (std::size_t e = 0; e < epochs; ++e) {
        h.train_epochs.push_back(60.0 + 10.0 * double(e));
        h.valid_epochs.push_back(58.0 + 9.0 * double(e));
        h.train_epoch_starts.push_back(h.train_iterations.size());
        h.valid_epoch_starts.push_back(h.valid_iterations.size());
        for (std::size_t i = 0; i < per_epoch; ++i) {
            h.train_iterations.push_back(50.0 + 10.0 * double(e) + std::sin(double(i)));
            if (i % 4 == 0) h.valid_iterations.push_back(55.0 + 9.0 * double(e));
        }
    }
    return h;
}

TEST(Display, PlotStructure) {
    const std::string svg = train::metric_plot_svg(history(3, 20));
    EXPECT_EQ(check_tags(svg), "") << svg;
    EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
    EXPECT_NE(svg.find("<title>Accuracy</title>"), std::string::npos);
    EXPECT_NE(svg.find(">Accuracy</text>"), std::string::npos);
    EXPECT_NE(svg.find("<polyline class=\"train-epoch\""), std::string::npos);
    EXPECT_NE(svg.find("<polyline class=\"valid-epoch\""), std::string::npos);
    EXPECT_NE(svg.find("<polyline class=\"train-iteration\""), std::string::npos);
    EXPECT_NE(svg.find("<polyline class=\"valid-iteration\""), std::string::npos);
    EXPECT_EQ(count(svg, "<circle class=\"train-epoch\""), 3u);
    EXPECT_EQ(count(svg, "<circle class=\"valid-epoch\""), 3u);
    EXPECT_NE(svg.find("#1f77b4"), std::string::npos);
    EXPECT_NE(svg.find("#ff7f0e"), std::string::npos);
    EXPECT_NE(svg.find(">train</text>"), std::string::npos);
    EXPECT_NE(svg.find(">valid</text>"), std::string::npos);
    EXPECT_NE(svg.find("class=\"unit\""), std::string::npos);
    // Epoch ticks 1..3 on top, 0..3 below; y ticks on a 1-2-5 grid, 4 to 6 per panel.
    EXPECT_EQ(count(svg, "class=\"x-tick\""), 3u + 4u);
    const std::size_t y_ticks = count(svg, "class=\"y-tick\"");
    EXPECT_GE(y_ticks, 8u);
    EXPECT_LE(y_ticks, 12u);
    std::smatch m;
    std::string rest = svg;
    std::vector<double> ticks;
    const std::regex tick_re("class=\"y-tick\"[^>]*>([-0-9.]+)</text>");
    while (std::regex_search(rest, m, tick_re)) {
        ticks.push_back(std::stod(m[1]));
        rest = m.suffix();
    }
    ASSERT_GE(ticks.size(), 2u);
    const double step = ticks[1] - ticks[0];
    const double mant = step / std::pow(10.0, std::floor(std::log10(step)));
    EXPECT_TRUE(std::fabs(mant - 1) < 1e-9 || std::fabs(mant - 2) < 1e-9 || std::fabs(mant - 5) < 1e-9) << step;
    EXPECT_LE(*std::min_element(ticks.begin(), ticks.end()), 49.0);  // the ranges cover the data
    EXPECT_GE(*std::max_element(ticks.begin(), ticks.end()), 80.0);
}

TEST(Display, PlotIterationsOnAnEpochAxis) {
    // Two epochs of 4 steps: step i of epoch e at x = e - 1 + i / 4; both panels share x0 = 80.
    train::MetricHistory h;
    h.name = "Loss";
    h.train_iterations = {4, 3, 2, 1, 4, 3, 2, 1};
    h.train_epoch_starts = {0, 4};
    const std::string svg = train::metric_plot_svg(h);
    EXPECT_EQ(check_tags(svg), "");
    const auto at = svg.find("<polyline class=\"train-iteration\"");
    ASSERT_NE(at, std::string::npos) << svg;
    const std::string poly = svg.substr(at, svg.find("/>", at) - at);
    // x from 80 to 770 over 2 epochs: 345 per epoch, 86.25 per step.
    EXPECT_NE(poly.find("points=\"80,"), std::string::npos) << poly;
    EXPECT_NE(poly.find(" 166.25,"), std::string::npos) << poly;
    EXPECT_NE(poly.find(" 425,"), std::string::npos) << poly;  // the start of epoch 2
    // No epoch values: the top panel says so; no valid series anywhere.
    EXPECT_NE(svg.find("no data"), std::string::npos);
    EXPECT_EQ(svg.find("valid"), std::string::npos);
    EXPECT_EQ(svg.find("class=\"unit\""), std::string::npos);

    // The start of an epoch that has not run yet (at the end) changes nothing.
    h.train_epoch_starts = {0, 4, 8};
    EXPECT_EQ(train::metric_plot_svg(h), svg);
    // An epoch without steps keeps its place: 3 epochs of 230 px, the steps in epochs 2 and 3.
    h.train_epoch_starts = {0, 0, 4};
    const std::string gap = train::metric_plot_svg(h);
    EXPECT_NE(gap.find("points=\"310,"), std::string::npos) << gap;
    EXPECT_NE(gap.find(" 540,"), std::string::npos) << gap;
    EXPECT_EQ(count(gap, "class=\"x-tick\""), 4u);  // 0..3 (the top panel has no data)
}

TEST(Display, PlotEdgeCases) {
    // One epoch: single markers, no polylines in the top panel.
    {
        train::MetricHistory h;
        h.name = "Loss";
        h.train_epochs = {0.5};
        h.valid_epochs = {0.7};
        h.train_iterations = {0.9};
        h.train_epoch_starts = {0};
        const std::string svg = train::metric_plot_svg(h);
        EXPECT_EQ(check_tags(svg), "");
        EXPECT_EQ(svg.find("<polyline"), std::string::npos);
        EXPECT_EQ(count(svg, "<circle class=\"train-epoch\""), 1u);
        EXPECT_EQ(count(svg, "<circle class=\"valid-epoch\""), 1u);
        EXPECT_EQ(count(svg, "<circle class=\"train-iteration\""), 1u);
    }
    // Constant values: a padded range (several distinct ticks), a flat line.
    for (double c : {0.0, 42.0, -3.0}) {
        train::MetricHistory h;
        h.name = "Flat";
        h.train_epochs = {c, c, c};
        const std::string svg = train::metric_plot_svg(h);
        EXPECT_EQ(check_tags(svg), "");
        EXPECT_GE(count(svg, "class=\"y-tick\""), 4u) << c;
        EXPECT_EQ(svg.find("nan"), std::string::npos);
        EXPECT_EQ(svg.find("inf"), std::string::npos);
    }
    // Non-finite values are skipped.
    {
        train::MetricHistory h;
        h.name = "Loss";
        const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
        h.train_epochs = {1.0, nan, 0.5, inf};
        h.valid_epochs = {nan};
        const std::string svg = train::metric_plot_svg(h);
        EXPECT_EQ(check_tags(svg), "");
        EXPECT_EQ(count(svg, "<circle class=\"train-epoch\""), 2u);
        EXPECT_EQ(svg.find("valid-epoch"), std::string::npos);
        EXPECT_EQ(svg.find("nan"), std::string::npos);
        EXPECT_EQ(svg.find("inf"), std::string::npos);
    }
    // Extreme magnitudes: still a plot, with numbers only.
    {
        train::MetricHistory h;
        h.name = "Wild";
        h.train_epochs = {-1e308, 1e308};
        h.valid_epochs = {1e-300, 3e-300};
        h.train_iterations = {1.7e308, 0.0, -1.7e308, 1.6e308};
        h.valid_iterations = {0.0, 1.7e308};
        const std::string svg = train::metric_plot_svg(h);
        EXPECT_EQ(check_tags(svg), "");
        EXPECT_EQ(svg.find("nan"), std::string::npos);
        EXPECT_EQ(svg.find("inf"), std::string::npos);
    }
    // Nothing at all.
    {
        train::MetricHistory h;
        h.name = "A<&>\"'B";
        h.train_epochs = {std::numeric_limits<double>::quiet_NaN()};
        const std::string svg = train::metric_plot_svg(h);
        EXPECT_EQ(check_tags(svg), "");
        EXPECT_NE(svg.find("no data"), std::string::npos);
        EXPECT_NE(svg.find("<title>A&lt;&amp;&gt;&quot;&apos;B</title>"), std::string::npos);
        EXPECT_EQ(svg.find("<polyline"), std::string::npos);
    }
    // Many steps: thinned, keeping the extremes.
    {
        train::MetricHistory h;
        h.name = "Loss";
        for (int i = 0; i < 100000; ++i) h.train_iterations.push_back(i == 54321 ? 1000.0 : std::sin(i * 0.01));
        h.train_epoch_starts = {0, 50000};
        const std::string svg = train::metric_plot_svg(h);
        EXPECT_EQ(check_tags(svg), "");
        const auto at = svg.find("<polyline class=\"train-iteration\"");
        ASSERT_NE(at, std::string::npos);
        const std::string poly = svg.substr(at, svg.find("/>", at) - at);
        EXPECT_LE(count(poly, ","), 2100u);
        EXPECT_GE(count(poly, ","), 1000u);
        // The spike (the top of the y axis) survives: a point at the panel's top edge or above the
        // first grid line.
        EXPECT_LT(svg.size(), 200000u);
        EXPECT_NE(svg.find(">1000</text>"), std::string::npos);
    }
}

TEST(Display, WriteMetricPlotIsAtomic) {
    TempDir tmp;
    const fs::path path = tmp.path / "plots" / "Accuracy.svg";
    train::write_metric_plot(path, history(1, 5));
    const std::string first = slurp(path);
    EXPECT_EQ(first, train::metric_plot_svg(history(1, 5)));
    train::write_metric_plot(path, history(4, 5));
    EXPECT_EQ(slurp(path), train::metric_plot_svg(history(4, 5)));
    std::size_t files = 0;
    for (const auto& e : fs::directory_iterator(tmp.path / "plots")) {
        ++files;
        EXPECT_EQ(e.path().filename(), "Accuracy.svg");
    }
    EXPECT_EQ(files, 1u);
    // A path whose directory cannot exist.
    std::ofstream(tmp.path / "file") << "x";
    EXPECT_BURN_ERROR(train::write_metric_plot(tmp.path / "file" / "Loss.svg", history(1, 1)), "Loss.svg");
    // A directory in the way of the file: nothing left behind.
    fs::create_directories(tmp.path / "dir.svg" / "x");
    EXPECT_BURN_ERROR(train::write_metric_plot(tmp.path / "dir.svg", history(1, 1)), "dir.svg");
    for (const auto& e : fs::directory_iterator(tmp.path))
        EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
}

}  // namespace
}  // namespace burn::testing
