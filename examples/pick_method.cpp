// SPDX-License-Identifier: MIT
/// @file pick_method.cpp Picking the method yourself: every method of the registry that can
/// implement a problem (can_implement), forced through Conv2dOptions::method, its plan's
/// describe(), its time over 20 runs (device events) and its largest difference from the
/// router's result. Compile as CUDA or HIP.
#include "common.hpp"

int main() {
  using namespace rdnaconv;
  const Conv2dProblem p = make_problem(1, 128, 64, 64, 128, 3, 3, 1, 1);
  const auto hx = random_words(std::size_t(p.x_elems()), DType::f16, 1.f, 21);  // NHWC
  const auto hw = random_words(std::size_t(p.w_elems()), DType::f16, 0.03f, 22);
  void *x = to_device(hx), *w = to_device(hw), *y = nullptr;
  CHECK_RT(rt::malloc(&y, std::size_t(p.y_elems()) * 2));
  rt::event_t a, b;
  CHECK_RT(rt::event_create(&a));
  CHECK_RT(rt::event_create(&b));

  std::vector<std::uint16_t> first;
  std::vector<Method> methods = {Method::automatic};
  for (const MethodInfo& m : kMethods) methods.push_back(m.method);
  for (Method m : methods) {
    if (m != Method::automatic && !can_implement(m, p, LayoutKind::nhwc)) {
      std::printf("%-15s cannot implement this problem on NHWC\n", to_string(m));
      continue;
    }
    Conv2dOptions o;
    o.method = m;
    Plan<fp16_t, NHWC> plan;
    if (const Status s = Plan<fp16_t, NHWC>::create(plan, p, o);
        s.code() == StatusCode::method_not_applicable) {
      std::printf("%-15s %s\n", to_string(m), s.message().c_str());  // e.g. hopper_tma off Hopper
      continue;
    }
    CHECK_OK((Plan<fp16_t, NHWC>::create(plan, p, o)));
    void *packed = nullptr, *work = nullptr;
    CHECK_RT(rt::malloc(&packed, plan.packed_weight_bytes()));
    if (plan.workspace_bytes() > 0) CHECK_RT(rt::malloc(&work, plan.workspace_bytes()));
    CHECK_OK(plan.prepack(static_cast<const fp16_t*>(w), packed));
    auto run = [&] {
      CHECK_OK(plan.run(static_cast<const fp16_t*>(x), packed, nullptr, y, work,
                        plan.workspace_bytes()));
    };
    run();  // warm-up
    CHECK_RT(rt::event_record(a, nullptr));
    for (int i = 0; i < 20; ++i) run();
    CHECK_RT(rt::event_record(b, nullptr));
    CHECK_RT(rt::event_synchronize(b));
    float ms = 0;
    CHECK_RT(rt::event_elapsed_ms(&ms, a, b));
    std::vector<std::uint16_t> got(std::size_t(p.y_elems()));
    CHECK_RT(rt::memcpy_d2h(got.data(), y, got.size() * 2));
    if (first.empty()) first = got;
    double diff = 0;
    for (std::size_t i = 0; i < got.size(); ++i)
      diff = std::fmax(diff, std::fabs(double(detail::bits_to_float(DType::f16, got[i])) -
                                       detail::bits_to_float(DType::f16, first[i])));
    std::printf("%-15s %8.1f us  max |y - router's y| %.3g\n    %s\n",
                m == Method::automatic ? "automatic" : to_string(m), ms * 1000.0 / 20, diff,
                plan.describe().c_str());
    CHECK_RT(rt::free(packed));
    if (work) CHECK_RT(rt::free(work));
  }
  for (void* q : {x, w, y}) CHECK_RT(rt::free(q));
  return 0;
}
