// Internal to publish/: TeX to MathML with KaTeX (Debian's `katex`, run in
// Node.js). One process renders every expression of a page.
#pragma once

#include <string>
#include <vector>

#include "document.h"
#include "umwelt/status.h"

namespace umwelt::publish_internal {

// MathML for each expression, in order. Fails when Node.js or KaTeX is
// missing, naming what is missing; an expression KaTeX rejects renders as
// its source in an error span.
Result<std::vector<std::string>> RenderMath(const std::vector<Math>& math, const std::string& node);

}  // namespace umwelt::publish_internal
