// SPDX-License-Identifier: MIT
/// @file test_messages.cpp What a refused call says: invalid_size names the field and its value,
/// method_not_applicable names the method's broken rule and the problem's value, the router's
/// fallback says why, and a call on a never-created plan says so with its own status.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "rdnaconv/plan_desc.hpp"

using namespace rdnaconv;

namespace {
const DeviceInfo kH200 = make_device_info(false, 90, 32);

Status plan(const Conv2dProblem& p, LayoutKind l = LayoutKind::nhwc, Conv2dOptions o = {}) {
  PlanDesc d;
  return make_plan_desc(d, p, DType::f16, l, o, kH200);
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}
}  // namespace

TEST(Messages, InvalidSizeNamesTheFieldAndTheValue) {
  struct Bad {
    const char* field;
    std::int64_t Conv2dProblem::* member;
    std::int64_t value;
    const char* says;
  };
  const Bad cases[] = {
      {"N", &Conv2dProblem::n, 0, "N must be in [1, 2^31), got 0"},
      {"C", &Conv2dProblem::c, -3, "C must be in [1, 2^31), got -3"},
      {"H", &Conv2dProblem::h, -4, "H must be in [1, 2^31), got -4"},
      {"W", &Conv2dProblem::w, std::int64_t(1) << 32, "W must be in [1, 2^31), got 4294967296"},
      {"K", &Conv2dProblem::k, 0, "K must be in [1, 2^31), got 0"},
      {"R", &Conv2dProblem::r, -1, "R must be in [1, 2^31), got -1"},
      {"S", &Conv2dProblem::s, 0, "S must be in [1, 2^31), got 0"},
      {"stride_h", &Conv2dProblem::stride_h, 0, "stride_h must be in [1, 2^31), got 0"},
      {"stride_w", &Conv2dProblem::stride_w, -2, "stride_w must be in [1, 2^31), got -2"},
      {"dil_h", &Conv2dProblem::dil_h, 0, "dil_h must be in [1, 2^31), got 0"},
      {"dil_w", &Conv2dProblem::dil_w, -1, "dil_w must be in [1, 2^31), got -1"},
      {"pad_top", &Conv2dProblem::pad_top, -1, "pad_top must be in [0, 2^31), got -1"},
      {"pad_bottom", &Conv2dProblem::pad_bottom, -5, "pad_bottom must be in [0, 2^31), got -5"},
      {"pad_left", &Conv2dProblem::pad_left, -7, "pad_left must be in [0, 2^31), got -7"},
      {"pad_right", &Conv2dProblem::pad_right, std::int64_t(1) << 31,
       "pad_right must be in [0, 2^31), got 2147483648"},
  };
  for (const Bad& b : cases) {
    Conv2dProblem p = make_problem(1, 8, 8, 8, 8, 3, 3, 1, 1);
    p.*b.member = b.value;
    const Status s = plan(p);
    EXPECT_EQ(s.code(), StatusCode::invalid_size) << b.field;
    EXPECT_TRUE(has(s.message(), b.says)) << b.field << ": " << s.message();
  }
}

TEST(Messages, EmptyOutputAndOversizeEchoTheProblem) {
  Conv2dProblem p = make_problem(1, 8, 2, 2, 8, 3, 3, 1, 1, 2);  // dilation 2: the filter spans 5
  Status s = plan(p);
  EXPECT_EQ(s.code(), StatusCode::empty_output);
  EXPECT_TRUE(has(s.message(), "H=2 W=2")) << s.message();
  EXPECT_TRUE(has(s.message(), "dil=2x2")) << s.message();
  EXPECT_TRUE(has(s.message(), "pad(t,b,l,r)=1,1,1,1")) << s.message();
  p = make_problem(1, 65536, 8, 8, 8, 200, 200, 1, 100);  // C*R*S = 2.6e9
  s = plan(p);
  EXPECT_EQ(s.code(), StatusCode::invalid_size);
  EXPECT_TRUE(has(s.message(), "C*R*S=2621440000")) << s.message();
}

TEST(Messages, ForcedMethodNamesTheBrokenRuleAndTheValue) {
  const Conv2dProblem c64 = make_problem(1, 64, 16, 16, 64, 3, 3, 1, 1);
  Conv2dProblem stride_1x2 = c64;
  stride_1x2.stride_w = 2;
  struct Case {
    Method method;
    Conv2dProblem p;
    LayoutKind layout;
    int x_align;
    const char* says;
  };
  const Case cases[] = {
      {Method::winograd, make_problem(1, 64, 16, 16, 64, 3, 3, 2, 1), LayoutKind::nhwc, 16,
       "winograd needs stride 1, got stride=2x2"},
      {Method::winograd, stride_1x2, LayoutKind::nchw, 16,
       "winograd needs stride 1, got stride=1x2"},
      {Method::winograd_fused, make_problem(1, 64, 16, 16, 64, 3, 3, 1, 2, 2), LayoutKind::nhwc, 16,
       "winograd_fused needs dilation 1, got dilation=2x2"},
      {Method::winograd, make_problem(1, 3, 16, 16, 64, 3, 3, 1, 1), LayoutKind::nchw, 16,
       "winograd needs C >= 4, got C=3"},
      {Method::winograd_fused, make_problem(1, 64, 16, 16, 64, 5, 5, 1, 2), LayoutKind::nhwc, 16,
       "winograd_fused needs a 3x3 filter, got RxS=5x5"},
      {Method::gemm1x1, c64, LayoutKind::nchw, 16, "gemm1x1 needs a 1x1 filter, got RxS=3x3"},
      {Method::gemm1x1, make_problem(1, 20, 16, 16, 64, 1, 1), LayoutKind::nhwc, 16,
       "gemm1x1 needs C % 8 == 0 on NHWC, got C=20"},
      {Method::nhwc3x3, make_problem(1, 20, 16, 16, 64, 3, 3, 1, 1), LayoutKind::nhwc, 16,
       "nhwc3x3 needs C % 8 == 0, got C=20"},
      {Method::nhwc3x3, c64, LayoutKind::nchw, 16, "nhwc3x3 needs NHWC, got layout=nchw"},
      {Method::cblocked3x3, c64, LayoutKind::nhwc, 16, "cblocked3x3 needs NCHW, got layout=nhwc"},
      {Method::nchw3x3, make_problem(1, 64, 16, 16, 64, 1, 7), LayoutKind::nchw, 16,
       "nchw3x3 needs a 3x3 filter, got RxS=1x7"},
      {Method::nhwc3x3, c64, LayoutKind::nhwc, 4,
       "nhwc3x3 needs x_align 16 (it reads x in 16-byte vectors), got x_align=4"},
      {Method::general, make_problem(1, 64, 16, 16, 64, 3, 3, 1, 1, 1, 8), LayoutKind::nchw, 16,
       "general needs groups 1, got groups=8"},
      {Method::winograd, make_problem(1, 64, 16, 16, 64, 3, 3, 1, 1, 1, 64), LayoutKind::nhwc, 16,
       "winograd needs groups 1, got groups=64"},
      {Method::gemm1x1, make_problem(1, 64, 16, 16, 64, 1, 1, 1, 0, 1, 2), LayoutKind::nhwc, 16,
       "gemm1x1 needs groups 1, got groups=2"},
      {Method::grouped, c64, LayoutKind::nhwc, 16, "grouped needs groups > 1, got groups=1"},
  };
  for (const Case& c : cases) {
    Conv2dOptions o;
    o.method = c.method;
    o.x_align = c.x_align;
    const Status s = plan(c.p, c.layout, o);
    EXPECT_EQ(s.code(), StatusCode::method_not_applicable) << c.says;
    EXPECT_TRUE(has(s.message(), c.says)) << s.message();
    EXPECT_EQ(why_not(c.method, c.p, c.layout, c.x_align), c.says);
  }
}

TEST(Messages, RouterFallbackSaysWhy) {
  PlanDesc d;
  const Conv2dProblem odd_c = make_problem(1, 20, 13, 17, 33, 3, 3, 1, 1);
  ASSERT_TRUE(make_plan_desc(d, odd_c, DType::f16, LayoutKind::nhwc, {}, kH200).ok());
  EXPECT_EQ(d.method, Method::general);
  EXPECT_TRUE(has(d.reason, "; nhwc3x3 needs C % 8 == 0, got C=20, so general")) << d.reason;
  Conv2dOptions o;
  o.x_align = 2;
  ASSERT_TRUE(make_plan_desc(d, make_problem(1, 64, 16, 16, 64, 3, 3, 1, 1), DType::bf16,
                             LayoutKind::nhwc, o, kH200)
                  .ok());
  EXPECT_EQ(d.method, Method::general);
  EXPECT_TRUE(has(describe_plan(d),
                  "nhwc3x3 needs x_align 16 (it reads x in 16-byte vectors), "
                  "got x_align=2, so general"))
      << describe_plan(d);
}

// why_not is empty exactly where can_implement says yes, for every method, layout and alignment
// over a grid of shapes (the rule each family reports is the rule its can_implement applies).
TEST(Messages, WhyNotIsEmptyExactlyWhereCanImplementHolds) {
  int accepted = 0, refused = 0;
  for (std::int64_t rs : {1, 3, 5})
    for (std::int64_t c : {3, 4, 8, 20, 64})
      for (std::int64_t stride : {1, 2})
        for (std::int64_t dil : {1, 2})
          for (std::int64_t groups : {std::int64_t(1), c}) {
            const Conv2dProblem p =
                make_problem(1, c, 12, 12, 16 * groups, rs, rs, stride, rs / 2, dil, groups);
            for (const MethodInfo& m : kMethods)
              for (LayoutKind l : {LayoutKind::nchw, LayoutKind::nhwc})
                for (int align : {2, 16}) {
                  const bool ok = can_implement(m.method, p, l, align);
                  const std::string why = why_not(m.method, p, l, align);
                  EXPECT_EQ(ok, why.empty()) << m.name << " " << detail::describe(p) << " "
                                             << to_string(l) << " x_align " << align << ": " << why;
                  (ok ? accepted : refused) += 1;
                }
          }
  EXPECT_GT(accepted, 100);
  EXPECT_GT(refused, 100);
}

TEST(Messages, PlanNeverCreatedHasItsOwnStatus) {
  for (const char* call : {"prepack", "run"}) {
    const Status s = detail::not_created(call);
    EXPECT_EQ(s.code(), StatusCode::plan_not_created);
    EXPECT_TRUE(has(s.message(), std::string("Plan::") + call +
                                     "() on a plan that was never "
                                     "created"))
        << s.message();
  }
  EXPECT_STREQ(to_string(StatusCode::plan_not_created), "plan_not_created");
}
