// libFuzzer target: what arrives as it happens — GitHub webhook deliveries
// and Discord gateway frames.
//   event RS body            a delivery: parsed, and applied to a scratch
//                            corpus when it parses, which must stay readable
//   "gateway" RS frame RS... a gateway conversation: each frame through the
//                            protocol (with a tick between frames), each
//                            event it yields applied to the scratch corpus
#include <cstdint>
#include <string>

#include "harness.h"
#include "sources/discord/gateway.h"
#include "umwelt/discord.h"
#include "umwelt/github.h"

UMWELT_FUZZ_JSON_MUTATOR()

namespace {

void Gateway(umwelt::Corpus& corpus, const std::vector<std::string>& frames) {
  umwelt::discord::GatewaySession session("token", "100", umwelt::discord::kFollowIntents, /*seed=*/1);
  int64_t now = 0;
  session.Connected(now);
  for (size_t i = 1; i < frames.size(); ++i) {
    now += 700;
    auto step = session.OnFrame(frames[i], now);
    for (const auto& e : step.events) {
      int64_t changed = 0;
      if (umwelt::discord::ApplyEvent(corpus, e.body, "100", "acme/tinylm", &changed).ok()) session.Handled(e.seq);
      if (!e.channel.empty()) (void)corpus.GetThread(e.channel);
    }
    if (step.close) {
      std::string fatal;
      (void)session.AfterClose(static_cast<int>(i * 7 % 5000), &fatal);
      session.Connected(now);
    }
    (void)session.OnTick(now + 350);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static umwelt::fuzz::ScratchCorpus scratch("webhook");
  auto pieces = umwelt::fuzz::Pieces(data, size);
  std::string event = pieces.size() > 1 ? pieces[0] : "issues";
  if (event == "gateway") {
    Gateway(scratch.Get(), pieces);
    return 0;
  }
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
