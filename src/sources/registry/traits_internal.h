// Internal to the source traits: each source's own, defined in its
// directory (sources/<name>/traits.cc).
#pragma once

#include "umwelt/source_traits.h"

namespace umwelt::traits_internal {

SourceTraits Github();
SourceTraits Discord();
SourceTraits Git();
SourceTraits Code();
SourceTraits Wandb();
SourceTraits Web();

}  // namespace umwelt::traits_internal
