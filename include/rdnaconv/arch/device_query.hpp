// SPDX-License-Identifier: MIT
/// @file device_query.hpp What a plan needs to know about a device (architecture number, wave
/// size), read once per device and cached: a fixed property, so it cannot go stale; one
/// properties query (no per-plan attribute calls), no stream operation, so planning is legal
/// inside stream capture. The only runtime query of the library.
#pragma once

#include <atomic>
#include <cstdint>

#include "rdnaconv/arch/device_info.hpp"
#include "rdnaconv/arch/platform.hpp"

namespace rdnaconv::arch {

/// `device` < 0: the current one. Devices 0..63 are cached (others are queried every time).
inline rt::error_t query_device(int device, DeviceInfo& out) {
  if (device < 0)
    if (rt::error_t e = rt::get_device(&device); e != rt::success) return e;
  static std::atomic<std::uint32_t> cache[64];  // 0 = unknown; else amd<<31 | warp<<24 | arch
#if defined(RDNACONV_BACKEND_CUDA)
  constexpr bool amd = false;
#else
  constexpr bool amd = true;
#endif
  if (device < 64) {
    const std::uint32_t c = cache[device].load(std::memory_order_relaxed);
    if (c) {
      out = make_device_info((c >> 31) != 0, int(c & 0xffffffu), int((c >> 24) & 0x7fu));
      return rt::success;
    }
  }
  int number = 0, warp = 32;
  char name[64];
  if (rt::error_t e = rt::device_arch(device, &number, &warp, name, sizeof name); e != rt::success)
    return e;
  out = make_device_info(amd, number, warp);
  if (device < 64)
    cache[device].store((amd ? 1u << 31 : 0u) | (std::uint32_t(warp & 0x7f) << 24) |
                            (std::uint32_t(number) & 0xffffffu),
                        std::memory_order_relaxed);
  return rt::success;
}

}  // namespace rdnaconv::arch
