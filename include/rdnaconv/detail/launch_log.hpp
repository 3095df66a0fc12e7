// SPDX-License-Identifier: MIT
/// @file launch_log.hpp A record of the kernels a thread launches, for tests that check that a
/// plan runs what its describe() names. Each launcher notes the kernel it launches, named from
/// the kernel's own template arguments (not from describe()'s table). Off (the default), a note
/// costs one test of a thread-local pointer.
#pragma once

#include <string>
#include <vector>

namespace rdnaconv::detail {

struct LaunchLog {
  std::vector<std::string> kernels;
  std::vector<std::string> tiles;  ///< the tile of each matrix-unit kernel (TileConfig::str())
};

/// The log of this thread, or null (no recording).
inline thread_local LaunchLog* g_launch_log = nullptr;

/// `name()` is only called while a log is attached.
template <class Name>
inline void note_launch(Name&& name) {
  if (g_launch_log) g_launch_log->kernels.push_back(name());
}

/// The tile of a matrix-unit kernel just noted.
template <class Cfg>
inline void note_tile(const Cfg& c) {
  if (g_launch_log) g_launch_log->tiles.push_back(c.str());
}

/// Attaches `log` to this thread for the scope's lifetime.
struct ScopedLaunchLog {
  LaunchLog* prev;
  explicit ScopedLaunchLog(LaunchLog& log) : prev(g_launch_log) { g_launch_log = &log; }
  ~ScopedLaunchLog() { g_launch_log = prev; }
  ScopedLaunchLog(const ScopedLaunchLog&) = delete;
  ScopedLaunchLog& operator=(const ScopedLaunchLog&) = delete;
};

}  // namespace rdnaconv::detail
