// SPDX-License-Identifier: MIT
/// @file check.hpp The correctness harness shared by the GoogleTest suites and the
/// rdnaconv_check CLI: run one case through one method (forced) for a list of epilogue variants
/// and compare with the device reference on the device (all outputs, or a seeded sample of
/// them for tensors too large to check whole), guard bands included.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/cases.hpp"
#include "rdnaconv/types.hpp"

namespace rdnaconv::testing {

/// The result of one (case, method, variant).
struct Outcome {
  bool skipped = false;
  std::string skip_reason;
  bool pass = false;
  std::uint64_t checked = 0;    ///< outputs compared
  std::uint64_t bad = 0;        ///< outside the tolerance (or not bitwise equal in exact mode)
  std::uint64_t nonfinite = 0;  ///< NaN/Inf where the reference is finite (incl. unwritten poison)
  double max_abs = 0;           ///< largest |y - reference|
  double worst_ratio = 0;       ///< largest |y - reference| / bound (exact mode: 0 or inf)
  bool guards_ok = true;        ///< canary words before and after y intact
  bool exact = false;           ///< compared bit for bit
  std::string detail;           ///< what failed
};

struct CheckRequest {
  Case c;
  Method method = Method::general;  ///< forced; Method::automatic = the router's choice
  DataKind data = DataKind::ints;
  unsigned seed = 1;
  std::vector<Variant> variants;
  std::int64_t max_checked = std::int64_t(1) << 22;  ///< above this many outputs, sample
  TileChoice tile = TileChoice::automatic;  ///< Conv2dOptions::tile of every variant's plan
  int split_k = 0;                          ///< Conv2dOptions::split_k likewise
  Schedule schedule = Schedule::automatic;  ///< Conv2dOptions::schedule likewise
};

/// One instantiation per (T, Layout, Atom): check_<type>_<layout>_<atom>.cpp.
using CheckFn = std::vector<Outcome> (*)(const CheckRequest&);
/// Stability: the same input twice, then with the workspace moved and on another stream:
/// bitwise identical outputs.
using StabilityFn = Outcome (*)(const CheckRequest&);

/// One run through the public plan API on caller-made device buffers (the fuzz harness,
/// common/fuzz.hpp): plan, prepack into `packed`, run, synchronise. `packed` and `workspace`
/// are grown as needed and owned by the caller (freed with rt::free). `ran` gets the method
/// the plan names.
struct PlanRun {
  Conv2dProblem p;
  Conv2dOptions o;
  const void* x = nullptr;
  const void* w = nullptr;
  const void* bias = nullptr;
  void* y = nullptr;
  const void* z = nullptr;  ///< the residual (o.has_residual), or y itself
  void** packed = nullptr;
  std::size_t* packed_cap = nullptr;
  void** workspace = nullptr;
  std::size_t* workspace_cap = nullptr;
  Method ran = Method::automatic;
  std::string kernels;  ///< what the plan's describe() names (plan_kernels)
  std::string tile;     ///< the tile describe() names (TileConfig::str())
};
using PlanRunFn = Status (*)(PlanRun&);

struct CheckEntry {
  CheckFn check = nullptr;
  StabilityFn stability = nullptr;
  PlanRunFn plan_run = nullptr;
};
/// nullptr members where that configuration is not built (emulated atoms on HIP builds).
CheckEntry check_entry(DType t, LayoutKind l, AtomKind a);

bool have_gpu();

/// Device scratch for PlanRun calls that only check what launches (the launch-log tests): x, w
/// and y of up to `elems` elements each (x and w zeroed, y 4-byte elements), the packed weights
/// and workspace grown by plan_run; all freed on destruction. ok() is false when an allocation
/// failed.
struct PlanScratch {
  void *x = nullptr, *w = nullptr, *y = nullptr, *packed = nullptr, *work = nullptr;
  std::size_t packed_cap = 0, work_cap = 0, elems = 0;
  explicit PlanScratch(std::size_t n);
  ~PlanScratch();
  PlanScratch(const PlanScratch&) = delete;
  PlanScratch& operator=(const PlanScratch&) = delete;
  bool ok() const { return x && w && y; }
  /// r's buffers: these (r.p must fit: elems each of x, w, y)
  void attach(PlanRun& r);
};
/// e.plan_run(r) with `kernels` and `tiles` filled from the launch log (the kernels launched, the
/// matrix-unit tiles they ran on).
Status plan_run_logged(const CheckEntry& e, PlanRun& r, std::vector<std::string>& kernels,
                       std::vector<std::string>& tiles);
/// Whether method m runs on this GPU with atom a: false for a family bound to other tile tables
/// (hopper_tma: the sm90 table only, i.e. a Hopper GPU, an sm_90a build and the native atom),
/// whose plans are refused with method_not_applicable there. True for every other method.
bool method_runs_here(Method m, AtomKind a);
/// The atoms this build's harness covers: native and, on CUDA builds, the emulated gfx11/gfx12.
std::vector<AtomKind> built_atoms();
using detail::describe;  // validate.hpp: the whole problem in one line

}  // namespace rdnaconv::testing
