// GitHub's permalinks: https://github.com/OWNER/REPO/issues/N (and pull/N,
// discussions/N, with comment anchors) name the thread OWNER/REPO#N; its
// code and commit pages are records but no thread.
#include "../registry/permalinks_internal.h"
#include "umwelt/text.h"

namespace umwelt::permalinks_internal {

PermalinkScheme Github() {
  return {"github",
          {"github.com"},
          [](std::string_view url, const UrlParts&) -> std::optional<std::string> { return ThreadRefFromUrl(url); },
          [](const UrlParts& parts) {
            if (parts.path.size() < 3) return false;
            std::string_view kind = parts.path[2];
            return kind == "issues" || kind == "pull" || kind == "blob" || kind == "commit" || kind == "discussions";
          }};
}

}  // namespace umwelt::permalinks_internal
