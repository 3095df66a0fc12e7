// SPDX-License-Identifier: MIT
/// @file test_validate.cpp Every validation path returns its status and a message.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "rdnaconv/plan_desc.hpp"

using namespace rdnaconv;

namespace {
const DeviceInfo kH200 = make_device_info(false, 90, 32);
Status plan(const Conv2dProblem& p, DType t = DType::f16, Conv2dOptions o = {},
            DeviceInfo d = kH200, AtomKind atom = AtomKind::native) {
  PlanDesc desc;
  return make_plan_desc(desc, p, t, LayoutKind::nhwc, o, d, atom);
}
}  // namespace

TEST(Validate, GoodProblem) {
  EXPECT_TRUE(plan(make_problem(1, 8, 8, 8, 8, 3, 3, 1, 1)).ok());
}

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

TEST(Validate, BiasDefaultsToTheInputType) {
  const Conv2dProblem p = make_problem(1, 8, 8, 8, 8, 3, 3, 1, 1);
  Conv2dOptions o;
  o.has_bias = true;
  EXPECT_EQ(o.bias_type, DType::same);
  PlanDesc d;
  ASSERT_TRUE(make_plan_desc(d, p, DType::bf16, LayoutKind::nhwc, o, kH200).ok());
  EXPECT_EQ(d.options.bias_type, DType::bf16);  // resolved at plan time
  ASSERT_TRUE(make_plan_desc(d, p, DType::f16, LayoutKind::nchw, o, kH200).ok());
  EXPECT_EQ(d.options.bias_type, DType::f16);
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

TEST(Validate, EveryOptionFieldOutsideItsEnum) {
  const Conv2dProblem p = make_problem(1, 8, 8, 8, 8, 3, 3, 1, 1);
  struct Bad {
    const char* field;
    Conv2dOptions o;
  };
  std::vector<Bad> cases;
  for (unsigned v : {6u, 9u, 255u}) {
    Conv2dOptions o;
    o.activation = Activation(v);
    cases.push_back({"activation", o});
  }
  for (unsigned v : {4u, 200u}) {
    Conv2dOptions o;
    o.has_bias = true;
    o.bias_type = DType(v);
    cases.push_back({"bias_type", o});
  }
  for (unsigned v : {4u, 77u}) {
    Conv2dOptions o;
    o.out_type = DType(v);
    cases.push_back({"out_type", o});
    o = {};
    o.bias_type = DType(v);  // without a bias too
    cases.push_back({"bias_type", o});
  }
  for (unsigned v : {4u, 200u}) {  // 3 is pingpong, the last
    Conv2dOptions o;
    o.schedule = Schedule(v);
    cases.push_back({"schedule", o});
  }
  for (unsigned v : {12u, 42u, 255u}) {  // 11 is hopper_halo, the last
    Conv2dOptions o;
    o.method = Method(v);
    cases.push_back({"method", o});
  }
  for (float v : {std::numeric_limits<float>::infinity(), std::nanf("")}) {
    Conv2dOptions o;
    o.alpha = v;
    cases.push_back({"alpha", o});
    o = {};
    o.has_residual = true;
    o.beta = -v;
    cases.push_back({"beta", o});
  }
  for (const Bad& b : cases) {
    const Status s = plan(p, DType::f16, b.o);
    EXPECT_EQ(s.code(), StatusCode::invalid_option) << b.field;
    EXPECT_NE(s.message().find(b.field), std::string::npos) << s.message();
  }
  // every enumerator of every field is accepted
  for (Activation a : kActivations) {
    Conv2dOptions o;
    o.activation = a;
    EXPECT_TRUE(plan(p, DType::f16, o).ok()) << to_string(a);
  }
  for (DType t : {DType::same, DType::f16, DType::bf16, DType::f32}) {
    Conv2dOptions o;
    o.out_type = t;
    EXPECT_TRUE(plan(p, DType::bf16, o).ok()) << to_string(t);
  }
}

TEST(Validate, Architecture) {
  const Conv2dProblem p = make_problem(1, 8, 8, 8, 8, 3, 3, 1, 1);
  EXPECT_EQ(plan(p, DType::f16, {}, make_device_info(false, 61, 32)).code(),
            StatusCode::unsupported_arch);
  EXPECT_EQ(plan(p, DType::f16, {}, make_device_info(false, 75, 32)).code(),
            StatusCode::unsupported_arch);  // sm_80+
  EXPECT_TRUE(plan(p, DType::f16, {}, make_device_info(false, 80, 32)).ok());
  EXPECT_EQ(plan(p, DType::f16, {}, make_device_info(true, 942, 64), AtomKind::gfx11).code(),
            StatusCode::unsupported_arch);
  EXPECT_TRUE(plan(p, DType::f16, {}, make_device_info(true, 942, 64)).ok());
  EXPECT_TRUE(plan(p, DType::f16, {}, make_device_info(true, 1201, 32), AtomKind::gfx12).ok());
}

TEST(Validate, ForcedMethodThatCannotImplement) {
  Conv2dOptions o;
  o.method = Method::winograd;  // stride 2 is not Winograd-eligible
  const Status s = plan(make_problem(1, 256, 32, 32, 256, 3, 3, 2, 1), DType::f16, o);
  EXPECT_EQ(s.code(), StatusCode::method_not_applicable);
  EXPECT_NE(s.message().find("winograd"), std::string::npos);
  o.method = Method::gemm1x1;  // a 3x3 filter
  EXPECT_EQ(plan(make_problem(1, 256, 32, 32, 256, 3, 3, 1, 1), DType::f16, o).code(),
            StatusCode::method_not_applicable);
  o.method = Method::cblocked3x3;  // an NCHW variant asked for on NHWC
  EXPECT_EQ(plan(make_problem(1, 256, 32, 32, 256, 3, 3, 1, 1), DType::f16, o).code(),
            StatusCode::method_not_applicable);
  o.method = Method::general;
  EXPECT_TRUE(plan(make_problem(1, 256, 32, 32, 256, 3, 3, 1, 1), DType::f16, o).ok());
  o.method = Method::winograd;
  EXPECT_TRUE(plan(make_problem(1, 256, 32, 32, 256, 3, 3, 1, 1), DType::f16, o).ok());
}

TEST(Validate, TooLargeForOneLaunch) {
  // 2^31 - 1 pixels wide, 2^31 - 1 high: each dimension is legal, the grid is not
  Conv2dProblem p = make_problem(1, 8, 2147483000, 2147483000, 4096, 1, 1);
  EXPECT_EQ(plan(p).code(), StatusCode::invalid_size);
}

TEST(Validate, Buffers) {
  alignas(16) int dummy[8];
  const Conv2dOptions none;
  Conv2dOptions with_bias;
  with_bias.has_bias = true;
  RunBuffers b{dummy, dummy, nullptr, dummy, nullptr, 0};
  EXPECT_TRUE(validate_buffers(b, none, DType::f16, 0).ok());
  EXPECT_EQ(validate_buffers(b, with_bias, DType::f16, 0).code(),
            StatusCode::null_pointer);  // bias missing
  EXPECT_EQ(validate_buffers(b, none, DType::f16, 64).code(), StatusCode::workspace_too_small);
  b.workspace_bytes = 64;
  EXPECT_EQ(validate_buffers(b, none, DType::f16, 64).code(),
            StatusCode::null_pointer);  // workspace null
  b.workspace = dummy;
  EXPECT_TRUE(validate_buffers(b, none, DType::f16, 64).ok());
  RunBuffers nx = b;
  nx.x = nullptr;
  EXPECT_EQ(validate_buffers(nx, none, DType::f16, 0).code(), StatusCode::null_pointer);
  RunBuffers nw = b;
  nw.packed_w = nullptr;
  EXPECT_EQ(validate_buffers(nw, none, DType::f16, 0).code(), StatusCode::null_pointer);
  RunBuffers ny = b;
  ny.y = nullptr;
  EXPECT_EQ(validate_buffers(ny, none, DType::f16, 0).code(), StatusCode::null_pointer);
}

TEST(Validate, Alignment) {
  alignas(16) char buf[64];
  const Conv2dOptions none;
  RunBuffers b{buf, buf, nullptr, buf, buf, 64};
  EXPECT_TRUE(validate_buffers(b, none, DType::bf16, 64).ok());
  RunBuffers odd_x = b;
  odd_x.x = buf + 1;
  EXPECT_EQ(validate_buffers(odd_x, none, DType::bf16, 0).code(), StatusCode::misaligned);
  RunBuffers pk = b;
  pk.packed_w = buf + 8;  // packed weights are read 16 bytes at a time
  EXPECT_EQ(validate_buffers(pk, none, DType::bf16, 0).code(), StatusCode::misaligned);
  RunBuffers ws = b;
  ws.workspace = buf + 4;
  EXPECT_EQ(validate_buffers(ws, none, DType::bf16, 32).code(), StatusCode::misaligned);
  EXPECT_TRUE(validate_buffers(ws, none, DType::bf16, 0).ok());  // no workspace needed: not read
  Conv2dOptions f32;
  f32.out_type = DType::f32;
  RunBuffers y2 = b;
  y2.y = buf + 2;
  EXPECT_TRUE(validate_buffers(y2, none, DType::bf16, 0).ok());
  EXPECT_EQ(validate_buffers(y2, f32, DType::bf16, 0).code(), StatusCode::misaligned);
  Conv2dOptions fb;
  fb.has_bias = true;
  fb.bias_type = DType::f32;
  RunBuffers bb = b;
  bb.bias = buf + 2;  // fp32 bias on 2 bytes
  EXPECT_EQ(validate_buffers(bb, fb, DType::bf16, 0).code(), StatusCode::misaligned);
  fb.bias_type = DType::bf16;
  EXPECT_TRUE(validate_buffers(bb, fb, DType::bf16, 0).ok());
}

TEST(Validate, Residual) {
  alignas(16) char buf[64];
  Conv2dOptions res;
  res.has_residual = true;
  RunBuffers b{buf, buf, nullptr, buf, buf, 64};
  EXPECT_EQ(validate_buffers(b, res, DType::f16, 0).code(), StatusCode::null_pointer);  // no z
  b.z = buf + 2;
  EXPECT_TRUE(validate_buffers(b, res, DType::f16, 0).ok());
  EXPECT_EQ(validate_buffers(b, {}, DType::f16, 0).code(),
            StatusCode::invalid_option);  // z without a planned residual is refused, not dropped
  b.z = buf + 1;
  EXPECT_EQ(validate_buffers(b, res, DType::f16, 0).code(), StatusCode::misaligned);
  Conv2dOptions res32 = res;
  res32.out_type = DType::f32;  // z is y's type: fp32 on 4 bytes
  b.z = buf + 2;
  EXPECT_EQ(validate_buffers(b, res32, DType::f16, 0).code(), StatusCode::misaligned);
}

TEST(Validate, Aliasing) {
  // addresses only: nothing is dereferenced. y of a 1x4x4x4 output, fp16: 128 bytes.
  const Conv2dProblem p = make_problem(1, 4, 4, 4, 4, 1, 1);
  alignas(16) static char mem[4096];
  char* y = mem + 1024;
  Conv2dOptions res;
  res.has_residual = true;
  RunBuffers b{mem, mem + 256, nullptr, y, mem + 2048, 512, y};
  EXPECT_TRUE(validate_aliasing(b, p, res, DType::f16, 64, 512).ok());  // z == y: in place
  b.z = y + 128;                                                        // just past y
  EXPECT_TRUE(validate_aliasing(b, p, res, DType::f16, 64, 512).ok());
  b.z = y - 128;  // just before y
  EXPECT_TRUE(validate_aliasing(b, p, res, DType::f16, 64, 512).ok());
  for (char* z : {y + 2, y - 126, y + 126}) {
    b.z = z;
    const Status s = validate_aliasing(b, p, res, DType::f16, 64, 512);
    EXPECT_EQ(s.code(), StatusCode::bad_alias);
    EXPECT_NE(s.message().find("z overlaps y"), std::string::npos) << s.message();
  }
  b.z = y;
  Conv2dOptions res32 = res;
  res32.out_type = DType::f32;  // y is 256 bytes now: z at y + 128 overlaps
  b.z = y + 128;
  EXPECT_EQ(validate_aliasing(b, p, res32, DType::f16, 64, 512).code(), StatusCode::bad_alias);
  b.z = y;
  struct Over {
    const char* what;
    RunBuffers b;
    std::size_t packed, ws;
  };
  RunBuffers bx = b, bw = b, bws = b, bb = b;
  bx.x = y + 64;  // x (128 bytes) overlaps y's second half
  bw.packed_w = y - 32;
  bws.workspace = y + 126;
  bb.bias = y + 4;
  Conv2dOptions with_bias = res;
  with_bias.has_bias = true;
  const Over over[] = {
      {"x", bx, 64, 512}, {"the packed weights", bw, 64, 512}, {"the workspace", bws, 64, 512}};
  for (const Over& o : over) {
    const Status s = validate_aliasing(o.b, p, res, DType::f16, o.packed, o.ws);
    EXPECT_EQ(s.code(), StatusCode::bad_alias) << o.what;
    EXPECT_NE(s.message().find(o.what), std::string::npos) << s.message();
  }
  EXPECT_EQ(validate_aliasing(bb, p, with_bias, DType::f16, 64, 512).code(), StatusCode::bad_alias);
  EXPECT_TRUE(validate_aliasing(bb, p, res, DType::f16, 64, 512).ok());  // no bias planned: unread
  EXPECT_TRUE(validate_aliasing(bws, p, res, DType::f16, 64, 0).ok());   // no workspace used
}
