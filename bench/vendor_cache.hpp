// SPDX-License-Identifier: MIT
/// @file vendor_cache.hpp The vendor row's choices kept across processes (`rdnaconv_bench
/// --vendor-cache=FILE`), as an application keeps its tuned plans: one line per key,
/// `key<TAB>choice`, appended after each search; the key names the vendor library's version, the
/// GPU and the problem, so a choice is reused only by the same library on the same kind of GPU
/// for the same problem. A row whose choice came from the file runs only that plan and says so
/// in its label. The full set's cuDNN search takes longer than one 10-minute device call
/// (docs/BENCHMARKS.md, 2026-12-06): processes cut short leave their choices in the file, and a
/// later process runs the whole set in one go with every choice read back. Plain C++ (no GPU
/// header): the host tests check the format.
#pragma once

#include <fstream>
#include <istream>
#include <map>
#include <optional>
#include <string>

namespace rdnaconv::bench {

class ChoiceCache {
 public:
  ChoiceCache() = default;
  /// Reads `path` if it exists (a missing file is an empty cache); later put()s append to it.
  explicit ChoiceCache(std::string path) : path_(std::move(path)) {
    std::ifstream in(path_);
    if (in) map_ = parse(in);
  }
  bool enabled() const { return !path_.empty(); }
  const std::string& path() const { return path_; }
  std::size_t size() const { return map_.size(); }

  std::optional<std::string> find(const std::string& key) const {
    auto it = map_.find(key);
    if (it == map_.end()) return std::nullopt;
    return it->second;
  }
  /// Records a choice; appends it to the file when one is set. False when the key or the
  /// choice cannot be written as one line (a tab or a newline in either), or the file cannot be
  /// written.
  bool put(const std::string& key, const std::string& choice) {
    if (!valid_field(key) || !valid_field(choice)) return false;
    map_[key] = choice;
    if (path_.empty()) return true;
    std::ofstream out(path_, std::ios::app);
    out << key << '\t' << choice << '\n';
    return bool(out);
  }

  /// key -> choice from `key<TAB>choice` lines; the last line of a key wins; lines without a
  /// tab, with an empty key or an empty choice are skipped (a file cut mid-line stays usable).
  static std::map<std::string, std::string> parse(std::istream& in) {
    std::map<std::string, std::string> m;
    std::string line;
    while (std::getline(in, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      const std::size_t tab = line.find('\t');
      if (tab == std::string::npos || tab == 0 || tab + 1 >= line.size()) continue;
      std::string choice = line.substr(tab + 1);
      if (choice.find('\t') != std::string::npos) continue;
      m[line.substr(0, tab)] = std::move(choice);
    }
    return m;
  }

 private:
  static bool valid_field(const std::string& s) {
    return !s.empty() && s.find('\t') == std::string::npos && s.find('\n') == std::string::npos &&
           s.find('\r') == std::string::npos;
  }
  std::string path_;
  std::map<std::string, std::string> map_;
};

/// The process's cache (empty and disabled unless --vendor-cache names a file).
inline ChoiceCache& vendor_cache() {
  static ChoiceCache c;
  return c;
}

}  // namespace rdnaconv::bench
