// A question without key constraints is about the words of its subject
// (extractive.cc, FindSubject): a record names it when it says half of them,
// in any of their forms.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "history_reports.h"
#include "umwelt/claims.h"
#include "umwelt/text.h"

namespace umwelt {
namespace {

using testing::Abstains;
using testing::AnswerLines;
using testing::ManyCommits;
using testing::ReportOn;
using testing::Says;

// The stemmer ends "library" and "query" in an i (librari, queri), which
// neither word holds: a record that says them in the singular still names
// them. Here it is the answer, and the only record that says two of them.
TEST(SubjectTest, AWordWhoseStemEndsInIIsNamedInTheSingular) {
  testing::TempDir dir;
  std::string md = ReportOn(dir,
                            "c 2024-01-01T00:00:00Z 'Pin a query from its library' && "
                            "c 2024-01-02T00:00:00Z 'Users can save dashboards' && "
                            "c 2024-01-03T00:00:00Z 'Fix the sign-in page on narrow screens' && "
                            "c 2024-01-04T00:00:00Z 'Speed up the export of large tables'",
                            "When could users pin a saved query to a dashboard library?");
  std::vector<std::string> answer = AnswerLines(md);
  EXPECT_TRUE(Says(answer, "Pin a query from its library")) << md;
  EXPECT_FALSE(Says(answer, "sign-in page")) << md;
}

// A subject's words are not all alike: most records here say "keyboard
// shortcuts", two say "rupee". Those two lead the answer, however often the
// others turn up among the facets the records' titles make.
TEST(SubjectTest, TheSubjectsRareWordLeadsTheAnswer) {
  testing::TempDir dir;
  std::string commits =
      "c 2024-01-01T00:00:00Z 'Keyboard shortcuts for the rupee sign' && "
      "c 2024-01-02T00:00:00Z 'Revert the keyboard shortcuts for the rupee sign: they clash with the dead keys'";
  int day = 3;
  for (const char* what : {"accented vowels", "the euro sign", "Greek letters", "arrows", "fractions", "dashes",
                           "quotation marks", "the section sign", "superscripts", "currency symbols"}) {
    std::string date = std::string(day < 10 ? "2024-01-0" : "2024-01-") + std::to_string(day);
    ++day;
    commits += " && c " + date + "T00:00:00Z 'Keyboard shortcuts for " + what + ", and their sequences sorted'";
  }
  std::string md = ReportOn(dir, commits, "What happened to the keyboard shortcuts for the rupee sign?");
  std::vector<std::string> answer = AnswerLines(md);
  ASSERT_GE(answer.size(), 2u) << md;
  for (size_t i = 0; i < 2; ++i) EXPECT_NE(answer[i].find("rupee"), std::string::npos) << answer[i] << "\n" << md;
  EXPECT_FALSE(Says({answer[0], answer[1]}, "euro")) << md;
}

// "When did X begin?" asks for the earliest record on X. Here seventy later
// commits say "sandbox" more often and more briefly than the first one,
// whose long message says it once: ranked by relevance it is not among the
// records read at all.
TEST(SubjectTest, WhenItBeganIsAnsweredByTheEarliestRecord) {
  testing::TempDir dir;
  std::string body;
  for (int i = 0; i < 40; ++i) body += "The loader reads the manifest, checks its version and lists the entry points. ";
  std::string commits = "c 2021-03-01T10:00:00Z 'Add a sandbox for plugins\n\n" + body + "'";
  commits += ManyCommits(70, "2023-01", [](int i) {
    return "Sandbox: sandbox profile " + std::to_string(i) + " for the sandbox runner";
  });
  std::string md = ReportOn(dir, commits, "When did the sandbox first appear?");
  std::vector<std::string> answer = AnswerLines(md);
  ASSERT_FALSE(answer.empty()) << md;
  EXPECT_NE(answer[0].find("Add a sandbox for plugins"), std::string::npos) << answer[0] << "\n" << md;
  EXPECT_NE(answer[0].find("2021-03-01"), std::string::npos) << answer[0];
}

// "When did X get Y?" asks for the record that added Y: the earliest whose
// title names all of Y's names and which says half of what the question
// says Y is. Not the many later records on it, nor an earlier one that
// names it in passing ("ARM" alone; "NEON" in a body) or names it for
// something else (a build fix, not thread safety).
TEST(SubjectTest, WhenAThingCameIsAnsweredByTheRecordThatAddedIt) {
  testing::TempDir dir;
  std::string commits =
      "c 2008-01-05T10:00:00Z 'ARM: detect the CPU at run time\n\nLater NEON code will want this.' && "
      "c 2008-02-01T10:00:00Z 'Windows: fix the build with MinGW' && "
      "c 2009-04-21T10:00:00Z 'Add support for ARM NEON fast paths' && "
      "c 2010-06-01T10:00:00Z 'Windows: make reference counts atomic for thread safety'";
  commits += ManyCommits(60, "2011-01", [](int i) {
    return "ARM: NEON optimizations for blit " + std::to_string(i) + ", ARM NEON optimizations";
  });
  commits += ManyCommits(30, "2012-02", [](int i) {
    return "Windows: thread safety of the cache on Windows, part " + std::to_string(i);
  });
  std::string neon = ReportOn(dir, commits, "When did we get ARM NEON optimizations?");
  std::vector<std::string> answer = AnswerLines(neon);
  ASSERT_FALSE(answer.empty()) << neon;
  EXPECT_NE(answer[0].find("Add support for ARM NEON fast paths"), std::string::npos) << answer[0] << "\n" << neon;

  testing::TempDir dir2;
  std::string threads = ReportOn(dir2, commits, "When did we get thread safety on Windows?");
  answer = AnswerLines(threads);
  ASSERT_FALSE(answer.empty()) << threads;
  EXPECT_NE(answer[0].find("make reference counts atomic"), std::string::npos) << answer[0] << "\n" << threads;
}

// A question without names abstains when the corpus never says a word of
// its subject, though records say the others; a word in the other spelling
// (colour, color) is said, and a longer subject may paraphrase some words.
TEST(SubjectTest, ASubjectWordTheCorpusNeverSaysIsNotAnswered) {
  testing::TempDir dir;
  std::string commits =
      "c 2020-01-01T10:00:00Z 'Move the user config to the XDG directory' && "
      "c 2020-02-01T10:00:00Z 'The binary interface stays stable across releases' && "
      "c 2020-03-01T10:00:00Z 'Add color management for printed pages' && "
      "c 2020-04-01T10:00:00Z 'Cache the parsed fonts on disk between runs'";
  std::string gui = ReportOn(dir, commits, "When did we add a graphical user interface?");
  EXPECT_NE(gui.find("No record mentions `graphical`"), std::string::npos) << gui;

  testing::TempDir dir2;
  std::string colour = ReportOn(dir2, commits, "When did we add colour management?");
  EXPECT_FALSE(Abstains(colour)) << colour;
  EXPECT_NE(colour.find("Add color management for printed pages"), std::string::npos) << colour;

  testing::TempDir dir3;
  std::string paraphrase = ReportOn(dir3, commits, "When did parsed fonts start being kept on disk across runs?");
  EXPECT_FALSE(Abstains(paraphrase)) << paraphrase;

  // The last word is as often the question's verb, which records need not
  // say; after a preposition it is a thing the question asks about.
  testing::TempDir dir4;
  std::string verb = ReportOn(dir4, commits, "When did colour management appear?");
  EXPECT_FALSE(Abstains(verb)) << verb;
  testing::TempDir dir5;
  std::string gpu = ReportOn(dir5, commits, "How are fonts cached on the GPU?");
  EXPECT_NE(gpu.find("No record mentions `gpu`"), std::string::npos) << gpu;

  // Nor where the question's own verb ends it: the subject's last word is
  // the thing, unless a word for a kind of thing ("mechanism").
  testing::TempDir dir6;
  std::string fuzzer = ReportOn(dir6, commits, "When was a font fuzzer added?");
  EXPECT_NE(fuzzer.find("No record mentions `fuzzer`"), std::string::npos) << fuzzer;
  testing::TempDir dir7;
  std::string cache = ReportOn(dir7, commits, "When was the font cache mechanism added?");
  EXPECT_FALSE(Abstains(cache)) << cache;
  // "Support for" frames a subject and is no word of it: this one is three
  // words, and one of them is never said.
  testing::TempDir dir8;
  std::string sixel = ReportOn(dir8, commits, "When did we add support for the sixel font cache?");
  EXPECT_NE(sixel.find("No record mentions `sixel`"), std::string::npos) << sixel;
}

// Of a question naming several things, one that some record says, but not
// beside the subject, is context ("Unix" of "abstract Unix sockets on
// Linux"); one no record says is the subject, and the report abstains.
TEST(SubjectTest, ANameSaidOnlyElsewhereIsContext) {
  testing::TempDir dir;
  std::string commits =
      "c 2008-09-09T10:00:00Z 'Add support for the abstract socket namespace under Linux' && "
      "c 2009-01-01T10:00:00Z 'Unix: read the display name from the environment' && "
      "c 2010-01-01T10:00:00Z 'Unix: close the connection on exec'";
  std::string unix_sockets = ReportOn(dir, commits, "When did we support abstract Unix sockets on Linux?");
  EXPECT_FALSE(Abstains(unix_sockets)) << unix_sockets;
  EXPECT_NE(unix_sockets.find("abstract socket namespace under Linux"), std::string::npos) << unix_sockets;

  testing::TempDir dir2;
  std::string mac = ReportOn(dir2, commits, "When did we support abstract Unix sockets on macOS?");
  EXPECT_TRUE(Abstains(mac)) << mac;

  // Of two other words, a record says both: one ("GPUs") is not the subject.
  testing::TempDir dir3;
  std::string mfu = ReportOn(dir3,
                             "c 2025-05-21T10:00:00Z 'H200: chipset FLOPs in the table of GPUs' && "
                             "c 2025-05-22T10:00:00Z 'MFU: log it at every step'",
                             "What MFU did we reach on H200 GPUs?");
  EXPECT_TRUE(Abstains(mfu)) << mfu;
}

// A word right after a name says which of the name's things the question
// asks about ("Bluetooth pairing"): where no record says it, the records on
// the name do not answer, however many say it came. Not a kind of thing
// ("Bluetooth support"), nor a verb ("Bluetooth sped up"), nor a word the
// records say.
TEST(SubjectTest, AThingOfANameNoRecordSaysIsNotAnswered) {
  std::string commits =
      "c 2012-02-10T10:00:00Z 'Add the Intuos4 Wireless to the list of wireless tablets' && "
      "c 2016-02-24T10:00:00Z 'Add the Bluetooth keyboard of the Intuos to the device list' && "
      "c 2019-05-01T10:00:00Z 'Add Bluetooth tablets: the touch ring works on their Bluetooth interface'";
  testing::TempDir dir;
  std::string pairing = ReportOn(dir, commits, "When was Bluetooth pairing of wireless tablets added?");
  EXPECT_NE(pairing.find("No record mentions `pairing`"), std::string::npos) << pairing;
  testing::TempDir dir2;
  std::string get = ReportOn(dir2, commits, "When did the driver get Bluetooth pairing?");
  EXPECT_NE(get.find("No record mentions `pairing`"), std::string::npos) << get;
  // A generic name (JSON, API), no key where records say it, is the thing where none does.
  testing::TempDir dir6;
  std::string json = ReportOn(dir6, commits, "When did the Bluetooth tablets get JSON output?");
  EXPECT_NE(json.find("No record mentions `json`"), std::string::npos) << json;

  // A question of no names, as well: "tablet pairing" is the thing, whatever
  // else the records say.
  testing::TempDir dir5;
  std::string nameless = ReportOn(dir5, commits, "When was tablet pairing of wireless devices added?");
  EXPECT_NE(nameless.find("No record mentions `pairing`"), std::string::npos) << nameless;

  testing::TempDir dir3;
  std::string support = ReportOn(dir3, commits, "When was Bluetooth support of wireless tablets added?");
  EXPECT_FALSE(Abstains(support)) << support;
  testing::TempDir dir4;
  std::string keyboard = ReportOn(dir4, commits, "When was the Bluetooth keyboard of the Intuos added?");
  EXPECT_FALSE(Abstains(keyboard)) << keyboard;
  EXPECT_TRUE(Says(AnswerLines(keyboard), "Bluetooth keyboard of the Intuos")) << keyboard;
}

// A word naming one of the project's files ("images" of images.c) narrows
// what is searched, but a record need not say it beside the question's
// names; "JPEG 2000" is one name, as "Qt 6" is.
TEST(SubjectTest, AWordNamingAFileIsNoPartOfTheSubject) {
  EXPECT_EQ(research::KeyConstraints("When did we start decoding JPEG 2000 images through OpenJPEG?"),
            (std::vector<std::string>{"jpeg 2000", "openjpeg"}));
  std::string commits =
      "printf 'int read_images(void);\\n' > images.c && c 2006-01-01T10:00:00Z 'images: read the header "
      "first' && "
      "printf 'int read_images(void);\\nint skip_images(void);\\n' > images.c && "
      "c 2007-01-01T10:00:00Z 'images: skip broken images' && "
      "c 2008-06-13T10:00:00Z 'Add a JPEG2000 decoder based on OpenJPEG' && "
      "c 2012-02-22T10:00:00Z 'Check the JPEG library version with pkg-config'";
  testing::TempDir dir;
  std::string md = ReportOn(dir, commits, "When did we start decoding JPEG 2000 images through OpenJPEG?");
  EXPECT_FALSE(Abstains(md)) << md;
  std::vector<std::string> lines = AnswerLines(md);
  ASSERT_FALSE(lines.empty()) << md;
  EXPECT_NE(lines.front().find("Add a JPEG2000 decoder based on OpenJPEG"), std::string::npos) << md;
}

// Software writing clips words ("man pages", "config file"): a question's
// "manual pages" are said by a record's "man pages"; a word merely
// starting alike ("mandatory") is not.
TEST(SubjectTest, AWordIsSaidInItsClippedForm) {
  std::string commits =
      "c 2004-01-01T10:00:00Z 'Fix many typos in the pages of the guide' && "
      "c 2005-06-13T10:00:00Z 'Add man pages for the client calls' && "
      "c 2006-09-19T10:00:00Z 'Correct the display argument in the man pages' && "
      "c 2007-01-01T10:00:00Z 'Read the config file from the home directory'";
  testing::TempDir dir;
  std::string manual = ReportOn(dir, commits, "When were manual pages added?");
  EXPECT_FALSE(Abstains(manual)) << manual;
  EXPECT_TRUE(Says(AnswerLines(manual), "man pages")) << manual;
  testing::TempDir dir2;
  std::string config = ReportOn(dir2, commits, "When did it start reading a configuration file?");
  EXPECT_FALSE(Abstains(config)) << config;
  EXPECT_TRUE(Says(AnswerLines(config), "config file")) << config;
  testing::TempDir dir3;
  std::string mandate = ReportOn(dir3, commits, "When were mandatory pages added?");
  EXPECT_TRUE(Abstains(mandate)) << mandate;
}

// A function is asked by its library's name ("XDamageAdd") where records
// name the request without the initial ("DamageAdd"); it came with the
// version that lists it ("Composite Version 0.3: …") or the rename that
// gave it its name.
TEST(SubjectTest, AVersionsListOrARenameSaysANameCame) {
  std::string commits =
      "c 2006-03-13T10:00:00Z 'Composite Version 0.3: CompositeGetOverlayWindow, "
      "CompositeReleaseOverlayWindow' && "
      "c 2007-01-05T10:00:00Z 'Add a request to report a region of damage against a drawable' && "
      "c 2007-01-09T10:00:00Z 'Track rename of DamagePost to DamageAdd.' && "
      "c 2008-05-01T10:00:00Z 'Document CompositeGetOverlayWindow and DamageAdd in the man page'";
  testing::TempDir dir;
  std::string overlay = ReportOn(dir, commits, "When was XCompositeGetOverlayWindow added?");
  EXPECT_FALSE(Abstains(overlay)) << overlay;
  ASSERT_FALSE(AnswerLines(overlay).empty()) << overlay;
  EXPECT_NE(AnswerLines(overlay).front().find("Composite Version 0.3"), std::string::npos) << overlay;
  testing::TempDir dir2;
  std::string add = ReportOn(dir2, commits, "When was XDamageAdd added?");
  EXPECT_FALSE(Abstains(add)) << add;
  ASSERT_FALSE(AnswerLines(add).empty()) << add;
  EXPECT_NE(AnswerLines(add).front().find("rename of DamagePost to DamageAdd"), std::string::npos) << add;
  // The name before "to" is the one that went.
  testing::TempDir dir3;
  std::string post = ReportOn(dir3, commits, "When was XDamagePost added?");
  EXPECT_TRUE(Abstains(post)) << post;
}

// A question that names a period ("in 2016") is answered from that
// period's records, however many others say its words better, and says
// what it searched; a period without any record finds nothing.
TEST(SubjectTest, APeriodTheQuestionNamesBoundsWhatIsSearched) {
  testing::TempDir dir;
  std::string commits =
      "c 2015-03-01T10:00:00Z 'Fix an out-of-bounds read of the reply in the device list' && "
      "c 2015-06-01T10:00:00Z 'Fix an out-of-bounds read of the reply in the event parser' && "
      "c 2016-09-25T10:00:00Z 'Validate the lengths in the server reply' && "
      "c 2017-02-01T10:00:00Z 'Fix an out-of-bounds read of the reply in the property call'" +
      ManyCommits(20, "2016-04", [](int i) { return "Tidy the man page of call " + std::to_string(i); });
  std::string md = ReportOn(dir, commits, "When were out-of-bounds reads of the reply fixed in 2016?");
  std::vector<std::string> lines = AnswerLines(md);
  EXPECT_TRUE(Says(lines, "Validate the lengths in the server reply")) << md;
  EXPECT_FALSE(Says(lines, "2015-")) << md;
  EXPECT_FALSE(Says(lines, "2017-")) << md;

  AskOptions o;
  o.corpus_path = dir.File("c.db");
  o.question = "When were out-of-bounds reads of the reply fixed in 2016?";
  auto r = Ask(o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(std::any_of(r->notes.begin(), r->notes.end(), [](const std::string& n) {
    return n.find("from 2016-01-01 to 2016-12-31") != std::string::npos && n.find("\"in 2016\"") != std::string::npos;
  })) << ::testing::PrintToString(r->notes);

  o.question = "When were out-of-bounds reads of the reply fixed in 2019?";
  auto none = Ask(o);
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_NE(none->markdown.find("holds nothing that answers"), std::string::npos) << none->markdown;
  EXPECT_EQ(none->markdown.find("out-of-bounds read of the reply in"), std::string::npos) << none->markdown;
}

// A name written as code ("XIAllowTouchEvents") came with the record that
// lists it, whatever that record's title says; none names it before it
// exists. A name styled with capitals ("iwMMXt") is no code: a record that
// says it in passing before the one titled by it did not add it.
TEST(SubjectTest, AThingWrittenAsCodeCameWithTheRecordThatListsIt) {
  testing::TempDir dir;
  std::string commits =
      "c 2009-03-01T10:00:00Z 'Add the version query' && "
      "c 2011-01-26T10:00:00Z 'Add an environment variable to disable fast paths\n\n"
      "PIXMAN_DISABLE=iwmmxt runs an app without SSE2 and iwMMXt.' && "
      "c 2011-06-01T10:00:00Z 'Add iwMMXt fast paths for ARM' && "
      "c 2011-09-15T10:00:00Z 'Implement support for XI 2.2\n\nNew functions:\n"
      "  XIAllowTouchEvents to allow or reject touch sequences\n  XIGrabTouchBegin' && "
      "c 2014-07-11T10:00:00Z 'Fix locking bugs with XIAllowTouchEvents() and XIGrabTouchBegin()'" +
      ManyCommits(20, "2012-02", [](int i) { return "Fix a typo in the man page of call " + std::to_string(i); });
  std::vector<std::string> touch = AnswerLines(ReportOn(dir, commits, "When was XIAllowTouchEvents added?"));
  ASSERT_FALSE(touch.empty());
  EXPECT_NE(touch.front().find("Implement support for XI 2.2"), std::string::npos) << ::testing::PrintToString(touch);

  testing::TempDir dir2;
  std::vector<std::string> mmx = AnswerLines(ReportOn(dir2, commits, "When was iwMMXt support added?"));
  ASSERT_FALSE(mmx.empty());
  EXPECT_NE(mmx.front().find("Add iwMMXt fast paths for ARM"), std::string::npos) << ::testing::PrintToString(mmx);
  EXPECT_FALSE(Says(mmx, "2011-01-26")) << ::testing::PrintToString(mmx);
}

// A thing that came without a name ("the scanpci tool") came with the
// earliest record whose title says each of its words but those for a kind
// of thing ("tool"), though later records say all of them together.
TEST(SubjectTest, AThingWithoutANameCameWithTheFirstRecordTitledByIt) {
  testing::TempDir dir;
  std::string commits =
      "c 2006-03-20T10:00:00Z 'Add scanpci as a build target' && "
      "c 2006-11-15T10:00:00Z 'scanpci: BIST line offsets were off by four' && "
      "c 2010-08-22T10:00:00Z 'config: provide a makefile for the scanpci dev tool' && "
      "c 2010-10-15T10:00:00Z 'config: the scanpci tool links the library it was built with'" +
      ManyCommits(20, "2008-05", [](int i) { return "Read the config space of bus " + std::to_string(i); });
  std::vector<std::string> lines = AnswerLines(ReportOn(dir, commits, "When was the scanpci tool added?"));
  ASSERT_FALSE(lines.empty());
  EXPECT_NE(lines.front().find("Add scanpci as a build target"), std::string::npos) << ::testing::PrintToString(lines);
}

// A word no record says is not met inside another ("lease" in "release",
// "releases"): the question is not answered from the release notes.
TEST(SubjectTest, AWordInsideAnotherIsNotSaid) {
  testing::TempDir dir;
  std::string commits =
      "c 2019-03-16T10:00:00Z 'Bump version for the 1.5.2 release' && "
      "c 2018-01-10T10:00:00Z 'Automake releases before 1.10 are no longer supported'";
  std::string md = ReportOn(dir, commits, "When was lease support added?");
  EXPECT_NE(md.find("No record mentions `lease`"), std::string::npos) << md;
}

// A name that ends in a number is not said where the number goes on: SHA384
// is not SHA-3 (libmd's first run answered SHA-3 with it), though SHA3-256 is.
TEST(SubjectTest, ANameEndingInANumberIsNotSaidWhereTheNumberGoesOn) {
  const std::string history =
      "c 2018-10-06T10:00:00Z 'Add missing compatibility macros for SHA384' && "
      "c 2019-08-28T10:00:00Z 'Switch SHA2 symbols from weak to strong aliases' && "
      "c 2019-09-28T10:00:00Z 'Add support for the Aladdin MD5 API'" +
      ManyCommits(12, "2020-02", [](int i) { return "build: portability fix " + std::to_string(i); });
  testing::TempDir dir;
  std::string md = ReportOn(dir, history, "When was SHA-3 support added?");
  EXPECT_TRUE(Abstains(md)) << md;
  testing::TempDir dir2;
  std::vector<std::string> added = AnswerLines(ReportOn(
      dir2, history + " && c 2021-05-02T10:00:00Z 'Add SHA3-256 digests'", "When was SHA-3 support added?"));
  EXPECT_TRUE(Says(added, "Add SHA3-256 digests")) << ::testing::PrintToString(added);
}

// A kind of file no record names in words ("pkg-config") is named by a file
// of that kind in a record's file list: libmd's pkg-config file came with
// "build: Add build infrastructure", which added src/libmd.pc.in.
TEST(SubjectTest, AKindOfFileIsNamedByItsFiles) {
  const std::string others = ManyCommits(
      12, "2012-03", [](int i) { return "Fix a warning in the digest code, part " + std::to_string(i); });
  const std::string question = "When was a pkg-config file added?";
  testing::TempDir dir;
  std::vector<std::string> added =
      AnswerLines(ReportOn(dir,
                           "mkdir -p src && echo 'Name: libfoo' > src/libfoo.pc.in && "
                           "c 2011-05-29T10:00:00Z 'build: Add build infrastructure'" +
                               others,
                           question));
  EXPECT_TRUE(Says(added, "build: Add build infrastructure")) << ::testing::PrintToString(added);
  testing::TempDir dir2;
  std::string none =
      ReportOn(dir2, "c 2011-05-29T10:00:00Z 'build: Add build infrastructure'" + others, question);
  EXPECT_TRUE(Abstains(none)) << none;
}

// A word the records say only as a part of a name in code is said: fbdev's
// "When was the fbdev driver ported to libpciaccess?" abstained ("no record
// mentions libpciaccess") where its records wrote XSERVER_LIBPCIACCESS.
TEST(SubjectTest, AWordSaidAsAPartOfANameInCodeIsSaid) {
  const std::string others = " && c 2012-06-05T10:00:00Z 'fbdev: port to the new screen API'" +
                             ManyCommits(12, "2009-03", [](int i) {
                               return "fbdev: fix a warning in the mode code, part " + std::to_string(i);
                             });
  const std::string question = "When was fbdev ported to libpciaccess?";
  testing::TempDir dir;
  const std::string md = ReportOn(
      dir,
      "c 2007-10-12T10:00:00Z 'fbdev: build the bus probe only when XSERVER_LIBPCIACCESS is set'" + others,
      question);
  EXPECT_FALSE(Abstains(md)) << md;
  testing::TempDir dir2;
  std::string none = ReportOn(
      dir2, "c 2007-10-12T10:00:00Z 'fbdev: build the bus probe only on PCI systems'" + others, question);
  EXPECT_TRUE(Abstains(none)) << none;
}

// A question's last word in -ing after a noun is its subject's own, not
// its verb: siliconmotion's "When did siliconmotion add hardware video
// decoding?" was answered from records on hardware cursors and video
// overlays, none of which says decoding.
TEST(SubjectTest, ALastWordInIngAfterANounIsTheSubjects) {
  const std::string others =
      " && c 2008-10-30T10:00:00Z 'Disable the hardware cursor in dual head mode'"
      " && c 2008-09-02T10:00:00Z 'Correct video overlay problems on the 501'" +
      ManyCommits(12, "2009-03",
                  [](int i) { return "Fix a warning in the mode code, part " + std::to_string(i); });
  const std::string question = "When did smi add hardware video decoding?";
  testing::TempDir dir;
  // Named as the driver is, so that "video" is in every permalink (the project's name, not the subject).
  std::string none = ReportOn(dir, "c 2007-10-12T10:00:00Z 'Add a video overlay for the 712'" + others,
                              question, "xf86-video-smi");
  EXPECT_TRUE(Abstains(none)) << none;
  testing::TempDir dir2;
  std::vector<std::string> added =
      AnswerLines(ReportOn(dir2, "c 2007-10-12T10:00:00Z 'Add hardware video decoding for the 502'" + others,
                           question, "xf86-video-smi"));
  EXPECT_TRUE(Says(added, "Add hardware video decoding for the 502")) << ::testing::PrintToString(added);
}

// A change that adapts the project to a thing is where support for it
// came: the kbd driver's "Adjust to input ABI 12." answers "When was
// support for input ABI 12 added?", which abstained ("none says when it
// came"); a record that only mentions the thing does not answer it.
TEST(SubjectTest, AChangeAdaptingToAThingIsWhereItsSupportCame) {
  const std::string others = ManyCommits(
      12, "2011-03", [](int i) { return "Fix a warning in the key map code, part " + std::to_string(i); });
  const std::string question = "When was support for input ABI 12 added to the kbd driver?";
  testing::TempDir dir;
  std::vector<std::string> added =
      AnswerLines(ReportOn(dir, "c 2010-10-25T10:00:00Z 'Adjust to input ABI 12.'" + others, question));
  EXPECT_TRUE(Says(added, "Adjust to input ABI 12")) << ::testing::PrintToString(added);
  testing::TempDir dir2;
  std::string none = ReportOn(
      dir2, "c 2010-10-25T10:00:00Z 'Fix a crash in the bell code under input ABI 12.'" + others, question);
  EXPECT_TRUE(Abstains(none)) << none;
}

// A move to a thing is when it came ("When did we port to GDBus?"), said by
// a title that moves a part of the project to it; a record that only names
// the thing does not answer it.
TEST(SubjectTest, AMoveToAThingIsWhenItCame) {
  const std::string others = ManyCommits(
      12, "2013-03", [](int i) { return "Fix a warning in the account code, part " + std::to_string(i); });
  testing::TempDir dir;
  std::vector<std::string> moved =
      AnswerLines(ReportOn(dir, "c 2012-09-14T10:00:00Z 'Port the account manager to GDBus'" + others,
                           "When did we port to GDBus?"));
  EXPECT_TRUE(Says(moved, "Port the account manager to GDBus")) << ::testing::PrintToString(moved);
  testing::TempDir dir2;
  // Nor a word of arrival inside a name in code ("new" of new-connection).
  std::string none = ReportOn(
      dir2, "c 2012-09-14T10:00:00Z 'tests: a GDBusServer::new-connection handler returns TRUE'" + others,
      "When did we port to GDBus?");
  EXPECT_TRUE(Abstains(none)) << none;
}

// A name in code is also its words in another order less its library's
// prefix, where a record writes it so: xcb-util-image added
// create_image_from_bitmap_data before its names took the xcb_image_ prefix.
// A name of other words (create_pixmap_from_bitmap_data) is another thing.
TEST(SubjectTest, ANameInCodeIsItsWordsInAnotherOrderLessItsPrefix) {
  const std::string others =
      " && c 2007-12-08T10:00:00Z 'added create_pixmap_from_bitmap_data() for the tests'" +
      ManyCommits(12, "2008-02",
                  [](int i) { return "Fix a warning in the image tests, part " + std::to_string(i); });
  const std::string question = "When was xcb_image_create_from_bitmap_data added?";
  testing::TempDir dir;
  std::vector<std::string> added = AnswerLines(ReportOn(
      dir, "c 2007-12-09T10:00:00Z 'added create_image_from_bitmap_data() and a subimage test'" + others,
      question));
  EXPECT_TRUE(Says(added, "create\\_image\\_from\\_bitmap\\_data")) << ::testing::PrintToString(added);
  testing::TempDir dir2;
  std::string other = ReportOn(dir2, "c 2007-12-09T10:00:00Z 'added a subimage test'" + others, question);
  EXPECT_TRUE(Abstains(other)) << other;
}

// A library's records name its functions without the prefix the question
// writes ("Add GetScreenResourcesCurrent" for XRRGetScreenResourcesCurrent)
// or as a glob of initials ("Add [GS]etOutputPrimary"); a title of a verb and
// a name is the statement that answers when it came.
TEST(SubjectTest, AFunctionCameWithTheRecordThatNamesItWithoutItsPrefix) {
  testing::TempDir dir;
  std::string commits =
      "c 2008-11-24T10:00:00Z 'Add GetScreenResourcesCurrent' && "
      "c 2008-12-08T10:00:00Z 'Add [GS]etOutputPrimary' && "
      "c 2010-07-08T10:00:00Z 'config: upgrade to util-macros 1.8 for additional man page support'" +
      ManyCommits(20, "2009-05", [](int i) { return "Fix the reply length of request " + std::to_string(i); });
  std::string md = ReportOn(dir, commits, "When was XRRGetScreenResourcesCurrent added?");
  std::vector<std::string> current = AnswerLines(md);
  ASSERT_FALSE(current.empty()) << md;
  EXPECT_NE(current.front().find("Add GetScreenResourcesCurrent"), std::string::npos)
      << ::testing::PrintToString(current);
  testing::TempDir dir2;
  std::vector<std::string> primary = AnswerLines(ReportOn(dir2, commits, "When was XRRSetOutputPrimary added?"));
  ASSERT_FALSE(primary.empty());
  EXPECT_NE(primary.front().find("etOutputPrimary"), std::string::npos) << ::testing::PrintToString(primary);
}

// The one record that names the question's key says it in no sentence
// ("auto_ptr -> unique_ptr"): the short answer lists it by its title, and
// no statement of the records that do not name it.
TEST(SubjectTest, ARecordThatNamesTheKeyInNoSentenceIsTheAnswerByItsTitle) {
  testing::TempDir dir;
  std::string commits =
      "c 2017-05-05T10:00:00Z 'auto_ptr -> unique_ptr' && "
      "c 2019-08-24T10:00:00Z 'Moved to std::vector without much fallout in the rest of the code'" +
      ManyCommits(20, "2018-03", [](int i) { return "Use std::unique_ptr for the page cache of part " + std::to_string(i); });
  std::string md = ReportOn(dir, commits, "When did the code stop using the deprecated std::auto_ptr?");
  std::vector<std::string> lines = AnswerLines(md);
  ASSERT_EQ(lines.size(), 1u) << md;
  EXPECT_NE(lines[0].find("auto\\_ptr -\\> unique\\_ptr"), std::string::npos) << md;
  EXPECT_NE(md.find("the records that name it, earliest first"), std::string::npos) << md;
}

// A record of 2007 says "OS X" where the question says "macOS".
TEST(SubjectTest, APlatformIsNamedByItsOtherNames) {
  testing::TempDir dir;
  std::string commits =
      "c 2007-09-05T10:00:00Z 'changes to support launchd on OS X' && "
      "c 2008-05-23T10:00:00Z 'Launchd: this functionality has moved into the server'" +
      ManyCommits(20, "2009-05", [](int i) { return "Fix the length of the socket path of transport " + std::to_string(i); });
  std::string md = ReportOn(dir, commits, "When was launchd socket support for macOS added?");
  std::vector<std::string> lines = AnswerLines(md);
  ASSERT_FALSE(lines.empty()) << md;
  EXPECT_NE(lines.front().find("changes to support launchd on OS X"), std::string::npos) << md;
}

// A title names a subject in the words of a name in code: "Support XI 2.1
// XIScrollClass" is the record on scroll classes, and the answer.
TEST(SubjectTest, ATitleSaysTheWordsOfItsNamesInCode) {
  testing::TempDir dir;
  std::string commits =
      "c 2011-08-17T10:00:00Z 'Support XI 2.1 XIScrollClass' && "
      "c 2011-09-15T10:00:00Z 'Implement support for XI 2.2' && "
      "c 2012-03-07T10:00:00Z 'Fix XIScrollClass increment value on 32-bit machines' && "
      "c 2012-05-01T10:00:00Z 'man: describe smooth scrolling for XI 2.1 clients'" +
      ManyCommits(20, "2010-05", [](int i) { return "Fix the event mask of device " + std::to_string(i); });
  std::string md = ReportOn(dir, commits, "When was smooth scrolling (scroll classes) support added?");
  std::vector<std::string> lines = AnswerLines(md);
  ASSERT_FALSE(lines.empty()) << md;
  EXPECT_NE(lines.front().find("Support XI 2.1 XIScrollClass"), std::string::npos) << md;
}

// "When was X added?" where records mention X and none says it came: the
// X server's history says "deep color / HDR output becomes impossible" and
// never that HDR output was added. It abstains, and says records mention it;
// the same history answers for a thing a record says was added, in a title
// or, under a title that says it came, in its text.
TEST(SubjectTest, AThingRecordsOnlyMentionIsNotAnsweredAsAdded) {
  testing::TempDir dir;
  std::string commits =
      "c 2021-09-14T00:00:00Z 'Revert the gamma ramp: with it color output is restricted to 8 bpc and any deep "
      "color or HDR output becomes impossible' && "
      "c 2021-10-01T00:00:00Z 'Fix a crash when HDR capable monitors are hotplugged twice' && "
      "c 2021-10-02T00:00:00Z 'Add TearFree page flipping to the modesetting driver' && "
      "c 2021-10-03T00:00:00Z 'Implement the new touch events. New functions: XIGrabTouchBegin, XIAllowTouchEvents'" +
      ManyCommits(20, "2021-11", [](int i) { return "Tidy the output code, part " + std::to_string(i); });
  std::string md = ReportOn(dir, commits, "When was HDR output support added?");
  EXPECT_TRUE(Abstains(md)) << md;
  EXPECT_NE(md.find("Records mention `hdr`, but none says when it was added"), std::string::npos) << md;
  testing::TempDir dir2;
  md = ReportOn(dir2, commits, "When was TearFree added?");
  EXPECT_FALSE(Abstains(md)) << md;
  EXPECT_TRUE(Says(AnswerLines(md), "Add TearFree page flipping")) << md;
  testing::TempDir dir3;
  md = ReportOn(dir3, commits, "When was XIAllowTouchEvents added?");
  EXPECT_FALSE(Abstains(md)) << md;
}

// A name of three or more parts joined by hyphens is a key: no record names
// "linux-drm-syncobj" (one says "_SyncObject", others "explicit" and
// "synchronous"), so the question abstains instead of quoting those.
TEST(SubjectTest, AHyphenatedNameOfThreePartsIsAKey) {
  EXPECT_EQ(research::KeyConstraints("When did it get explicit sync through linux-drm-syncobj?"),
            std::vector<std::string>{"linux-drm-syncobj"});
  EXPECT_TRUE(research::KeyConstraints("Which state-of-the-art models were compared?").empty());
  testing::TempDir dir;
  std::string md = ReportOn(dir,
                            "c 2021-09-14T00:00:00Z 'Make struct _SyncObject fully ABI compatible' && "
                            "c 2021-09-15T00:00:00Z 'Complete synchronous flips explicitly' && "
                            "c 2021-09-16T00:00:00Z 'Remove the explicit dependency on the wayland libraries'",
                            "When did it get explicit synchronization through linux-drm-syncobj?");
  EXPECT_TRUE(Abstains(md)) << md;
}

// "When was X removed?" where records name X and none says it went: FriBidi's
// and the X server's autotools, which their records add jobs for and
// simplify, and beside which they drop other things. A thing a record
// removes is answered, named by a key or, without one, by the subject's
// word fewest records say ("build" of "the autotools build" tells nothing);
// its answer is the records that remove it, not those that add or fix it.
TEST(SubjectTest, AThingNoRecordRemovesIsNotAnsweredAsRemoved) {
  std::string commits =
      "c 2003-02-19T00:00:00Z 'Add the DECnet transport for VMS clients' && "
      "c 2004-02-19T00:00:00Z 'Fix the DECnet transport on Solaris' && "
      "c 2019-02-19T00:00:00Z 'gitlab-ci: Add an autotools build and test job' && "
      "c 2019-03-29T00:00:00Z 'gitlab-ci: Simplify the autotools job script' && "
      "c 2019-04-01T00:00:00Z 'Drop the verbose test log output, matching the meson build job script' && "
      "c 2019-04-02T00:00:00Z 'Remove the DECnet transport' && "
      "c 2019-04-03T00:00:00Z 'Drop the old plugin loader and its build option' && "
      "c 2019-04-04T00:00:00Z 'Remove an unneeded include that broke the build on Solaris'" +
      ManyCommits(20, "2019-05", [](int i) { return "Speed up the build of part " + std::to_string(i); });
  testing::TempDir dir;
  std::string md = ReportOn(dir, commits, "When was the autotools build removed?");
  EXPECT_TRUE(Abstains(md)) << md;
  EXPECT_NE(md.find("none says it was removed"), std::string::npos) << md;
  testing::TempDir dir2;
  md = ReportOn(dir2, commits, "When was DECnet support removed?");
  EXPECT_FALSE(Abstains(md)) << md;
  EXPECT_TRUE(Says(AnswerLines(md), "Remove the DECnet transport")) << md;
  EXPECT_FALSE(Says(AnswerLines(md), "Add the DECnet transport")) << md;
  EXPECT_FALSE(Says(AnswerLines(md), "Fix the DECnet transport")) << md;
  testing::TempDir dir4;  // "get rid of" asks when it went, not when it came
  md = ReportOn(dir4, commits, "When did we get rid of the DECnet transport?");
  EXPECT_TRUE(Says(AnswerLines(md), "Remove the DECnet transport")) << md;
  EXPECT_FALSE(Says(AnswerLines(md), "Add the DECnet transport")) << md;
  testing::TempDir dir3;
  md = ReportOn(dir3, commits, "When was the plugin loader removed?");
  EXPECT_FALSE(Abstains(md)) << md;
  EXPECT_TRUE(Says(AnswerLines(md), "Drop the old plugin loader")) << md;
  testing::TempDir dir5;  // the part a title begins with is where a thing went, not what went
  md = ReportOn(dir5, commits + " && c 2019-06-01T00:00:00Z 'gitlab-ci: Remove an unused variable'",
                "When was GitLab CI removed?");
  EXPECT_TRUE(Abstains(md)) << md;
}

// xf86-video-ati's history: a chip's model number names its family
// ("R600/R700" is said "R6xx/R7xx"); a version after a name is part of the
// key ("HDMI 2.1": records on HDMI ports do not answer it); and a thing a
// question asks when it became something is answered by a record that says
// it came or was made so, not one that mentions it ("switching to the GDM
// Wayland mode login VT").
TEST(SubjectTest, AFamilyAVersionAndWhatAThingBecame) {
  EXPECT_EQ(research::KeyConstraints("When did the driver add HDMI 2.1 and RandR 1.2 support?"),
            (std::vector<std::string>{"hdmi 2.1", "randr 1.2"}));
  EXPECT_EQ(research::KeyConstraints("When did Qt 6 land?"), std::vector<std::string>{"qt 6"});
  std::string commits =
      "c 2008-02-23T00:00:00Z 'Fix DDC on the DDIA output (usually the HDMI port)' && "
      "c 2008-11-03T00:00:00Z 'Fix HDMI output setup on DIG1' && "
      "c 2006-12-03T00:00:00Z 'Add radeon randr 1.2 initial attempt at support' && "
      "c 2009-02-03T00:00:00Z 'Initial R6xx/R7xx EXA and textured video support' && "
      "c 2009-10-09T00:00:00Z 'r600 EXA: properly check planemask' && "
      "c 2017-08-29T00:00:00Z 'Use a timer for the black FB\n\nFixes a black screen when switching from Xorg to "
      "the GDM Wayland mode login VT.' && "
      "c 2014-04-02T00:00:00Z 'Make Xwayland its own DDX'" +
      ManyCommits(20, "2010-05", [](int i) { return "Tidy the crtc code, part " + std::to_string(i); });
  testing::TempDir dir;
  std::string md = ReportOn(dir, commits, "When did the driver get EXA acceleration for R600/R700 chips?");
  EXPECT_FALSE(Abstains(md)) << md;
  EXPECT_TRUE(Says(AnswerLines(md), "Initial R6xx/R7xx EXA")) << md;
  testing::TempDir dir2;
  md = ReportOn(dir2, commits, "When did the driver add HDMI 2.1 support?");
  EXPECT_TRUE(Abstains(md)) << md;
  testing::TempDir dir3;
  md = ReportOn(dir3, commits, "When did the driver get RandR 1.2 support?");
  EXPECT_FALSE(Abstains(md)) << md;
  testing::TempDir dir4;
  md = ReportOn(dir4, commits, "When did the driver become a Wayland compositor backend?");
  EXPECT_TRUE(Abstains(md)) << md;
  EXPECT_NE(md.find("but none says it was made so"), std::string::npos) << md;
  testing::TempDir dir5;
  md = ReportOn(dir5, commits, "When did Xwayland become its own DDX?");
  EXPECT_FALSE(Abstains(md)) << md;
}

// xf86-video-nouveau's history: two words a question says apart are one in
// titles ("page flipping" is "Add pageflip/exchange support"), and of a
// series landed the same day the answer has the one whose title says it
// came beside the handler for its events committed minutes before; a removal
// is also said as a noun ("Initial pass at removal of non-KMS support").
TEST(SubjectTest, TwoWordsWrittenAsOneAndARemovalSaidAsANoun) {
  std::string commits =
      "c 2010-01-06T00:00:00Z 'Initial pass at removal of non-KMS support.' && "
      "c 2009-07-30T00:00:00Z 'non-kms fb resize' && "
      "c 2010-10-21T20:41:24Z 'kms: Register a wakeup handler to poll vblank/pageflip/udev events.' && "
      "c 2010-10-21T20:57:08Z 'dri2: Add pageflip/exchange support.' && "
      "c 2011-02-09T00:00:00Z 'dri2: allow page flipping to be disabled in xorg.conf' && "
      "c 2011-02-17T00:00:00Z 'Page flipping man page update'" +
      ManyCommits(20, "2010-05", [](int i) { return "Tidy the crtc code, part " + std::to_string(i); });
  testing::TempDir dir;
  std::string md = ReportOn(dir, commits, "When was page flipping added?");
  std::vector<std::string> lines = AnswerLines(md);
  ASSERT_FALSE(lines.empty()) << md;
  EXPECT_NE(lines.front().find("2010-10-21"), std::string::npos) << md;
  EXPECT_TRUE(Says(lines, "Add pageflip/exchange support")) << md;
  testing::TempDir dir2;
  md = ReportOn(dir2, commits, "When was the user mode setting (non-KMS) code removed?");
  EXPECT_FALSE(Abstains(md)) << md;
  EXPECT_TRUE(Says(AnswerLines(md), "removal of non-KMS support")) << md;
}

// Names in brackets after a phrase are its examples: evdev's record on
// "the axis inversion options (InvertX, InvertY)" says "Add support for
// axis inversion" and neither name, so either name or the phrase meets the
// question's one constraint. A name in brackets after a name is still that
// name ("AltiVec (VMX)").
TEST(SubjectTest, NamesInBracketsAfterAPhraseAreItsExamples) {
  EXPECT_EQ(research::KeyConstraints("When were the axis inversion options (InvertX, InvertY) added?"),
            std::vector<std::string>{"invertx|axis inversion|inverty"});
  EXPECT_EQ(research::KeyConstraints("When did libXi get multitouch support (XI 2.2 touch events)?"),
            (std::vector<std::string>{"libxi", "xi 2.2|multitouch"}));
  EXPECT_EQ(research::KeyConstraints("When did pixman get AltiVec (VMX) fast paths?"),
            std::vector<std::string>{"altivec|vmx"});
  testing::TempDir dir;
  std::string md = ReportOn(dir,
                            "c 2008-10-01T10:00:00Z 'Add support for axis inversion.' && "
                            "c 2008-10-14T10:00:00Z 'Document the new options.' && "
                            "c 2008-10-24T10:00:00Z 'Fix the scaling of absolute coordinates.'" +
                                ManyCommits(20, "2009-05", [](int i) { return "Tidy the probe, part " + std::to_string(i); }),
                            "When were the axis inversion options (InvertX, InvertY) added?");
  EXPECT_FALSE(Abstains(md)) << md;
  EXPECT_TRUE(Says(AnswerLines(md), "Add support for axis inversion")) << md;
}

// Words in brackets say again what the word before them says: libXft's
// "bidirectional (right-to-left) text layout" is a subject of three words,
// one of which no record says, not of four with "right-to-left" (whose
// words records say apart: "left as is"), where one unsaid word of more
// than three reads as a paraphrase.
TEST(SubjectTest, WordsInBracketsAreNoMoreOfTheSubject) {
  testing::TempDir dir;
  std::string md = ReportOn(dir,
                            "c 2009-01-29T00:00:00Z 'Check for the render library first, but left as is otherwise' && "
                            "c 2011-02-02T00:00:00Z 'config: comment, quote and layout configure.ac' && "
                            "c 2011-10-06T00:00:00Z 'Subpixel text rendering improvements, right where it matters'",
                            "When did we add bidirectional (right-to-left) text layout?");
  EXPECT_TRUE(Abstains(md)) << md;
  EXPECT_NE(md.find("No record mentions `bidirectional`"), std::string::npos) << md;
}

// Of a subject of four words, two side by side that no record says are a
// thing the project never names ("ray tracing"), however many records say
// the others ("hardware acceleration").
TEST(SubjectTest, TwoWordsSideBySideNoRecordSaysAreAThingNeverNamed) {
  std::string commits =
      "c 2015-10-07T00:00:00Z 'Do not advertise rotation support without hardware acceleration' && "
      "c 2016-01-26T00:00:00Z 'Only map the front buffer if hardware acceleration is disabled' && "
      "c 2016-02-15T00:00:00Z 'Add an option to turn acceleration off'";
  testing::TempDir dir;
  std::string md = ReportOn(dir, commits, "When was hardware ray tracing acceleration added to the driver?");
  EXPECT_TRUE(Abstains(md)) << md;
  EXPECT_NE(md.find("No record mentions `ray`"), std::string::npos) << md;
  // One unsaid word of four is a paraphrase, wherever it stands.
  testing::TempDir dir2;
  md = ReportOn(dir2, commits, "How does speedy hardware rotation acceleration work?");
  EXPECT_FALSE(Abstains(md)) << md;
}

// A thing without a name that a question asks when it came is named by a
// record that says half the words telling it from the rest of the project,
// whatever their order: two side by side also by their initials ("fds" for
// "file descriptors"), a doer by what it does ("access" for "accessor").
// Where none does, the report abstains and says which words it missed,
// though records name a kind of the thing ("a tap gesture").
TEST(SubjectTest, AThingWithoutANameCameWhereARecordSaysItsWords) {
  std::string commits =
      "c 2009-03-02T00:00:00Z 'Add a tap and drag gesture option' && "
      "c 2010-04-02T00:00:00Z 'Add support for receiving fds in replies' && "
      "c 2011-05-02T00:00:00Z 'Port access routines' && "
      "c 2011-01-02T00:00:00Z 'Take a pinch of latency out of the scroll path' && "
      "c 2011-02-02T00:00:00Z 'Swipe stale state away on resume' && "
      "c 2012-06-02T00:00:00Z 'Drop the touch events from the driver' && "
      "c 2012-07-02T00:00:00Z 'Remove the legacy build files'" +
      ManyCommits(24, "2013-01", [](int i) {
        return "Fix the scroll events of pad " + std::to_string(i) + " when the driver replies late";
      });
  testing::TempDir dir;
  std::string md = ReportOn(dir, commits, "When were pinch and swipe gesture events added to the driver?");
  EXPECT_TRUE(Abstains(md)) << md;
  EXPECT_NE(md.find("`pinch`, `swipe` and `gesture`"), std::string::npos) << md;
  testing::TempDir dir2;
  md = ReportOn(dir2, commits, "When did the driver gain the ability to receive file descriptors in replies?");
  EXPECT_FALSE(Abstains(md)) << md;
  EXPECT_TRUE(Says(AnswerLines(md), "receiving fds in replies")) << md;
  testing::TempDir dir3;
  md = ReportOn(dir3, commits, "When were the legacy port accessors added?");
  EXPECT_FALSE(Abstains(md)) << md;
  EXPECT_TRUE(Says(AnswerLines(md), "Port access routines")) << md;
  // "single" says how many, not what: the record maps the tablet to an output.
  testing::TempDir dir4;
  md = ReportOn(dir4,
                commits + " && c 2014-02-02T00:00:00Z 'Add a parameter that maps the tablet to the given output'" +
                    ManyCommits(12, "2015-01", [](int i) { return "Fix the key map of button " + std::to_string(i); }),
                "When did the driver gain the ability to map a tablet to a single monitor?");
  EXPECT_FALSE(Abstains(md)) << md;
  EXPECT_TRUE(Says(AnswerLines(md), "maps the tablet to the given output")) << md;
}

// A platform is where a thing came, not the thing. "Mac OS X" is one
// platform's name ("OS" and "X" are no names of their own); "When was
// launchd support for Mac OS X added?" is answered by the record that added
// launchd, whichever of the platform's names it gives ("Apple"), not by the
// earliest record naming the platform. And a record that names the thing
// beside neither the platform nor the part that got it ("When did Xlib get
// launchd support on macOS?", "Added launchd support.") answers it.
TEST(SubjectTest, APlatformIsWhereAThingCameNotTheThing) {
  EXPECT_EQ(research::KeyConstraints("When was launchd support for Mac OS X added?"),
            (std::vector<std::string>{"mac os x|macos|os x|osx"}));
  std::string commits =
      "c 2005-03-02T00:00:00Z 'Build the manual pages on Mac OS X with the system compiler' && "
      "c 2007-12-10T00:00:00Z 'Added Apple launchd support' && "
      "c 2008-02-02T00:00:00Z 'OS X: find the launchd socket in the right folder'" +
      ManyCommits(24, "2009-01", [](int i) {
        return "Fix the Xlib lock of display " + std::to_string(i) + " when a reply comes late";
      });
  testing::TempDir dir;
  std::string md = ReportOn(dir, commits, "When was launchd support for Mac OS X added?");
  std::vector<std::string> answer = AnswerLines(md);
  ASSERT_FALSE(answer.empty()) << md;
  EXPECT_NE(answer.front().find("Added Apple launchd support"), std::string::npos) << md;
  EXPECT_FALSE(Says(answer, "manual pages")) << md;
  testing::TempDir dir2;
  md = ReportOn(dir2,
                "c 2006-03-02T00:00:00Z 'Added launchd support.' && "
                "c 2006-05-02T00:00:00Z 'Read the locale from the environment on OS X'" +
                    ManyCommits(24, "2009-01",
                                [](int i) {
                                  return "Fix the Xlib lock of display " + std::to_string(i) +
                                         " when a reply comes late";
                                }),
                "When did Xlib get launchd support on macOS?");
  EXPECT_FALSE(Abstains(md)) << md;
  EXPECT_TRUE(Says(AnswerLines(md), "Added launchd support.")) << md;
  // A platform that is all a question names is the thing that came, said
  // in a record's words, not in the name of a file it touched.
  testing::TempDir dir3;
  std::string entropy =
      "echo a > entropy_osx.c && c 2015-09-23T00:00:00Z 'Add a private entropy module from another project' && "
      "c 2016-01-02T00:00:00Z 'Fix the entropy module on Linux'";
  entropy += ManyCommits(24, "2017-01", [](int i) { return "Fix the lock of display " + std::to_string(i); });
  md = ReportOn(dir3, entropy, "When did the library add support for macOS?");
  EXPECT_TRUE(Abstains(md)) << md;
}

// Kinds a question lists of one thing ("linear and radial gradients") are
// on a record that says the thing came with no kind of its own before it
// ("Add support for gradients and solid fills"), though no record says
// "linear" or "radial"; not on one that says another kind came ("Add a
// tap and drag gesture option" for pinch and swipe gestures).
TEST(SubjectTest, KindsOfAThingAreOnARecordOfEveryKind) {
  std::string commits =
      "c 2005-07-01T00:00:00Z 'Add support for gradients and solid fills' && "
      "c 2007-08-20T00:00:00Z 'Set the length of gradient requests' && "
      "c 2009-03-02T00:00:00Z 'Add a tap and drag gesture option'" +
      ManyCommits(24, "2011-01", [](int i) { return "Fix the picture format of screen " + std::to_string(i); });
  testing::TempDir dir;
  std::string md = ReportOn(dir, commits, "When were linear and radial gradients added?");
  EXPECT_FALSE(Abstains(md)) << md;
  std::vector<std::string> answer = AnswerLines(md);
  ASSERT_FALSE(answer.empty()) << md;
  EXPECT_NE(answer.front().find("Add support for gradients and solid fills"), std::string::npos) << md;
  testing::TempDir dir2;
  md = ReportOn(dir2, commits, "When were pinch and swipe gestures added?");
  EXPECT_TRUE(Abstains(md)) << md;
}

// A name written as code that records also write as its words apart
// ("DebugLevel", "debug level") is searched and met in either spelling,
// learned from the records found: the earliest record is the one that says
// "debug level". A name no record writes apart ("HarfBuzz") is not split.
TEST(SubjectTest, ANameInCodeIsAlsoItsWordsApartWhereRecordsSaySo) {
  std::vector<std::string> keys = research::WithVariants(
      {"debuglevel", "harfbuzz"}, {"Configurable pressure curve, debug levels.", "Port HarfBuzz to the new API"});
  EXPECT_EQ(keys, (std::vector<std::string>{"debuglevel|debug level", "harfbuzz"}));
  // A phrase of three words or more is also its acronym where a record says it alone.
  EXPECT_TRUE(research::MentionsAll(
      "Don't enable the VRR support code",
      research::WithVariants({"variable refresh rate"}, {"Don't enable the VRR support code for GPU screens"})));
  EXPECT_FALSE(research::MentionsAll(
      "Don't enable the VRRP support code",
      research::WithVariants({"variable refresh rate"}, {"Don't enable the VRRP support code for GPU screens"})));
  // A phrase in British spelling is also one in American, and the other way round.
  EXPECT_TRUE(research::MentionsAll("Remove a check for color management support",
                                    research::WithVariants({"colour management"}, {})));
  // A word as a name is also its other forms: "the Rotate option", "rotation".
  EXPECT_EQ(research::KeyConstraints("When was the Rotate option added to Meson?"),
            (std::vector<std::string>{"rotate|rotat", "meson"}));
  std::string commits =
      "c 2003-05-03T00:00:00Z 'Updated pressure curve; configurable pressure curve, debug level.' && "
      "c 2009-09-28T00:00:00Z 'Remove debuglevel properties' && "
      "c 2009-12-23T00:00:00Z 'Add the Wacom Debug Levels property' && "
      "c 2010-10-29T00:00:00Z 'man: reword the man page for DebugLevel' && "
      "c 2011-09-20T00:00:00Z 'Move DebugLevel options up'" +
      ManyCommits(60, "2012-01", [](int i) {
        return "Add the debug option of tool " + std::to_string(i) + " with its own level";
      });
  testing::TempDir dir;
  std::string md = ReportOn(dir, commits, "When was the DebugLevel option added?");
  EXPECT_FALSE(Abstains(md)) << md;
  std::vector<std::string> lines = AnswerLines(md);
  ASSERT_FALSE(lines.empty()) << md;
  EXPECT_NE(lines.front().find("configurable pressure curve, debug level"), std::string::npos) << md;
}

}  // namespace
}  // namespace umwelt
