// W&B's permalinks: https://wandb.ai/ENTITY/PROJECT/runs/RUN names the
// thread wandb:ENTITY/PROJECT/RUN.
#include "../registry/permalinks_internal.h"

namespace umwelt::permalinks_internal {

namespace {
bool IsRunUrl(const UrlParts& parts) { return parts.path.size() >= 4 && parts.path[2] == "runs"; }
}  // namespace

PermalinkScheme Wandb() {
  return {"wandb",
          {"wandb.ai"},
          [](std::string_view, const UrlParts& parts) -> std::optional<std::string> {
            if (!IsRunUrl(parts)) return std::nullopt;
            return "wandb:" + std::string(parts.path[0]) + "/" + std::string(parts.path[1]) + "/" +
                   std::string(parts.path[3]);
          },
          IsRunUrl};
}

}  // namespace umwelt::permalinks_internal
