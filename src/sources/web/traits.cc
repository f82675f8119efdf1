// Fetched pages to the rest of umwelt (umwelt/source_traits.h): a page or
// paper per thread ("web:<url>"), in sections, from any host.
#include "../registry/traits_internal.h"

namespace umwelt::traits_internal {

SourceTraits Web() {
  return {.name = "web", .label = "web", .ref_prefix = "web:", .kinds = {{"page", Role::kPage}}, .any_host = true};
}

}  // namespace umwelt::traits_internal
