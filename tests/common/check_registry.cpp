// SPDX-License-Identifier: MIT
/// @file check_registry.cpp Maps (type, layout, atom) to the harness instantiations. The
/// emulated RDNA atoms are built on CUDA only (RDNACONV_TEST_ATOM_GFX11 / _GFX12, from
/// tests/CMakeLists.txt): on an AMD GPU the native atom already is the RDNA layout. A build may
/// leave the native atom out (RDNACONV_TEST_ATOMS=gfx11): check_entry() then returns an empty
/// entry for it.
#include <string>
#include <utility>

#include "common/check.hpp"
#include "rdnaconv/arch/platform.hpp"
#include "rdnaconv/detail/launch_log.hpp"
#include "rdnaconv/plan.hpp"

namespace rdnaconv::testing {

#define RDNACONV_DECLARE(cfg)                               \
  std::vector<Outcome> check_##cfg(const CheckRequest& rq); \
  Outcome stability_##cfg(const CheckRequest& rq);          \
  Status plan_run_##cfg(PlanRun& r);
#if defined(RDNACONV_TEST_ATOM_NATIVE)
RDNACONV_DECLARE(fp16_nhwc_native)
RDNACONV_DECLARE(fp16_nchw_native)
RDNACONV_DECLARE(bf16_nhwc_native)
RDNACONV_DECLARE(bf16_nchw_native)
#endif
#if defined(RDNACONV_TEST_ATOM_GFX11)
RDNACONV_DECLARE(fp16_nhwc_gfx11)
RDNACONV_DECLARE(fp16_nchw_gfx11)
RDNACONV_DECLARE(bf16_nhwc_gfx11)
RDNACONV_DECLARE(bf16_nchw_gfx11)
#endif
#if defined(RDNACONV_TEST_ATOM_GFX12)
RDNACONV_DECLARE(fp16_nhwc_gfx12)
RDNACONV_DECLARE(fp16_nchw_gfx12)
RDNACONV_DECLARE(bf16_nhwc_gfx12)
RDNACONV_DECLARE(bf16_nchw_gfx12)
#endif
#undef RDNACONV_DECLARE

CheckEntry check_entry(DType t, LayoutKind l, AtomKind a) {
#define RDNACONV_ENTRY(T_, L_, A_, cfg)                           \
  if (t == DType::T_ && l == LayoutKind::L_ && a == AtomKind::A_) \
    return {&check_##cfg, &stability_##cfg, &plan_run_##cfg};
#if defined(RDNACONV_TEST_ATOM_NATIVE)
  RDNACONV_ENTRY(f16, nhwc, native, fp16_nhwc_native)
  RDNACONV_ENTRY(f16, nchw, native, fp16_nchw_native)
  RDNACONV_ENTRY(bf16, nhwc, native, bf16_nhwc_native)
  RDNACONV_ENTRY(bf16, nchw, native, bf16_nchw_native)
#endif
#if defined(RDNACONV_TEST_ATOM_GFX11)
  RDNACONV_ENTRY(f16, nhwc, gfx11, fp16_nhwc_gfx11)
  RDNACONV_ENTRY(f16, nchw, gfx11, fp16_nchw_gfx11)
  RDNACONV_ENTRY(bf16, nhwc, gfx11, bf16_nhwc_gfx11)
  RDNACONV_ENTRY(bf16, nchw, gfx11, bf16_nchw_gfx11)
#endif
#if defined(RDNACONV_TEST_ATOM_GFX12)
  RDNACONV_ENTRY(f16, nhwc, gfx12, fp16_nhwc_gfx12)
  RDNACONV_ENTRY(f16, nchw, gfx12, fp16_nchw_gfx12)
  RDNACONV_ENTRY(bf16, nhwc, gfx12, bf16_nhwc_gfx12)
  RDNACONV_ENTRY(bf16, nchw, gfx12, bf16_nchw_gfx12)
#endif
#undef RDNACONV_ENTRY
  return {};
}

std::vector<AtomKind> built_atoms() {
  std::vector<AtomKind> out;
#if defined(RDNACONV_TEST_ATOM_NATIVE)
  out.push_back(AtomKind::native);
#endif
#if defined(RDNACONV_TEST_ATOM_GFX11)
  out.push_back(AtomKind::gfx11);
#endif
#if defined(RDNACONV_TEST_ATOM_GFX12)
  out.push_back(AtomKind::gfx12);
#endif
  return out;
}

PlanScratch::PlanScratch(std::size_t n) : elems(n) {
  if (rt::malloc(&x, n * 2) != rt::success || rt::malloc(&w, n * 2) != rt::success ||
      rt::malloc(&y, n * 4) != rt::success || rt::memset(x, 0, n * 2) != rt::success ||
      rt::memset(w, 0, n * 2) != rt::success) {
    for (void** p : {&x, &w, &y})
      if (*p) (void)rt::free(*p), *p = nullptr;
  }
}

PlanScratch::~PlanScratch() {
  for (void* p : {x, w, y, packed, work})
    if (p) (void)rt::free(p);
}

void PlanScratch::attach(PlanRun& r) {
  r.x = x;
  r.w = w;
  r.y = y;
  r.packed = &packed;
  r.packed_cap = &packed_cap;
  r.workspace = &work;
  r.workspace_cap = &work_cap;
}

Status plan_run_logged(const CheckEntry& e, PlanRun& r, std::vector<std::string>& kernels,
                       std::vector<std::string>& tiles) {
  detail::LaunchLog log;
  Status s;
  {
    detail::ScopedLaunchLog scope(log);
    s = e.plan_run(r);
  }
  kernels = std::move(log.kernels);
  tiles = std::move(log.tiles);
  return s;
}

bool have_gpu() {
  int n = 0;
  return rt::device_count(&n) == rt::success && n > 0;
}

bool method_runs_here(Method m, AtomKind a) {
  const MethodInfo* mi = find_method(m);
  if (mi == nullptr) return m == Method::automatic;
  DeviceInfo dev;
  if (!query_device(-1, dev).ok()) return false;
  return mi->runs_on(tile_family(a, dev.family));
}

}  // namespace rdnaconv::testing
