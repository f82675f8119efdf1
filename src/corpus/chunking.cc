#include <string_view>

#include "umwelt/corpus.h"
#include "umwelt/text.h"

namespace umwelt {
namespace {

// The best place at or before `limit` to end a part: a paragraph break, else a
// line break, else a sentence end, else a space, else a UTF-8 boundary.
size_t CutPoint(std::string_view s, size_t limit) {
  if (s.size() <= limit) return s.size();
  std::string_view head = s.substr(0, limit);
  size_t min_cut = limit / 2;
  for (std::string_view sep : {"\n\n", "\n", ". ", " "}) {
    size_t p = head.rfind(sep);
    if (p != std::string_view::npos && p >= min_cut) return p + sep.size();
  }
  return TruncateUtf8(head, limit).size();
}

}  // namespace

std::string BaseRef(const std::string& ref) {
  size_t p = ref.rfind(":p");
  if (p == std::string::npos || p + 2 == ref.size()) return ref;
  for (size_t i = p + 2; i < ref.size(); ++i) {
    if (ref[i] < '0' || ref[i] > '9') return ref;
  }
  return ref.substr(0, p);
}

std::vector<Chunk> SplitIntoParts(const Chunk& c, size_t max_chars) {
  if (c.text.size() <= max_chars || max_chars < 16) return {c};
  std::vector<std::string_view> pieces;
  std::string_view rest = c.text;
  while (!rest.empty()) {
    size_t cut = CutPoint(rest, max_chars);
    if (cut == 0) cut = std::min(rest.size(), max_chars);  // unreachable for valid text
    pieces.push_back(rest.substr(0, cut));
    rest.remove_prefix(cut);
  }
  std::vector<Chunk> out;
  out.reserve(pieces.size());
  Chunk shared = c;  // each part is the record but for its text: copied once, not per part
  shared.text.clear();
  for (size_t i = 0; i < pieces.size(); ++i) {
    Chunk p = shared;
    p.ref = c.ref + ":p" + std::to_string(i);
    p.text = std::string(pieces[i]);
    p.syms.clear();
    p.part = static_cast<int>(i);
    p.n_parts = static_cast<int>(pieces.size());
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace umwelt
