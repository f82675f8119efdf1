// A git history's records to the rest of umwelt (umwelt/source_traits.h):
// commits ("owner/repo/commit/<sha>", in their pull request's thread when
// they landed through one) and the code windows of the default and active
// branches.
#include "../registry/traits_internal.h"
#include "umwelt/git.h"

namespace umwelt::traits_internal {

SourceTraits Git() {
  return {.name = "git",
          .label = "git",
          .kinds = {{"commit", Role::kChange, "commits", "commit", "commits"}, {"pr", Role::kChange, "", "", "", false, true}},
          .any_host = true,
          .repo_of = [](std::string_view ref) {
            size_t at = ref.find("/commit/");
            if (at != std::string_view::npos) return std::string(ref.substr(0, at));
            size_t hash = ref.find('#');  // a landing's thread: "owner/repo#12"
            return hash == std::string_view::npos ? std::string() : std::string(ref.substr(0, hash));
          },
          .changed_files = [](std::string_view text) {
            // The paths on the commit's last "Files:" line; a trailing
            // "and N more" is not a path.
            std::vector<std::string> out;
            size_t at = text.rfind(git::kFilesLine);
            if (at == std::string_view::npos) return out;
            std::string_view list = text.substr(at + git::kFilesLine.size());
            list = list.substr(0, list.find('\n'));
            while (!list.empty()) {
              size_t e = list.find(", ");
              std::string_view p = list.substr(0, e);
              if (p.rfind("and ", 0) != 0) out.emplace_back(p);
              list = e == std::string_view::npos ? std::string_view() : list.substr(e + 2);
            }
            return out;
          },
          .landed_through = [](std::string_view kind, std::string_view parent) {
            return kind == "commit" && !parent.empty() && parent.find("/commit/") == std::string_view::npos;
          }};
}

SourceTraits Code() {
  return {.name = "code",
          .label = "code",
          .space = "code",
          .kinds = {{"window", Role::kCode}, {"branch-window", Role::kCode, "", "", "", true}},
          .any_host = true};
}

}  // namespace umwelt::traits_internal
