// SPDX-License-Identifier: MIT
/// @file iterators.hpp Operand iterators of the implicit-GEMM engine: what distinguishes the
/// kernel families is how they find the 16-byte vectors (8 reduction elements of one GEMM row)
/// of a tile. Every iterator has the same surface:
///   row(i), kv(i)     tile row and 8-element column of this thread's vector i (fixed)
///   step(ks)          prepare reduction step ks (called with ks = 0, 1, 2, ... in order)
///   vec(i, src, live) true: vector i is one aligned 16-byte load from src where `live`, zeros
///                     where not (then src is not read: the register path skips the load, a
///                     cp.async copies 0 bytes of it); false: call gather(i, g) for it (g: a
///                     Gathered, 8 element loads)
/// The pointers a step reads are kept running (advanced by a constant per step, recomputed
/// only where the window moves to the next tap) and the zero case is a flag, not a null
/// pointer: a null test and a 64-bit select per vector and step were a fifth of the sm_80
/// loop's instructions (kernels/common/README.md, notes).
#pragma once

#include <cstdint>
#include <string>

#include "rdnaconv/arch/copy.hpp"
#include "rdnaconv/arch/platform.hpp"
#include "rdnaconv/kernels/common/conv_params.hpp"

namespace rdnaconv::kernels {

/// Input layouts the A iterators read. nchwc: [N][C_pad/cb][H][W][cb] with cb = block_k, the
/// channel-blocked repack of an NCHW input (channels past C are zeros).
enum class InLayout : std::uint8_t { nchw, nhwc, nchwc };

/// Eight zeros in global memory (part of the code object: no allocation), the source of a
/// gathered element outside the image or past C.
RDNACONV_DEVICE static const std::uint16_t kGatherZeros[8] = {};

/// A gathered vector: 8 elements. Staged (the register-staged loop): each is read from its
/// address or from kGatherZeros, so the loads carry no condition and no instruction reads them
/// until their shared-memory stores; the loop issues them before a step's products and stores
/// them after (engine.hpp). Packing them into words on arrival, or a zero select, put VALU work
/// on the loaded registers at the top of the loop, and with it the wait for the loads before
/// the products. Not staged (cp.async loop, stored at once): predicated loads, zeros selected,
/// which needs fewer registers there (a 64-bit source select per element made the sm_80 NCHW
/// 3x3 kernel spill).
template <bool kStaged>
struct Gathered {
  std::uint16_t e[8];
  /// Element j: *src where `in`, else zero.
  RDNACONV_DEVICE void load(int j, bool in, const std::uint16_t* src) {
    if constexpr (kStaged)
      e[j] = arch::load_global2(in ? src : kGatherZeros);
    else
      e[j] = in ? *src : std::uint16_t(0);
  }
  RDNACONV_DEVICE void pack(std::uint32_t (&w)[4]) const {
#pragma unroll
    for (int j = 0; j < 4; ++j)
      w[j] = std::uint32_t(e[2 * j]) | (std::uint32_t(e[2 * j + 1]) << 16);
  }
};

/// Thread -> vector map. Row-major iterators give 4 consecutive threads one row's 4 vectors
/// (block_k = 32): a warp reads 8 rows x 64 contiguous bytes. Column-major ones (NCHW gathers)
/// give consecutive threads consecutive rows, so each scalar load of a warp is 32 consecutive
/// pixels of one channel.
template <class Tiles, int Rows, bool RowMajor>
struct VectorMap {
  static constexpr TileConfig C = Tiles::cfg;
  static constexpr int KV = C.block_k / 8;
  static constexpr int IT = Rows * KV / C.threads();
  static_assert(IT * C.threads() == Rows * KV, "tile rows x vectors must divide over the threads");
  int tid;
  RDNACONV_DEVICE int row(int i) const {
    const int idx = tid + i * C.threads();
    return RowMajor ? idx / KV : idx % Rows;
  }
  RDNACONV_DEVICE int kv(int i) const {
    const int idx = tid + i * C.threads();
    return RowMajor ? idx % KV : idx / Rows;
  }
};

/// Dense row-major operand [rows][ld], rows past `rows_left` read as zeros: the packed weights
/// (B of every family) and Winograd's transformed input V.
template <class Tiles, int Rows>
struct DenseIter : VectorMap<Tiles, Rows, true> {
  using Map = VectorMap<Tiles, Rows, true>;
  static constexpr int IT = Map::IT;
  const std::uint16_t* row_ptr[IT];  // this thread's vector i at step 0 (row 0's past the end)
  bool row_ok[IT];                   // its row exists
  int kofs = 0;
  RDNACONV_DEVICE DenseIter(const std::uint16_t* first_row, std::int64_t ld, std::int64_t rows_left,
                            int tid_)
      : Map{tid_} {
#pragma unroll
    for (int i = 0; i < IT; ++i) {
      const int r = this->row(i);
      row_ok[i] = r < rows_left;
      row_ptr[i] = first_row + (row_ok[i] ? r * ld : 0) + this->kv(i) * 8;
    }
  }
  RDNACONV_DEVICE void step(int ks) { kofs = ks * Map::C.block_k; }
  /// Starts the reduction `n` steps in (split-K): the next step(0) reads step n.
  RDNACONV_DEVICE void skip(int n) {
#pragma unroll
    for (int i = 0; i < IT; ++i) row_ptr[i] += n * Map::C.block_k;
  }
  RDNACONV_DEVICE bool vec(int i, const std::uint16_t*& src, bool& live) const {
    src = row_ptr[i] + kofs;
    live = row_ok[i];
    return true;
  }
  template <class G>
  RDNACONV_DEVICE void gather(int, G&) const {}  // never called: vec() is always true
};

/// Where an output pixel's filter window starts: the GEMM row m = (img, op, oq).
struct RowOrigin {
  std::int64_t img;
  int ih0, iw0;
  bool ok;  // m < M
};
RDNACONV_DEVICE inline RowOrigin row_origin(const ConvGemmParams& pr, std::int64_t m) {
  RowOrigin o;
  o.ok = m < pr.m;
  const std::int64_t mm = o.ok ? m : 0;
  const std::int64_t pq = std::int64_t(pr.p) * pr.q;
  o.img = mm / pq;
  const int rem = int(mm - o.img * pq);
  const int op = rem / pr.q, oq = rem - op * pr.q;
  o.ih0 = op * pr.stride_h - pr.pad_top;
  o.iw0 = oq * pr.stride_w - pr.pad_left;
  return o;
}

/// General family (any R, S, stride, dilation, padding): the reduction index is decoded per
/// vector into (tap, channel), because with c_pad = round8(C) one step may span several taps.
/// iter_t<Tiles, true> reads the padding through pad_source (PadRemapTag below).
template <LayoutKind L>
struct GeneralIterTag {
  static std::string name() { return std::string("GeneralIter ") + to_string(L); }
  template <class Tiles, bool Remap>
  struct iter_t : VectorMap<Tiles, Tiles::cfg.block_m, L == LayoutKind::nhwc> {
    using Map = VectorMap<Tiles, Tiles::cfg.block_m, L == LayoutKind::nhwc>;
    static constexpr int IT = Map::IT;
    static constexpr bool kNhwc = L == LayoutKind::nhwc;
    const ConvGemmParams& pr;
    RowOrigin o[IT];
    std::int64_t hw;
    int kbase = 0;
    int v_rs[IT], v_ci[IT];  // vector i's tap and channel at the current step (c_pad % 8 == 0)
    RDNACONV_DEVICE iter_t(const ConvGemmParams& p, std::int64_t m_block, int tid_, int)
        : Map{tid_}, pr(p), hw(std::int64_t(p.h) * p.w) {
#pragma unroll
      for (int i = 0; i < IT; ++i) {
        o[i] = row_origin(pr, m_block + this->row(i));
        const int k0 = this->kv(i) * 8;
        v_rs[i] = k0 / p.c_pad;
        v_ci[i] = k0 - v_rs[i] * p.c_pad;
      }
    }
    /// Starts the reduction `n` steps in (split-K): the state of step n, as n steps in order
    /// leave it; the next step(0) keeps it.
    RDNACONV_DEVICE void skip(int n) {
      for (int s = 0; s < n; ++s) step(1);
    }
    /// Steps come in order: the (tap, channel) of each vector advances by block_k.
    RDNACONV_DEVICE void step(int ks) {
      if (ks == 0) return;
      kbase += Map::C.block_k;
#pragma unroll
      for (int i = 0; i < IT; ++i) {
        v_ci[i] += Map::C.block_k;
        while (v_ci[i] >= pr.c_pad) {
          v_ci[i] -= pr.c_pad;
          ++v_rs[i];
        }
      }
    }
    /// Offset of (row i, channel ci, tap rs) or -1 where the window leaves the image (Remap:
    /// where it reads zeros, i.e. never for the other modes).
    RDNACONV_DEVICE std::int64_t offset(int i, int rs, int ci) const {
      if (!o[i].ok || rs >= pr.r * pr.s) return -1;
      const int rr = rs / pr.s, ss = rs - rr * pr.s;
      int ih = o[i].ih0 + rr * pr.dil_h, iw = o[i].iw0 + ss * pr.dil_w;
      if constexpr (Remap) {
        ih = pad_source(ih, pr.h, pr.pad_mode);
        iw = pad_source(iw, pr.w, pr.pad_mode);
      }
      if (ih < 0 || ih >= pr.h || iw < 0 || iw >= pr.w) return -1;
      const std::int64_t img = o[i].img * pr.c * hw;
      return kNhwc ? img + (std::int64_t(ih) * pr.w + iw) * pr.c + ci
                   : img + ci * hw + std::int64_t(ih) * pr.w + iw;
    }
    RDNACONV_DEVICE bool vec(int i, const std::uint16_t*& src, bool& live) const {
      if (!kNhwc || !pr.vec_x) return false;  // vec_x implies C % 8 == 0: a vector is all in or out
      const int ci = v_ci[i];
      const std::int64_t off =
          ci < pr.c ? offset(i, v_rs[i], ci) : -1;  // c_pad may exceed C (tap packing)
      live = off >= 0;
      src = pr.x + (live ? off : 0);
      return true;
    }
    template <class G>
    RDNACONV_DEVICE void gather(int i, G& g) const {
      const int kidx = kbase + this->kv(i) * 8;
      if (pr.c_pad % 8 == 0) {
        // the 8 elements share one tap: decoded incrementally, the channels past C masked
        const int c0 = v_ci[i];
        const std::int64_t off = offset(i, v_rs[i], c0);
        const std::int64_t cstride = kNhwc ? 1 : hw;
        const std::uint16_t* src = pr.x + (off >= 0 ? off : 0);
#pragma unroll
        for (int j = 0; j < 8; ++j) g.load(j, off >= 0 && c0 + j < pr.c, src + j * cstride);
      } else {
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          const int rs = (kidx + j) / pr.c_pad, ci = kidx + j - rs * pr.c_pad;
          const std::int64_t off = offset(i, rs, ci);
          g.load(j, off >= 0, pr.x + (off >= 0 ? off : 0));
        }
      }
    }
  };
  template <class Tiles>
  using iter = iter_t<Tiles, false>;
};

/// Tap families: c_pad is a multiple of block_k, so step ks lies in tap ks / (c_pad/block_k)
/// and the window position, bounds and row offset of each row are computed once per tap
/// (OneTap: once per block, for 1x1 filters), not per channel step. iter_t<Tiles, true> reads
/// the padding through pad_source (PadRemapTag below), once per tap as well.
template <InLayout IL, bool OneTap>
struct TapIterTag {
  static std::string name() {
    return std::string("TapIter ") +
           (IL == InLayout::nchw   ? "nchw"
            : IL == InLayout::nhwc ? "nhwc"
                                   : "nchwc") +
           (OneTap ? " 1x1" : " 3x3");
  }
  template <class Tiles, bool Remap>
  struct iter_t : VectorMap<Tiles, Tiles::cfg.block_m, IL != InLayout::nchw> {
    using Map = VectorMap<Tiles, Tiles::cfg.block_m, IL != InLayout::nchw>;
    static constexpr int IT = Map::IT;
    static constexpr int BK = Map::C.block_k;
    const ConvGemmParams& pr;
    RowOrigin o[IT];
    std::int64_t pix[IT];          // offset of (row i, channel 0) at the current tap
    bool in[IT];                   // the current tap of row i lies inside the image
    const std::uint16_t* ptr[IT];  // NHWC / NCHWc: vector i at the current step
    std::int64_t hw;
    std::int64_t cstep;  // elements between one step's vector and the next step's in one tap
    int rr = 0, ss = 0, c0 = 0;  // the current step's tap (r, s) and channel offset
    RDNACONV_DEVICE iter_t(const ConvGemmParams& p, std::int64_t m_block, int tid_, int)
        : Map{tid_},
          pr(p),
          hw(std::int64_t(p.h) * p.w),
          cstep(IL == InLayout::nchwc ? hw * BK : BK) {
#pragma unroll
      for (int i = 0; i < IT; ++i) o[i] = row_origin(pr, m_block + this->row(i));
      set_tap();
    }
    RDNACONV_DEVICE void set_tap() {
#pragma unroll
      for (int i = 0; i < IT; ++i) {
        int ih = o[i].ih0 + rr * pr.dil_h, iw = o[i].iw0 + ss * pr.dil_w;
        if constexpr (Remap) {
          ih = pad_source(ih, pr.h, pr.pad_mode);
          iw = pad_source(iw, pr.w, pr.pad_mode);
        }
        in[i] = o[i].ok && ih >= 0 && ih < pr.h && iw >= 0 && iw < pr.w;
        const std::int64_t sp = in[i] ? std::int64_t(ih) * pr.w + iw : 0;
        if constexpr (IL == InLayout::nhwc)
          pix[i] = (o[i].img * hw + sp) * pr.c;
        else if constexpr (IL == InLayout::nchw)
          pix[i] = o[i].img * pr.c * hw + sp;
        else
          pix[i] = (o[i].img * pr.c_pad * hw) + sp * BK;
        if constexpr (IL != InLayout::nchw) ptr[i] = pr.x + pix[i] + this->kv(i) * 8;  // channel 0
      }
    }
    /// Starts the reduction `n` steps in (split-K): the state of step n, as n steps in order
    /// leave it; the next step(0) keeps it.
    RDNACONV_DEVICE void skip(int n) {
      for (int s = 0; s < n; ++s) step(1);
    }
    /// Steps come in order 0, 1, 2, ... (both pipelines): advance by counters, no division.
    RDNACONV_DEVICE void step(int ks) {
      if (ks == 0) return;  // set up by the constructor
      c0 += BK;
      if constexpr (!OneTap) {
        if (c0 == pr.c_pad) {
          c0 = 0;
          if (++ss == pr.s) {
            ss = 0;
            ++rr;
          }
          set_tap();
          return;
        }
      }
      if constexpr (IL != InLayout::nchw) {
#pragma unroll
        for (int i = 0; i < IT; ++i) ptr[i] += cstep;
      }
    }
    /// NHWC and NCHWc read 16-byte vectors only: on NHWC the method can implement only C % 8 == 0
    /// and the plan's alignment contract guarantees a 16-byte aligned x (can_implement,
    /// Plan::check_x_alignment), so no gather code sits in the hot loop of these kernels.
    RDNACONV_DEVICE bool vec(int i, const std::uint16_t*& src, bool& live) const {
      if constexpr (IL == InLayout::nchw) {
        return false;
      } else {
        src = ptr[i];
        if constexpr (IL == InLayout::nhwc)
          live = in[i] && c0 + this->kv(i) * 8 < pr.c;  // C % 8 == 0: a vector is all in or out
        else
          live = in[i];  // channels past C are zeros in the repack: no channel mask
        return true;
      }
    }
    template <class G>
    RDNACONV_DEVICE void gather(int i, G& g) const {
      if constexpr (IL == InLayout::nchw) {
        const int c = c0 + this->kv(i) * 8;
        const std::uint16_t* src = pr.x + pix[i] + std::int64_t(c) * hw;  // pix = 0 outside
#pragma unroll
        for (int j = 0; j < 8; ++j) g.load(j, in[i] && c + j < pr.c, src + j * hw);
      }  // else never called: vec() is always true here
    }
  };
  template <class Tiles>
  using iter = iter_t<Tiles, false>;
};

/// A family's A iterator (a tag with iter_t<Tiles, Remap>) reading the padding as PadMode says
/// (ConvGemmParams::pad_mode: reflect, replicate, circular) instead of as zeros: every input
/// coordinate goes through pad_source, so no padded copy of x exists. A tag of its own, hence
/// a kernel of its own, so the zeros kernels' code does not change and they pay nothing for
/// the modes; one kernel per family serves the three modes (a run-time value inside it).
template <class Tag>
struct PadRemapTag {
  static std::string name() { return Tag::name() + " remap"; }
  template <class Tiles>
  using iter = typename Tag::template iter_t<Tiles, true>;
};
template <class Tag>
inline constexpr bool kPadRemap = false;
template <class Tag>
inline constexpr bool kPadRemap<PadRemapTag<Tag>> = true;

/// Winograd's batched GEMM: A is V[batch][tile][c_pad], dense.
struct WinogradIterTag {
  static std::string name() { return "WinogradIter"; }
  template <class Tiles>
  struct iter : DenseIter<Tiles, Tiles::cfg.block_m> {
    RDNACONV_DEVICE iter(const ConvGemmParams& p, std::int64_t m_block, int tid_, int batch)
        : DenseIter<Tiles, Tiles::cfg.block_m>(p.x + batch * p.a_batch_stride + m_block * p.c_pad,
                                               p.c_pad, p.m - m_block, tid_) {}
  };
};

}  // namespace rdnaconv::kernels
