// SPDX-License-Identifier: MIT OR Apache-2.0
// tensor-basics: a short tour of burn-cpp's tensor API.
//
// The sections are templates over the backend B, written once for any backend; main() runs them
// on the CPU backend. Section 13 looks inside the CPU backend's buffers; section 14 computes
// gradients with the Autodiff<B> decorator.
// Build and run from the repository root:
//   cmake --preset default && cmake --build --preset default --target tensor-basics
//   ./build/default/examples/tensor-basics/tensor-basics
#include <burn/backend/cpu.hpp>
#include <burn/burn.hpp>
#include <cmath>
#include <cstddef>
#include <iomanip>
#include <iostream>
#include <string>
#include <string_view>
#include <utility>

namespace {

using burn::Bool;
using burn::Distribution;
using burn::Int;
using burn::Slice;
using burn::Tensor;

void section(std::string_view title) { std::cout << "\n=== " << title << " ===\n"; }

/// Prints a label, the shape and the values (no device/backend block, unlike operator<<).
template <class T>
void show(std::string_view label, const T& tensor) {
    const std::string data = burn::format_data(tensor.to_data(), burn::print_options());
    std::cout << "  " << label << "  " << tensor.shape() << "\n    ";
    for (char c : data) {
        std::cout << c;
        if (c == '\n') std::cout << "    ";  // keep the rows of a matrix aligned
    }
    std::cout << "\n";
}

// ---------------------------------------------------------------------------------------------
template <burn::Backend B>
void creation(const typename B::Device& device) {
    section("1. Creating tensors");
    // The rank is part of the type; the shape is read from the data.
    auto m = Tensor<B, 2>::from_floats({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}, device);
    show("from_floats", m);
    show("zeros({2, 3})", Tensor<B, 2>::zeros({2, 3}, device));
    show("full({2, 2}, 7)", Tensor<B, 2, Int>::full({2, 2}, 7, device));
    show("arange(0, 5)", Tensor<B, 1, Int>::arange(0, 5, device));
    show("eye(3)", Tensor<B, 2>::eye(3, device));
    show("from_bools", Tensor<B, 1, Bool>::from_bools({true, false, true}, device));

    // Random numbers come from the backend's seeded stream: the same seed, the same values.
    B::seed(42);
    auto r1 = Tensor<B, 2>::random({2, 3}, Distribution::Uniform(-1.0, 1.0), device);
    B::seed(42);
    auto r2 = Tensor<B, 2>::random({2, 3}, Distribution::Uniform(-1.0, 1.0), device);
    show("random Uniform(-1, 1), seed 42", r1);
    std::cout << "  reseeding with 42 repeats the values: " << std::boolalpha
              << r1.equal(r2).all().into_scalar() << "\n";
    auto normal = Tensor<B, 1>::random({100000}, Distribution::Normal(2.0, 0.5), device);
    auto [var, mean] = normal.var_mean(0);
    std::cout << "  100000 draws of Normal(2, 0.5): mean " << std::fixed << std::setprecision(3)
              << mean.into_scalar() << ", std " << std::sqrt(var.into_scalar()) << std::defaultfloat
              << std::setprecision(6) << "\n";
}

// ---------------------------------------------------------------------------------------------
template <burn::Backend B>
void arithmetic(const typename B::Device& device) {
    section("2. Arithmetic and broadcasting");
    auto m = Tensor<B, 2>::from_floats({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}, device);  // [2, 3]
    auto row = Tensor<B, 2>::from_floats({{10.0, 20.0, 30.0}}, device);              // [1, 3]
    auto col = Tensor<B, 2>::from_floats({{1.0}, {-1.0}}, device);                   // [2, 1]
    // Size-1 dims stretch to match the other operand (NumPy rules).
    show("m + row", m + row);
    show("m * col", m * col);
    show("col + row (outer sum)", col + row);
    // Scalars work on either side; m is passed by value, which copies a handle, not the data.
    show("(m - 1) * 0.5", (m - 1) * 0.5);
    show("1 / m", 1.0 / m);
    show("m.powf_scalar(2).sqrt()", m.powf_scalar(2).sqrt());
    show("(-m).exp().clamp(0.01, 0.1)", (-m).exp().clamp(0.01, 0.1));
    // Int tensors: division truncates toward zero, % takes the sign of the divisor.
    auto i = Tensor<B, 1, Int>::from_ints({-7, 7}, device);
    show("int [-7, 7] / 2", i / 2);
    show("int [-7, 7] % 3", i % 3);
}

// ---------------------------------------------------------------------------------------------
template <burn::Backend B>
void matmul(const typename B::Device& device) {
    section("3. Matrix products");
    auto a = Tensor<B, 2>::from_floats({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}, device);    // [2, 3]
    auto w = Tensor<B, 2>::from_floats({{1.0, 0.0}, {0.0, 1.0}, {1.0, 1.0}}, device);  // [3, 2]
    show("a.matmul(w)", a.matmul(w));
    // Batch dims broadcast: [4, 2, 3] x [1, 3, 2] -> [4, 2, 2]. In generic code a member template
    // with an explicit argument needs the `template` keyword.
    auto batch = Tensor<B, 3>::ones({4, 2, 3}, device);
    auto product = batch.matmul(w.template unsqueeze<3>());
    std::cout << "  [4, 2, 3] x [1, 3, 2] -> " << product.shape() << "\n";
    show("a.matmul(a.transpose())", a.matmul(a.transpose()));
}

// ---------------------------------------------------------------------------------------------
template <burn::Backend B>
void reductions(const typename B::Device& device) {
    section("4. Reductions");
    auto m = Tensor<B, 2>::from_floats({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}, device);
    show("sum()", m.sum());
    show("mean()", m.mean());
    show("sum_dim(1)  (the dim is kept with size 1)", m.sum_dim(1));
    show("max_dim(0)", m.max_dim(0));
    show("mean_dim(-1)  (negative dims count from the end)", m.mean_dim(-1));
    show("var(1)  (unbiased)", m.var(1));
    show("prod()", m.prod());
    const auto total = m.sum().into_scalar();  // a plain B::FloatElem
    std::cout << "  m.sum().into_scalar() = " << total << "\n";
}

// ---------------------------------------------------------------------------------------------
template <burn::Backend B>
void slicing(const typename B::Device& device) {
    section("5. Slicing, views and reshaping");
    auto x = Tensor<B, 1, Int>::arange(0, 12, device).reshape({3, 4}).into_float();
    show("x", x);
    // One Slice per leading dim: {start, end} or {start, end, step}; negatives count from the end.
    show("x.slice({{0, 2}, {1, 3}})", x.slice({{0, 2}, {1, 3}}));
    show("x.slice({Slice::all(), Slice::index(-1)})", x.slice({Slice::all(), Slice::index(-1)}));
    show("x.slice({{0, 3, 2}})  (every other row)", x.slice({{0, 3, 2}}));
    show("x.narrow(1, 1, 2)", x.narrow(1, 1, 2));
    show("x.transpose()", x.transpose());
    show("x.flip({1})", x.flip({1}));
    show("x.reshape({2, -1})", x.reshape({2, -1}));
    // slice_assign returns the updated tensor; x itself is unchanged.
    auto patched = x.slice_assign({{0, 1}, {0, 2}}, Tensor<B, 2>::full({1, 2}, -1.0, device));
    show("x.slice_assign({{0, 1}, {0, 2}}, [[-1, -1]])", patched);
    show("Tensor::cat({x, patched}, 0)", Tensor<B, 2>::cat({x, patched}, 0));
    std::cout << "  Tensor::stack({x, x}, 0) has shape " << Tensor<B, 2>::stack({x, x}, 0).shape()
              << "\n";
    const auto pieces = x.chunk(2, 1);
    std::cout << "  x.chunk(2, 1) gives " << pieces.size() << " pieces of shape "
              << pieces[0].shape() << "\n";
}

// ---------------------------------------------------------------------------------------------
template <burn::Backend B>
void normalisation(const typename B::Device& device) {
    section("6. Min-max normalisation: cheap copies and std::move");
    auto input = Tensor<B, 1>::from_floats({1.0, 2.0, 3.0, 4.0}, device);
    // Copying a Tensor copies a handle (a reference count), so `input` stays usable after these.
    auto min = input.min();
    auto max = input.max();
    // `input` is not needed any more: moving it lets the backend write the difference into its
    // buffer. The temporary (input - min) is then reused again by the division.
    auto normalised = (std::move(input) - min) / (max - min);
    show("(input - min) / (max - min)", normalised);
    show("min (still usable)", min);
}

// ---------------------------------------------------------------------------------------------
template <burn::Backend B>
void masks(const typename B::Device& device) {
    section("7. Comparisons and masks");
    auto m = Tensor<B, 2>::from_floats({{1.0, -2.0, 3.0}, {-4.0, 5.0, -6.0}}, device);
    auto positive = m.greater_elem(0.0);
    show("m.greater_elem(0)", positive);
    show("m.mask_fill(!positive, 0)  (a ReLU)", m.mask_fill(!positive, 0.0));
    auto big = m.abs().greater_equal_elem(3.0);
    show("positive & (|m| >= 3)", positive & big);
    std::cout << "  number of positive entries: " << positive.into_int().sum().into_scalar()
              << "\n";
    show("argwhere(positive)", positive.argwhere());
}

// ---------------------------------------------------------------------------------------------
template <burn::Backend B>
void sorting(const typename B::Device& device) {
    section("8. argmax, sort and top-k");
    auto scores = Tensor<B, 2>::from_floats({{0.1, 2.5, -1.0, 0.7}, {3.0, 0.2, 0.9, 3.0}}, device);
    show("scores", scores);
    show("scores.argmax(1)  (first maximum wins)", scores.argmax(1));
    show("scores.sort(1)", scores.sort(1));
    auto [values, indices] = scores.sort_descending_with_indices(1);
    show("sort_descending_with_indices(1): values", values);
    show("sort_descending_with_indices(1): indices", indices);
    show("scores.topk(2, 1)", scores.topk(2, 1));
}

// ---------------------------------------------------------------------------------------------
template <burn::Backend B>
void printing(const typename B::Device& device) {
    section("9. Printing");
    auto t = Tensor<B, 2>::full({2, 3}, 0.123456789, device);
    std::cout << t << "\n";
    // One call with other options ...
    std::cout << burn::to_string(t, burn::PrintOptions{.precision = 2}) << "\n";
    // ... or new defaults for every operator<< (threshold: summarise above 20 elements).
    const burn::PrintOptions saved = burn::print_options();
    burn::set_print_options({.precision = 3, .threshold = 20, .edge_items = 2});
    B::seed(1);
    std::cout << Tensor<B, 2>::random({6, 8}, Distribution::Default(), device) << "\n";
    burn::set_print_options(saved);
}

// ---------------------------------------------------------------------------------------------
template <burn::Backend B>
void errors(const typename B::Device& device) {
    section("10. Errors");
    auto x = Tensor<B, 1>::ones({12}, device);
    try {
        x.reshape({7, -1});
    } catch (const burn::Error& e) {
        std::cout << "  caught burn::Error: " << e.what() << "\n";
    }
    try {
        auto y = Tensor<B, 2>::ones({2, 3}, device) + Tensor<B, 2>::ones({3, 2}, device);
        (void)y;
    } catch (const burn::Error& e) {
        std::cout << "  caught burn::Error: " << e.what() << "\n";
    }
    try {
        (void)x.slice({{12, 14}});
    } catch (const burn::Error& e) {
        std::cout << "  caught burn::Error: " << e.what() << "\n";
    }
}

// ---------------------------------------------------------------------------------------------
// Fits y = x w + b by full-batch gradient descent with hand-written gradients of the mean
// squared error: dL/dw = 2/n x^T (x w + b - y), dL/db = 2/n sum(x w + b - y). Section 14 fits
// the same data with the gradients computed by Autodiff<B>.
template <burn::Backend B>
void linear_regression(const typename B::Device& device) {
    section("11. Linear regression by gradient descent");
    constexpr std::size_t n = 256;
    B::seed(7);
    auto x = Tensor<B, 2>::random({n, 2}, Distribution::Uniform(-1.0, 1.0), device);
    auto true_w = Tensor<B, 2>::from_floats({{3.0}, {-2.0}}, device);
    const double true_b = 0.5;
    auto noise = Tensor<B, 2>::random({n, 1}, Distribution::Normal(0.0, 0.1), device);
    auto y = x.matmul(true_w) + true_b + noise;  // [n, 1]

    auto w = Tensor<B, 2>::zeros({2, 1}, device);
    auto b = Tensor<B, 2>::zeros({1, 1}, device);
    const auto xt = x.transpose();  // a view: no copy
    const double lr = 0.1;
    const double scale = 2.0 / static_cast<double>(n);
    std::cout << std::fixed << std::setprecision(5);
    for (int step = 0; step <= 100; ++step) {
        auto err = x.matmul(w) + b - y;  // [n, 1]
        if (step % 20 == 0)
            std::cout << "  step " << std::setw(3) << step
                      << "  mse = " << (err * err).mean().into_scalar() << "\n";
        auto grad_w = xt.matmul(err) * scale;  // [2, 1]
        auto grad_b = err.sum_dim(0) * scale;  // [1, 1]
        // `w -= g` is `w = std::move(w) - g`: w's buffer is reused for the update.
        w -= std::move(grad_w) * lr;
        b -= std::move(grad_b) * lr;
    }
    std::cout << std::defaultfloat << std::setprecision(4);
    const auto wd = w.to_data().template to_vec<double>();
    std::cout << "  fitted w = [" << wd[0] << ", " << wd[1] << "], b = " << b.into_scalar()
              << "   (true: [3, -2], 0.5)\n";
    std::cout << std::setprecision(6);
}

template <burn::Backend B>
void conv_block(const typename B::Device& device) {
    section("12. A convolutional block: module ops, activations, quantization");
    // A vertical edge between columns 3 and 4 of two 8x8 images (the second one inverted).
    auto left = Tensor<B, 4>::zeros({2, 1, 8, 4}, device);
    auto right = Tensor<B, 4>::ones({2, 1, 8, 4}, device);
    auto images = Tensor<B, 4>::cat({left, right}, 3);
    images = Tensor<B, 4>::cat({images.slice({burn::Slice(0, 1)}),
                                images.slice({burn::Slice(1, 2)}).neg() + 1.0},
                               0);
    // Two 3x3 filters: a Sobel x edge detector and a box blur.
    auto sobel = Tensor<B, 2>::from_floats({{-1, 0, 1}, {-2, 0, 2}, {-1, 0, 1}}, device);
    auto blur = Tensor<B, 2>::ones({3, 3}, device) / 9.0;
    auto weight = Tensor<B, 2>::template stack<3>({sobel, blur}, 0).template reshape<4>(burn::Shape{2, 1, 3, 3});
    auto bias = Tensor<B, 1>::zeros({2}, device);

    auto features = burn::module::conv2d(images, weight, bias, burn::ConvOptions<2>{.padding = {1, 1}});
    auto activated = burn::activation::relu(features);                        // [2, 2, 8, 8]
    auto pooled = burn::module::max_pool2d(activated, {2, 2}, {2, 2}, {0, 0});  // [2, 2, 4, 4]
    auto summary = burn::module::adaptive_avg_pool2d(pooled, {1, 1}).template reshape<2>(burn::Shape{2, 2});
    show("pooled features per image [edge, blur]", summary);
    show("softmax over them", burn::activation::softmax(summary, -1));

    // int8 weights: quantize, dequantize, and compare the convolution's output with the float one.
    auto scheme = burn::QuantizationScheme::PerTensorSymmetric(burn::QuantizationType::QInt8);
    auto q_weight = weight.quantize_dynamic(scheme);
    std::cout << "  weight dtype after quantize_dynamic: " << burn::dtype_name(q_weight.dtype()) << "\n";
    auto q_features = burn::module::conv2d(images, q_weight.dequantize(), bias,
                                           burn::ConvOptions<2>{.padding = {1, 1}});
    burn::check_closeness(features, q_features);
}

template <burn::Backend B>
void run(const typename B::Device& device) {
    std::cout << "burn-cpp tensor basics on backend \"" << B::name() << "\", device " << device
              << "\n";
    creation<B>(device);
    arithmetic<B>(device);
    matmul<B>(device);
    reductions<B>(device);
    slicing<B>(device);
    normalisation<B>(device);
    masks<B>(device);
    sorting<B>(device);
    printing<B>(device);
    errors<B>(device);
    linear_regression<B>(device);
    conv_block<B>(device);
}

// Specific to the CPU backend: shows that an op on a moved-from, uniquely owned tensor writes
// its result into the same buffer, while the same op on a shared tensor allocates.
void cpu_buffer_reuse() {
    using C = burn::Cpu<float>;
    section("13. In-place reuse on the CPU backend");
    auto x = Tensor<C, 1>::ones({1 << 16});
    const void* x_buffer = x.primitive().buffer->data();
    auto y = x.exp();  // x is still needed: a new buffer
    std::cout << "  x.exp()            reuses x's buffer: " << std::boolalpha
              << (y.primitive().buffer->data() == x_buffer) << "\n";
    auto z = std::move(x).exp();  // x is given away: computed in place
    std::cout << "  std::move(x).exp() reuses x's buffer: "
              << (z.primitive().buffer->data() == x_buffer) << "\n";
}

// ---------------------------------------------------------------------------------------------
// Autodiff<Inner> is a backend too: it runs every op on Inner and records the float ops whose
// inputs need a gradient. backward() returns the gradients in a container; grad() reads one.
template <burn::Backend Inner>
void gradients(const typename Inner::Device& device) {
    using AD = burn::Autodiff<Inner>;
    section("14. Gradients with Autodiff<B>");
    // require_grad() makes a leaf whose gradient backward() returns. It returns the marked
    // tensor: use the result, not the original.
    auto x = Tensor<AD, 1>::from_floats({1.0, 2.0, 3.0}, device).require_grad();
    auto y = (x * x).sum();
    auto grads = y.backward();  // AD::Gradients
    // The gradient lives on the inner backend: a Tensor<Inner, 1>, not a tracked tensor.
    Tensor<Inner, 1> dx = *x.grad(grads);
    show("d/dx sum(x * x) = 2x", dx);
    // detach() gives the same values as a constant: no gradient flows through that factor.
    auto grads_detached = (x.detach() * x).sum().backward();
    show("d/dx sum(detach(x) * x) = x", *x.grad(grads_detached));
    // backward() frees the graph it walks: a second call throws. Run the forward pass again.
    try {
        (void)y.backward();
    } catch (const burn::Error& e) {
        std::cout << "  caught burn::Error: " << e.what() << "\n";
    }

    // Section 11's regression, on the same data, with the gradients from backward().
    constexpr std::size_t n = 256;
    AD::seed(7);  // the inner backend's random stream
    auto xs = Tensor<AD, 2>::random({n, 2}, Distribution::Uniform(-1.0, 1.0), device);
    auto true_w = Tensor<AD, 2>::from_floats({{3.0}, {-2.0}}, device);
    auto noise = Tensor<AD, 2>::random({n, 1}, Distribution::Normal(0.0, 0.1), device);
    auto ys = xs.matmul(true_w) + 0.5 + noise;  // data: not tracked, no graph
    auto w = Tensor<AD, 2>::zeros({2, 1}, device).require_grad();
    auto b = Tensor<AD, 2>::zeros({1, 1}, device).require_grad();
    const double lr = 0.1;
    // One SGD update: the new value is computed on the inner backend (inner() records nothing)
    // and becomes a new leaf. grad_remove hands the gradient's buffer over, so `* lr` reuses it.
    auto sgd = [lr](const Tensor<AD, 2>& p, typename AD::Gradients& g) {
        return Tensor<AD, 2>::from_inner(p.inner() - *p.grad_remove(g) * lr).require_grad();
    };
    const auto nodes_before = burn::autodiff::live_nodes();
    std::cout << std::fixed << std::setprecision(5);
    for (int step = 0; step <= 100; ++step) {
        auto err = xs.matmul(w) + b - ys;
        auto loss = (err * err).mean();
        if (step % 50 == 0)
            std::cout << "  step " << std::setw(3) << step << "  mse = " << loss.inner().into_scalar()
                      << "\n";
        auto step_grads = loss.backward();
        w = sgd(w, step_grads);
        b = sgd(b, step_grads);
    }
    std::cout << std::defaultfloat << std::setprecision(4);
    const auto wd = w.inner().to_data().template to_vec<double>();
    std::cout << "  fitted w = [" << wd[0] << ", " << wd[1] << "], b = " << b.inner().into_scalar()
              << "   (section 11: the same to float rounding)\n";
    std::cout << std::setprecision(6);
    // Every step's graph was freed by its backward(): the number of live nodes is unchanged.
    std::cout << "  graph nodes alive: " << burn::autodiff::live_nodes() - nodes_before
              << " more than before the loop\n";
}

}  // namespace

int main() {
    try {
        run<burn::Cpu<float>>(burn::CpuDevice{});
        cpu_buffer_reuse();
        gradients<burn::Cpu<float>>(burn::CpuDevice{});
    } catch (const burn::Error& e) {
        std::cerr << "tensor-basics: unexpected error: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
