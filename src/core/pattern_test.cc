// The matcher (umwelt/pattern.h), and every parser of outside text run on
// long, pathological inputs on a thread with a small stack: nothing may
// recurse once per input character.
#include <gtest/gtest.h>
#include <pthread.h>

#include <functional>
#include <string>
#include <vector>

#include "server/http_server.h"
#include "umwelt/claims.h"
#include "umwelt/git.h"
#include "umwelt/pattern.h"
#include "umwelt/redact.h"
#include "umwelt/server.h"
#include "umwelt/text.h"
#include "umwelt/web.h"

namespace umwelt {
namespace {

TEST(Pattern, ReadsAsTheOldMatcherDid) {
  static const Pattern date(R"((\d{4})-(\d\d)-(\d\d))");
  Groups g;
  ASSERT_TRUE(date.Search("on 2024-05-01 at noon", &g));
  EXPECT_EQ(g[0], "2024-05-01");
  EXPECT_EQ(g[1], "2024");
  EXPECT_FALSE(date.Matches("on 2024-05-01"));
  EXPECT_TRUE(date.Matches("2024-05-01"));
  // A group that took no part is null; ignoring case; bytes, not UTF-8.
  static const Pattern opt(R"(a(b)?c)", Pattern::kIgnoreCase);
  ASSERT_TRUE(opt.Matches("AC", &g));
  EXPECT_EQ(g[1].data(), nullptr);
  static const Pattern bytes(R"(x.y)");
  EXPECT_TRUE(bytes.Matches("x\xffy"));
  static const Pattern dash("a—b");
  EXPECT_TRUE(dash.Search("xa—by"));
  // ^ is the text's start even when searching from further on; \b sees the
  // character before the start.
  static const Pattern start(R"((^|\s)#(\d+))");
  std::vector<std::string> refs;
  start.ForEach("#1 x#2 #3", [&](const Groups& m) { return refs.emplace_back(m[2]), true; });
  EXPECT_EQ(refs, (std::vector<std::string>{"1", "3"}));
  static const Pattern word(R"(\bsk-\w+)");
  EXPECT_EQ(word.ReplaceAll("ask-me sk-abc", "***"), "ask-me ***");
  static const Pattern swap(R"((\w+)=(\w+))");
  EXPECT_EQ(swap.ReplaceAll("a=b c=d", "\\2=\\1"), "b=a d=c");
  // Empty matches move on.
  static const Pattern empty("x*");
  int n = 0;
  empty.ForEach("abc", [&](const Groups&) { return ++n, true; });
  EXPECT_EQ(n, 4);
  std::string error;
  EXPECT_EQ(Pattern::Valid("(unclosed", 0, &error), nullptr);
  EXPECT_FALSE(error.empty());
  EXPECT_TRUE(Pattern::Valid(Pattern::Quote("(a+)*$"), 0, nullptr)->Matches("(a+)*$"));
}

// Runs `f` on a thread with a 256 KiB stack; false if the thread could not
// be made. A function that recursed per character would crash the test.
bool OnSmallStack(const std::function<void()>& f) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 256 << 10);
  pthread_t t;
  auto* fn = new std::function<void()>(f);
  int rc = pthread_create(
      &t, &attr,
      [](void* p) -> void* {
        auto* g = static_cast<std::function<void()>*>(p);
        (*g)();
        delete g;
        return nullptr;
      },
      fn);
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    delete fn;
    return false;
  }
  pthread_join(t, nullptr);
  return true;
}

// Long runs of the characters patterns repeat over, and alternations.
std::vector<std::string> Hostile() {
  std::vector<std::string> out;
  for (std::string unit : {" ", "(", "#", "/", "\\", "a", "%", "x/", "(#1) ", "](", "[a](b", "a|", "\n", "-", "1.", "%0a", "1 x"}) {
    std::string s;
    while (s.size() < (1 << 20)) s += unit;
    out.push_back(s);
  }
  std::string merge = "Merge pull request #12 from ";
  for (int i = 0; i < 60000; ++i) merge += "x/";
  out.push_back(merge + " (#3)\n\n" + std::string(100000, ' ') + "(#1) ");
  return out;
}

TEST(Pattern, EveryParserOfOutsideTextRunsOnASmallStackOverMegabyteInputs) {
  std::vector<std::pair<const char*, std::function<void(const std::string&)>>> parsers = {
      {"RedactSecrets", [](const std::string& s) { (void)RedactSecrets(s); }},
      {"RedactSecrets token", [](const std::string& s) { (void)RedactSecrets("token " + s); }},
      {"StripLocalPaths", [](const std::string& s) { (void)StripLocalPaths(s); }},
      {"TerminalSafe", [](const std::string& s) { (void)TerminalSafe(s); }},
      {"XmlChars", [](const std::string& s) { (void)XmlChars(s); }},
      {"ParseLanding", [](const std::string& s) { (void)git::ParseLanding(s); }},
      {"ParseLanding subject", [](const std::string& s) { (void)git::ParseLanding("Merge pull request #1 from " + s); }},
      {"ParseRemote", [](const std::string& s) { (void)git::ParseRemote("https://h/" + s, ""); }},
      {"MarkdownLinks", [](const std::string& s) { (void)research::MarkdownLinks(s); }},
      {"Numbers", [](const std::string& s) { (void)research::Numbers(s); }},
      {"Sentences", [](const std::string& s) { (void)research::Sentences(s); }},
      {"ContentWords", [](const std::string& s) { (void)research::ContentWords(s); }},
      {"SplitIdentifier", [](const std::string& s) { (void)SplitIdentifier(s); }},
      {"ParseManifest", [](const std::string& s) { (void)ParseManifest(s, "m"); }},
      {"SplitHostPort", [](const std::string& s) { (void)server_internal::SplitHostPort(s, nullptr, nullptr); }},
      {"MatchRoute", [](const std::string& s) {
         std::vector<std::string> caps;
         (void)server_internal::MatchRoute(server_internal::RouteSegments("/summaries/{?}"), "/summaries/" + s, &caps);
       }},
      {"ParseUrl", [](const std::string& s) { (void)web::ParseUrl("https://e.com/" + s); }},
  };
  for (const auto& input : Hostile()) {
    for (const auto& [name, parse] : parsers) {
      bool ran = OnSmallStack([&] { parse(input); });
      ASSERT_TRUE(ran) << name;
    }
  }
}

}  // namespace
}  // namespace umwelt

namespace umwelt {
namespace {

TEST(Text, XmlCharsAndBidiControls) {
  EXPECT_EQ(XmlChars(std::string_view("a\x1b" "b\0c\td\xff", 8)), "a\xEF\xBF\xBD" "b\xEF\xBF\xBD" "c\td\xEF\xBF\xBD");
  EXPECT_EQ(XmlChars("\xEF\xBF\xBE"), "\xEF\xBF\xBD");  // U+FFFE
  EXPECT_EQ(XmlChars("caf\xC3\xA9 \xE2\x80\x94"), "caf\xC3\xA9 \xE2\x80\x94");
  // U+202E RIGHT-TO-LEFT OVERRIDE would show "exe.txt" as "txt.exe".
  EXPECT_EQ(TerminalSafe("a\xE2\x80\xAE" "b\xE2\x81\xA6" "c"), "a\\u202eb\\u2066c");
  EXPECT_EQ(TerminalSafe("\xE2\x80\x94"), "\xE2\x80\x94");  // an em dash is text
}

TEST(Redact, WandbKeysInWandbContexts) {
  const std::string key = "0123456789abcdef0123456789abcdef01234567";
  EXPECT_EQ(RedactSecrets("wandb login failed for " + key).find(key), std::string::npos);
  EXPECT_EQ(RedactSecrets("W&B said no: " + key).find(key), std::string::npos);
  // A commit sha elsewhere is a commit sha.
  EXPECT_NE(RedactSecrets("landed in " + key).find(key), std::string::npos);
  // "token <value>" only when the value looks generated.
  EXPECT_EQ(RedactSecrets("token accounting works"), "token accounting works");
  EXPECT_EQ(RedactSecrets("token abcdef1234567890xyz"), "token ***");
}

}  // namespace
}  // namespace umwelt
