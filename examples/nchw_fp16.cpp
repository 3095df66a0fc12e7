// SPDX-License-Identifier: MIT
/// @file nchw_fp16.cpp An fp16 NCHW layer as a PyTorch model stores it (NCHW activations, OIHW
/// weights, fp16 bias): the VAE's stride-2 downsample with its asymmetric (0, 1, 0, 1) padding,
/// plan + prepack + run, with relu, and the output in fp32. Compile as CUDA or HIP.
#include "common.hpp"

int main() {
  using namespace rdnaconv;
  Conv2dProblem p =
      make_problem(/*N*/ 2, /*C*/ 32, /*H*/ 33, /*W*/ 31, /*K*/ 48, /*R*/ 3, /*S*/ 3, /*stride*/ 2);
  p.pad_top = 0;
  p.pad_bottom = 1;
  p.pad_left = 0;
  p.pad_right = 1;
  Conv2dOptions o;
  o.has_bias = true;  // fp16, the input type (the default bias_type)
  o.activation = Activation::relu;
  o.out_type = DType::f32;

  const auto hx = random_words(std::size_t(p.x_elems()), DType::f16, 1.f, 11);  // NCHW
  const auto hw = random_words(std::size_t(p.w_elems()), DType::f16, 0.1f, 12);
  const auto hb = random_words(std::size_t(p.k), DType::f16, 0.5f, 13);
  void *x = to_device(hx), *w = to_device(hw), *bias = to_device(hb), *y = nullptr,
       *packed = nullptr, *work = nullptr;
  CHECK_RT(rt::malloc(&y, std::size_t(p.y_elems()) * 4));

  Plan<fp16_t, NCHW> plan;
  CHECK_OK((Plan<fp16_t, NCHW>::create(plan, p, o)));
  std::printf("plan: %s\n", plan.describe().c_str());
  CHECK_RT(rt::malloc(&packed, plan.packed_weight_bytes()));
  if (plan.workspace_bytes() > 0) CHECK_RT(rt::malloc(&work, plan.workspace_bytes()));
  CHECK_OK(plan.prepack(static_cast<const fp16_t*>(w), packed));
  CHECK_OK(plan.run(static_cast<const fp16_t*>(x), packed, bias, y, work, plan.workspace_bytes()));
  CHECK_RT(rt::synchronize());
  std::vector<float> hy(std::size_t(p.y_elems()));
  CHECK_RT(rt::memcpy_d2h(hy.data(), y, hy.size() * 4));

  std::vector<double> ref;
  reference::host_conv2d_exact(p, LayoutKind::nchw, DType::f16, hx.data(), hw.data(),
                               {hb.data(), DType::f16, Activation::relu}, ref);
  double err = 0;
  for (std::size_t i = 0; i < hy.size(); ++i) err = std::fmax(err, std::fabs(hy[i] - ref[i]));
  std::printf("output %lldx%lldx%lldx%lld (N K P Q), max |y - float64 reference| %.3g\n",
              (long long)p.n, (long long)p.k, (long long)p.p(), (long long)p.q(), err);
  for (void* b : {x, w, bias, y, packed, work})
    if (b) CHECK_RT(rt::free(b));
  return err < 1e-2 ? 0 : 1;
}
