// SPDX-License-Identifier: MIT OR Apache-2.0
// How shaders read tensor views (strided, broadcast, flipped, offset): the metadata record of
// burn::vk::TensorMeta (ops_common.hpp), std430.
struct TensorMeta {
    uint rank;
    int offset;
    uint numel;
    uint pad_;
    uint shape[8];
    int strides[8];
};

// The storage index of the element at row-major position `linear` of a tensor described by m.
uint burn_strided_index(TensorMeta m, uint linear) {
    int index = m.offset;
    for (int d = int(m.rank) - 1; d >= 0; --d) {
        const uint extent = m.shape[d];
        const uint coord = linear % extent;
        linear /= extent;
        index += int(coord) * m.strides[d];
    }
    return uint(index);
}
