// SPDX-License-Identifier: MIT OR Apache-2.0
// Datasets (Burn's Dataset trait): random access to items by index. A dataset is any type with
//   using Item = ...;
//   std::optional<Item> get(std::size_t index) const;   // nullopt past the end
//   std::size_t len() const;
// get() must be safe to call from several threads at once: the DataLoader's workers do.
//
// Any dataset can be walked in index order (Burn's dataset.iter()):
//   for (auto item : data::iter(dataset)) { ... }   // every Dataset
//   for (auto item : dataset) { ... }               // the library's datasets, found by ADL
#pragma once

#include <concepts>
#include <cstddef>
#include <iterator>
#include <optional>
#include <utility>

#include "burn/tensor/error.hpp"

namespace burn::data {

/// A dataset of items `typename D::Item`.
template <class D>
concept Dataset = requires(const D& d, std::size_t index) {
    typename D::Item;
    { d.get(index) } -> std::same_as<std::optional<typename D::Item>>;
    { d.len() } -> std::convertible_to<std::size_t>;
};

/// Whether `d` has no items.
template <Dataset D>
bool is_empty(const D& d) {
    return d.len() == 0;
}

/// An input iterator over the items of a dataset, by index: it reads `get(index)` when
/// dereferenced (each dereference reads again; items are values). The dataset must outlive it.
/// Dereferencing an index below len() whose get() gives nothing throws burn::Error.
template <Dataset D>
class DatasetIterator {
public:
    using value_type = typename D::Item;
    using difference_type = std::ptrdiff_t;
    using reference = value_type;
    using iterator_category = std::input_iterator_tag;
    using iterator_concept = std::input_iterator_tag;

    DatasetIterator() = default;
    DatasetIterator(const D& dataset, std::size_t index) : dataset_(&dataset), index_(index) {}

    value_type operator*() const {
        auto item = dataset_->get(index_);
        BURN_CHECK(item.has_value(), "DatasetIterator: dataset.get(", index_,
                   ") returned no item although len() = ", dataset_->len());
        return std::move(*item);
    }
    DatasetIterator& operator++() {
        ++index_;
        return *this;
    }
    DatasetIterator operator++(int) {
        DatasetIterator old = *this;
        ++index_;
        return old;
    }
    /// The index of the item it points to.
    std::size_t index() const { return index_; }
    friend bool operator==(const DatasetIterator& a, const DatasetIterator& b) {
        return a.index_ == b.index_;
    }

private:
    const D* dataset_ = nullptr;
    std::size_t index_ = 0;
};

/// The items of a dataset in index order, 0 to len() - 1 (len() is read once, when the range is
/// made). A view: it refers to the dataset, which must outlive it.
template <Dataset D>
class DatasetRange {
public:
    explicit DatasetRange(const D& dataset)
        : dataset_(&dataset), len_(static_cast<std::size_t>(dataset.len())) {}
    DatasetIterator<D> begin() const { return {*dataset_, 0}; }
    DatasetIterator<D> end() const { return {*dataset_, len_}; }
    std::size_t size() const { return len_; }

private:
    const D* dataset_;
    std::size_t len_;
};

/// The items of `dataset` in index order (Burn's Dataset::iter): `for (auto item : iter(ds))`.
/// Works for every Dataset, also those of other namespaces and PartialDataset (whose end()
/// member is its range bound, which keeps a plain range-for from applying to it).
template <Dataset D>
DatasetRange<D> iter(const D& dataset) {
    return DatasetRange<D>(dataset);
}
/// Refused: the range would refer to a temporary destroyed before the loop's body runs.
template <Dataset D>
void iter(const D&& dataset) = delete;

/// `for (auto item : dataset)` on the datasets of burn::data (found by argument-dependent
/// lookup). Walks the same items as iter(dataset).
template <Dataset D>
DatasetIterator<D> begin(const D& dataset) {
    return {dataset, 0};
}
template <Dataset D>
DatasetIterator<D> end(const D& dataset) {
    return {dataset, static_cast<std::size_t>(dataset.len())};
}

}  // namespace burn::data
