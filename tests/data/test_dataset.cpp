// SPDX-License-Identifier: MIT OR Apache-2.0
// Datasets: InMemDataset (vector, CSV, JSON lines) and the lazy transforms (sampler, shuffle,
// partial/split, mapper, composed, windows), their edges and their determinism, and walking them
// with a range-for or iter().
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <burn/data/dataset.hpp>
#include <burn/data/in_memory.hpp>
#include <burn/data/transform.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <ranges>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "test_support.hpp"

namespace {

using namespace burn::data;

using Ints = InMemDataset<int>;

Ints range(int n) {
    std::vector<int> v(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = i;
    return Ints(std::move(v));
}

template <Dataset D>
std::vector<typename D::Item> collect(const D& d) {
    std::vector<typename D::Item> out;
    for (std::size_t i = 0; i < d.len(); ++i) {
        auto item = d.get(i);
        EXPECT_TRUE(item.has_value()) << "index " << i;
        if (item) out.push_back(*item);
    }
    return out;
}

// A temporary file, removed at the end of the test.
struct TempFile {
    explicit TempFile(const std::string& name, const std::string& text)
        : path(std::filesystem::temp_directory_path() /
               ("burn_data_test_" + std::to_string(::getpid()) + "_" + name)) {
        std::ofstream(path, std::ios::binary) << text;
    }
    ~TempFile() { std::filesystem::remove(path); }
    std::filesystem::path path;
};

static_assert(Dataset<Ints>);
static_assert(Dataset<DatasetRef<Ints>>);
static_assert(Dataset<DynDataset<int>>);
static_assert(Dataset<SamplerDataset<Ints>>);
static_assert(Dataset<ShuffledDataset<Ints>>);
static_assert(Dataset<PartialDataset<Ints>>);
static_assert(Dataset<ComposedDataset<Ints>>);
static_assert(Dataset<WindowsDataset<Ints>>);
static_assert(std::same_as<WindowsDataset<Ints>::Item, std::vector<int>>);

// ------------------------------------------------------------------------------------------
// InMemDataset

TEST(InMemDataset, GetAndLen) {
    const Ints d({3, 1, 4});
    EXPECT_EQ(d.len(), 3u);
    EXPECT_EQ(d.get(0), 3);
    EXPECT_EQ(d.get(2), 4);
    EXPECT_EQ(d.get(3), std::nullopt);
    EXPECT_FALSE(is_empty(d));
}

TEST(InMemDataset, Empty) {
    const Ints d;
    EXPECT_EQ(d.len(), 0u);
    EXPECT_TRUE(is_empty(d));
    EXPECT_EQ(d.get(0), std::nullopt);
}

TEST(InMemDataset, FromDataset) {
    const auto d = Ints::from_dataset(PartialDataset(range(10), 2, 5));
    EXPECT_EQ(d.items(), (std::vector<int>{2, 3, 4}));
}

struct House {
    double value = 0;
    int rooms = 0;
    std::string name;
};

TEST(InMemDataset, CsvWithHeaderByName) {
    TempFile f(
        "houses.csv",
        "name,rooms,value\r\nA,3,1.5\n\n\"B, the big\",5, 2e3\n\"say \"\"hi\"\"\",1,-0.25\n");
    const auto d = InMemDataset<House>::from_csv(f.path, [](const CsvRow& row) {
        return House{row.get<double>("value"), row.get<int>("rooms"), row.get<std::string>("name")};
    });
    ASSERT_EQ(d.len(), 3u);
    EXPECT_EQ(d.get(0)->name, "A");
    EXPECT_EQ(d.get(0)->rooms, 3);
    EXPECT_DOUBLE_EQ(d.get(0)->value, 1.5);
    EXPECT_EQ(d.get(1)->name, "B, the big");
    EXPECT_DOUBLE_EQ(d.get(1)->value, 2000.0);
    EXPECT_EQ(d.get(2)->name, "say \"hi\"");
    EXPECT_DOUBLE_EQ(d.get(2)->value, -0.25);
}

TEST(InMemDataset, CsvTabNoHeaderFieldsParser) {
    TempFile f("tab.tsv", "1\t2\n3\t4\n5\t\n");
    CsvOptions options;
    options.delimiter = '\t';
    options.has_headers = false;
    const auto d = InMemDataset<std::vector<std::string>>::from_csv(
        f.path,
        [](const std::vector<std::string_view>& fields) {
            return std::vector<std::string>(fields.begin(), fields.end());
        },
        options);
    ASSERT_EQ(d.len(), 3u);
    EXPECT_EQ(*d.get(0), (std::vector<std::string>{"1", "2"}));
    EXPECT_EQ(*d.get(2), (std::vector<std::string>{"5", ""}));
}

TEST(InMemDataset, CsvEmptyAndHeaderOnly) {
    TempFile empty("empty.csv", "");
    TempFile header("header.csv", "a,b\n");
    auto parse = [](const CsvRow& row) { return row.get<int>(0); };
    EXPECT_EQ(InMemDataset<int>::from_csv(empty.path, parse).len(), 0u);
    EXPECT_EQ(InMemDataset<int>::from_csv(header.path, parse).len(), 0u);
}

TEST(InMemDataset, CsvErrorsNameFileAndLine) {
    auto parse = [](const CsvRow& row) { return row.get<int>("x") + row.get<int>(1); };
    {
        TempFile f("bad_number.csv", "x,y\n1,2\n3,oops\n");
        EXPECT_BURN_ERROR(InMemDataset<int>::from_csv(f.path, parse),
                          f.path.string() + ":3: column 1: expected a number, got 'oops'");
    }
    {
        TempFile f("width.csv", "x,y\n1,2\n3\n");
        EXPECT_BURN_ERROR(InMemDataset<int>::from_csv(f.path, parse),
                          f.path.string() + ":3: expected 2 fields, found 1");
    }
    {
        TempFile f("column.csv", "a,y\n1,2\n");
        EXPECT_BURN_ERROR(InMemDataset<int>::from_csv(f.path, parse),
                          f.path.string() + ":2: no column named 'x'");
    }
    {
        TempFile f("quote.csv", "x,y\n\"1,2\n");
        EXPECT_BURN_ERROR(InMemDataset<int>::from_csv(f.path, parse),
                          f.path.string() + ":2: unterminated quoted field");
    }
    {
        TempFile f("throws.csv", "x,y\n1,2\n");
        EXPECT_BURN_ERROR(
            InMemDataset<int>::from_csv(
                f.path, [](const CsvRow&) -> int { throw std::runtime_error("nope"); }),
            f.path.string() + ":2: nope");
    }
    EXPECT_BURN_ERROR(InMemDataset<int>::from_csv("/nonexistent/dir/file.csv", parse),
                      "cannot open '/nonexistent/dir/file.csv'");
}

TEST(InMemDataset, CsvRowTypes) {
    TempFile f("types.csv", "flag,n,s\ntrue, +12 ,x\n0,-3,\"\"\n");
    struct Row {
        bool flag;
        long n;
        std::string s;
    };
    const auto d = InMemDataset<Row>::from_csv(f.path, [](const CsvRow& row) {
        EXPECT_EQ(row.column("s"), 2u);
        EXPECT_EQ(row.path(), row.path());
        return Row{row.get<bool>("flag"), row.get<long>(1), std::string(row[2])};
    });
    ASSERT_EQ(d.len(), 2u);
    EXPECT_TRUE(d.get(0)->flag);
    EXPECT_EQ(d.get(0)->n, 12);
    EXPECT_FALSE(d.get(1)->flag);
    EXPECT_EQ(d.get(1)->n, -3);
    EXPECT_EQ(d.get(1)->s, "");
    EXPECT_BURN_ERROR(
        InMemDataset<int>::from_csv(f.path, [](const CsvRow& row) { return row.get<int>(5); }),
        f.path.string() + ":2: column 5 out of range (the record has 3 fields)");
    EXPECT_BURN_ERROR(
        InMemDataset<bool>::from_csv(f.path, [](const CsvRow& row) { return row.get<bool>("s"); }),
        f.path.string() + ":2: column 's': expected a bool, got 'x'");
    CsvOptions no_header;
    no_header.has_headers = false;
    EXPECT_BURN_ERROR(InMemDataset<int>::from_csv(
                          f.path, [](const CsvRow& row) { return row.get<int>("n"); }, no_header),
                      f.path.string() + ":1: no header to look up column 'n'");
}

TEST(InMemDataset, CsvQuotedLineBreaks) {
    TempFile f("multiline.csv",
               "text,n\r\n\"two\r\nlines\",1\r\n\"end\"\r\n\"a\"\"\n\"\"b\",2\n3,4");
    CsvOptions options;
    options.flexible = true;
    std::vector<std::size_t> lines;
    const auto d = InMemDataset<std::string>::from_csv(
        f.path,
        [&lines](const CsvRow& row) {
            lines.push_back(row.line());
            return std::string(row[0]);
        },
        options);
    ASSERT_EQ(d.len(), 4u);
    EXPECT_EQ(*d.get(0), "two\r\nlines");
    EXPECT_EQ(*d.get(1), "end");
    EXPECT_EQ(*d.get(2), "a\"\n\"b");
    EXPECT_EQ(*d.get(3), "3");
    EXPECT_EQ(lines, (std::vector<std::size_t>{2, 4, 5, 7}));
    TempFile g("after_quote.csv", "x,y\n1,2\n\"3\"x,4\n");
    EXPECT_BURN_ERROR(InMemDataset<int>::from_csv(g.path, [](const CsvRow&) { return 0; }),
                      g.path.string() + ":3: unexpected character 'x' after a quoted field");
}

TEST(InMemDataset, CsvFlexible) {
    TempFile f("flex.csv", "1,2\n3\n");
    CsvOptions options;
    options.has_headers = false;
    options.flexible = true;
    const auto d = InMemDataset<std::size_t>::from_csv(
        f.path, [](const CsvRow& row) { return row.size(); }, options);
    EXPECT_EQ(d.items(), (std::vector<std::size_t>{2, 1}));
}

struct Point {
    int x = 0;
    std::string label;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Point, x, label)

TEST(InMemDataset, JsonRows) {
    TempFile f("points.jsonl", "{\"x\": 1, \"label\": \"a\"}\n\n{\"label\": \"b\", \"x\": 2}\r\n");
    const auto d = InMemDataset<Point>::from_json_rows(f.path);
    ASSERT_EQ(d.len(), 2u);
    EXPECT_EQ(d.get(0)->x, 1);
    EXPECT_EQ(d.get(1)->label, "b");

    TempFile g("numbers.jsonl", "[1,2]\n[3]\n");
    const auto v = InMemDataset<std::vector<int>>::from_json_rows(g.path);
    EXPECT_EQ(*v.get(1), (std::vector<int>{3}));

    const auto c = InMemDataset<int>::from_json_rows(
        g.path, [](const nlohmann::json& j) { return static_cast<int>(j.size()); });
    EXPECT_EQ(c.items(), (std::vector<int>{2, 1}));
}

TEST(InMemDataset, JsonRowsErrors) {
    {
        TempFile f("bad.jsonl", "{\"x\": 1, \"label\": \"a\"}\n{\"x\": 1,\n");
        EXPECT_BURN_ERROR(InMemDataset<Point>::from_json_rows(f.path), f.path.string() + ":2: ");
    }
    {
        TempFile f("type.jsonl",
                   "{\"x\": 1, \"label\": \"a\"}\n\n{\"x\": \"one\", \"label\": \"a\"}\n");
        EXPECT_BURN_ERROR(InMemDataset<Point>::from_json_rows(f.path), f.path.string() + ":3: ");
    }
    EXPECT_BURN_ERROR(InMemDataset<Point>::from_json_rows("/nonexistent/x.jsonl"),
                      "InMemDataset::from_json_rows: cannot open");
}

// ------------------------------------------------------------------------------------------
// Sharing

TEST(DatasetRef, SharesWithoutCopy) {
    auto ref = make_ref(range(5));
    auto copy = ref;
    EXPECT_EQ(&ref.inner(), &copy.inner());
    EXPECT_EQ(copy.len(), 5u);
    EXPECT_EQ(copy.get(4), 4);
    EXPECT_EQ(copy.get(5), std::nullopt);
}

TEST(DynDataset, ErasesType) {
    std::vector<DynDataset<int>> parts;
    parts.emplace_back(range(3));
    parts.emplace_back(PartialDataset(range(10), 7, 10));
    const ComposedDataset composed(std::move(parts));
    EXPECT_EQ(collect(composed), (std::vector<int>{0, 1, 2, 7, 8, 9}));
}

// ------------------------------------------------------------------------------------------
// SamplerDataset

TEST(SamplerDataset, WithReplacement) {
    const SamplerDataset d(range(10), 1000, 7);
    EXPECT_EQ(d.len(), 1000u);
    EXPECT_TRUE(d.replacement());
    const auto items = collect(d);
    std::set<int> seen(items.begin(), items.end());
    EXPECT_EQ(seen.size(), 10u);  // 1000 draws cover 10 values
    for (int x : items) EXPECT_TRUE(x >= 0 && x < 10);
    EXPECT_EQ(d.get(1000), std::nullopt);
    // The same seed gives the same sample; another seed another one.
    EXPECT_EQ(collect(SamplerDataset(range(10), 1000, 7)), items);
    EXPECT_NE(collect(SamplerDataset(range(10), 1000, 8)), items);
    // get is a function of the index.
    EXPECT_EQ(d.get(123), d.get(123));
}

TEST(SamplerDataset, WithoutReplacement) {
    const auto d = SamplerDataset<Ints>::without_replacement(range(10), 25, 3);
    EXPECT_FALSE(d.replacement());
    const auto items = collect(d);
    ASSERT_EQ(items.size(), 25u);
    std::map<int, int> count;
    for (int x : items) ++count[x];
    EXPECT_EQ(count.size(), 10u);
    for (auto [value, n] : count) EXPECT_TRUE(n == 2 || n == 3) << value;
    // Each full pass of 10 is a permutation.
    for (std::size_t pass = 0; pass < 2; ++pass) {
        std::set<int> s(items.begin() + static_cast<std::ptrdiff_t>(pass * 10),
                        items.begin() + static_cast<std::ptrdiff_t>(pass * 10 + 10));
        EXPECT_EQ(s.size(), 10u);
    }
    EXPECT_EQ(collect(SamplerDataset<Ints>::without_replacement(range(10), 25, 3)), items);
    // Smaller than the input: distinct items.
    const auto small = collect(SamplerDataset<Ints>::without_replacement(range(10), 4, 1));
    EXPECT_EQ(std::set<int>(small.begin(), small.end()).size(), 4u);
}

TEST(SamplerDataset, EmptyInput) {
    const SamplerDataset d(Ints{}, 5);
    EXPECT_EQ(d.len(), 0u);
    EXPECT_EQ(d.get(0), std::nullopt);
    EXPECT_EQ(SamplerDataset<Ints>::without_replacement(Ints{}, 5).len(), 0u);
    EXPECT_EQ(SamplerDataset(range(3), 0).len(), 0u);
}

// ------------------------------------------------------------------------------------------
// ShuffledDataset

TEST(ShuffledDataset, SeededPermutation) {
    const ShuffledDataset d(range(50), 42);
    const auto items = collect(d);
    auto sorted = items;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, collect(range(50)));
    EXPECT_NE(items, collect(range(50)));
    EXPECT_EQ(collect(ShuffledDataset<Ints>::with_seed(range(50), 42)), items);
    EXPECT_NE(collect(ShuffledDataset(range(50), 43)), items);
    EXPECT_EQ(d.get(50), std::nullopt);
    EXPECT_EQ(ShuffledDataset(Ints{}, 1).len(), 0u);
    EXPECT_EQ(collect(ShuffledDataset(range(1), 1)), (std::vector<int>{0}));
}

// ------------------------------------------------------------------------------------------
// PartialDataset / split

TEST(PartialDataset, Range) {
    const PartialDataset d(range(10), 3, 7);
    EXPECT_EQ(collect(d), (std::vector<int>{3, 4, 5, 6}));
    EXPECT_EQ(d.get(4), std::nullopt);
    // Clamped to the input; empty ranges.
    EXPECT_EQ(collect(PartialDataset(range(10), 8, 100)), (std::vector<int>{8, 9}));
    EXPECT_EQ(PartialDataset(range(10), 12, 20).len(), 0u);
    EXPECT_EQ(PartialDataset(range(10), 5, 5).len(), 0u);
    EXPECT_EQ(PartialDataset(range(10), 7, 3).len(), 0u);
    EXPECT_EQ(PartialDataset(range(10), 7, 3).get(0), std::nullopt);
}

TEST(PartialDataset, TrainTestSplitOfShuffled) {
    auto shuffled = make_ref(ShuffledDataset(range(10), 5));
    const std::size_t n = shuffled.len();
    const PartialDataset train(shuffled, 0, n * 8 / 10);
    const PartialDataset test(shuffled, n * 8 / 10, n);
    auto all = collect(train);
    const auto t = collect(test);
    EXPECT_EQ(all.size(), 8u);
    EXPECT_EQ(t.size(), 2u);
    all.insert(all.end(), t.begin(), t.end());
    std::sort(all.begin(), all.end());
    EXPECT_EQ(all, collect(range(10)));
}

TEST(PartialDataset, Split) {
    const auto parts = split(range(11), 3);
    ASSERT_EQ(parts.size(), 3u);
    EXPECT_EQ(collect(parts[0]), (std::vector<int>{0, 1, 2}));
    EXPECT_EQ(collect(parts[1]), (std::vector<int>{3, 4, 5}));
    EXPECT_EQ(collect(parts[2]), (std::vector<int>{6, 7, 8, 9, 10}));
    EXPECT_EQ(&parts[0].inner().inner(), &parts[2].inner().inner());  // shared, not copied
    const auto few = split(range(2), 3);
    EXPECT_EQ(few[0].len(), 0u);
    EXPECT_EQ(few[2].len(), 2u);
    EXPECT_BURN_ERROR(split(range(2), 0), "data::split: num must be > 0");
}

// ------------------------------------------------------------------------------------------
// MapperDataset

struct Square {
    long map(const int& x) const { return static_cast<long>(x) * x; }
};

TEST(MapperDataset, LambdaAndMapperObject) {
    const MapperDataset strings(range(3), [](const int& x) { return std::to_string(x * 10); });
    static_assert(std::same_as<decltype(strings)::Item, std::string>);
    EXPECT_EQ(collect(strings), (std::vector<std::string>{"0", "10", "20"}));
    EXPECT_EQ(strings.get(3), std::nullopt);

    const MapperDataset squares(range(4), Square{});
    static_assert(std::same_as<decltype(squares)::Item, long>);
    EXPECT_EQ(collect(squares), (std::vector<long>{0, 1, 4, 9}));
    EXPECT_EQ(MapperDataset(Ints{}, Square{}).len(), 0u);
}

TEST(MapperDataset, IsLazy) {
    auto calls = std::make_shared<std::atomic<int>>(0);
    const MapperDataset d(range(100), [calls](const int& x) {
        ++*calls;
        return x + 1;
    });
    EXPECT_EQ(calls->load(), 0);
    EXPECT_EQ(d.get(41), 42);
    EXPECT_EQ(calls->load(), 1);
}

// ------------------------------------------------------------------------------------------
// ComposedDataset

TEST(ComposedDataset, Concatenates) {
    const ComposedDataset d(std::vector<Ints>{range(2), Ints{}, Ints({7, 8, 9})});
    EXPECT_EQ(d.len(), 5u);
    EXPECT_EQ(collect(d), (std::vector<int>{0, 1, 7, 8, 9}));
    EXPECT_EQ(d.get(5), std::nullopt);
    EXPECT_EQ(ComposedDataset(std::vector<Ints>{}).len(), 0u);
    EXPECT_EQ(ComposedDataset(std::vector<Ints>{}).get(0), std::nullopt);
    EXPECT_EQ(ComposedDataset(std::vector<Ints>{Ints{}, Ints{}}).get(0), std::nullopt);
}

TEST(ComposedDataset, OfSharedRefs) {
    auto big = make_ref(range(1000));
    const ComposedDataset d(std::vector<DatasetRef<Ints>>{big, big});
    EXPECT_EQ(d.len(), 2000u);
    EXPECT_EQ(d.get(1999), 999);
    EXPECT_EQ(&d.parts()[0].inner(), &d.parts()[1].inner());
}

// ------------------------------------------------------------------------------------------
// WindowsDataset

TEST(WindowsDataset, Windows) {
    const WindowsDataset d(range(5), 3);
    EXPECT_EQ(d.len(), 3u);
    EXPECT_EQ(d.size(), 3u);
    EXPECT_EQ(*d.get(0), (std::vector<int>{0, 1, 2}));
    EXPECT_EQ(*d.get(2), (std::vector<int>{2, 3, 4}));
    EXPECT_EQ(d.get(3), std::nullopt);
    EXPECT_EQ(WindowsDataset(range(5), 5).len(), 1u);
    EXPECT_EQ(WindowsDataset(range(5), 6).len(), 0u);
    EXPECT_EQ(WindowsDataset(range(5), 6).get(0), std::nullopt);
    EXPECT_EQ(WindowsDataset(Ints{}, 1).len(), 0u);
    EXPECT_EQ(WindowsDataset(range(3), 1).len(), 3u);
    EXPECT_BURN_ERROR(WindowsDataset(range(3), 0),
                      "WindowsDataset: the window size must be > 0, got 0");
}

// ------------------------------------------------------------------------------------------
// Composition and threads

TEST(Transforms, ComposeAndReadFromThreads) {
    auto base = make_ref(range(1000));
    const MapperDataset mapped(ShuffledDataset(base, 9), [](const int& x) { return 2 * x; });
    const SamplerDataset sampled(make_ref(mapped), 4000, 11);
    std::vector<std::vector<int>> seen(4);
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (std::size_t i = 0; i < sampled.len(); ++i) seen[t].push_back(*sampled.get(i));
        });
    for (auto& th : threads) th.join();
    for (std::size_t t = 1; t < 4; ++t) EXPECT_EQ(seen[t], seen[0]);
    for (int x : seen[0]) EXPECT_TRUE(x % 2 == 0 && x >= 0 && x < 2000);
}

}  // namespace

// ------------------------------------------------------------------------------- iteration
namespace {
namespace iteration_test {
// A dataset outside burn::data: iter() reaches it, a plain range-for does not (no ADL).
struct Squares {
    using Item = int;
    std::optional<int> get(std::size_t i) const {
        if (i >= 4) return std::nullopt;
        return static_cast<int>(i * i);
    }
    std::size_t len() const { return 4; }
};
// A broken dataset: len() promises more than get() gives.
struct Liar {
    using Item = int;
    std::optional<int> get(std::size_t i) const {
        if (i >= 1) return std::nullopt;
        return 7;
    }
    std::size_t len() const { return 2; }
};
}  // namespace iteration_test

static_assert(std::input_iterator<DatasetIterator<Ints>>);
static_assert(std::ranges::input_range<DatasetRange<Ints>>);
static_assert(std::ranges::input_range<const Ints&>);

template <class R>
std::vector<int> loop(const R& r) {
    std::vector<int> out;
    for (auto item : r) out.push_back(item);
    return out;
}

TEST(DatasetIteration, RangeForOverLibraryDatasets) {
    const Ints ints = range(5);
    EXPECT_EQ(loop(ints), (std::vector<int>{0, 1, 2, 3, 4}));
    EXPECT_EQ(loop(iter(ints)), loop(ints));

    const ShuffledDataset<Ints> shuffled(range(6), 3);
    EXPECT_EQ(loop(shuffled), collect(shuffled));
    auto sorted = loop(shuffled);
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, (std::vector<int>{0, 1, 2, 3, 4, 5}));

    const MapperDataset mapped(range(3), [](const int& x) { return x * 10; });
    EXPECT_EQ(loop(mapped), (std::vector<int>{0, 10, 20}));

    const ComposedDataset<Ints> composed({range(2), range(3)});
    EXPECT_EQ(loop(composed), (std::vector<int>{0, 1, 0, 1, 2}));

    const SamplerDataset<Ints> sampled(range(4), 3, false, 1);
    EXPECT_EQ(loop(sampled), collect(sampled));

    const auto ref = make_ref(range(3));
    EXPECT_EQ(loop(ref), (std::vector<int>{0, 1, 2}));
    const DynDataset<int> dyn(range(2));
    EXPECT_EQ(loop(dyn), (std::vector<int>{0, 1}));

    // PartialDataset's end() is its bound, so it is walked through iter().
    const PartialDataset<Ints> partial(range(10), 3, 6);
    EXPECT_EQ(loop(iter(partial)), (std::vector<int>{3, 4, 5}));

    const WindowsDataset<Ints> windows(range(4), 3);
    std::vector<std::vector<int>> seen;
    for (auto w : windows) seen.push_back(w);
    EXPECT_EQ(seen, (std::vector<std::vector<int>>{{0, 1, 2}, {1, 2, 3}}));

    const Ints empty(std::vector<int>{});
    EXPECT_TRUE(loop(empty).empty());
}

TEST(DatasetIteration, IterOnAnyDatasetAndIteratorSemantics) {
    const iteration_test::Squares squares;
    EXPECT_EQ(loop(iter(squares)), (std::vector<int>{0, 1, 4, 9}));
    auto r = iter(squares);
    EXPECT_EQ(r.size(), 4u);
    auto it = r.begin();
    EXPECT_EQ(*it, 0);
    auto old = it++;
    EXPECT_EQ(old.index(), 0u);
    EXPECT_EQ(*it, 1);
    EXPECT_EQ(*++it, 4);
    EXPECT_NE(it, r.end());
    EXPECT_EQ(std::ranges::distance(r.begin(), r.end()), 4);

    const iteration_test::Liar liar;
    std::vector<int> got;
    try {
        for (auto x : iter(liar)) got.push_back(x);
        FAIL() << "expected burn::Error";
    } catch (const burn::Error& e) {
        EXPECT_NE(std::string(e.what()).find("get(1) returned no item although len() = 2"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_EQ(got, (std::vector<int>{7}));
}

}  // namespace
