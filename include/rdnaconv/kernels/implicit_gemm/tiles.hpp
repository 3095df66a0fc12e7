// SPDX-License-Identifier: MIT
/// @file tiles.hpp Tile configurations of the implicit-GEMM families, one per architecture family.
#pragma once

#include "rdnaconv/arch/macros.hpp"
#include "rdnaconv/types.hpp"

namespace rdnaconv::kernels {

/// A block computes block_m output pixels x block_n filters, stepping block_k through the
/// reduction; warps_m x warps_n warps of 32 lanes each own a (block_m/warps_m) x (block_n/warps_n)
/// sub-tile made of 16x16 atoms. Shared memory is double-buffered (two tiles in flight, one
/// barrier per step), each row padded by 8 elements (16 bytes) against bank conflicts.
struct TileConfig {
  int block_m;
  int block_n;
  int block_k;
  int warps_m;
  int warps_n;

  RDNACONV_HD constexpr int threads() const { return 32 * warps_m * warps_n; }
  RDNACONV_HD constexpr int warp_m() const { return block_m / warps_m; }
  RDNACONV_HD constexpr int warp_n() const { return block_n / warps_n; }
  RDNACONV_HD constexpr int lds_row() const { return block_k + 8; }
  RDNACONV_HD constexpr int lds_bytes() const { return 2 * (block_m + block_n) * lds_row() * 2; }
  RDNACONV_HD constexpr bool valid() const {
    return block_k % 16 == 0 && warp_m() % 16 == 0 && warp_n() % 16 == 0 &&
           (block_m * block_k / 8) % threads() == 0 && (block_n * block_k / 8) % threads() == 0 &&
           threads() % (block_k / 8) == 0 && lds_bytes() <= 48 * 1024;
  }
};

// RDNA3 (gfx11): 1536 VGPRs per SIMD; a 64x32 warp tile holds 4x2 atoms = 64 accumulator VGPRs,
// A/B fragments 4x8 + 2x8 = 48 VGPRs (replicated halves double them), the register prefetch of
// the next tile 16 more: ~150 VGPRs, 8 waves/SIMD by the VGPR table. LDS 40 KiB of the 64 KiB
// per workgroup: no async copy, so the second buffer is filled from registers.
inline constexpr TileConfig kGeneralRdna3{
    .block_m = 128, .block_n = 128, .block_k = 32, .warps_m = 2, .warps_n = 4};
// RDNA4 (gfx12): same tile; fragments are half the size (no replication), which leaves room, but
// the WMMA rate doubles per clock, so the same 128x128 tile keeps the same bytes per FLOP.
inline constexpr TileConfig kGeneralRdna4{
    .block_m = 128, .block_n = 128, .block_k = 32, .warps_m = 2, .warps_n = 4};
// NVIDIA sm_80+: 256 threads, 64 accumulators per thread, 40 KiB static shared memory
// (under the 48 KiB static limit, so no opt-in attribute is needed).
inline constexpr TileConfig kGeneralSm80{
    .block_m = 128, .block_n = 128, .block_k = 32, .warps_m = 2, .warps_n = 4};
// Portable FMA fallback: the same tile keeps one code path; its speed is not a goal.
inline constexpr TileConfig kGeneralGeneric{
    .block_m = 128, .block_n = 128, .block_k = 32, .warps_m = 2, .warps_n = 4};

static_assert(kGeneralRdna3.valid() && kGeneralRdna4.valid() && kGeneralSm80.valid() &&
              kGeneralGeneric.valid());

/// nvcc's host stubs cannot spell class-type template arguments, so kernels take a tag type
/// built from the numbers. Equal configurations give the same type, hence one instantiation.
template <int BM, int BN, int BK, int WM, int WN>
struct TileTag {
  static constexpr TileConfig cfg{.block_m = BM, .block_n = BN, .block_k = BK, .warps_m = WM, .warps_n = WN};
};
template <const TileConfig& C>
using tile_tag = TileTag<C.block_m, C.block_n, C.block_k, C.warps_m, C.warps_n>;

constexpr TileConfig general_tiles(ArchFamily f) {
  switch (f) {
    case ArchFamily::rdna3: return kGeneralRdna3;
    case ArchFamily::rdna4: return kGeneralRdna4;
    case ArchFamily::sm80: return kGeneralSm80;
    case ArchFamily::generic: break;
  }
  return kGeneralGeneric;
}

}  // namespace rdnaconv::kernels
