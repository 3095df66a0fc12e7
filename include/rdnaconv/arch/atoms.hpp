// SPDX-License-Identifier: MIT
/// @file atoms.hpp Matrix atoms: one 16x16x16 (M x N x K) product per 32-lane warp/wave,
/// f16/bf16 in, f32 accumulate. Each atom is named after its instruction and carries its
/// lane-to-element maps. Kernels talk to atoms only, never to a builtin.
///
/// Shared-memory operand convention for every atom: A tile is 16 rows (m) x 16 k, k contiguous,
/// row stride `ld` elements; B tile is 16 rows (n) x 16 k, k contiguous (i.e. B stored K x N
/// column-major). `ld * 2` bytes must be a multiple of 16 and the tile 16-byte aligned.
///
/// Lane layouts (from docs/RDNA_FACTS.md: AMD's Matrix Instruction Calculator and WMMA blog; the
/// PTX ISA's mma.m16n8k16 fragment figures):
///   gfx11 WMMA: A lane l = row l%16, element e = k e (lanes 16-31 replicate 0-15); B likewise
///               by column; C element v of lane l = (row 2v + l/16, col l%16).
///   gfx12 WMMA: A lane l = row l%16, element e = k 8(e/4) + 4(l/16) + e%4; B likewise;
///               C element v of lane l = (row v + 8(l/16), col l%16).
///   sm80 mma.sync m16n8k16 (two of them for N = 16): g = l/4, t = l%4;
///               A words: (g, 2t), (g+8, 2t), (g, 2t+8), (g+8, 2t+8);
///               B words per n8 half h: (n 8h+g, k 2t), (n 8h+g, k 2t+8);
///               C element 4h+i = (row g + 8(i/2), col 8h + 2t + i%2).
#pragma once

#include <cstdint>

#include "rdnaconv/arch/convert.hpp"
#include "rdnaconv/arch/copy.hpp"
#include "rdnaconv/arch/macros.hpp"
#include "rdnaconv/types.hpp"

namespace rdnaconv::arch {

template <int N>
struct Words {
  std::uint32_t v[N];
};

template <DType T>
RDNACONV_DEVICE inline float lo_f(std::uint32_t w) {
  return to_float<T>(std::uint16_t(w & 0xffffu));
}
template <DType T>
RDNACONV_DEVICE inline float hi_f(std::uint32_t w) {
  return to_float<T>(std::uint16_t(w >> 16));
}
template <DType T>
RDNACONV_DEVICE inline float dot2(std::uint32_t a, std::uint32_t b, float acc) {
  acc = fmaf(lo_f<T>(a), lo_f<T>(b), acc);
  return fmaf(hi_f<T>(a), hi_f<T>(b), acc);
}

RDNACONV_DEVICE inline void load16B(std::uint32_t* dst, const std::uint16_t* src) {
  const uint4 q = *reinterpret_cast<const uint4*>(src);
  dst[0] = q.x;
  dst[1] = q.y;
  dst[2] = q.z;
  dst[3] = q.w;
}
RDNACONV_DEVICE inline void load8B(std::uint32_t* dst, const std::uint16_t* src) {
  const uint2 q = *reinterpret_cast<const uint2*>(src);
  dst[0] = q.x;
  dst[1] = q.y;
}
RDNACONV_DEVICE inline std::uint32_t load4B(const std::uint16_t* src) {
  return *reinterpret_cast<const std::uint32_t*>(src);
}

// ---------------------------------------------------------------------------------------------
// gfx11 fragment layout (RDNA3). The product is either the WMMA instruction or its emulation.
// ---------------------------------------------------------------------------------------------
struct Gfx11Layout {
  using AFrag = Words<8>;  // 16 halves: k 0..15 of one row
  using BFrag = Words<8>;
  RDNACONV_DEVICE static void load_a(AFrag& a, const std::uint16_t* tile, int ld, int lane) {
    const std::uint16_t* row = tile + (lane % 16) * ld;  // lanes 16-31 load the same row: the copy
    load16B(a.v, row);
    load16B(a.v + 4, row + 8);
  }
  RDNACONV_DEVICE static void load_b(BFrag& b, const std::uint16_t* tile, int ld, int lane) {
    load_a(b, tile, ld, lane);
  }
  RDNACONV_HD static constexpr int c_row(int lane, int v) { return 2 * v + lane / 16; }
  RDNACONV_HD static constexpr int c_col(int lane, int /*v*/) { return lane % 16; }
};

/// gfx11 layout, product computed with shuffles: each lane half reads A from its own half,
/// so a fragment that breaks the replication rule gives wrong odd rows, as on the hardware.
template <DType T>
struct EmuGfx11 : Gfx11Layout {
  static constexpr DType dtype = T;
  RDNACONV_DEVICE static void mma(float (&c)[8], const AFrag& a, const BFrag& b, int lane) {
    const int half = lane / 16;
#pragma unroll
    for (int v = 0; v < 8; ++v) {
      const int src = (c_row(lane, v) % 16) + 16 * half;
      float acc = c[v];
#pragma unroll
      for (int w = 0; w < 8; ++w) acc = dot2<T>(shfl32(a.v[w], src), b.v[w], acc);
      c[v] = acc;
    }
  }
};

/// RDNA3 v_wmma_f32_16x16x16_{f16,bf16} (wave32).
template <DType T>
struct WmmaGfx11 : Gfx11Layout {
  static constexpr DType dtype = T;
  RDNACONV_DEVICE static void mma(float (&c)[8], const AFrag& a, const BFrag& b, int lane) {
#if defined(__GFX11__)
    typedef float v8f __attribute__((ext_vector_type(8)));
    v8f acc = __builtin_bit_cast(v8f, c);
    if constexpr (T == DType::bf16) {
      typedef short v16s __attribute__((ext_vector_type(16)));
      acc = __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32(__builtin_bit_cast(v16s, a),
                                                        __builtin_bit_cast(v16s, b), acc);
    } else {
      typedef _Float16 v16h __attribute__((ext_vector_type(16)));
      acc = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(__builtin_bit_cast(v16h, a),
                                                       __builtin_bit_cast(v16h, b), acc);
    }
#pragma unroll
    for (int v = 0; v < 8; ++v) c[v] = acc[v];
#else
    EmuGfx11<T>::mma(c, a, b, lane);  // never selected outside a gfx11 pass
#endif
  }
};

// ---------------------------------------------------------------------------------------------
// gfx12 fragment layout (RDNA4).
// ---------------------------------------------------------------------------------------------
struct Gfx12Layout {
  using AFrag = Words<4>;  // 8 halves: k {0-3, 8-11} (lanes 0-15) or {4-7, 12-15} (16-31)
  using BFrag = Words<4>;
  RDNACONV_DEVICE static void load_a(AFrag& a, const std::uint16_t* tile, int ld, int lane) {
    const std::uint16_t* row = tile + (lane % 16) * ld + 4 * (lane / 16);
    load8B(a.v, row);
    load8B(a.v + 2, row + 8);
  }
  RDNACONV_DEVICE static void load_b(BFrag& b, const std::uint16_t* tile, int ld, int lane) {
    load_a(b, tile, ld, lane);
  }
  RDNACONV_HD static constexpr int c_row(int lane, int v) { return v + 8 * (lane / 16); }
  RDNACONV_HD static constexpr int c_col(int lane, int /*v*/) { return lane % 16; }
};

template <DType T>
struct EmuGfx12 : Gfx12Layout {
  static constexpr DType dtype = T;
  RDNACONV_DEVICE static void mma(float (&c)[8], const AFrag& a, const BFrag& b, int lane) {
    const int col = lane % 16;
    std::uint32_t bl[4], bh[4];
#pragma unroll
    for (int w = 0; w < 4; ++w) {
      bl[w] = shfl32(b.v[w], col);       // k {0-3, 8-11} of column col
      bh[w] = shfl32(b.v[w], col + 16);  // k {4-7, 12-15}
    }
#pragma unroll
    for (int v = 0; v < 8; ++v) {
      const int row = c_row(lane, v);
      float acc = c[v];
#pragma unroll
      for (int w = 0; w < 4; ++w) {
        acc = dot2<T>(shfl32(a.v[w], row), bl[w], acc);
        acc = dot2<T>(shfl32(a.v[w], row + 16), bh[w], acc);
      }
      c[v] = acc;
    }
  }
};

/// RDNA4 v_wmma_f32_16x16x16_{f16,bf16} (wave32, gfx12 encoding).
template <DType T>
struct WmmaGfx12 : Gfx12Layout {
  static constexpr DType dtype = T;
  RDNACONV_DEVICE static void mma(float (&c)[8], const AFrag& a, const BFrag& b, int lane) {
#if defined(__GFX12__)
    typedef float v8f __attribute__((ext_vector_type(8)));
    v8f acc = __builtin_bit_cast(v8f, c);
    if constexpr (T == DType::bf16) {
      typedef short v8s __attribute__((ext_vector_type(8)));
      acc = __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32_gfx12(__builtin_bit_cast(v8s, a),
                                                              __builtin_bit_cast(v8s, b), acc);
    } else {
      typedef _Float16 v8h __attribute__((ext_vector_type(8)));
      acc = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12(__builtin_bit_cast(v8h, a),
                                                             __builtin_bit_cast(v8h, b), acc);
    }
#pragma unroll
    for (int v = 0; v < 8; ++v) c[v] = acc[v];
#else
    EmuGfx12<T>::mma(c, a, b, lane);  // never selected outside a gfx12 pass
#endif
  }
};

// ---------------------------------------------------------------------------------------------
// NVIDIA sm_80+ mma.sync.m16n8k16, two per 16x16 atom.
// ---------------------------------------------------------------------------------------------
template <DType T>
struct MmaSm80 {
  static constexpr DType dtype = T;
  using AFrag = Words<4>;
  using BFrag = Words<4>;
  // ldmatrix.x4 gives each lane exactly the words listed in the file comment: matrix j of the
  // A tile is (rows 8(j%2).., k 8(j/2)..), of the B tile (n 8(j/2).., k 8(j%2)..); lane l
  // points at row l%8 of matrix l/8. One instruction replaces four 32-bit shared loads.
  RDNACONV_DEVICE static void load_a(AFrag& a, const std::uint16_t* tile, int ld, int lane) {
    arch::ldmatrix_x4(a.v, tile + (lane % 16) * ld + 8 * (lane / 16));
  }
  RDNACONV_DEVICE static void load_b(BFrag& b, const std::uint16_t* tile, int ld, int lane) {
    arch::ldmatrix_x4(b.v, tile + (lane % 8 + 8 * (lane / 16)) * ld + 8 * ((lane / 8) % 2));
  }
  RDNACONV_HD static constexpr int c_row(int lane, int v) { return lane / 4 + 8 * ((v % 4) / 2); }
  RDNACONV_HD static constexpr int c_col(int lane, int v) {
    return 8 * (v / 4) + 2 * (lane % 4) + (v % 2);
  }
  RDNACONV_DEVICE static void mma(float (&c)[8], const AFrag& a, const BFrag& b, int lane) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      if constexpr (T == DType::bf16) {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
            "{%8,%9}, {%0,%1,%2,%3};\n"
            : "+f"(c[4 * h]), "+f"(c[4 * h + 1]), "+f"(c[4 * h + 2]), "+f"(c[4 * h + 3])
            : "r"(a.v[0]), "r"(a.v[1]), "r"(a.v[2]), "r"(a.v[3]), "r"(b.v[2 * h]),
              "r"(b.v[2 * h + 1]));
      } else {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
            "{%8,%9}, {%0,%1,%2,%3};\n"
            : "+f"(c[4 * h]), "+f"(c[4 * h + 1]), "+f"(c[4 * h + 2]), "+f"(c[4 * h + 3])
            : "r"(a.v[0]), "r"(a.v[1]), "r"(a.v[2]), "r"(a.v[3]), "r"(b.v[2 * h]),
              "r"(b.v[2 * h + 1]));
      }
    }
#else
    (void)c;
    (void)a;
    (void)b;
    (void)lane;
    __builtin_trap();  // never selected below sm_80
#endif
  }
};

// ---------------------------------------------------------------------------------------------
// Portable FMA fallback: no cross-lane operations, so it is correct for any wave size. Its
// "fragments" are views of the shared-memory tiles; C layout is the gfx11 one.
// ---------------------------------------------------------------------------------------------
template <DType T>
struct FmaAtom {
  static constexpr DType dtype = T;
  struct AFrag {
    const std::uint16_t* p;
    int ld;
  };
  using BFrag = AFrag;
  RDNACONV_DEVICE static void load_a(AFrag& a, const std::uint16_t* tile, int ld, int) {
    a = {tile, ld};
  }
  RDNACONV_DEVICE static void load_b(BFrag& b, const std::uint16_t* tile, int ld, int) {
    b = {tile, ld};
  }
  RDNACONV_HD static constexpr int c_row(int lane, int v) { return 2 * v + lane / 16; }
  RDNACONV_HD static constexpr int c_col(int lane, int) { return lane % 16; }
  RDNACONV_DEVICE static void mma(float (&c)[8], const AFrag& a, const BFrag& b, int lane) {
    const std::uint16_t* bcol = b.p + c_col(lane, 0) * b.ld;
#pragma unroll
    for (int v = 0; v < 8; ++v) {
      const std::uint16_t* arow = a.p + c_row(lane, v) * a.ld;
      float acc = c[v];
#pragma unroll
      for (int k = 0; k < 16; k += 2) acc = dot2<T>(load4B(arow + k), load4B(bcol + k), acc);
      c[v] = acc;
    }
  }
};

/// The target's own atom, chosen per device compilation pass by the compiler's target macros,
/// so one binary can carry several --offload-arch targets.
template <DType T>
struct NativeAtom {
#if defined(__GFX11__)
  using type = WmmaGfx11<T>;
#elif defined(__GFX12__)
  using type = WmmaGfx12<T>;
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  using type = MmaSm80<T>;
#else
  using type = FmaAtom<T>;
#endif
};

template <AtomKind A, DType T>
struct AtomFor;
template <DType T>
struct AtomFor<AtomKind::native, T> {
  using type = typename NativeAtom<T>::type;
};
template <DType T>
struct AtomFor<AtomKind::gfx11, T> {
  using type = EmuGfx11<T>;
};
template <DType T>
struct AtomFor<AtomKind::gfx12, T> {
  using type = EmuGfx12<T>;
};
template <DType T>
struct AtomFor<AtomKind::fma, T> {
  using type = FmaAtom<T>;
};
template <AtomKind A, DType T>
using atom_t = typename AtomFor<A, T>::type;

}  // namespace rdnaconv::arch
