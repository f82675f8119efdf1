#include "umwelt/text.h"

#include <gtest/gtest.h>

namespace umwelt {
namespace {

TEST(Utf8, ValidatesAndSanitizes) {
  EXPECT_TRUE(IsValidUtf8("plain ascii"));
  EXPECT_TRUE(IsValidUtf8("gr\xC3\xBC\xC3\x9F"));
  EXPECT_FALSE(IsValidUtf8("bad \xC3"));
  EXPECT_FALSE(IsValidUtf8("\xED\xA0\x80"));  // a surrogate
  EXPECT_FALSE(IsValidUtf8("\xC0\xAF"));      // overlong
  EXPECT_EQ(SanitizeUtf8("a\xFF" "b"), "a\xEF\xBF\xBD" "b");
  EXPECT_TRUE(IsValidUtf8(SanitizeUtf8("\xF4\x90\x80\x80 x \xE2\x82")));
}

TEST(Utf8, TruncatesOnBoundaries) {
  std::string s = "ab\xE2\x82\xAC";  // "ab€"
  EXPECT_EQ(TruncateUtf8(s, 3), "ab");
  EXPECT_EQ(TruncateUtf8(s, 5), s);
}

TEST(Utf8, TruncatesAtAWordWithAnEllipsis) {
  EXPECT_EQ(TruncateAtWord("short enough", 20), "short enough");
  EXPECT_EQ(TruncateAtWord("the watchdog counts from the previous request", 30), "the watchdog counts from…");
  EXPECT_EQ(TruncateAtWord("the watchdog counts from the previous request", 31), "the watchdog counts from the…");
  EXPECT_EQ(TruncateAtWord("a list, of things", 12), "a list…") << "a dangling comma goes";
  EXPECT_EQ(TruncateAtWord("one-very-long-word-without-spaces", 10), "one-very-long-word-without-spaces");
  std::string multibyte = "gr\xC3\xBC\xC3\x9F gr\xC3\xBC\xC3\x9F gr\xC3\xBC\xC3\x9F";  // "grüß grüß grüß"
  EXPECT_EQ(TruncateAtWord(multibyte, 14), "gr\xC3\xBC\xC3\x9F…");
  EXPECT_EQ(TruncateAtWord(multibyte, 16), "gr\xC3\xBC\xC3\x9F gr\xC3\xBC\xC3\x9F…");
  EXPECT_TRUE(IsValidUtf8(TruncateAtWord(multibyte, 9)));
}

TEST(IsoTime, ParsesTheFormsSourcesUse) {
  EXPECT_EQ(ParseIsoTime("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(ParseIsoTime("2024-05-01"), 1714521600);
  EXPECT_EQ(ParseIsoTime("2024-05-01T02:00:00+02:00"), 1714521600);
  EXPECT_EQ(ParseIsoTime("2024-05-01T00:00:00.123456Z"), 1714521600);
  EXPECT_FALSE(ParseIsoTime("2024-13-01").has_value());
  EXPECT_FALSE(ParseIsoTime("yesterday").has_value());
  EXPECT_FALSE(ParseIsoTime("2024-05-01T00:00:00Zjunk").has_value());
  EXPECT_EQ(FormatIsoTime(1714521600), "2024-05-01T00:00:00Z");
  EXPECT_EQ(NormalizeIsoTime("2021-07-03T10:00:00-05:00"), "2021-07-03T15:00:00Z");
}

TEST(Identifiers, SplitsCamelSnakeAndDigits) {
  EXPECT_EQ(SplitIdentifier("parseHTTPResponse2"),
            (std::vector<std::string>{"parse", "http", "response", "2"}));
  EXPECT_EQ(SplitIdentifier("flop_utils"), (std::vector<std::string>{"flop", "utils"}));
  EXPECT_EQ(SplitIdentifier("word"), (std::vector<std::string>{"word"}));
  std::string syms = IdentifierSymbols("we call computeMfu in flop_utils.py, not plain words");
  EXPECT_NE(syms.find("compute"), std::string::npos);
  EXPECT_NE(syms.find("mfu"), std::string::npos);
  EXPECT_NE(syms.find("flop"), std::string::npos);
  EXPECT_EQ(syms.find("plain"), std::string::npos);
}

TEST(Mentions, FindsNumbersReposAndUrls) {
  auto m = FindThreadMentions(
      "See #12, octo/cat#7 and https://github.com/a-b/c.d/pull/99#discussion_r1; not abc#5 or &#39;");
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].repo, "");
  EXPECT_EQ(m[0].number, 12);
  EXPECT_EQ(m[1].repo, "octo/cat");
  EXPECT_EQ(m[1].number, 7);
  EXPECT_EQ(m[2].repo, "a-b/c.d");
  EXPECT_EQ(m[2].number, 99);
  EXPECT_TRUE(FindThreadMentions("#123abc is a colour").empty());
}

}  // namespace
}  // namespace umwelt

namespace umwelt {
namespace {

// Issue 13, item 10: no escape sequence from corpus text reaches a terminal.
TEST(TerminalSafe, EscapesControlsKeepsText) {
  std::string osc52 = "copy \x1b]52;c;ZXZpbA==\x07 done";
  EXPECT_EQ(TerminalSafe(osc52), "copy \\x1b]52;c;ZXZpbA==\\x07 done");
  EXPECT_EQ(TerminalSafe("up\x1b[2Aclear\x1b[2J"), "up\\x1b[2Aclear\\x1b[2J");
  EXPECT_EQ(TerminalSafe(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(TerminalSafe("line\nnext\tcol\r"), "line\nnext\tcol\\x0d");
  EXPECT_EQ(TerminalSafe("del\x7f"), "del\\x7f");
  EXPECT_EQ(TerminalSafe("c1 \xc2\x9b" "31m"), "c1 \\u009b31m");  // the 8-bit CSI
  EXPECT_EQ(TerminalSafe("naïve — ünïcode ✓"), "naïve — ünïcode ✓");
  EXPECT_EQ(TerminalSafe("bad \x9b byte"), "bad \xEF\xBF\xBD byte");
}

}  // namespace
}  // namespace umwelt
