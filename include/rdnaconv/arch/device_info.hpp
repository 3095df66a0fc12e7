// SPDX-License-Identifier: MIT
/// @file device_info.hpp What host code knows about the device it plans for. Pure host code:
/// the family mapping is a constexpr function of the reported architecture number, because
/// the host pass has no target macros (one binary may carry several --offload-arch targets).
#pragma once

#include "rdnaconv/types.hpp"

namespace rdnaconv {

struct DeviceInfo {
  bool amd = false;  ///< true: `arch` is the gfx number (1100, 1201, ...); false: CUDA cc (90)
  int arch = 0;
  int warp_size = 32;
  ArchClass family = ArchClass::generic;
  /// Multiprocessors (CUDA SMs, AMD compute units); 0 = not known (a plan made for a described
  /// device): then the router never splits the reduction, which needs the grid's fill.
  int sms = 0;
};

/// gfx11xx (RDNA3, RDNA3.5) and gfx12xx (RDNA4) have WMMA; other AMD targets use the FMA atom.
constexpr ArchClass family_from_gfx(int gfx) {
  if (gfx >= 1100 && gfx < 1200) return ArchClass::rdna3;
  if (gfx >= 1200 && gfx < 1300) return ArchClass::rdna4;
  return ArchClass::generic;
}
/// sm_80 and newer have mma.sync m16n8k16 for f16 and bf16; a 9.0 device (H100, H200) in a
/// build that carries the sm_90a target also has wgmma (the sm90 table). The host pass cannot
/// see device targets, so the build says it: RDNACONV_SM90A (CMake sets it for
/// CMAKE_CUDA_ARCHITECTURES=90a; arch/wgmma.hpp refuses it in a plain sm_90 pass).
#if defined(RDNACONV_SM90A)
inline constexpr bool kBuildSm90a = true;
#else
inline constexpr bool kBuildSm90a = false;
#endif
constexpr ArchClass family_from_cuda_cc(int cc, bool sm90a = kBuildSm90a) {
  if (cc == 90 && sm90a) return ArchClass::sm90;
  return cc >= 80 ? ArchClass::sm80 : ArchClass::generic;
}

constexpr DeviceInfo make_device_info(bool amd, int arch, int warp_size, int sms = 0) {
  DeviceInfo d;
  d.amd = amd;
  d.arch = arch;
  d.warp_size = warp_size;
  d.sms = sms;
  d.family = amd ? family_from_gfx(arch) : family_from_cuda_cc(arch);
  return d;
}

/// Oldest NVIDIA architecture the library runs on: sm_80 (mma.sync m16n8k16 for bf16, ldmatrix,
/// cp.async). Device code for older targets does not compile (arch/platform.hpp) and CMake
/// refuses them, so a plan never meets an sm_75 kernel on a newer device.
inline constexpr int kMinCudaCC = 80;

}  // namespace rdnaconv
