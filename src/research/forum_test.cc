// ask over a Discord forum: a thread is a question and its replies.
#include <gtest/gtest.h>

#include <set>

#include "corpus_fixtures.h"
#include "test_util.h"
#include "umwelt/corpus.h"
#include "umwelt/research.h"
#include "umwelt/text.h"

namespace umwelt {
namespace {

class ForumAskTest : public ::testing::Test {
 protected:
  // A message of `thread` (a forum thread when one of its messages has the
  // thread's own id, a channel otherwise) on guild 7.
  void Put(const std::string& thread, const std::string& id, const std::string& author, const std::string& title,
           const std::string& day, const std::string& text) {
    auto c = Corpus::Open(path_, Corpus::Mode::kReadWrite);
    ASSERT_TRUE(c.ok());
    auto b = (*c)->BeginWrite();
    ASSERT_TRUE(
        (*b)->PutRecord({testing::DiscordMessage("7", thread, id, author, title, "2026-11-" + day + "T10:00:00Z", text)})
            .ok());
    ASSERT_TRUE((*b)->Commit().ok());
  }
  AskOptions Options(const std::string& q) {
    AskOptions o;
    o.corpus_path = path_;
    o.question = q;
    o.now = *ParseIsoTime("2026-11-25T00:00:00Z");
    return o;
  }
  testing::TempDir dir_;
  std::string path_ = dir_.File("c.db");
};

// The search finds two replies of a thread whose opening post says the
// question in other words; the thread is read with its opening post, so the
// answer is the reply that answers it, linked to the question. A channel's
// other messages are not read with one of them.
TEST_F(ForumAskTest, AMessageOfAForumThreadIsReadWithTheQuestionThatOpenedIt) {
  const std::string title = "Serving pages securely";
  Put("900", "900", "dana", title, "03", "Can the pages be served securely rather than in the clear?");
  Put("900", "901", "omar", title, "04",
      "Put a reverse proxy in front of Quokkahub that terminates TLS, so every page is served over HTTPS.");
  Put("900", "902", "kim", title, "05", "Quokkahub answers over HTTPS for us as well.");
  Put("55", "501", "lee", "general", "06", "Our Quokkahub answers over HTTPS behind the office firewall.");
  Put("55", "502", "lee", "general", "06", "Lunch is at noon on Friday in the big room.");
  AskOptions o = Options("How do I make Quokkahub answer over HTTPS?");
  o.max_evidence = 2;  // the two replies, which name the question's words: not the opening post
  auto r = Ask(o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const std::string& md = r->markdown;
  std::string answer = md.substr(std::min(md.find("## Short answer"), md.size()));
  answer = answer.substr(0, answer.find("\n## ", 3));
  EXPECT_NE(answer.find("- Put a reverse proxy in front of Quokkahub that terminates TLS"), std::string::npos) << md;
  EXPECT_NE(answer.find("answering [dana's question](https://discord.com/channels/7/900/900)"), std::string::npos) << md;
  std::set<std::string> read;
  for (const auto& e : r->evidence) read.insert(e.url);
  EXPECT_TRUE(read.count("https://discord.com/channels/7/900/900")) << "the opening post";
  EXPECT_FALSE(read.count("https://discord.com/channels/7/55/502")) << "a channel's other message";
}

}  // namespace
}  // namespace umwelt
