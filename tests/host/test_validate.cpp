// SPDX-License-Identifier: MIT
/// @file test_validate.cpp Every validation path returns its status and a message.
#include <gtest/gtest.h>

#include "rdnaconv/plan_desc.hpp"

using namespace rdnaconv;

namespace {
const DeviceInfo kH200 = make_device_info(false, 90, 32);
Status plan(const Conv2dProblem& p, DType t = DType::f16, Conv2dOptions o = {},
            DeviceInfo d = kH200, bool wave32 = false) {
  PlanDesc desc;
  return make_plan_desc(desc, p, t, LayoutKind::nhwc, o, d, wave32);
}
}  // namespace

TEST(Validate, GoodProblem) { EXPECT_TRUE(plan(make_problem(1, 8, 8, 8, 8, 3, 3, 1, 1)).ok()); }

TEST(Validate, NonPositiveSizes) {
  for (int field = 0; field < 7; ++field)
    for (std::int64_t v : {0, -3}) {
      Conv2dProblem p = make_problem(1, 8, 8, 8, 8, 3, 3, 1, 1);
      std::int64_t* f[] = {&p.n, &p.c, &p.h, &p.w, &p.k, &p.r, &p.s};
      *f[field] = v;
      const Status s = plan(p);
      EXPECT_EQ(s.code(), StatusCode::invalid_size) << field << " " << v;
      EXPECT_FALSE(s.message().empty());
    }
}

TEST(Validate, StrideDilationPadding) {
  Conv2dProblem p = make_problem(1, 8, 8, 8, 8, 3, 3, 1, 1);
  p.stride_w = 0;
  EXPECT_EQ(plan(p).code(), StatusCode::invalid_size);
  p = make_problem(1, 8, 8, 8, 8, 3, 3, 1, 1);
  p.dil_h = -1;
  EXPECT_EQ(plan(p).code(), StatusCode::invalid_size);
  p = make_problem(1, 8, 8, 8, 8, 3, 3, 1, 1);
  p.pad_left = -1;
  EXPECT_EQ(plan(p).code(), StatusCode::invalid_size);
}

TEST(Validate, EmptyOutput) {
  // 5x5 filter on a 2x2 image without padding: nothing to compute
  EXPECT_EQ(plan(make_problem(1, 8, 2, 2, 8, 5, 5)).code(), StatusCode::empty_output);
  // dilation makes the filter span 5: still empty at pad 1 on 2x2
  EXPECT_EQ(plan(make_problem(1, 8, 2, 2, 8, 3, 3, 1, 1, 2)).code(), StatusCode::empty_output);
}

TEST(Validate, DimensionsBeyond32Bits) {
  Conv2dProblem p = make_problem(1, 8, 8, 8, 8, 3, 3, 1, 1);
  p.w = std::int64_t(1) << 32;
  EXPECT_EQ(plan(p).code(), StatusCode::invalid_size);
}

TEST(Validate, Types) {
  const Conv2dProblem p = make_problem(1, 8, 8, 8, 8, 3, 3, 1, 1);
  EXPECT_EQ(plan(p, DType::f32).code(), StatusCode::unsupported_type);
  Conv2dOptions o;
  o.has_bias = true;
  o.bias_type = DType::bf16;  // not fp32 and not the input type (fp16)
  EXPECT_EQ(plan(p, DType::f16, o).code(), StatusCode::unsupported_type);
  o.bias_type = DType::f16;
  EXPECT_TRUE(plan(p, DType::f16, o).ok());
  o = {};
  o.out_type = DType::f32;
  EXPECT_TRUE(plan(p, DType::bf16, o).ok());
}

TEST(Validate, Architecture) {
  const Conv2dProblem p = make_problem(1, 8, 8, 8, 8, 3, 3, 1, 1);
  EXPECT_EQ(plan(p, DType::f16, {}, make_device_info(false, 61, 32)).code(), StatusCode::unsupported_arch);
  EXPECT_EQ(plan(p, DType::f16, {}, make_device_info(true, 942, 64), true).code(), StatusCode::unsupported_arch);
  EXPECT_TRUE(plan(p, DType::f16, {}, make_device_info(true, 942, 64), false).ok());
  EXPECT_TRUE(plan(p, DType::f16, {}, make_device_info(true, 1201, 32), true).ok());
}

TEST(Validate, ForcedMethodThatCannotImplement) {
  Conv2dOptions o;
  o.method = Method::winograd;  // not built: cannot implement anything yet
  EXPECT_EQ(plan(make_problem(1, 256, 32, 32, 256, 3, 3, 1, 1), DType::f16, o).code(),
            StatusCode::method_not_applicable);
  o.method = Method::general;
  EXPECT_TRUE(plan(make_problem(1, 256, 32, 32, 256, 3, 3, 1, 1), DType::f16, o).ok());
}

TEST(Validate, Buffers) {
  int dummy[4];
  RunBuffers b{dummy, dummy, nullptr, dummy, nullptr, 0};
  EXPECT_TRUE(validate_buffers(b, false, 0).ok());
  EXPECT_EQ(validate_buffers(b, true, 0).code(), StatusCode::null_pointer);  // bias missing
  EXPECT_EQ(validate_buffers(b, false, 64).code(), StatusCode::workspace_too_small);
  b.workspace_bytes = 64;
  EXPECT_EQ(validate_buffers(b, false, 64).code(), StatusCode::null_pointer);  // workspace null
  b.workspace = dummy;
  EXPECT_TRUE(validate_buffers(b, false, 64).ok());
  RunBuffers nx = b;
  nx.x = nullptr;
  EXPECT_EQ(validate_buffers(nx, false, 0).code(), StatusCode::null_pointer);
  RunBuffers nw = b;
  nw.packed_w = nullptr;
  EXPECT_EQ(validate_buffers(nw, false, 0).code(), StatusCode::null_pointer);
  RunBuffers ny = b;
  ny.y = nullptr;
  EXPECT_EQ(validate_buffers(ny, false, 0).code(), StatusCode::null_pointer);
}
