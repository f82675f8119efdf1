// Internal to the permalink schemes: each source's own, defined in its
// directory (sources/<name>/permalinks.cc).
#pragma once

#include "umwelt/permalinks.h"

namespace umwelt::permalinks_internal {

PermalinkScheme Github();
PermalinkScheme Discord();
PermalinkScheme Wandb();

}  // namespace umwelt::permalinks_internal
