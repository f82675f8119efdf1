// libFuzzer target: HTTP Link headers, and the text helpers that read
// source text (mentions, identifiers, dates, UTF-8).
#include <cstdint>
#include <string>

#include "umwelt/http.h"
#include "umwelt/search.h"
#include "umwelt/text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  (void)umwelt::ParseLinkHeader(text);
  (void)umwelt::FindLinkRel(text, "next");
  (void)umwelt::FindThreadMentions(text);
  (void)umwelt::IdentifierSymbols(text);
  (void)umwelt::Tokenize(text);
  (void)umwelt::ParseIsoTime(text);
  std::string clean = umwelt::SanitizeUtf8(text);
  if (!umwelt::IsValidUtf8(clean)) __builtin_trap();
  return 0;
}
