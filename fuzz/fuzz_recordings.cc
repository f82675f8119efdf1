// libFuzzer target: recorded exchanges (PyGithub replay text, octokit fixtures).
#include <cstdint>
#include <string>

#include "umwelt/github.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto replay = umwelt::github::ParsePyGithubReplay(text, "fuzz");
  if (replay.ok()) {
    for (const auto& ex : *replay) {
      umwelt::github::Records r;
      (void)umwelt::github::ParsePage(ex.body, ex.path, "fuzz", &r);
    }
  }
  (void)umwelt::github::ParseOctokitFixture(text, "fuzz");
  return 0;
}
