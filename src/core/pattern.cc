#include "umwelt/pattern.h"

#include <re2/re2.h>

#include <cstdio>
#include <cstdlib>

namespace umwelt {

namespace {

RE2::Options OptionsOf(unsigned flags) {
  RE2::Options o;
  o.set_encoding(RE2::Options::EncodingLatin1);
  o.set_case_sensitive((flags & Pattern::kIgnoreCase) == 0);
  o.set_log_errors(false);
  return o;
}

re2::StringPiece Piece(std::string_view s) { return re2::StringPiece(s.data(), s.size()); }

}  // namespace

Pattern::Pattern(std::string_view pattern, unsigned flags)
    : re_(std::make_unique<re2::RE2>(Piece(pattern), OptionsOf(flags))) {
  if (!re_->ok()) {
    std::fprintf(stderr, "umwelt: bad built-in pattern %s: %s\n", re_->pattern().c_str(), re_->error().c_str());
    std::abort();
  }
}

Pattern::Pattern() = default;
Pattern::~Pattern() = default;
Pattern::Pattern(Pattern&&) noexcept = default;
Pattern& Pattern::operator=(Pattern&&) noexcept = default;

std::unique_ptr<Pattern> Pattern::Valid(std::string_view pattern, unsigned flags, std::string* error) {
  auto re = std::make_unique<re2::RE2>(Piece(pattern), OptionsOf(flags));
  if (!re->ok()) {
    if (error) *error = re->error();
    return nullptr;
  }
  std::unique_ptr<Pattern> p(new Pattern());  // compiled once, above
  p->re_ = std::move(re);
  return p;
}

std::string Pattern::Quote(std::string_view text) { return re2::RE2::QuoteMeta(Piece(text)); }

int Pattern::group_count() const { return re_->NumberOfCapturingGroups(); }

namespace {

bool Run(const re2::RE2& re, std::string_view s, size_t from, re2::RE2::Anchor anchor, Groups* groups) {
  if (from > s.size()) return false;
  int n = groups ? 1 + re.NumberOfCapturingGroups() : 0;
  std::vector<re2::StringPiece> pieces(static_cast<size_t>(n));
  if (!re.Match(Piece(s), from, s.size(), anchor, pieces.data(), n)) return false;
  if (groups) {
    groups->clear();
    for (const auto& p : pieces) groups->emplace_back(p.data(), p.size());
  }
  return true;
}

}  // namespace

bool Pattern::Matches(std::string_view s, Groups* groups) const {
  return Run(*re_, s, 0, re2::RE2::ANCHOR_BOTH, groups);
}

bool Pattern::Search(std::string_view s, Groups* groups, size_t from) const {
  return Run(*re_, s, from, re2::RE2::UNANCHORED, groups);
}

void Pattern::ForEach(std::string_view s, const std::function<bool(const Groups&)>& f) const {
  Groups g;
  size_t at = 0;
  while (at <= s.size() && Run(*re_, s, at, re2::RE2::UNANCHORED, &g)) {
    size_t end = static_cast<size_t>(g[0].data() - s.data()) + g[0].size();
    if (!f(g)) return;
    at = g[0].empty() ? end + 1 : end;  // an empty match moves on by one
  }
}

std::string Pattern::ReplaceAll(std::string_view s, std::string_view rewrite) const {
  std::string out(s);
  re2::RE2::GlobalReplace(&out, *re_, Piece(rewrite));
  return out;
}

}  // namespace umwelt
