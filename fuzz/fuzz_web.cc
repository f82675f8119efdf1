// libFuzzer target: hostile pages. HTML through gumbo into sections, a PDF
// (when the input is one) through poppler into pages, and the url parser;
// none may crash, leak or hang.
#include <cstdint>
#include <string>

#include "umwelt/web.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  umwelt::web::Document d = umwelt::web::ParseHtml(in);
  for (const auto& s : d.sections) {
    if (s.text.empty()) __builtin_trap();  // empty sections are never kept
  }
  if (in.substr(0, 5) == "%PDF-") (void)umwelt::web::ParsePdf(in);
  (void)umwelt::web::ParseUrl(in.substr(0, 512));
  return 0;
}
