// libFuzzer target: hostile Discord exports and API dumps through the
// streaming import into a scratch corpus. Errors are fine; crashes, leaks
// and hangs are not.
#include <cstdint>
#include <fstream>
#include <string>

#include "harness.h"
#include "umwelt/discord.h"

UMWELT_FUZZ_JSON_MUTATOR()

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static umwelt::fuzz::ScratchCorpus scratch("discord-import");
  umwelt::Corpus& corpus = scratch.Get();
  std::string path = umwelt::fuzz::ScratchDir() + "/in.json";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  umwelt::discord::ImportOptions o;
  o.repo = "o/r";
  o.batch = 16;
  umwelt::discord::ImportReport r;
  (void)umwelt::discord::ImportFiles(corpus, {path}, o, &r);
  return 0;
}
