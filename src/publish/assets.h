// Internal to publish/: the page's inline stylesheet and script.
#pragma once

namespace umwelt::publish_internal {
extern const char* const kPageCss;
extern const char* const kPageJs;
}  // namespace umwelt::publish_internal
