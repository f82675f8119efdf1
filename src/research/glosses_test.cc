// How a question names its subject, continued from subject_test.cc: a
// likeness in brackets glosses the thing before it, a hyphened word is one
// word, a change adapting to a thing says so in any form of its verb, a
// project's name is its own where its permalinks write it with a version,
// a plural that ends a question is no verb, a hyphened name is one in any
// spelling, the last of a few words after a name is the thing, and a
// protocol's version is part of its name.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "history_reports.h"
#include "umwelt/claims.h"

namespace umwelt {
namespace {

using testing::Abstains;
using testing::AnswerLines;
using testing::ManyCommits;
using testing::ReportOn;
using testing::Says;

// "a drop-down (Quake-style) mode": the bracket says what the mode is like,
// which no record need name, and "drop-down" drops nothing (the question
// asked when a mode was removed, and abstained on "quake").
TEST(SubjectGlossTest, ALikenessInBracketsIsNoKeyAndAHyphenedWordIsOne) {
  EXPECT_TRUE(research::KeyConstraints("When did we get a drop-down (Quake-style) mode?").empty());
  EXPECT_EQ(research::KeyConstraints("When did we get a drop-down (Quake) mode?"),
            std::vector<std::string>{"quake"});
  const std::string others = ManyCommits(
      12, "2013-03", [](int i) { return "Fix a warning in the tab code, part " + std::to_string(i); });
  testing::TempDir dir;
  std::string md = ReportOn(dir,
                            "c 2012-12-28T10:00:00Z 'Add a drop-down mode with its own window'"
                            " && c 2016-06-25T10:00:00Z 'Fix resizing in drop-down mode'" +
                                others,
                            "When did we get a drop-down (Quake-style) mode?");
  EXPECT_FALSE(Abstains(md)) << md;
  EXPECT_TRUE(Says(AnswerLines(md), "Add a drop-down mode with its own window")) << md;
}

// "updated to autoconf to GTK+3", "moving ... to": the verbs of adapting to
// a thing in any form (only "update", "port", "move" were read).
TEST(SubjectGlossTest, AChangeAdaptingToAThingSaysSoInAnyForm) {
  const std::string others = ManyCommits(
      12, "2019-11", [](int i) { return "Fix a warning in the burn code, part " + std::to_string(i); });
  testing::TempDir dir;
  std::string md = ReportOn(dir,
                            "c 2017-11-12T10:00:00Z 'Prepare the code for the gtk3 migration'"
                            " && c 2019-09-04T10:00:00Z 'updated to autoconf to GTK+3'" +
                                others,
                            "When did we port to GTK 3?");
  EXPECT_TRUE(Says(AnswerLines(md), "updated to autoconf to GTK+3")) << md;
}

// "Xfce Terminal" of xfce4-terminal: a project's name of several words is
// its own where its permalinks hyphen it with a word's version, and no
// record need say it beside the thing asked of.
TEST(SubjectGlossTest, AProjectsNameIsItsOwnWhereItsPermalinksWriteItWithAVersion) {
  const std::string others = ManyCommits(
      12, "2016-03", [](int i) { return "Fix a warning in the tab code, part " + std::to_string(i); });
  testing::TempDir dir;
  std::string md = ReportOn(dir, "c 2015-03-31T10:00:00Z 'initial Gtk3 port'" + others,
                            "When did Xfce Terminal move to GTK 3?", "xfce4-terminal");
  EXPECT_TRUE(Says(AnswerLines(md), "initial Gtk3 port")) << md;
  // Not a name the permalinks do not hold so.
  testing::TempDir dir2;
  std::string other = ReportOn(dir2, "c 2015-03-31T10:00:00Z 'initial Gtk3 port'" + others,
                               "When did Xfce Panel move to GTK 3?", "xfce4-terminal");
  EXPECT_TRUE(Abstains(other)) << other;
}

// A question's last word is as often its verb ("When did the sandbox
// appear?"), which records need not say; not a plural after another word of
// the subject where "did" asks it: "panes", which no record says, is the
// thing asked of, and "split" alone (option parsing) does not answer it.
TEST(SubjectGlossTest, APluralAfterTheSubjectIsNoVerb) {
  const std::string others = ManyCommits(
      12, "2013-03", [](int i) { return "Fix a warning in the tab code, part " + std::to_string(i); });
  testing::TempDir dir;
  std::string md = ReportOn(dir, "c 2009-12-08T10:00:00Z 'Split option parsing in 2 stages'" + others,
                            "When did we add split panes?");
  EXPECT_TRUE(Abstains(md)) << md;
  testing::TempDir dir2;
  std::string said = ReportOn(dir2, "c 2009-12-08T10:00:00Z 'Add split panes to the window'" + others,
                              "When did we add split panes?");
  EXPECT_TRUE(Says(AnswerLines(said), "Add split panes to the window")) << said;
}

// "When did cinnamon-desktop remove gnome-about?": a hyphened name is the
// thing that went, said in any of its spellings (its stem was "gnome-about",
// which no record's match form holds, and the report abstained).
TEST(SubjectGlossTest, AHyphenedNameIsTheThingThatWent) {
  const std::string others = ManyCommits(
      12, "2011-03", [](int i) { return "Fix a warning in the background code, part " + std::to_string(i); });
  testing::TempDir dir;
  std::string md = ReportOn(dir,
                            "c 2010-03-08T10:00:00Z '[gnome-about] Add main category to desktop file'"
                            " && c 2010-08-07T10:00:00Z '[gnome-about] Update man page'"
                            " && c 2010-11-26T10:00:00Z 'Remove gnome-about'" +
                                others,
                            "When did cinnamon-desktop remove gnome-about?", "cinnamon-desktop");
  EXPECT_TRUE(Says(AnswerLines(md), "Remove gnome-about")) << md;
}

// "Wikipedia article previews": the last of the few words after a name that
// end a question asking when a thing came is the thing; where no record
// says it, records naming Wikipedia (a web dictionary added to a list) do
// not answer.
TEST(SubjectGlossTest, TheLastOfTheWordsAfterANameIsTheThing) {
  const std::string others = ManyCommits(
      12, "2009-03", [](int i) { return "Fix a warning in the search code, part " + std::to_string(i); });
  const std::string question = "When did we add Wikipedia article previews?";
  testing::TempDir dir;
  std::string md =
      ReportOn(dir, "c 2008-09-26T10:00:00Z 'Add en.wikipedia.org to the list of web dictionaries'" + others,
               question);
  EXPECT_TRUE(Abstains(md)) << md;
  testing::TempDir dir2;
  std::string said = ReportOn(dir2,
                              "c 2008-09-26T10:00:00Z 'Add en.wikipedia.org to the list of web dictionaries'"
                              " && c 2010-02-01T10:00:00Z 'Show previews of Wikipedia articles'" +
                                  others,
                              question);
  EXPECT_TRUE(Says(AnswerLines(said), "Show previews of Wikipedia articles")) << said;
}

// "When did wget add HTTP/2 support?": the version after a protocol's slash
// is its name's, so records on HTTP (digest authentication, HTTP/1.1) do
// not answer; one that says HTTP/2, or http2, does.
TEST(SubjectGlossTest, AProtocolsVersionIsPartOfItsName) {
  EXPECT_EQ(research::KeyConstraints("When did wget add HTTP/2 support?"),
            std::vector<std::string>{"http/2|http2"});
  EXPECT_EQ(research::KeyConstraints("Does it speak HTTP/1.1?"),
            std::vector<std::string>{"http/1.1|http1.1"});
  const std::string others = ManyCommits(
      12, "2012-03", [](int i) { return "Fix a leak in the cookie code, part " + std::to_string(i); });
  const std::string question = "When did wget add HTTP/2 support?";
  testing::TempDir dir;
  std::string md = ReportOn(dir,
                            "c 1998-02-13T10:00:00Z 'Add HTTP digest authentication support'"
                            " && c 2010-05-01T10:00:00Z 'Mention support for HTTP/1.1'" +
                                others,
                            question, "wget");
  EXPECT_TRUE(Abstains(md)) << md;
  testing::TempDir dir2;
  std::string said = ReportOn(dir2,
                              "c 1998-02-13T10:00:00Z 'Add HTTP digest authentication support'"
                              " && c 2019-06-01T10:00:00Z 'Add http2 support through nghttp2'" +
                                  others,
                              question, "wget");
  EXPECT_TRUE(Says(AnswerLines(said), "Add http2 support through nghttp2")) << said;
}

}  // namespace
}  // namespace umwelt
