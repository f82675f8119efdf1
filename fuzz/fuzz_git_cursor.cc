// libFuzzer target: a git source's stored cursor. Whatever a corpus holds,
// reading it must not fail the sync, and what the sync writes back must read
// back the same.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "harness.h"
#include "umwelt/git.h"

UMWELT_FUZZ_JSON_MUTATOR()

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  umwelt::git::Cursor c;
  if (!umwelt::git::ParseCursor(text, &c)) return 0;
  umwelt::git::Cursor again;
  if (!umwelt::git::ParseCursor(umwelt::git::FormatCursor(c), &again)) std::abort();
  if (umwelt::git::FormatCursor(again) != umwelt::git::FormatCursor(c)) std::abort();
  return 0;
}
