// SPDX-License-Identifier: MIT
/// @file check_main.cpp rdnaconv_check: the correctness harness as a command.
///   rdnaconv_check --mode edge|random|stability|activations|models|padmodes|all
///                  --dtype fp16|bf16|all
///                  --layout nchw|nhwc|both --method NAME|router|all [--atom native|gfx11|gfx12]
///                  [--count N] [--seed S] [--sample N] [--variants N]
///   rdnaconv_check --mode fuzz --seed S --count N [--atom native|gfx11|gfx12|all] [--seconds T]
///                  [--dtype ...] [--layout ...] [--method ...]
/// fuzz: the property test (common/fuzz.hpp): N runs per method (a run: one random problem on
/// one atom, random epilogue and data) against the float64 host reference; failing cases are
/// shrunk and printed as edge-list entries.
/// --variants N runs only the first N epilogue variants per case (the epilogue never touches
/// shared memory, so a race check needs one).
/// padmodes: the padding modes' cases (cases.hpp, padmode_cases) for reflect, replicate and
/// circular; a method that has no remap kernel cannot implement them (the coverage banner says so).
/// Prints one row per (method, dtype, layout) with its pass/fail/skip counts, a coverage banner
/// naming every case a method skipped and why, and the totals line "N passed, N failed,
/// N skipped". Exit status 1 on any failure, 2 on bad arguments, 77 without a GPU.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "common/check.hpp"
#include "common/fuzz.hpp"
#include "rdnaconv/router.hpp"

using namespace rdnaconv;
using namespace rdnaconv::testing;

namespace {

struct Args {
  std::string mode = "all", dtype = "all", layout = "both", method = "all",
              atom;  // atom: native (fuzz: all)
  int count = -1;    // per mode: 200 random shapes per method; fuzz: 1000 runs per method
  double seconds = 0;
  int variants = 0;  // 0: every epilogue variant of the mode; N: the first N (race checks)
  unsigned seed = 20261202u;
  std::int64_t sample = std::int64_t(1) << 18;
  // --schedule persistent / pingpong: hopper_tma's versions 6 / 8
  Schedule schedule = Schedule::automatic;
  // --tile: Conv2dOptions::tile of every plan (e.g. window: the grouped family's row window)
  TileChoice tile = TileChoice::automatic;
};

int usage(const char* why) {
  std::fprintf(stderr,
               "rdnaconv_check: %s\nusage: rdnaconv_check --mode "
               "edge|random|stability|activations|models|padmodes|all "
               "--dtype fp16|bf16|all --layout nchw|nhwc|both --method NAME|router|all [--atom "
               "native|gfx11|gfx12] "
               "[--count N] [--seed S] [--sample N] [--variants N] [--schedule "
               "automatic|per_tile|persistent|pingpong] [--tile "
               "automatic|main|small|tall|window]\n"
               "       rdnaconv_check --mode fuzz --seed S --count N [--atom "
               "native|gfx11|gfx12|all] [--seconds T]\n",
               why);
  return 2;
}

struct Tally {
  std::uint64_t passed = 0, failed = 0, skipped = 0, outputs = 0;
  double worst_ratio = 0;
  std::vector<std::string> failures;
};

const char* name_of(Method m) {
  return m == Method::automatic ? "router" : to_string(m);
}

int run_fuzz(const Args& a, const std::vector<DType>& types, const std::vector<LayoutKind>& layouts,
             const std::vector<Method>& methods) {
  FuzzOptions o;
  o.seed = a.seed;
  o.count = a.count > 0 ? a.count : 1000;
  o.types = types;
  o.layouts = layouts;
  o.methods = methods;
  if (a.atom == "native")
    o.atoms = {AtomKind::native};
  else if (a.atom == "gfx11")
    o.atoms = {AtomKind::gfx11};
  else if (a.atom == "gfx12")
    o.atoms = {AtomKind::gfx12};
  o.max_seconds = a.seconds;
  o.log = [](const std::string& s) {
    std::printf("%s\n", s.c_str());
    std::fflush(stdout);
  };
  std::printf("rdnaconv_check fuzz: seed %u, %lld runs per method, atoms %s%s\n", a.seed,
              (long long)o.count,
              a.atom == "all" ? "native, gfx11, gfx12 (where built)" : a.atom.c_str(),
              a.seconds > 0 ? (", at most " + std::to_string(int(a.seconds)) + " s").c_str() : "");
  const auto t0 = std::chrono::steady_clock::now();
  const FuzzReport r = fuzz(o);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("\n%-16s %10s\n", "method", "runs");
  std::int64_t total = 0;
  for (const auto& [m, n] : r.runs) {
    std::printf("%-16s %10lld\n", name_of(m), (long long)n);
    total += n;
  }
  std::printf(
      "%lld problems, %lld runs, %lld outputs compared, worst err/bound of passing outputs %.3g, "
      "%.1f s%s\n",
      (long long)r.cases, (long long)total, (long long)r.outputs, r.worst_ratio, secs,
      r.stopped_early ? " (stopped early: time or failure limit)" : "");
  for (const FuzzFailure& f : r.failures)
    std::printf("FAIL %s\n  minimal: %s\n  %s\n  edge entry: %s\n",
                fuzz_describe(f.original).c_str(), fuzz_describe(f.minimal).c_str(),
                f.detail.c_str(), f.edge_entry.c_str());
  const std::int64_t failed = std::int64_t(r.failures.size());
  std::printf("%lld passed, %lld failed, 0 skipped\n", (long long)(total - failed),
              (long long)failed);
  return failed == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (i + 1 >= argc) return usage(("missing value for " + k).c_str());
    const std::string v = argv[++i];
    if (k == "--mode")
      a.mode = v;
    else if (k == "--dtype")
      a.dtype = v;
    else if (k == "--layout")
      a.layout = v;
    else if (k == "--method")
      a.method = v;
    else if (k == "--atom")
      a.atom = v;
    else if (k == "--count")
      a.count = std::atoi(v.c_str());
    else if (k == "--variants")
      a.variants = std::atoi(v.c_str());
    else if (k == "--seed")
      a.seed = unsigned(std::strtoul(v.c_str(), nullptr, 10));
    else if (k == "--sample")
      a.sample = std::atoll(v.c_str());
    else if (k == "--seconds")
      a.seconds = std::atof(v.c_str());
    else if (k == "--schedule") {
      if (v == "automatic")
        a.schedule = Schedule::automatic;
      else if (v == "per_tile")
        a.schedule = Schedule::per_tile;
      else if (v == "persistent")
        a.schedule = Schedule::persistent;
      else if (v == "pingpong")
        a.schedule = Schedule::pingpong;
      else
        return usage("bad --schedule");
    } else if (k == "--tile") {
      bool found = false;
      for (TileChoice t : {TileChoice::automatic, TileChoice::main, TileChoice::small,
                           TileChoice::tall, TileChoice::window})
        if (v == to_string(t)) {
          a.tile = t;
          found = true;
        }
      if (!found) return usage("bad --tile");
    } else
      return usage(("unknown option " + k).c_str());
  }
  if (a.mode != "fuzz" && a.count < 0) a.count = 200;
  if (a.atom.empty()) a.atom = a.mode == "fuzz" ? "all" : "native";
  const std::vector<std::string> modes_all = {"edge",        "random", "stability",
                                              "activations", "models", "padmodes"};
  std::vector<std::string> modes;
  if (a.mode == "all")
    modes = modes_all;
  else if (a.mode == "fuzz" ||
           std::find(modes_all.begin(), modes_all.end(), a.mode) != modes_all.end())
    modes = {a.mode};
  else
    return usage("bad --mode");
  std::vector<DType> types;
  if (a.dtype == "fp16" || a.dtype == "all") types.push_back(DType::f16);
  if (a.dtype == "bf16" || a.dtype == "all") types.push_back(DType::bf16);
  if (types.empty()) return usage("bad --dtype");
  std::vector<LayoutKind> layouts;
  if (a.layout == "nchw" || a.layout == "both") layouts.push_back(LayoutKind::nchw);
  if (a.layout == "nhwc" || a.layout == "both") layouts.push_back(LayoutKind::nhwc);
  if (layouts.empty()) return usage("bad --layout");
  std::vector<Method> methods;
  if (a.method == "all") {
    for (const MethodInfo& m : kMethods) methods.push_back(m.method);
    methods.push_back(Method::automatic);
  } else if (a.method == "router") {
    methods.push_back(Method::automatic);
  } else if (const MethodInfo* m = find_method(a.method.c_str())) {
    methods.push_back(m->method);
  } else {
    return usage("bad --method");
  }
  AtomKind atom = AtomKind::native;
  if (a.mode == "fuzz") {
    if (a.atom != "all" && a.atom != "native" && a.atom != "gfx11" && a.atom != "gfx12")
      return usage("bad --atom");
    if (!have_gpu()) {
      std::printf("rdnaconv_check: no GPU\n0 passed, 0 failed, 1 skipped\n");
      return 77;
    }
    return run_fuzz(a, types, layouts, a.method == "all" ? std::vector<Method>{} : methods);
  }
  if (a.atom == "native")
    atom = AtomKind::native;
  else if (a.atom == "gfx11")
    atom = AtomKind::gfx11;
  else if (a.atom == "gfx12")
    atom = AtomKind::gfx12;
  else
    return usage("bad --atom");
  if (!have_gpu()) {
    std::printf("rdnaconv_check: no GPU\n0 passed, 0 failed, 1 skipped\n");
    return 77;
  }

  std::printf("rdnaconv_check: modes");
  for (const auto& m : modes) std::printf(" %s", m.c_str());
  std::printf(
      ", atom %s, seed %u (random shapes: seed + 1000 * method), %d random shapes per method, "
      "model checks sample %lld outputs\n",
      a.atom.c_str(), a.seed, a.count, (long long)a.sample);
  std::map<std::string, Tally> rows;
  std::map<std::string, std::vector<std::string>> coverage;  // method -> skipped cases with reasons
  const auto t0 = std::chrono::steady_clock::now();

  for (DType t : types)
    for (LayoutKind l : layouts) {
      const CheckEntry e = check_entry(t, l, atom);
      if (!e.check) {
        std::printf("configuration %s %s %s not built\n", to_string(t), to_string(l),
                    a.atom.c_str());
        continue;
      }
      for (Method m : methods) {
        if (!method_runs_on(m, l)) {
          if (t == types.front())  // once per layout, not per type
            coverage[name_of(m)].push_back(std::string("every mode (") + to_string(l) +
                                           "): the method does not run on " + to_string(l) +
                                           " (layout-bound variant)");
          continue;
        }
        const std::string row = std::string(name_of(m)) + " " + to_string(t) + " " + to_string(l);
        Tally& tally = rows[row];
        auto record = [&](const Case& c, const std::vector<Outcome>& res, const CheckRequest& rq,
                          const char* mode) {
          for (const Outcome& o : res) {
            if (o.skipped) {
              ++tally.skipped;
              continue;
            }
            tally.outputs += o.checked;
            if (o.worst_ratio > tally.worst_ratio && o.worst_ratio < 1e30)
              tally.worst_ratio = o.worst_ratio;
            if (o.pass) {
              ++tally.passed;
            } else {
              ++tally.failed;
              if (tally.failures.size() < 5)
                tally.failures.push_back(std::string(mode) + " '" + c.what + "' " + describe(c.p) +
                                         " seed=" + std::to_string(rq.seed) + ": " + o.detail);
            }
          }
        };
        auto cases_for = [&](const std::vector<Case>& all, const char* mode) {
          std::vector<Case> keep;
          for (const Case& c : all) {
            if (m == Method::automatic || can_implement(m, c.p, l))
              keep.push_back(c);
            else
              coverage[name_of(m)].push_back(std::string(mode) + " " + c.what + " (" +
                                             to_string(l) + "): cannot implement " + describe(c.p));
          }
          return keep;
        };
        for (const std::string& mode : modes) {
          std::vector<Case> cases;
          std::vector<Variant> variants = standard_variants(t);
          DataKind data = DataKind::ints;
          std::int64_t max_checked = std::int64_t(1) << 22;
          if (mode == "edge") {
            cases = cases_for(edge_cases(), "edge");
          } else if (mode == "random") {
            cases = random_cases(m == Method::automatic ? Method::general : m, l,
                                 a.seed + 1000u * unsigned(m), a.count);
          } else if (mode == "activations") {
            cases = random_cases(m == Method::automatic ? Method::general : m, l, a.seed + 7u, 3);
            variants = all_variants(t);
          } else if (mode == "stability") {
            cases = random_cases(m == Method::automatic ? Method::general : m, l, a.seed + 9u, 5);
          } else if (mode == "padmodes") {
            for (PadMode pm : {PadMode::reflect, PadMode::replicate, PadMode::circular})
              for (const Case& c : cases_for(padmode_cases(pm), "padmodes")) cases.push_back(c);
          } else {  // models
            for (int n : {1, 2})
              for (const Case& c : cases_for(model_cases(n), "models")) {
                Case b = c;
                b.what += " N=" + std::to_string(n);
                cases.push_back(b);
              }
            variants = {Variant{Activation::relu, true, DType::f32, DType::same}};
            data = DataKind::real;
            max_checked = a.sample;
          }
          if (a.variants > 0 && std::size_t(a.variants) < variants.size())
            variants.resize(std::size_t(a.variants));
          unsigned seed = a.seed;
          for (const Case& c : cases) {
            CheckRequest rq;
            rq.c = c;
            rq.method = m;
            rq.data = data;
            rq.seed = seed++;
            rq.variants = variants;
            rq.max_checked = max_checked;
            rq.schedule = a.schedule;
            rq.tile = a.tile;
            if (mode == "stability") {
              rq.data = DataKind::real;
              rq.variants = {Variant{Activation::gelu, true, DType::f32, DType::same}};
              record(c, {e.stability(rq)}, rq, "stability");
            } else {
              record(c, e.check(rq), rq, mode.c_str());
            }
          }
        }
        // progress, so a run cut short still says how far it got and at what pace
        std::printf("[%7.1f s] %-26s %6llu passed %4llu failed %5llu skipped\n",
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
                    row.c_str(), (unsigned long long)tally.passed, (unsigned long long)tally.failed,
                    (unsigned long long)tally.skipped);
        std::fflush(stdout);
      }
    }

  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("\n%-34s %8s %8s %8s %14s %12s\n", "method dtype layout", "passed", "failed",
              "skipped", "outputs", "worst e/bnd");
  std::uint64_t p = 0, f = 0, s = 0;
  for (const auto& [row, t] : rows) {
    std::printf("%-34s %8llu %8llu %8llu %14llu %12.3g\n", row.c_str(),
                (unsigned long long)t.passed, (unsigned long long)t.failed,
                (unsigned long long)t.skipped, (unsigned long long)t.outputs, t.worst_ratio);
    for (const std::string& why : t.failures) std::printf("    FAIL %s\n", why.c_str());
    p += t.passed;
    f += t.failed;
    s += t.skipped;
  }
  std::printf("\ncoverage: ");
  if (coverage.empty())
    std::printf("every case ran on every selected method\n");
  else
    std::printf(
        "cases a method cannot implement (not run there; the router never sends them to it):\n");
  for (const auto& [m, list] : coverage) {
    std::printf("  %s: %zu skipped\n", m.c_str(), list.size());
    for (std::size_t i = 0; i < list.size() && i < 8; ++i) std::printf("    %s\n", list[i].c_str());
    if (list.size() > 8) std::printf("    ... %zu more\n", list.size() - 8);
  }
  std::printf(
      "time %.1f s (worst e/bnd: largest |error| / tolerance bound over tolerance-checked outputs; "
      "bitwise-checked outputs count 0)\n",
      secs);
  std::printf("%llu passed, %llu failed, %llu skipped\n", (unsigned long long)p,
              (unsigned long long)f, (unsigned long long)s);
  return f == 0 ? 0 : 1;
}
