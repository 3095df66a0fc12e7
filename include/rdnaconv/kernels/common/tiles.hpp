// SPDX-License-Identifier: MIT
/// @file tiles.hpp Tile configurations: one table per family of architectures (RDNA3, RDNA4,
/// NVIDIA sm_80+, generic), one row per kernel family, each number with its reason.
#pragma once

#include <cstdint>
#include <string>

#include "rdnaconv/arch/macros.hpp"
#include "rdnaconv/types.hpp"

namespace rdnaconv::kernels {

/// A block computes block_m GEMM rows (output pixels or Winograd tiles) x block_n filters,
/// stepping block_k through the reduction; warps_m x warps_n warps of 32 lanes each own a
/// (block_m/warps_m) x (block_n/warps_n) sub-tile made of 16x16 atoms. Shared memory holds
/// `stages` tiles, each row padded by 8 elements (16 bytes) so that the 16-byte fragment loads
/// of 8 consecutive rows hit 8 different 4-bank groups.
///   stages == 2: the next tile is staged in registers while this one multiplies, then
///                stored (RDNA: no asynchronous global->LDS copy; also the portable path).
///   stages >= 3: cp.async multistage pipeline, stages-1 tiles in flight (sm_80+ only).
/// wgmma (sm_90a only, arch/wgmma.hpp): the products are Hopper's warpgroup instruction instead
/// of the atom layer. Then warps_n == 1 and each warp's 16 rows are one quarter of its
/// warpgroup's 64 x block_n product; shared memory holds the operands unpadded in the 64-byte
/// swizzled layout wgmma reads (block_k = 32).
struct TileConfig {
  int block_m;
  int block_n;
  int block_k;
  int warps_m;
  int warps_n;
  int stages;
  bool wgmma = false;

  RDNACONV_HD constexpr int threads() const { return 32 * warps_m * warps_n; }
  RDNACONV_HD constexpr int warp_m() const { return block_m / warps_m; }
  RDNACONV_HD constexpr int warp_n() const { return block_n / warps_n; }
  /// Elements per shared-memory row: padded by 8 for the atoms' fragment loads; the swizzled
  /// wgmma layout needs no padding.
  RDNACONV_HD constexpr int lds_row() const { return wgmma ? block_k : block_k + 8; }
  /// Element offset of 16-byte vector kv of tile row `row` in a stage's operand tile.
  RDNACONV_HD constexpr int lds_offset(int row, int kv) const {
    return wgmma ? row * block_k + ((kv ^ ((row >> 1) & 3)) << 3) : row * lds_row() + kv * 8;
  }
  RDNACONV_HD constexpr int lds_bytes() const {
    return stages * (block_m + block_n) * lds_row() * 2;
  }
  RDNACONV_HD constexpr bool async_copy() const { return stages >= 3; }
  /// "BMxBNxBK warps=WMxWN stages=S", as describe() and the launch log print it.
  std::string str() const {
    return std::to_string(block_m) + "x" + std::to_string(block_n) + "x" + std::to_string(block_k) +
           " warps=" + std::to_string(warps_m) + "x" + std::to_string(warps_n) +
           " stages=" + std::to_string(stages) + (wgmma ? " wgmma" : "");
  }
  constexpr bool valid(int max_lds) const {
    return block_k % 16 == 0 && warp_m() % 16 == 0 && warp_n() % 16 == 0 && stages >= 2 &&
           (block_m * block_k / 8) % threads() == 0 && (block_n * block_k / 8) % threads() == 0 &&
           threads() % (block_k / 8) == 0 && block_m % 32 == 0 && lds_bytes() <= max_lds &&
           (!wgmma || (block_k == 32 && warps_n == 1 && warp_m() == 16 && warps_m % 4 == 0 &&
                       block_n == 128 && stages >= 3));
  }
};

/// The tile of each kernel family on one family of architectures.
struct ArchTiles {
  TileConfig general;   ///< implicit GEMM, any shape
  TileConfig gemm1x1;   ///< 1x1 filters
  TileConfig conv3x3;   ///< 3x3 NHWC, channel-blocked NCHW, repack-free NCHW
  TileConfig winograd;  ///< the batched GEMM of Winograd F(4x4,3x3)
  /// Winograd's fused variant: one atom per warp, 2x2 warps. Its lanes hold 8 + 32 + 128 fp32
  /// accumulators (M, the column-transformed T, the 4x4 outputs Y; winograd_fused.hpp), so the
  /// warp tile cannot grow; block_k must equal the winograd row's (same U and V layouts).
  TileConfig winograd_fused;
  /// The direct families (general, gemm1x1, conv3x3) when K <= thin.block_n: the main tiles'
  /// 128-wide filter block would be 75-97% empty on the thin layers (a VAE's K = 32 and K = 3
  /// output convs), and their few GEMM rows fill few blocks. Same block_k as the main rows, so
  /// the packing does not depend on which tile runs.
  TileConfig thin;
  /// The direct families on small grids (Conv2dOptions::tile = small; the router once
  /// RouterThresholds::small_below_blocks is measured): a quarter of the main tile's 128 x 128,
  /// so a layer whose output gives a few main blocks (ResNet-50 at batch 1: 7x7 and 14x14 outputs
  /// of 256-2048 filters, 4-16 blocks on 132 multiprocessors) gets four times the blocks before
  /// split-K, which then needs a quarter of the parts (fewer fp32 partials to write and add).
  /// Same block_k as the main rows (the packing does not depend on the tile).
  TileConfig small;
};

// RDNA3 (gfx11). One 128x128x32 tile for every family, 8 waves (2 x 4), wave tile 64x32:
//  - 4x2 atoms = 64 accumulator VGPRs; A/B fragments 4x8 + 2x8 = 48 VGPRs (gfx11 replicates
//    the 16 k values in both lane halves); next-tile registers 4 x 4 = 16: clang reports 241
//    VGPRs, 0 scratch, 5 waves/SIMD (docs/AMD_RESOURCES.md) out of 1536 VGPRs per SIMD.
//  - block_k 32: one 16-byte vector per 8 channels, 4 per row, so the NHWC loads of a wave
//    cover 8 pixels x 64 contiguous bytes.
//  - LDS 2 x (128 + 128) x 40 x 2 B = 40 KiB of the 64 KiB a workgroup may hold; no async copy
//    on RDNA, so two stages with the next tile staged in registers.
inline constexpr TileConfig kRdna3Tile{
    .block_m = 128, .block_n = 128, .block_k = 32, .warps_m = 2, .warps_n = 4, .stages = 2};
inline constexpr TileConfig kRdnaFusedTile{
    .block_m = 32, .block_n = 32, .block_k = 32, .warps_m = 2, .warps_n = 2, .stages = 2};
// Thin: 64x32 blocks of 2 waves, one 32x32 wave tile each (2x2 atoms, 32 accumulator VGPRs).
inline constexpr TileConfig kRdnaThinTile{
    .block_m = 64, .block_n = 32, .block_k = 32, .warps_m = 2, .warps_n = 1, .stages = 2};
// Small: 64x64 blocks of 4 waves (2 x 2), one 32x32 wave tile each (2x2 atoms, 32 accumulator
// VGPRs, as the thin row's waves); LDS 2 x (64 + 64) x 40 x 2 B = 20 KiB, so a WGP's 128 KiB
// holds six such workgroups where the main tile's 40 KiB allows three.
inline constexpr TileConfig kRdnaSmallTile{
    .block_m = 64, .block_n = 64, .block_k = 32, .warps_m = 2, .warps_n = 2, .stages = 2};
inline constexpr ArchTiles kRdna3Tiles{kRdna3Tile,     kRdna3Tile,    kRdna3Tile,    kRdna3Tile,
                                       kRdnaFusedTile, kRdnaThinTile, kRdnaSmallTile};

// RDNA4 (gfx12): the same tile. Fragments are half the size (no replication: 193 VGPRs,
// 6 waves/SIMD), but WMMA throughput per clock doubles, so the same 128x128 tile keeps the
// same bytes per FLOP out of LDS; the VGPRs saved buy occupancy to hide the register-staged
// global loads.
inline constexpr TileConfig kRdna4Tile = kRdna3Tile;
inline constexpr ArchTiles kRdna4Tiles{kRdna4Tile,     kRdna4Tile,    kRdna4Tile,    kRdna4Tile,
                                       kRdnaFusedTile, kRdnaThinTile, kRdnaSmallTile};

// NVIDIA sm_80+ (mma.sync m16n8k16, ldmatrix, cp.async). 128x128x32 with 8 warps (2 x 4) of
// 64x32, two blocks per SM = 16 warps (4 per scheduler): 64 accumulators per thread, held to 128
// registers by the launch bound (engine.hpp). The earlier 4 warps of 64x64 (128 accumulators,
// 246-250 registers) also fit two blocks, but only 8 warps per SM: Nsight Compute on C = K = 512
// at 128² put each warp 6.9 cycles between issues (fixed-latency waits 2.4, no instruction 1.5)
// with the tensor pipe 37% busy, and 19% fewer instructions per step changed the time by 2%.
// With 16 warps (commit log, docs/BENCHMARKS.md): 1.06-2.25x on the measured layers, tensor
// pipe 41% on that layer, where the shared-memory fragment loads now bind (short scoreboard
// 3.8 cycles per issue; 6 ldmatrix.x4 per 16 mma.sync instead of 8 per 32). Four stages (3
// tiles in flight) of 20 KiB = 80 KiB of dynamic shared memory per block.
inline constexpr TileConfig kSm80Tile{
    .block_m = 128, .block_n = 128, .block_k = 32, .warps_m = 2, .warps_n = 4, .stages = 4};
// Fused Winograd: 32x32 blocks of 4 warps, four cp.async stages of 5 KiB.
inline constexpr TileConfig kSm80FusedTile{
    .block_m = 32, .block_n = 32, .block_k = 32, .warps_m = 2, .warps_n = 2, .stages = 4};
// Thin: 64x32 blocks of 2 warps (32x32 each), four cp.async stages of 7.5 KiB. The VAE's
// K = 32 encoder output (4096 GEMM rows) gets 64 blocks instead of 32 of 128x128.
inline constexpr TileConfig kSm80ThinTile{
    .block_m = 64, .block_n = 32, .block_k = 32, .warps_m = 2, .warps_n = 1, .stages = 4};
// Small: 64x64 blocks of 4 warps (2 x 2) of 32x32, four cp.async stages of 10 KiB (40 KiB):
// the main tile's per-warp work and pipeline depth on a quarter of the block, for grids that
// give too few main blocks to fill the multiprocessors (tiles.hpp's ArchTiles::small).
inline constexpr TileConfig kSm80SmallTile{
    .block_m = 64, .block_n = 64, .block_k = 32, .warps_m = 2, .warps_n = 2, .stages = 4};
inline constexpr ArchTiles kSm80Tiles{kSm80Tile,      kSm80Tile,     kSm80Tile,     kSm80Tile,
                                      kSm80FusedTile, kSm80ThinTile, kSm80SmallTile};

// NVIDIA sm_90a (Hopper, wgmma from shared memory; arch/wgmma.hpp). The main rows: 128x128x32
// blocks of two warpgroups, each one m64n128k16 product per 16 reduction elements (8 warps, 64
// accumulators per thread as on sm80, so two blocks per SM), fed by the same cp.async iterators
// into the 64-byte swizzled layout, 5 stages of 16 KiB (80 KiB; one wgmma group left in flight,
// so 3 tiles of copies ahead; measured against 4 stages and a 128x256 tile in
// kernels/common/README.md). No ldmatrix: the fragment loads that bind the sm80 loop are wgmma's.
// Thin and fused Winograd keep their sm80 rows (mma.sync; their tiles are too small for a 64 x 128
// warpgroup product).
inline constexpr TileConfig kSm90Tile{.block_m = 128,
                                      .block_n = 128,
                                      .block_k = 32,
                                      .warps_m = 8,
                                      .warps_n = 1,
                                      .stages = 5,
                                      .wgmma = true};
// Small grids keep sm80's small row (mma.sync): a 64-row block is one warpgroup's m64, which
// would leave wgmma's 64 x block_n product on one warpgroup of 4 warps per block.
inline constexpr ArchTiles kSm90Tiles{kSm90Tile,      kSm90Tile,     kSm90Tile,     kSm90Tile,
                                      kSm80FusedTile, kSm80ThinTile, kSm80SmallTile};

// Portable FMA fallback (other AMD targets, NVIDIA sm_70/75): the RDNA3 tile, so that on HIP it
// is the same instantiation; its speed is not a goal.
inline constexpr ArchTiles kGenericTiles = kRdna3Tiles;

static_assert(kRdna3Tile.valid(64 * 1024) && kRdna4Tile.valid(64 * 1024));
static_assert(kSm80Tile.valid(227 * 1024) && kSm90Tile.valid(227 * 1024));
static_assert(kRdnaFusedTile.valid(64 * 1024) && kSm80FusedTile.valid(227 * 1024));
static_assert(kRdnaThinTile.valid(64 * 1024) && kSm80ThinTile.valid(227 * 1024));
static_assert(kRdnaSmallTile.valid(64 * 1024) && kSm80SmallTile.valid(227 * 1024));
static_assert(kRdnaSmallTile.block_k == kRdna3Tile.block_k &&
                  kSm80SmallTile.block_k == kSm80Tile.block_k,
              "the small tile runs on the direct families' packing");
static_assert(kRdnaThinTile.block_k == kRdna3Tile.block_k &&
                  kSm80ThinTile.block_k == kSm80Tile.block_k,
              "the thin tile runs on the direct families' packing");
static_assert(kRdnaFusedTile.block_k == kRdna3Tile.block_k &&
                  kSm80FusedTile.block_k == kSm80Tile.block_k,
              "both Winograd variants share U and V");

constexpr const ArchTiles& arch_tiles(ArchClass f) {
  switch (f) {
    case ArchClass::rdna3:
      return kRdna3Tiles;
    case ArchClass::rdna4:
      return kRdna4Tiles;
    case ArchClass::sm80:
      return kSm80Tiles;
    case ArchClass::sm90:
      return kSm90Tiles;
    case ArchClass::generic:
      break;
  }
  return kGenericTiles;
}

/// nvcc's host stubs cannot spell class-type template arguments, so kernels take a tag type
/// built from the numbers. Equal configurations give the same type, hence one instantiation.
template <int BM, int BN, int BK, int WM, int WN, int ST, bool WG = false>
struct TileTag {
  static constexpr TileConfig cfg{.block_m = BM,
                                  .block_n = BN,
                                  .block_k = BK,
                                  .warps_m = WM,
                                  .warps_n = WN,
                                  .stages = ST,
                                  .wgmma = WG};
};
/// Which row of an ArchTiles table.
enum class TileKind : std::uint8_t {
  general,
  gemm1x1,
  conv3x3,
  winograd,
  winograd_fused,
  thin,
  small
};

constexpr TileConfig tile_of(ArchClass f, TileKind k) {
  const ArchTiles& t = arch_tiles(f);
  switch (k) {
    case TileKind::general:
      return t.general;
    case TileKind::gemm1x1:
      return t.gemm1x1;
    case TileKind::conv3x3:
      return t.conv3x3;
    case TileKind::winograd:
      return t.winograd;
    case TileKind::winograd_fused:
      return t.winograd_fused;
    case TileKind::thin:
      return t.thin;
    case TileKind::small:
      return t.small;
  }
  return t.general;
}

template <ArchClass F, TileKind K>
using tile_tag = TileTag<tile_of(F, K).block_m, tile_of(F, K).block_n, tile_of(F, K).block_k,
                         tile_of(F, K).warps_m, tile_of(F, K).warps_n, tile_of(F, K).stages,
                         tile_of(F, K).wgmma>;

}  // namespace rdnaconv::kernels
