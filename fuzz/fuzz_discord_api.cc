// libFuzzer target: the Discord API as `sync discord` meets it. The input is
// the server's side of a whole sync, one response per piece (0x1e between):
// the channel list, active threads, archived threads of each channel, then
// pages of messages; requests past the last piece get an empty list. The
// sync runs against a scratch corpus, twice, so the second run reads the
// cursor and stored messages the first one left.
#include <cstdint>
#include <string>

#include "harness.h"
#include "umwelt/discord.h"

UMWELT_FUZZ_JSON_MUTATOR()

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A fresh corpus every 32 inputs: the guild is the same for every input, so
  // one kept longer gathers every channel the inputs ever named into its
  // cursor, and each sync slows with what earlier inputs left.
  static umwelt::fuzz::ScratchCorpus scratch("discord-api", 32);
  umwelt::Corpus& corpus = scratch.Get();
  umwelt::discord::SyncOptions o;
  o.guild = "1212332642801025064";
  o.token = "fuzz-token";
  o.repo = "o/r";
  o.max_retries = 1;
  o.now = 1733000000;
  o.sleep = [](double) {};
  for (int run = 0; run < 2; ++run) {
    umwelt::fuzz::ScriptedHttp http(umwelt::fuzz::Pieces(data, size));
    umwelt::discord::SyncReport r;
    (void)umwelt::discord::Sync(corpus, http, o, &r);
  }
  return 0;
}
