// libFuzzer target: report Markdown through the publisher and the citation
// check (no corpus, no math process), and the page must never carry a script
// tag from the input.
#include <cstdint>
#include <string>

#include "umwelt/publish.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string md(reinterpret_cast<const char*>(data), size);
  umwelt::PublishOptions o;
  o.math = false;
  o.generated_at = 1;
  auto r = umwelt::Publish(md, o, nullptr);
  if (r.ok()) {
    size_t body = r->html.find("<article");
    size_t end = r->html.find("</article>");
    if (body != std::string::npos && end != std::string::npos &&
        r->html.substr(body, end - body).find("<script") != std::string::npos) {
      __builtin_trap();  // raw HTML from the input reached the page
    }
  }
  (void)umwelt::CheckCitations(md, nullptr);
  return 0;
}
