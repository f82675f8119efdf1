// The permalink schemes of every source (see umwelt/permalinks.h); each is
// declared in its source's directory.
#include "umwelt/permalinks.h"

#include <algorithm>

#include "permalinks_internal.h"
#include "umwelt/text.h"

namespace umwelt {

UrlParts SplitUrl(std::string_view url) {
  UrlParts out;
  size_t s = url.find("://");
  if (s == std::string_view::npos) return out;
  std::string_view rest = url.substr(s + 3);
  size_t end = rest.find_first_of("?#");
  if (end != std::string_view::npos) rest = rest.substr(0, end);
  size_t slash = rest.find('/');
  out.host = ToLower(rest.substr(0, slash));
  while (slash != std::string_view::npos) {
    rest = rest.substr(slash + 1);
    slash = rest.find('/');
    std::string_view p = rest.substr(0, slash);
    if (!p.empty()) out.path.push_back(p);
  }
  return out;
}

const std::vector<PermalinkScheme>& PermalinkSchemes() {
  static const std::vector<PermalinkScheme> schemes = {permalinks_internal::Github(), permalinks_internal::Discord(),
                                                       permalinks_internal::Wandb()};
  return schemes;
}

const PermalinkScheme* SchemeForUrl(const UrlParts& parts) {
  if (parts.host.empty()) return nullptr;
  for (const auto& s : PermalinkSchemes()) {
    if (std::find(s.hosts.begin(), s.hosts.end(), parts.host) != s.hosts.end()) return &s;
  }
  return nullptr;
}

std::optional<std::string> SourceThreadRef(std::string_view url) {
  UrlParts parts = SplitUrl(url);
  const PermalinkScheme* s = SchemeForUrl(parts);
  return s ? s->thread_ref(url, parts) : std::nullopt;
}

bool IsSourceRecordUrl(std::string_view url) {
  UrlParts parts = SplitUrl(url);
  const PermalinkScheme* s = SchemeForUrl(parts);
  return s && s->is_record(parts);
}

}  // namespace umwelt
