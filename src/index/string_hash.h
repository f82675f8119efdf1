#pragma once

#include <xxhash.h>

#include <cstddef>
#include <string_view>

namespace umwelt {

// Hashes strings, and the views that look them up without a copy (for an
// unordered_map<std::string, V, StringHash, std::equal_to<>>).
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return XXH3_64bits(s.data(), s.size()); }
};

}  // namespace umwelt
