// GitHub's records to the rest of umwelt (umwelt/source_traits.h): an issue
// tracker whose threads are "owner/repo#N", and releases
// "owner/repo/releases/<id>".
#include "../registry/traits_internal.h"

namespace umwelt::traits_internal {

SourceTraits Github() {
  return {.name = "github",
          .label = "GitHub",
          .kinds = {{"issue", Role::kOpening, "issues", "issue", "issues"},
                    {"pr", Role::kOpening, "PRs", "PR", "PRs", false, true},
                    {"comment", Role::kReply, "comments", "comment", "comments"},
                    {"review", Role::kReply, "comments", "comment", "comments"},
                    {"review-comment", Role::kReply, "comments", "comment", "comments"},
                    {"release", Role::kOpening, "", "release", "releases"}},
          .tracker = true,
          .repo_of = [](std::string_view ref) {
            size_t end = ref.find('#');
            if (end == std::string_view::npos) end = ref.find("/releases/");  // a release: owner/repo/releases/<id>
            return end == std::string_view::npos ? std::string() : std::string(ref.substr(0, end));
          }};
}

}  // namespace umwelt::traits_internal
