// W&B's records to the rest of umwelt (umwelt/source_traits.h): one run per
// thread ("wandb:<entity>/<project>/<run>"), its final numbers reported.
#include "../registry/traits_internal.h"
#include "umwelt/wandb.h"

namespace umwelt::traits_internal {

SourceTraits Wandb() {
  return {.name = "wandb",
          .label = "W&B",
          .ref_prefix = "wandb:",
          .kinds = {{"run", Role::kRun, "runs", "run", "runs"}},
          .reported = [](std::string_view text) {
            size_t at = text.find(wandb::kSummaryLine);
            if (at == std::string_view::npos) return std::string();
            std::string_view line = text.substr(at + 1);
            return std::string(line.substr(0, line.find('\n')));
          },
          .ended_states = {"finished", "crashed", "failed", "killed"}};
}

}  // namespace umwelt::traits_internal
