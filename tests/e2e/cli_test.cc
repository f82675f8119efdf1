// Black-box tests of the `umwelt` binary: exit codes, output formats, and
// crash safety of a sync killed with SIGKILL.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <sstream>
#include <nlohmann/json.hpp>

#include "git_cli.h"
#include "github_fake.h"
#include "test_util.h"

namespace umwelt {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

using testing::Quote;
using testing::RunResult;
using testing::Umwelt;

std::vector<std::string> ExampleFiles() {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(UMWELT_SOURCE_DIR "/examples/github")) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(Cli, HelpOnEveryVerbAndUsageErrors) {
  for (std::vector<std::string> v : {std::vector<std::string>{"--help"}, {"init", "--help"}, {"import", "github", "--help"},
                                     {"sync", "github", "--help"}, {"search", "--help"}, {"show", "--help"},
                                     {"status", "--help"}, {"publish", "--help"}, {"index", "--help"},
                                     {"search-multi", "--help"}, {"eval", "retrieval", "--help"},
                                     {"sync", "git", "--help"}, {"sync", "discord", "--help"},
                                     {"sync", "wandb", "--help"}, {"import", "discord", "--help"},
                                     {"import", "wandb", "--help"}, {"fetch", "--help"}, {"run", "--help"},
                                     {"digest", "--help"}, {"summaries", "--help"}, {"eval", "digest", "--help"},
                                     {"context", "--help"}}) {
    RunResult r = Umwelt(v);
    EXPECT_EQ(r.code, 0) << v[0] << r.err;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << v[0];
  }
  EXPECT_EQ(Umwelt({}).code, 2);
  EXPECT_EQ(Umwelt({"frobnicate"}).code, 2);
  EXPECT_EQ(Umwelt({"search"}).code, 2);
  EXPECT_EQ(Umwelt({"search", "x", "-k", "0"}).code, 2);
  EXPECT_EQ(Umwelt({"import", "github", "/no/such/file.json"}).code, 2);
  EXPECT_EQ(Umwelt({"sync", "git", "/no/such/dir"}).code, 2);
  EXPECT_EQ(Umwelt({"run", "not-a-run"}).code, 2);
  EXPECT_EQ(Umwelt({"fetch", "file:///etc/passwd"}).code, 1);
  EXPECT_EQ(Umwelt({"sync", "discord", "123"}).code, 2);   // no DISCORD_TOKEN
  EXPECT_EQ(Umwelt({"sync", "wandb", "acme/x"}).code, 2);  // no WANDB_API_KEY
}

// The slips a new user makes get a way forward: the verbs by task, the
// nearest verb or flag, the expected export named, no success line for a
// failure, and reads that work where nothing may be written.
TEST(Cli, SlipsGetAWayForward) {
  RunResult bare = Umwelt({});
  EXPECT_EQ(bare.code, 2);
  for (const char* want : {"Start:", "Find:", "  search", "  ask", "  serve", "--help"}) {
    EXPECT_NE(bare.out.find(want), std::string::npos) << want << "\n" << bare.out;
  }
  RunResult verb = Umwelt({"serach", "foo"});
  EXPECT_EQ(verb.code, 2);
  EXPECT_EQ(verb.err.substr(0, verb.err.find('\n')), "umwelt: error: unknown verb `serach`; did you mean `search`?");
  EXPECT_NE(verb.err.find("Find:"), std::string::npos) << verb.err;
  RunResult flag = Umwelt({"search", "foo", "--kindd", "issue"});
  EXPECT_EQ(flag.code, 2);
  EXPECT_NE(flag.err.find("did you mean `--kind`?"), std::string::npos) << flag.err;
  RunResult source = Umwelt({"search", "foo", "--source", "gitub"});
  EXPECT_EQ(source.code, 2);
  EXPECT_NE(source.err.find("did you mean `github`?"), std::string::npos) << source.err;

  testing::TempDir dir;
  std::string db = dir.File("c.db");
  testing::WriteFile(dir.File("package.json"), R"({"name": "left-pad", "version": "1.3.0", "scripts": {}})");
  RunResult gh = Umwelt({"--corpus", db, "import", "github", dir.File("package.json")});
  EXPECT_EQ(gh.code, 1);
  EXPECT_NE(gh.err.find("package.json: not GitHub API output"), std::string::npos) << gh.err;
  EXPECT_NE(gh.err.find("found a JSON object with keys name, version, scripts"), std::string::npos) << gh.err;
  EXPECT_EQ(gh.out, "");
  RunResult wb = Umwelt({"--corpus", db, "import", "wandb", dir.File("package.json")});
  EXPECT_EQ(wb.code, 1);
  EXPECT_NE(wb.err.find("no W&B runs found"), std::string::npos) << wb.err;
  // A bad file among good ones keeps none of them out, and says so once.
  RunResult some = Umwelt({"--corpus", db, "import", "github", dir.File("package.json"),
                           UMWELT_SOURCE_DIR "/examples/github/issues.json"});
  EXPECT_EQ(some.code, 1);
  EXPECT_NE(some.err.find("imported 1 file(s)"), std::string::npos) << some.err;
  EXPECT_NE(some.err.find("1 of 2 files was not imported (the others were): "), std::string::npos) << some.err;
  EXPECT_NE(some.err.find("package.json: not GitHub API output"), std::string::npos) << some.err;
  std::filesystem::create_directories(dir.File("notgit"));
  RunResult git = Umwelt({"--corpus", db, "sync", "git", dir.File("notgit")});
  EXPECT_NE(git.code, 0);
  EXPECT_EQ(git.out, "") << "a success-looking line before the error";
  EXPECT_EQ(git.err.find("commits"), std::string::npos) << git.err;

  // A corpus in a folder its reader cannot write (run as nobody when root).
  std::string ro = dir.File("ro");
  std::filesystem::create_directories(ro);
  ASSERT_EQ(Umwelt({"--corpus", ro + "/c.db", "import", "github", UMWELT_SOURCE_DIR "/examples/github/issues.json"}).code, 0);
  RunResult kind = Umwelt({"--corpus", ro + "/c.db", "search", "MFU", "--kind", "isue"});
  EXPECT_EQ(kind.code, 0) << kind.err;
  EXPECT_NE(kind.err.find("no source declares kind `isue`; did you mean `issue`?"), std::string::npos) << kind.err;
  std::filesystem::remove(ro + "/c.db.kwidx");
  ASSERT_EQ(::chmod(ro.c_str(), 0555), 0);
  ASSERT_EQ(::chmod((ro + "/c.db").c_str(), 0444), 0);
  std::filesystem::create_directories(dir.File("home"));
  ASSERT_EQ(::chmod(dir.File("home").c_str(), 0777), 0);  // the index goes to its cache there
  ASSERT_EQ(::chmod(dir.path().c_str(), 0755), 0);
  std::string as = ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups -- " : "";
  RunResult read = testing::RunShell("cd / && HOME=" + testing::Quote(dir.File("home")) + " " + as + UMWELT_BINARY +
                                     " --corpus " + testing::Quote(ro + "/c.db") + " search MFU -k 3");
  EXPECT_EQ(read.code, 0) << read.err;
  EXPECT_NE(read.out.find("tinylm"), std::string::npos) << read.out << read.err;
  ::chmod(ro.c_str(), 0755);
}

// The process starts without the heavy libraries: they load in the verbs that
// need them (umwelt/dynlib.h). `umwelt --help` still lists every verb, and a
// verb given after the global options still parses.
TEST(Cli, StartsWithoutTheHeavyLibraries) {
  RunResult needed = testing::RunShell("(objdump -p " + std::string(UMWELT_BINARY) + " | grep NEEDED)");
  ASSERT_EQ(needed.code, 0) << needed.err << needed.out;
  for (const char* lib : {"libcurl", "libgit2", "libpoppler", "libfasttext", "libmicrohttpd", "libcrypto", "libssl"}) {
    EXPECT_EQ(needed.out.find(lib), std::string::npos) << lib << " is linked:\n" << needed.out;
  }
  RunResult version = Umwelt({"--version"});
  EXPECT_EQ(version.code, 0);
  EXPECT_NE(version.out.find("umwelt 0."), std::string::npos) << version.out;
  EXPECT_NE(version.out.find("SQLite 3."), std::string::npos) << version.out;
  EXPECT_NE(version.out.find("libgit2"), std::string::npos) << version.out;
  RunResult help = Umwelt({"--help"});
  for (const char* verb : {"init", "import", "search", "context", "show", "run", "eval", "ask", "skills", "status",
                           "publish", "digest", "summaries", "serve", "refresh", "mcp"}) {
    EXPECT_NE(help.out.find(std::string("\n  ") + verb + " "), std::string::npos) << verb;
  }
  RunResult eval = Umwelt({"-q", "eval", "--help"});
  EXPECT_EQ(eval.code, 0);
  for (const char* sub : {"retrieval", "answers", "digest"}) EXPECT_NE(eval.out.find(sub), std::string::npos) << sub;
  EXPECT_EQ(Umwelt({"--corpus", "/nonexistent/x.db", "search", "--help"}).code, 0);
}

// What every run needs (SQLite, RE2, cmark-gfm, gumbo, xxhash, the English
// stemmer, libstdc++) is linked in: the loader maps the C library alone, and
// relocates no table of an unused library (cmake/StaticDeps.cmake; README,
// "What a process costs to start"). The program stays position-independent.
TEST(Cli, StartsWithTheCLibraryAlone) {
  if (!UMWELT_STATIC_RUNTIME) GTEST_SKIP() << "built with UMWELT_STATIC_DEPS off, or sanitized: libraries stay shared";
  RunResult needed = testing::RunShell("(objdump -p " + std::string(UMWELT_BINARY) + " | grep NEEDED)");
  ASSERT_EQ(needed.code, 0) << needed.err << needed.out;
  std::istringstream lines(needed.out);
  for (std::string line; std::getline(lines, line);) {
    std::string lib = line.substr(line.find_last_of(' ') + 1);
    EXPECT_TRUE(lib == "libc.so.6" || lib == "libm.so.6" || lib.rfind("ld-linux", 0) == 0) << lib << " is a shared library";
  }
  RunResult header = testing::RunShell("objdump -f " + std::string(UMWELT_BINARY));
  EXPECT_NE(header.out.find("DYNAMIC"), std::string::npos) << "not position-independent:\n" << header.out;
}

TEST(Cli, ImportSearchShowStatus) {
  testing::TempDir dir;
  std::string db = dir.File("c.db");
  std::vector<std::string> args = {"--corpus", db, "import", "github"};
  for (auto& f : ExampleFiles()) args.push_back(f);
  RunResult imp = Umwelt(args);
  ASSERT_EQ(imp.code, 0) << imp.err;
  EXPECT_TRUE(fs::exists(db + ".kwidx"));  // built once, at import

  RunResult s = Umwelt({"--corpus", db, "search", "checkpoint restore", "--json", "-k", "3"});
  ASSERT_EQ(s.code, 0) << s.err;
  json j = json::parse(s.out);
  ASSERT_EQ(j["hits"].size(), 3u);
  for (const char* field : {"source", "kind", "ref", "parent", "title", "author", "date", "url", "snippet", "score", "via"}) {
    EXPECT_TRUE(j["hits"][0].contains(field)) << field;
  }
  EXPECT_EQ(j["hits"][0]["url"], "https://github.com/acme/tinylm/issues/104");

  RunResult filtered = Umwelt({"--corpus", db, "search", "MFU", "--kind", "comment", "--author", "omar", "--json"});
  ASSERT_EQ(filtered.code, 0) << filtered.err;
  for (auto& h : json::parse(filtered.out)["hits"]) {
    EXPECT_EQ(h["kind"], "comment");
    EXPECT_EQ(h["author"], "omar");
  }

  RunResult show = Umwelt({"--corpus", db, "show", "https://github.com/acme/tinylm/issues/102#issuecomment-5104", "--json"});
  ASSERT_EQ(show.code, 0) << show.err;
  json t = json::parse(show.out);
  EXPECT_EQ(t["ref"], "acme/tinylm#102");
  EXPECT_EQ(t["thread"]["state"], "closed");
  EXPECT_EQ(t["thread"]["parent"], "acme/tinylm#101");
  EXPECT_EQ(t["chunks"].size(), 5u);
  EXPECT_EQ(t["chunks"][0]["kind"], "issue");
  RunResult tail = Umwelt({"--corpus", db, "show", "acme/tinylm#102", "--tail", "1"});
  ASSERT_EQ(tail.code, 0);
  EXPECT_NE(tail.out.find("Closing: #110"), std::string::npos);
  EXPECT_EQ(tail.out.find("First trace"), std::string::npos);
  RunResult toc = Umwelt({"--corpus", db, "show", "acme/tinylm#110", "--toc"});
  ASSERT_EQ(toc.code, 0);
  EXPECT_NE(toc.out.find("review-comment"), std::string::npos);
  EXPECT_NE(toc.out.find("merged"), std::string::npos);
  RunResult missing = Umwelt({"--corpus", db, "show", "acme/tinylm#999"});
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.err.find("acme/tinylm#999"), std::string::npos);

  RunResult status = Umwelt({"--corpus", db, "status", "--json"});
  ASSERT_EQ(status.code, 0) << status.err;
  json st = json::parse(status.out);
  EXPECT_EQ(st["chunks"], 24);
  EXPECT_EQ(st["threads"], 9);
}

TEST(Cli, ErrorsNameTheCorpusAndExitOne) {
  testing::TempDir dir;
  RunResult none = Umwelt({"--corpus", dir.File("absent.db"), "search", "x"});
  EXPECT_EQ(none.code, 1);
  EXPECT_NE(none.err.find("absent.db"), std::string::npos);
  testing::WriteFile(dir.File("text.db"), "just some text, not a database, long enough to have a header........");
  RunResult bad = Umwelt({"--corpus", dir.File("text.db"), "status"});
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("not an SQLite database"), std::string::npos) << bad.err;
  RunResult empty_query = Umwelt({"--corpus", dir.File("e.db"), "init"});
  ASSERT_EQ(empty_query.code, 0);
  RunResult q = Umwelt({"--corpus", dir.File("e.db"), "search", "?!"});
  EXPECT_EQ(q.code, 2);
  EXPECT_NE(q.err.find("no searchable words"), std::string::npos);
}

TEST(Cli, CorpusFromEnvironment) {
  testing::TempDir dir;
  RunResult init = Umwelt({"init"}, "UMWELT_CORPUS=" + Quote(dir.File("env.db")));
  ASSERT_EQ(init.code, 0) << init.err;
  EXPECT_TRUE(fs::exists(dir.File("env.db")));
}

TEST(Cli, PublishChecksWritesAndShares) {
  testing::TempDir dir;
  std::string db = dir.File("c.db");
  std::vector<std::string> args = {"--corpus", db, "import", "github"};
  for (auto& f : ExampleFiles()) args.push_back(f);
  ASSERT_EQ(Umwelt(args).code, 0);

  std::string report = UMWELT_SOURCE_DIR "/examples/report.md";
  RunResult ok = Umwelt({"--corpus", db, "publish", report, "--out", dir.File("r.html")});
  ASSERT_EQ(ok.code, 0) << ok.err;
  std::string page = testing::ReadFileOrEmpty(dir.File("r.html"));
  EXPECT_NE(page.find("<h1 class=\"title\">When will the 1B run reach 100B tokens?</h1>"), std::string::npos);
  EXPECT_NE(page.find("Throughput: MFU stuck at 31% on 64 H100s"), std::string::npos);  // a card
  EXPECT_EQ(Umwelt({"--corpus", db, "publish", report, "--check", "--strict"}).code, 0);

  // A planted bad link and an uncited paragraph.
  std::string bad = testing::ReadFileOrEmpty(report);
  bad.replace(bad.find("## Data"), 7, "## Data\n\nSee also [#4242](https://github.com/acme/tinylm/issues/4242).\n\n"
                                         "The run used 64 nodes for 9 days.\n");
  testing::WriteFile(dir.File("bad.md"), bad);
  RunResult check = Umwelt({"--corpus", db, "publish", dir.File("bad.md"), "--check"});
  EXPECT_EQ(check.code, 3);  // the citation check failed
  EXPECT_NE(check.err.find("issues/4242: not in the corpus"), std::string::npos) << check.err;
  EXPECT_NE(check.err.find("uncited claim"), std::string::npos) << check.err;
  EXPECT_NE(check.err.find("bad.md:"), std::string::npos);
  RunResult refused = Umwelt({"--corpus", db, "publish", dir.File("bad.md"), "--out", dir.File("bad.html")});
  EXPECT_EQ(refused.code, 3);
  EXPECT_FALSE(fs::exists(dir.File("bad.html")));

  // Warnings alone publish, unless --strict.
  std::string warn = testing::ReadFileOrEmpty(report);
  warn.replace(warn.find("## Data"), 7, "## Data\n\nThe run used 64 nodes for 9 days.\n");
  testing::WriteFile(dir.File("warn.md"), warn);
  EXPECT_EQ(Umwelt({"--corpus", db, "publish", dir.File("warn.md"), "--out", dir.File("w.html")}).code, 0);
  EXPECT_EQ(Umwelt({"--corpus", db, "publish", dir.File("warn.md"), "--strict", "--out", dir.File("w2.html")}).code, 3);
  EXPECT_FALSE(fs::exists(dir.File("w2.html")));

  // --gist hands the page to `gh gist create` (a scripted gh on PATH).
  fs::create_directories(dir.File("bin"));
  testing::WriteFile(dir.File("bin/gh"), "#!/bin/sh\necho \"$@\" > \"$(dirname \"$0\")/args\"\n"
                                         "echo 'https://gist.github.com/ann/abc123'\n");
  fs::permissions(dir.File("bin/gh"), fs::perms::owner_all);
  RunResult gist = Umwelt({"--corpus", db, "publish", report, "--out", dir.File("g.html"), "--gist"},
                          "PATH=" + Quote(dir.File("bin")) + ":/usr/bin:/bin");
  ASSERT_EQ(gist.code, 0) << gist.err;
  EXPECT_NE(gist.out.find("https://gist.github.com/ann/abc123"), std::string::npos);
  std::string gh_args = testing::ReadFileOrEmpty(dir.File("bin/args"));
  EXPECT_NE(gh_args.find("gist create"), std::string::npos);
  EXPECT_EQ(gh_args.find("--public"), std::string::npos);  // secret by default
  EXPECT_NE(gh_args.find("g.html"), std::string::npos);

  RunResult no_corpus = Umwelt({"--corpus", dir.File("none.db"), "publish", report});
  EXPECT_EQ(no_corpus.code, 1);
  EXPECT_NE(no_corpus.err.find("--no-corpus"), std::string::npos);
}

TEST(Cli, IndexHybridSearchMultiAndEval) {
  testing::TempDir dir;
  std::string db = dir.File("c.db");
  std::vector<std::string> args = {"--corpus", db, "import", "github"};
  for (auto& f : ExampleFiles()) args.push_back(f);
  ASSERT_EQ(Umwelt(args).code, 0);
  // Before `index`: keyword only, and --vec-only says why it cannot run.
  RunResult before = Umwelt({"--corpus", db, "search", "MFU", "--json"});
  ASSERT_EQ(before.code, 0);
  EXPECT_EQ(json::parse(before.out)["mode"], "keyword");
  RunResult novec = Umwelt({"--corpus", db, "search", "MFU", "--vec-only"});
  EXPECT_EQ(novec.code, 1);
  EXPECT_NE(novec.err.find("umwelt index"), std::string::npos) << novec.err;

  RunResult index = Umwelt({"--corpus", db, "index", "--dim", "32"});
  ASSERT_EQ(index.code, 0) << index.err;
  EXPECT_NE(index.out.find("24 chunks embedded"), std::string::npos) << index.out;
  RunResult again = Umwelt({"--corpus", db, "index", "--dim", "32"});
  EXPECT_NE(again.out.find("0 chunks embedded"), std::string::npos) << again.out;
  RunResult status = Umwelt({"--corpus", db, "status", "--json"});
  EXPECT_TRUE(json::parse(status.out)["spaces"].contains("prose"));
  RunResult table = Umwelt({"--corpus", db, "status"});
  EXPECT_NE(table.out.find("prose      builtin:lsa-32d"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("ready"), std::string::npos) << table.out;
  {
    // A copy without the model file beside it: status says so, and what to run.
    std::filesystem::copy_file(db, dir.File("copy.db"));
    RunResult copy = Umwelt({"--corpus", dir.File("copy.db"), "status"});
    EXPECT_NE(copy.out.find("model file missing (" + dir.File("copy.db") + ".prose.words)"), std::string::npos) << copy.out;
    EXPECT_NE(copy.out.find("run `umwelt index`"), std::string::npos) << copy.out;
    // A search names the missing file once, not before every result.
    RunResult first = Umwelt({"--corpus", dir.File("copy.db"), "search", "MFU"});
    EXPECT_EQ(first.code, 0) << first.err;
    EXPECT_NE(first.err.find("no builtin model"), std::string::npos) << first.err;
    RunResult second = Umwelt({"--corpus", dir.File("copy.db"), "search", "MFU"});
    EXPECT_EQ(second.code, 0);
    EXPECT_EQ(second.err.find("no builtin model"), std::string::npos) << second.err;
    // The next write trains the model again and embeds the corpus with it.
    RunResult write = Umwelt({"--corpus", dir.File("copy.db"), "import", "discord",
                              UMWELT_SOURCE_DIR "/examples/discord/training.json", "--repo", "acme/tinylm"});
    ASSERT_EQ(write.code, 0) << write.err;
    EXPECT_NE(write.err.find("model file was missing: trained again"), std::string::npos) << write.err;
    EXPECT_TRUE(std::filesystem::exists(dir.File("copy.db") + ".prose.words"));
    RunResult rebuilt = Umwelt({"--corpus", dir.File("copy.db"), "search", "checkpoint restore", "--json"});
    EXPECT_EQ(json::parse(rebuilt.out)["mode"], "hybrid") << rebuilt.err;
  }

  RunResult hybrid = Umwelt({"--corpus", db, "search", "checkpoint restore minutes", "--json", "-k", "5"});
  ASSERT_EQ(hybrid.code, 0) << hybrid.err;
  json h = json::parse(hybrid.out);
  EXPECT_EQ(h["mode"], "hybrid");
  ASSERT_FALSE(h["hits"].empty());
  bool fused = false;
  for (auto& hit : h["hits"]) fused |= hit["via"].size() == 2;
  EXPECT_TRUE(fused);
  EXPECT_TRUE(h.contains("code_main"));
  RunResult fts = Umwelt({"--corpus", db, "search", "checkpoint", "--fts-only", "--json"});
  EXPECT_EQ(json::parse(fts.out)["mode"], "keyword");
  RunResult vec = Umwelt({"--corpus", db, "search", "checkpoint", "--vec-only", "--json", "--vec-text",
                          "restoring shards from storage is slow"});
  ASSERT_EQ(vec.code, 0) << vec.err;
  for (auto& hit : json::parse(vec.out)["hits"]) EXPECT_EQ(hit["via"], json::array({"prose"}));
  RunResult wrong = Umwelt({"--corpus", db, "search", "x", "--embedder", "prose=openai:http://127.0.0.1:1/v1#other"});
  EXPECT_EQ(wrong.code, 2);
  EXPECT_NE(wrong.err.find("never mixed"), std::string::npos) << wrong.err;

  RunResult multi = Umwelt({"--corpus", db, "search-multi", "checkpoint restore", "MFU throughput", "--total", "6", "--json"});
  ASSERT_EQ(multi.code, 0) << multi.err;
  json m = json::parse(multi.out);
  EXPECT_LE(m["hits"].size(), 6u);
  std::set<std::string> urls;
  bool both = false;
  for (auto& hit : m["hits"]) {
    EXPECT_TRUE(urls.insert(hit["url"].get<std::string>()).second);
    both |= hit["queries"].size() == 2;
  }
  EXPECT_TRUE(both) << multi.out;

  // Gold-citation recall on a question file in the reference format.
  testing::WriteFile(dir.File("q.json"), R"({"id": "restore", "question": "why are checkpoint restores slow",
    "answerable": true, "citations": {"must_have": ["#104", "#999"], "nice_to_have": [], "forbidden": []}})");
  RunResult eval = Umwelt({"--corpus", db, "eval", "retrieval", "--questions", dir.File("q.json"), "--json"});
  ASSERT_EQ(eval.code, 0) << eval.err;
  json e = json::parse(eval.out);
  EXPECT_DOUBLE_EQ(e["questions"][0]["recall@10"].get<double>(), 0.5);
  RunResult grouped = Umwelt({"--corpus", db, "eval", "retrieval", "--questions", dir.File("q.json"), "--json",
                              "--group", "thread", "--bm25", "prf=5"});
  ASSERT_EQ(grouped.code, 0) << grouped.err;
  EXPECT_DOUBLE_EQ(json::parse(grouped.out)["questions"][0]["recall@10"].get<double>(), 0.5);
  EXPECT_EQ(Umwelt({"--corpus", db, "eval", "retrieval"}).code, 2);
  // Bad tuning and halves: one error naming the value, before any work.
  for (std::vector<std::string> bad : {std::vector<std::string>{"--bm25", "k1=fast"}, {"--half", "first"},
                                       {"--fusion", "max"}, {"--group", "author"}}) {
    std::vector<std::string> args = {"--corpus", db, "eval", "retrieval", "--collection", "cranfield"};
    args.insert(args.end(), bad.begin(), bad.end());
    RunResult r = Umwelt(args);
    EXPECT_EQ(r.code, 2) << bad[1] << r.err;  // a usage error
    EXPECT_NE(r.err.find(bad[1]), std::string::npos) << r.err;
  }
}

TEST(Cli, SearchGroupsByThreadAndExpandsWithFeedback) {
  testing::TempDir dir;
  std::string db = dir.File("c.db");
  std::vector<std::string> args = {"--corpus", db, "import", "github"};
  for (auto& f : ExampleFiles()) args.push_back(f);
  ASSERT_EQ(Umwelt(args).code, 0);
  RunResult g = Umwelt({"--corpus", db, "search", "checkpoint restore", "--json", "-k", "2", "--group", "thread"});
  ASSERT_EQ(g.code, 0) << g.err;
  json j = json::parse(g.out);
  EXPECT_EQ(j["group"], "thread");
  ASSERT_EQ(j["threads"].size(), 2u);
  EXPECT_NE(j["threads"][0]["thread"], j["threads"][1]["thread"]);
  size_t hits = 0;
  for (const auto& t : j["threads"]) hits += t["hits"].size();
  EXPECT_EQ(j["hits"].size(), hits);
  RunResult text = Umwelt({"--corpus", db, "search", "checkpoint restore", "-k", "2", "--group", "thread"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find(j["threads"][0]["thread"].get<std::string>()), std::string::npos) << text.out;
  RunResult bad = Umwelt({"--corpus", db, "search", "checkpoint", "--group", "week"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("group must be one of none, thread, not `week`"), std::string::npos) << bad.err;
  // Feedback finds at least what the plain query found at the top.
  RunResult plain = Umwelt({"--corpus", db, "search", "checkpoint restore", "--json", "-k", "5"});
  RunResult fb = Umwelt({"--corpus", db, "search", "checkpoint restore", "--json", "-k", "5", "--feedback"});
  ASSERT_EQ(fb.code, 0) << fb.err;
  EXPECT_EQ(json::parse(fb.out)["hits"][0]["url"], json::parse(plain.out)["hits"][0]["url"]);
}

// SIGKILL in the middle of a sync leaves a consistent corpus, and the next
// sync resumes from the last committed page without duplicates.
TEST(Cli, KilledSyncResumesWithoutDuplicates) {
  testing::GithubFake fake;
  const int kIssues = 600;
  for (int n = 1; n <= kIssues; ++n) {
    char updated[32];
    std::snprintf(updated, sizeof updated, "2024-01-01T%02d:%02d:%02dZ", n / 3600, (n / 60) % 60, n % 60);
    fake.PutIssue(n, "issue body number " + std::to_string(n), updated);
  }
  fake.set_per_page_cap(20);  // 30 pages
  fake.set_latency_ms(40);
  testing::TempDir dir;
  std::string db = dir.File("c.db");
  std::string token = "ghp_e2e_secret_token";
  pid_t pid = ::fork();
  if (pid == 0) {
    ::setenv("GITHUB_TOKEN", token.c_str(), 1);
    int fd = ::open(dir.File("child.log").c_str(), O_WRONLY | O_CREAT, 0644);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::execl(UMWELT_BINARY, "umwelt", "-v", "--corpus", db.c_str(), "sync", "github", "o/r", "--api-base",
            fake.base().c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Wait until some pages have committed, then kill without warning.
  testing::WaitUntil([&] { return fake.server().requests().size() >= 8; }, 4);
  ::kill(pid, SIGKILL);
  int wstatus;
  ::waitpid(pid, &wstatus, 0);
  ASSERT_TRUE(WIFSIGNALED(wstatus));

  sqlite3* raw;
  ASSERT_EQ(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
  auto scalar = [&](const char* sql) {
    sqlite3_stmt* st;
    sqlite3_prepare_v2(raw, sql, -1, &st, nullptr);
    sqlite3_step(st);
    std::string v = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return v;
  };
  EXPECT_EQ(scalar("PRAGMA integrity_check"), "ok");
  int64_t partial = std::stoll(scalar("SELECT count(*) FROM chunks"));
  EXPECT_EQ(partial % 20, 0) << "a page committed partly";
  EXPECT_LT(partial, kIssues) << "the sync finished before it was killed";
  sqlite3_close(raw);

  size_t before = fake.server().requests().size();
  fake.set_latency_ms(0);
  RunResult again = Umwelt({"--corpus", db, "sync", "github", "o/r", "--api-base", fake.base()}, "GITHUB_TOKEN=" + token);
  ASSERT_EQ(again.code, 0) << again.err;
  auto reqs = fake.server().requests();
  if (partial > 0) {
    EXPECT_NE(reqs[before].find("since="), std::string::npos) << "resumed from scratch: " << reqs[before];
  }
  ASSERT_EQ(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
  EXPECT_EQ(scalar("SELECT count(*) FROM chunks"), std::to_string(kIssues));
  EXPECT_EQ(scalar("SELECT count(DISTINCT ref) FROM chunks"), std::to_string(kIssues));
  EXPECT_EQ(scalar("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'number'"), std::to_string(kIssues));
  sqlite3_close(raw);
  std::string log = testing::ReadFileOrEmpty(dir.File("child.log")) + again.out + again.err;
  EXPECT_EQ(log.find(token), std::string::npos) << "the token reached the output";
}

// `ask --refresh` syncs the recorded sources first; `--fetch-linked`
// fetches the pages the evidence links and cites them.
TEST(Cli, AskRefreshesAndFetchesLinkedPages) {
  testing::TempDir dir;
  std::string repo = dir.File("loader"), db = dir.File("c.db");
  auto git = [&](const std::string& args) {
    std::string cmd = "cd " + Quote(repo) + " && env GIT_CONFIG_GLOBAL=/dev/null git -c user.name=T -c "
                      "user.email=t@example.com " + args + " >/dev/null 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  };
  fs::create_directories(repo);
  git("init -q -b main .");
  git("remote add origin https://github.com/acme/loader.git");  // commits get citable permalinks
  testing::WriteFile(repo + "/loader.py", "def load():\n    return 1\n");
  git("add -A");
  git("commit -q -m 'Loader throughput is 512 samples/s'");
  ASSERT_EQ(Umwelt({"--corpus", db, "sync", "git", repo}).code, 0);
  testing::WriteFile(repo + "/loader.py", "def load():\n    return 2\n");
  git("commit -q -am 'Double loader throughput to 1024 samples/s'");

  testing::TestServer server;
  server.server().Get("/paper", [](const httplib::Request&, httplib::Response& r) {
    r.set_content("<html><head><title>Fast loaders</title></head><body><h1>Fast loaders</h1>"
                  "<p>Prefetching doubles loader throughput.</p></body></html>", "text/html");
  });
  json exp = {{"guild", {{"id", "1"}, {"name", "g"}}},
              {"channel", {{"id", "2"}, {"type", "GuildTextChat"}, {"name", "loaders"}}},
              {"messages", json::array({{{"id", "3"}, {"type", "Default"}, {"timestamp", "2026-11-01T00:00:00+00:00"},
                                         {"content", "Loader throughput paper: " + server.base() + "/paper"},
                                         {"author", {{"id", "9"}, {"name", "ann"}}}}})}};
  testing::WriteFile(dir.File("export.json"), exp.dump());
  ASSERT_EQ(Umwelt({"--corpus", db, "import", "discord", dir.File("export.json")}).code, 0);

  std::string md = dir.File("answer.md");
  RunResult r = Umwelt({"--corpus", db, "ask", "loader throughput", "--refresh", "--fetch-linked", "--allow-private",
                        "--md", md, "--out", dir.File("answer.html")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("refresh: git:acme/loader: ok"), std::string::npos) << r.err;
  std::string text = testing::ReadFileOrEmpty(md);
  // The commit the refresh brought in is quoted and cited.
  size_t quote = text.find("- Double loader throughput to 1024 samples/s — [");
  ASSERT_NE(quote, std::string::npos) << text;
  const std::string permalink = "](https://github.com/acme/loader/commit/";
  EXPECT_EQ(text.find(permalink, quote), text.find("](", quote)) << text;
  EXPECT_NE(text.find("## Linked pages"), std::string::npos) << text;
  EXPECT_NE(text.find("](" + server.base() + "/paper)"), std::string::npos) << text;
  EXPECT_NE(text.find("Web pages fetched"), std::string::npos);
  EXPECT_NE(testing::ReadFileOrEmpty(dir.File("answer.html")).find("Prefetching doubles loader throughput"),
            std::string::npos);
}

// The example project's busiest week, digested end to end: the site, the
// tiers, the corpus round trip, the checks, and what bad input gets.
TEST(Cli, DigestSummariesAndEvalDigest) {
  testing::TempDir dir;
  std::string db = dir.File("c.db");
  std::vector<std::string> import = {"--corpus", db, "import", "github"};
  for (const auto& f : ExampleFiles()) import.push_back(f);
  ASSERT_EQ(Umwelt(import).code, 0);
  ASSERT_EQ(Umwelt({"--corpus", db, "import", "discord", UMWELT_SOURCE_DIR "/examples/discord/training.json", "--repo",
                    "acme/tinylm"}).code, 0);
  ASSERT_EQ(Umwelt({"--corpus", db, "import", "wandb", UMWELT_SOURCE_DIR "/examples/wandb/runs.json", "--repo",
                    "acme/tinylm"}).code, 0);
  std::string site = dir.File("site");
  RunResult r = Umwelt({"--corpus", db, "digest", "--week", "2026-11-18", "--weeks", "2", "--out", site,
                        "--site-url", "https://example.org/digest", "--tiers", "xs,s"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("contributors"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("- **"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("## "), std::string::npos) << "M was not asked for";
  EXPECT_NE(r.err.find("digest 2026-11-16_2026-11-22: extractive"), std::string::npos) << r.err;
  for (const char* f : {"/index.html", "/feed.xml", "/summaries/summary-2026-11-09_2026-11-15.html",
                        "/summaries/summary-2026-11-16_2026-11-22.html", "/summaries/summary-2026-11-16_2026-11-22.md"}) {
    EXPECT_TRUE(fs::exists(site + f)) << f;
  }
  RunResult list = Umwelt({"--corpus", db, "summaries", "list"});
  ASSERT_EQ(list.code, 0) << list.err;
  EXPECT_EQ(list.out.rfind("2026-11-16_2026-11-22  ", 0), 0u) << list.out;
  RunResult show = Umwelt({"--corpus", db, "summaries", "show", "latest"});
  ASSERT_EQ(show.code, 0);
  EXPECT_NE(show.out.find("# acme/tinylm: week of November 16, 2026"), std::string::npos) << show.out;
  RunResult links = Umwelt({"--corpus", db, "summaries", "links", "2026-11-16_2026-11-22", "--json"});
  ASSERT_EQ(links.code, 0);
  json l = json::parse(links.out);
  ASSERT_TRUE(l.is_array());
  EXPECT_NE(std::find(l.begin(), l.end(), "https://github.com/acme/tinylm/issues/102"), l.end()) << links.out;
  RunResult found = Umwelt({"--corpus", db, "search", "MFU", "--source", "narrative", "--json", "--fts-only"});
  ASSERT_EQ(found.code, 0) << found.err;
  EXPECT_NE(found.out.find("https://example.org/digest/summaries/summary-2026-11-16_2026-11-22.html#s-"), std::string::npos);
  RunResult eval = Umwelt({"--corpus", db, "eval", "digest", "--week", "2026-11-16", "--json"});
  ASSERT_EQ(eval.code, 0) << eval.out << eval.err;
  json e = json::parse(eval.out);
  EXPECT_EQ(e["digests"][0]["bad_links"].size(), 0u);
  EXPECT_EQ(e["digests"][0]["junk"], 0);
  EXPECT_EQ(e["digests"][0]["check_problems"], 0);
  EXPECT_EQ(e["digests"][0]["landed_in_m"], e["digests"][0]["landed"]);
  EXPECT_EQ(e["digests"][0]["covered"], e["digests"][0]["notable"]);
  // Bad input: one clear error each, exit 2; nothing stored is lost.
  EXPECT_EQ(Umwelt({"--corpus", db, "digest", "--week", "someday"}).code, 2);
  RunResult future = Umwelt({"--corpus", db, "digest", "--week", "2099-01-05", "--out", site});
  EXPECT_EQ(future.code, 2);
  EXPECT_NE(future.err.find("has not begun"), std::string::npos) << future.err;
  EXPECT_EQ(Umwelt({"--corpus", db, "digest", "--from", "2026-11-01"}).code, 2);
  EXPECT_EQ(Umwelt({"--corpus", db, "digest", "--from", "2026-11-20", "--to", "2026-11-10"}).code, 2);
  RunResult tiers = Umwelt({"--corpus", db, "digest", "--tiers", "xl"});
  EXPECT_EQ(tiers.code, 2);
  EXPECT_NE(tiers.err.find("tiers"), std::string::npos) << tiers.err;
  RunResult weeks = Umwelt({"--corpus", db, "digest", "--weeks", "0"});
  EXPECT_EQ(weeks.code, 2);
  EXPECT_NE(weeks.err.find("weeks must be a whole number from 1 to 520"), std::string::npos) << weeks.err;
  RunResult both = Umwelt({"--corpus", db, "digest", "--week", "2026-11-23", "--from", "2026-11-01", "--to", "2026-11-02"});
  EXPECT_EQ(both.code, 2);
  EXPECT_NE(both.err.find("week and from/to exclude each other"), std::string::npos) << both.err;
  EXPECT_EQ(Umwelt({"--corpus", db, "digest", "--post", "discord"}).code, 2);  // no webhook in the environment
  EXPECT_EQ(Umwelt({"--corpus", dir.File("absent.db"), "digest"}).code, 1);
  EXPECT_EQ(Umwelt({"--corpus", db, "summaries", "show", "1999-01-01_1999-01-07"}).code, 1);
  EXPECT_EQ(Umwelt({"--corpus", db, "summaries", "show"}).code, 2);
  EXPECT_EQ(Umwelt({"--corpus", db, "summaries", "list"}).out, list.out);
  // A quiet week is a page, not an error.
  RunResult quiet = Umwelt({"--corpus", db, "digest", "--week", "2026-06-01", "--out", site});
  ASSERT_EQ(quiet.code, 0) << quiet.err;
  EXPECT_NE(quiet.out.find("Quiet week"), std::string::npos);
}

TEST(Cli, EvalDigestComparesWithTheReferenceTiers) {
  UMWELT_REQUIRE_SHARED_DATA(data);
  testing::TempDir dir;
  std::string db = dir.File("c.db");
  std::vector<std::string> import = {"--corpus", db, "import", "github"};
  for (const auto& f : ExampleFiles()) import.push_back(f);
  ASSERT_EQ(Umwelt(import).code, 0);
  RunResult r = Umwelt({"--corpus", db, "eval", "digest", "--week", "2026-11-16", "--reference",
                        data + "/marin-discord-summaries/summaries", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  json j = json::parse(r.out);
  ASSERT_EQ(j["reference"].size(), 4u);
  // The reference keeps its own rule in three of four weeks: 2026-04-13 has
  // a second "News & Research" section and no bullet for it.
  int rule_kept = 0;
  for (const auto& w : j["reference"]) {
    EXPECT_LE(w["xs_chars"].get<int>(), 330);
    rule_kept += w["s_bullets"] == w["m_sections"];
    EXPECT_LE(std::abs(w["s_bullets"].get<int>() - w["m_sections"].get<int>()), 1) << w["week"];
  }
  EXPECT_EQ(rule_kept, 3);
  EXPECT_TRUE(j["digests"][0]["s_ok"].get<bool>());
}

}  // namespace
}  // namespace umwelt

namespace umwelt {
namespace {

// Issue 13, item 10: corpus text never reaches the terminal as escape
// sequences, and a NUL does not cut the output short.
// Issue 19: the reference client's verbs `context` and `run`.
TEST(Cli, ContextPacksWholeThreadsUnderTheBudgetAndRunShowsConfig) {
  testing::TempDir dir;
  std::string db = dir.File("c.db");
  std::vector<std::string> import = {"--corpus", db, "import", "github"};
  for (const auto& f : ExampleFiles()) import.push_back(f);
  ASSERT_EQ(Umwelt(import).code, 0);
  ASSERT_EQ(Umwelt({"--corpus", db, "import", "wandb", UMWELT_SOURCE_DIR "/examples/wandb/runs.json", "--repo",
                    "acme/tinylm"}).code, 0);
  RunResult r = Umwelt({"--corpus", db, "context", "MFU stuck", "--expand", "2", "--toc", "--json", "--fts-only"});
  ASSERT_EQ(r.code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["threads"], 2);
  EXPECT_EQ(j["thread_list"].size(), 2u);
  std::string text = j["context"];
  EXPECT_EQ(text.rfind("THREAD INDEX (2 threads):", 0), 0u) << text;
  // Every record carries its permalink; the close-out of #102 is there.
  EXPECT_NE(text.find("· https://github.com/acme/tinylm/issues/102#issuecomment-5104] Closing"), std::string::npos) << text;
  EXPECT_NE(r.err.find("umwelt context: 2 threads"), std::string::npos) << r.err;
  // A small per-thread budget keeps the opening and the close-out, and says what it left out.
  RunResult small = Umwelt({"--corpus", db, "context", "MFU stuck", "--expand", "1", "--per-thread-chars", "700",
                            "--json", "--fts-only"});
  ASSERT_EQ(small.code, 0) << small.err;
  json s = json::parse(small.out);
  ASSERT_EQ(s["thread_list"].size(), 1u) << small.out;
  EXPECT_LE(s["thread_list"][0]["chars"].get<int>(), 700);
  EXPECT_GT(s["thread_list"][0]["left_out"].get<int>(), 0) << small.out;
  std::string small_text = s["context"];
  EXPECT_NE(small_text.find("left out here; read https://github.com/acme/tinylm/issues/102 whole"), std::string::npos)
      << small_text;
  EXPECT_NE(small_text.find("Closing:"), std::string::npos) << small_text;
  // Following references reaches the threads the hits name; the pack obeys --max-chars.
  RunResult follow = Umwelt({"--corpus", db, "context", "h100-baseline", "--expand", "1", "--follow-links", "1",
                             "--max-chars", "2000", "--json", "--fts-only"});
  ASSERT_EQ(follow.code, 0) << follow.err;
  json f = json::parse(follow.out);
  EXPECT_LE(f["chars"].get<int>(), 2000);
  bool followed = false;
  for (const auto& t : f["thread_list"]) followed |= t["followed"].get<bool>() && t["ref"] == "acme/tinylm#102";
  EXPECT_TRUE(followed) << follow.out;
  // Candidates in fewer threads than asked for: it looks deeper.
  RunResult deeper = Umwelt({"--corpus", db, "context", "MFU H100", "-k", "1", "--expand", "3", "--json", "--fts-only"});
  ASSERT_EQ(deeper.code, 0) << deeper.err;
  EXPECT_EQ(json::parse(deeper.out)["threads"], 3) << deeper.out;
  // Many queries with a large k stay within the search's bound on hits.
  std::vector<std::string> many = {"--corpus", db, "context", "-k", "500", "--fts-only", "--json"};
  for (int i = 0; i < 20; ++i) many.push_back("MFU " + std::to_string(i));
  RunResult wide = Umwelt(many);
  EXPECT_EQ(wide.code, 0) << wide.err;
  // Bad input: one message naming what is wrong, exit 2.
  RunResult bad = Umwelt({"--corpus", db, "context", "x", "--max-chars", "10"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("max_chars"), std::string::npos) << bad.err;
  EXPECT_EQ(Umwelt({"--corpus", db, "context"}).code, 2);
  // `run` takes PROJECT/RUN as the reference client does, and shows config and summary.
  RunResult run = Umwelt({"--corpus", db, "run", "tinylm/h100-baseline", "--json"});
  ASSERT_EQ(run.code, 0) << run.err;
  json rj = json::parse(run.out);
  EXPECT_EQ(rj["state"], "finished");
  EXPECT_EQ(rj["config"]["fsdp_prefetch"], false);
  EXPECT_EQ(rj["summary"]["mfu"], 0.312);
  RunResult text_run = Umwelt({"--corpus", db, "run", "https://wandb.ai/acme/tinylm/runs/h100-baseline"});
  ASSERT_EQ(text_run.code, 0) << text_run.err;
  EXPECT_NE(text_run.out.find("mfu = 0.312"), std::string::npos) << text_run.out;
  EXPECT_EQ(Umwelt({"--corpus", db, "run", "tinylm/nope"}).code, 1);
  // A url that is no run is named as such, whatever its host's case or anchors.
  RunResult upper = Umwelt({"--corpus", db, "run", "https://WandB.ai/acme/tinylm/runs/h100-baseline?workspace=u#x"});
  EXPECT_EQ(upper.code, 0) << upper.err;
  for (const char* bad : {"https://wandb.ai/acme/tinylm/reports/x", "https://example.com/acme/tinylm/runs/r"}) {
    RunResult r = Umwelt({"--corpus", db, "run", bad});
    EXPECT_EQ(r.code, 2) << bad;
    EXPECT_NE(r.err.find("is not a W&B run url"), std::string::npos) << r.err;
  }
}

TEST(Cli, ShowAndSearchEscapeTerminalControls) {
  testing::TempDir dir;
  std::string db = dir.File("c.db");
  json issue = {{"number", 7}, {"title", "Title \x1b[2J wiped"}, {"state", "open"},
                {"user", {{"login", "mallory"}}}, {"created_at", "2026-01-05T10:00:00Z"},
                {"updated_at", "2026-01-05T10:00:00Z"}, {"html_url", "https://github.com/acme/esc/issues/7"},
                {"body", std::string("clipboard \x1b]52;c;ZXZpbA==\x07 then \x1b[1A up, NUL \0 and the rest survives", 68)}};
  testing::WriteFile(dir.File("page.json"), json::array({issue}).dump());
  ASSERT_EQ(testing::Umwelt({"--corpus", db, "import", "github", dir.File("page.json")}).code, 0);
  for (std::vector<std::string> args : {std::vector<std::string>{"show", "https://github.com/acme/esc/issues/7"},
                                        {"search", "clipboard"}}) {
    std::vector<std::string> full = {"--corpus", db};
    full.insert(full.end(), args.begin(), args.end());
    RunResult r = testing::Umwelt(full);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << args[0];
    EXPECT_EQ(r.out.find('\x07'), std::string::npos) << args[0];
    EXPECT_NE(r.out.find("\\x1b"), std::string::npos) << args[0] << r.out;
  }
  RunResult show = testing::Umwelt({"--corpus", db, "show", "https://github.com/acme/esc/issues/7"});
  EXPECT_NE(show.out.find("and the rest survives"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("\\x00"), std::string::npos) << show.out;
  // JSON stays JSON, with the controls as escapes.
  RunResult js = testing::Umwelt({"--corpus", db, "show", "https://github.com/acme/esc/issues/7", "--json"});
  EXPECT_EQ(js.out.find('\x1b'), std::string::npos);
  EXPECT_TRUE(json::parse(js.out, nullptr, false).is_object()) << js.out;
}

}  // namespace
}  // namespace umwelt

namespace umwelt {
namespace {

// Issue 14, item 6: a long step shows its progress on a terminal (count,
// rate, a bar when the total is known) and nothing with --quiet.
TEST(Cli, IndexShowsProgressOnATerminal) {
  if (std::system("command -v script >/dev/null 2>&1") != 0) GTEST_SKIP() << "no `script` to give the CLI a terminal";
  testing::TempDir dir;
  for (const char* name : {"c.db", "q.db"}) {
    std::vector<std::string> args = {"--corpus", dir.File(name), "import", "github"};
    for (const auto& f : ExampleFiles()) args.push_back(f);
    ASSERT_EQ(Umwelt(args).code, 0);
  }
  auto run = [&](const std::string& extra) {
    std::string db = dir.File(extra.empty() ? "c.db" : "q.db");
    return testing::RunShell("env HOME=" + Quote(dir.path()) + " script -qec " +
                             Quote(std::string(UMWELT_BINARY) + " --corpus " + db + extra + " index") + " /dev/null");
  };
  RunResult shown = run("");
  ASSERT_EQ(shown.code, 0) << shown.out << shown.err;
  EXPECT_NE(shown.out.find("index prose: ["), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("/s"), std::string::npos) << shown.out;
  RunResult quiet = run(" --quiet");
  ASSERT_EQ(quiet.code, 0) << quiet.out << quiet.err;
  EXPECT_EQ(quiet.out.find("index prose: ["), std::string::npos) << quiet.out;
}

}  // namespace
}  // namespace umwelt

namespace umwelt {
namespace {

// Issue 14, item 4: a repository with no forge remote is citable: its code
// and commits get git+file:// permalinks that show, ask and the citation
// check resolve from the corpus.
class LocalClone : public testing::GitCliTest {};

TEST_F(LocalClone, ALocalCloneIsCitable) {
  InitRepo("ranker");
  std::string repo = repo_, db = dir_.File("c.db");
  Write("rank.py", "def fuse_rankings(keyword, vectors):\n    # reciprocal rank fusion, k = 60\n"
                   "    return sorted(keyword + vectors)\n");
  Commit("Fuse keyword and vector rankings with reciprocal rank fusion", "2026-11-20T10:00:00Z", "Ann");
  auto sync = Umwelt({"--corpus", db, "sync", "git", repo});
  ASSERT_EQ(sync.code, 0) << sync.err;
  // Progress with totals, done when it ends.
  EXPECT_NE(sync.err.find("sync git commits: [########################] 1/1"), std::string::npos) << sync.err;
  EXPECT_NE(sync.err.find("sync git files: [########################] 1/1"), std::string::npos) << sync.err;
  auto search = Umwelt({"--corpus", db, "search", "reciprocal rank fusion", "--json"});
  ASSERT_EQ(search.code, 0) << search.err;
  json hits = json::parse(search.out)["hits"];
  ASSERT_FALSE(hits.empty());
  std::string url = hits[0]["url"];
  EXPECT_EQ(url.rfind("git+file://", 0), 0u) << url;
  EXPECT_NE(url.find("@"), std::string::npos) << url;  // <dir>@<sha>:<path>, not a file:// path that exists nowhere
  auto show = Umwelt({"--corpus", db, "show", url});
  ASSERT_EQ(show.code, 0) << show.err;
  EXPECT_NE(show.out.find("reciprocal rank fusion"), std::string::npos) << show.out;
  // ask cites the code and the commit, and the report passes the citation check.
  std::string md = dir_.File("report.md");
  auto ask = Umwelt({"--corpus", db, "ask", "How are the keyword and vector rankings fused?", "--md", md});
  ASSERT_EQ(ask.code, 0) << ask.err;
  std::string report = testing::ReadFileOrEmpty(md);
  EXPECT_NE(report.find("git+file://"), std::string::npos) << report;
  EXPECT_EQ(report.find("holds nothing"), std::string::npos) << report;
  auto check = Umwelt({"--corpus", db, "publish", md, "--check"});
  EXPECT_EQ(check.code, 0) << check.out << check.err;
  EXPECT_EQ(check.out.find("not in the corpus"), std::string::npos) << check.out;
}

}  // namespace
}  // namespace umwelt
