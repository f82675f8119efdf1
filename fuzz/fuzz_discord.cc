// libFuzzer target: hostile Discord exports and API dumps through the
// streaming import into a scratch corpus. Errors are fine; crashes, leaks
// and hangs are not.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include "umwelt/discord.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string dir = [] {
    char tmpl[] = "/tmp/umwelt-fuzz-discord-XXXXXX";
    return std::string(mkdtemp(tmpl));
  }();
  static auto corpus = std::move(umwelt::Corpus::Open(dir + "/c.db", umwelt::Corpus::Mode::kReadWrite)).value();
  std::string path = dir + "/in.json";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  umwelt::discord::ImportOptions o;
  o.repo = "o/r";
  o.batch = 16;
  umwelt::discord::ImportReport r;
  (void)umwelt::discord::ImportFiles(*corpus, {path}, o, &r);
  return 0;
}
