// SPDX-License-Identifier: MIT
/// @file quickstart.cpp README's quick start as a program: a bf16 NHWC 3x3 convolution with bias
/// and gelu, once through the plan API (plan, prepack once, run) and once through the one-shot
/// call, both compared with a float64 host convolution. Compile as CUDA or HIP.
#include "common.hpp"

int main() {
  using namespace rdnaconv;
  const Conv2dProblem p =
      make_problem(/*N*/ 1, /*C*/ 64, /*H*/ 32, /*W*/ 32, /*K*/ 64, /*R*/ 3, /*S*/ 3,
                   /*stride*/ 1, /*pad*/ 1);
  Conv2dOptions o;
  o.has_bias = true;  // bias in the input type (bf16), as a PyTorch model keeps it
  o.activation = Activation::gelu;

  const auto hx = random_words(std::size_t(p.x_elems()), DType::bf16, 1.f, 1);    // NHWC
  const auto hw = random_words(std::size_t(p.w_elems()), DType::bf16, 0.05f, 2);  // OIHW
  const auto hb = random_words(std::size_t(p.k), DType::bf16, 0.5f, 3);
  void *x = to_device(hx), *w = to_device(hw), *bias = to_device(hb), *y = nullptr;
  CHECK_RT(rt::malloc(&y, std::size_t(p.y_elems()) * 2));

  // Plan once, prepack the weights once (caller-owned memory), run many times.
  Plan<bf16_t, NHWC> plan;
  CHECK_OK((Plan<bf16_t, NHWC>::create(plan, p, o)));
  std::printf("plan: %s\n", plan.describe().c_str());
  void *packed = nullptr, *work = nullptr;
  CHECK_RT(rt::malloc(&packed, plan.packed_weight_bytes()));
  if (plan.workspace_bytes() > 0) CHECK_RT(rt::malloc(&work, plan.workspace_bytes()));
  CHECK_OK(plan.prepack(static_cast<const bf16_t*>(w), packed));
  CHECK_OK(plan.run(static_cast<const bf16_t*>(x), packed, bias, y, work, plan.workspace_bytes()));
  CHECK_RT(rt::synchronize());
  std::vector<std::uint16_t> y_plan(std::size_t(p.y_elems()));
  CHECK_RT(rt::memcpy_d2h(y_plan.data(), y, y_plan.size() * 2));

  // Or one call, which packs the weights into its workspace on every call.
  std::size_t ws = 0;
  CHECK_OK((conv2d_workspace_bytes<bf16_t, NHWC>(p, o, &ws)));
  void* one_shot_work = nullptr;
  CHECK_RT(rt::malloc(&one_shot_work, ws));
  CHECK_OK((conv2d<bf16_t, NHWC>(p, static_cast<const bf16_t*>(x), static_cast<const bf16_t*>(w),
                                 bias, y, one_shot_work, ws, nullptr, o)));
  CHECK_RT(rt::synchronize());
  std::vector<std::uint16_t> y_once(y_plan.size());
  CHECK_RT(rt::memcpy_d2h(y_once.data(), y, y_once.size() * 2));

  std::vector<double> ref;
  reference::host_conv2d_exact(p, LayoutKind::nhwc, DType::bf16, hx.data(), hw.data(),
                               {hb.data(), DType::bf16, Activation::gelu}, ref);
  const double e_plan = max_error(y_plan, DType::bf16, ref),
               e_once = max_error(y_once, DType::bf16, ref);
  std::printf("y[0..3] = %.4f %.4f %.4f %.4f\n", detail::bits_to_float(DType::bf16, y_plan[0]),
              detail::bits_to_float(DType::bf16, y_plan[1]),
              detail::bits_to_float(DType::bf16, y_plan[2]),
              detail::bits_to_float(DType::bf16, y_plan[3]));
  std::printf("max |y - float64 reference|: plan %.3g, one-shot %.3g; plan and one-shot %s\n",
              e_plan, e_once, y_plan == y_once ? "identical" : "DIFFER");
  for (void* b : {x, w, bias, y, packed, work, one_shot_work})
    if (b) CHECK_RT(rt::free(b));
  return y_plan == y_once && e_plan < 0.05 ? 0 : 1;
}
