// libFuzzer target: GitHub webhook deliveries. The input is the event name,
// the record separator, then the body; a delivery that parses is applied to a
// scratch corpus, and must leave it readable.
#include <cstdint>
#include <string>

#include "harness.h"
#include "umwelt/github.h"

UMWELT_FUZZ_JSON_MUTATOR()

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static umwelt::fuzz::ScratchCorpus scratch("webhook");
  auto pieces = umwelt::fuzz::Pieces(data, size);
  std::string event = pieces.size() > 1 ? pieces[0] : "issues";
  const std::string& body = pieces.back();
  for (const char* e : {event.c_str(), "issue_comment", "release"}) {
    auto change = umwelt::github::ParseWebhook(e, body);
    if (!change.ok()) continue;
    int64_t changed = 0;
    umwelt::Corpus& corpus = scratch.Get();
    if (umwelt::github::ApplyWebhook(corpus, *change, &changed).ok() && !change->thread.empty()) {
      (void)corpus.GetThread(change->thread);
    }
  }
  return 0;
}
