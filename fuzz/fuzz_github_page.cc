// libFuzzer target: GitHub API JSON pages, with and without API-path context.
#include <cstdint>
#include <string>

#include "harness.h"
#include "umwelt/github.h"

UMWELT_FUZZ_JSON_MUTATOR()

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  umwelt::github::Records records;
  (void)umwelt::github::ParsePage(text, "", "fuzz", &records);
  umwelt::github::Records with_context;
  (void)umwelt::github::ParsePage(text, "/repos/o/r/issues/7/timeline", "fuzz", &with_context);
  auto values = umwelt::github::SplitJsonValues(text, "fuzz");
  if (values.ok()) {
    for (auto v : *values) {
      umwelt::github::Records r;
      (void)umwelt::github::ParsePage(v, "/repos/o/r/issues/7/sub_issues", "fuzz", &r);
    }
  }
  return 0;
}
