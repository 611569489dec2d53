// SPDX-License-Identifier: MIT OR Apache-2.0
// Shared by the element-wise and activation shaders (elementwise_*.comp, activation_*.comp):
// the push constants every one of them uses, how an operand is read, and the float math of
// elementwise_math.glsl. Include after #version, the extensions, and tensor_meta.glsl /
// index.glsl.

// Push constants (32 bytes, the same record for every element-wise shader): n elements, op code,
// flags (bit k: operand k is dense at offset 0, read at i; others per shader), then four
// parameter words (scalar operands, clamp bounds, activation parameters; floats as bits, i64 as
// two words, low first).
layout(push_constant) uniform Push {
    uint n;
    uint op;
    uint flags;
    uint pad0;
    uint p0;
    uint p1;
    uint p2;
    uint p3;
} pc;

// Storage index of element i of operand k: i itself where flags bit k says the operand is dense
// at offset 0 (metas is then not read: the host may bind any buffer there when no operand needs
// it), else through metas[k]. Shaders declare `TensorMeta metas[]` before including this file.
uint burn_operand_index(uint k, uint i) {
    if ((pc.flags & (1u << k)) != 0u) return i;
    return burn_strided_index(metas[k], i);
}

#include "elementwise_math.glsl"
