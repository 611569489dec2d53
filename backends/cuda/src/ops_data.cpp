// SPDX-License-Identifier: MIT OR Apache-2.0
// Data in and out: empty, from_data (upload), into_data (a read: waits for the tensor's queued
// work and reports a kernel-side error), to_device, sync.
#include <cstring>
#include <vector>

#include "ops_common.hpp"

namespace burn::cuda {

CudaTensor Kernels::empty(const Shape& shape, DType dtype, const CudaDevice& device) {
    return alloc(shape, dtype, device);
}

CudaTensor Kernels::from_data(const TensorData& data, DType target, const CudaDevice& device) {
    // Quantized data is read as its dequantized values; other data is converted on the host.
    if (data.is_quantized()) return from_data(data.convert(DType::F32), target, device);
    (void)element_size(target, "from_data");
    CudaTensor t = alloc(data.shape, target, device);
    const TensorData c = data.dtype == target ? TensorData{} : data.convert(target);
    const auto bytes = (data.dtype == target ? data : c).bytes();
    context(device).upload(t.buffer->data(), bytes.data(), bytes.size());
    return t;
}

TensorData Kernels::into_data(const CudaTensor& t) {
    const CudaTensor dense = is_dense(t) ? t : contiguous(t);
    const std::size_t n = dense.num_elements();
    std::vector<std::uint8_t> out(n * element_size(dense.dtype, "into_data"));
    auto& ctx = context(dense);
    ctx.download(out.data(), first(dense), out.size());
    ctx.check_kernel_errors();
    return TensorData(std::move(out), dense.shape, dense.dtype);
}

CudaTensor Kernels::to_device(CudaTensor t, const CudaDevice& device) {
    if (t.device == device) return t;
    CudaTensor src = is_dense(t) ? std::move(t) : contiguous(std::move(t));
    CudaTensor out = alloc(src.shape, src.dtype, device);
    out.qinfo = src.qinfo;
    auto& from = context(src);
    from.sync();  // the source's queued work, and its kernel-side errors
    auto& to = context(device);
    to.activate();
    check(cudaMemcpyPeerAsync(out.buffer->data(), static_cast<int>(device.index), first(src),
                              static_cast<int>(src.device.index),
                              src.num_elements() * element_size(src.dtype), to.stream()),
          "to_device");
    // Waits, so that the source block (freed when `src` goes) is not reused under the copy.
    check(cudaStreamSynchronize(to.stream()), "to_device");
    return out;
}

void Kernels::sync(const CudaDevice& device) { context(device).sync(); }

}  // namespace burn::cuda
