// libFuzzer target: report Markdown through the publisher and the citation
// check (no corpus, no math process), and the page must never carry a script
// tag from the input; and the same text as a source record the web UI
// renders (every reference linked), which must carry no script, no event
// handler and no javascript: url.
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
  std::string record = umwelt::RenderSourceMarkdown(md, [](umwelt::RefKind, const std::string& value) {
    return "/thread?ref=" + value;  // the linker's output is escaped like any url
  });
  for (const char* live : {"<script", "<iframe", "<style", "<object", "href=\"javascript:", "href=\"vbscript:"}) {
    if (record.find(live) != std::string::npos) __builtin_trap();  // markup from the input came alive
  }
  // No tag carries an event handler (text is escaped: every '<' is a tag).
  for (size_t lt = record.find('<'); lt != std::string::npos; lt = record.find('<', lt + 1)) {
    size_t gt = record.find('>', lt);
    std::string tag = record.substr(lt, gt == std::string::npos ? std::string::npos : gt - lt);
    bool quoted = false;
    for (size_t i = 0; i + 3 < tag.size(); ++i) {
      if (tag[i] == '"') quoted = !quoted;
      if (quoted || tag[i] != ' ' || tag.compare(i + 1, 2, "on") != 0) continue;
      size_t eq = tag.find_first_not_of("abcdefghijklmnopqrstuvwxyz", i + 3);
      if (eq != std::string::npos && eq > i + 3 && tag[eq] == '=') __builtin_trap();  // an event handler
    }
  }
  (void)umwelt::MarkdownPlainText(md);
  return 0;
}
