// Issue 20: a merged pull request is one thread in the git history, whatever
// the merge style.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "git_cli.h"
#include "github_fake.h"
#include "test_util.h"
#include "umwelt/git.h"
#include "umwelt/github.h"
#include "umwelt/text.h"

namespace umwelt::git {
namespace {

using json = nlohmann::json;
using testing::Quote;

TEST(Landing, EveryStyleGivesItsNumberTitleAndUrl) {
  struct Case {
    const char* message;
    LandingStyle style;
    int64_t number;
    const char* title;
  };
  for (const Case& c : std::vector<Case>{
           {"Add float8 training (#1234)\n\nbody (#99)", LandingStyle::kSquash, 1234, "Add float8 training"},
           {"Revert \"Add x (#12)\" (#13)", LandingStyle::kSquash, 13, "Revert \"Add x (#12)\""},
           {"Merge pull request #310 from ann/zloss\n\nAdd z-loss to the trainer", LandingStyle::kGithub, 310,
            "Add z-loss to the trainer"},
           {"Merge pull request #77 from a/b", LandingStyle::kGithub, 77, ""},
           {"Merge pull request 'Shard the eval set' (#312) from bo/shard into main", LandingStyle::kGitea, 312,
            "Shard the eval set"},
           {"Merge branch 'cy/ckpt' into 'main'\n\nAsync checkpoints\n\nSee merge request acme/tinylm!313",
            LandingStyle::kGitlab, 313, "Async checkpoints"},
           {"Merged in dee/fix (pull request #314)\n\nFix the NaN guard\n\nApproved-by: Ann", LandingStyle::kBitbucket,
            314, "Fix the NaN guard"},
           {"Fix typo in #12 handling", LandingStyle::kNone, 0, ""},
           {"Merge branch 'main' into feat/zloss", LandingStyle::kNone, 0, ""},
       }) {
    Landing l = ParseLanding(c.message);
    EXPECT_EQ(l.style, c.style) << c.message;
    EXPECT_EQ(l.number, c.number) << c.message;
    EXPECT_EQ(l.title, c.title) << c.message;
  }
  EXPECT_EQ(PullRequestUrl("https://github.com/o/r", LandingStyle::kGithub, 5), "https://github.com/o/r/pull/5");
  EXPECT_EQ(PullRequestUrl("https://github.com/o/r", LandingStyle::kSquash, 5), "https://github.com/o/r/pull/5");
  EXPECT_EQ(PullRequestUrl("https://codeberg.org/o/r", LandingStyle::kGitea, 5), "https://codeberg.org/o/r/pulls/5");
  EXPECT_EQ(PullRequestUrl("https://gitlab.com/g/p", LandingStyle::kGitlab, 5), "https://gitlab.com/g/p/-/merge_requests/5");
  EXPECT_EQ(PullRequestUrl("https://bitbucket.org/o/r", LandingStyle::kBitbucket, 5),
            "https://bitbucket.org/o/r/pull-requests/5");
}

// A merge-style history built with the git command line, one style after
// another, on pinned dates in the week of 2026-11-16.
class MergeHistoryTest : public testing::GitCliTest {
 protected:
  void SetUp() override {
    InitRepo();
    Git("remote add origin https://github.com/acme/tinylm.git");
    Write("train.py", "step = 0\n");
    Commit("Initial trainer", "2026-11-16T09:00:00Z", "Ann");
    // PR 310: three branch commits, main merged into the branch once, then a merge commit.
    Git("checkout -q -b ann/zloss");
    Write("zloss.py", "def zloss(logits):\n    return 0\n");
    Commit("zloss", "2026-11-16T10:00:00Z", "Ann");
    Write("qwen.py", "from zloss import zloss\n");
    Commit("apply zloss to qwen", "2026-11-16T11:00:00Z", "Ann");
    Git("checkout -q main");
    Write("README.md", "# tinylm\n");
    Commit("Readme on main", "2026-11-16T12:00:00Z", "Bo");
    Git("checkout -q ann/zloss");
    Merge("main", "Merge branch 'main' into ann/zloss", "2026-11-16T13:00:00Z", "Ann");
    Write("zloss.py", "def zloss(logits):\n    return 1e-4 * (logits ** 2).mean()\n");
    Commit("claude refactor of my zloss pr", "2026-11-16T14:00:00Z", "Ann");
    Git("checkout -q main");
    Merge("ann/zloss", "Merge pull request #310 from ann/zloss\n\nAdd z-loss to the trainer", "2026-11-17T09:00:00Z",
          "Cy");
    // PR 311: squashed.
    Write("loader.py", "FAST = True\n");
    Commit("Faster loader (#311)", "2026-11-17T10:00:00Z", "Dee");
    // PR 312 (Gitea), 313 (GitLab), 314 (Bitbucket): one branch commit each.
    Branch("bo/shard", "shard.py", "Shard eval", "Merge pull request 'Shard the eval set' (#312) from bo/shard into main",
           "2026-11-18T10:00:00Z");
    Branch("cy/ckpt", "ckpt.py", "Async save",
           "Merge branch 'cy/ckpt' into 'main'\n\nAsync checkpoints\n\nSee merge request acme/tinylm!313",
           "2026-11-18T12:00:00Z");
    Branch("dee/fix", "nan.py", "Guard NaN", "Merged in dee/fix (pull request #314)\n\nFix the NaN guard",
           "2026-11-18T14:00:00Z");
    // PR 315: an octopus merge of two branches.
    Git("checkout -q -b x/one");
    Write("one.py", "ONE = 1\n");
    Commit("one", "2026-11-19T09:00:00Z", "Eve");
    Git("checkout -q main");
    Git("checkout -q -b x/two");
    Write("two.py", "TWO = 2\n");
    Commit("two", "2026-11-19T09:30:00Z", "Eve");
    Git("checkout -q main");
    Merge("x/one x/two", "Merge pull request #315 from eve/multi\n\nTwo small modules", "2026-11-19T10:00:00Z", "Eve");
    // Not through a pull request.
    Write("train.py", "step = 1\n");
    Commit("Bump the step", "2026-11-19T11:00:00Z", "Ann");
    auto c = Corpus::Open(dir_.File("c.db"), Corpus::Mode::kReadWrite);
    ASSERT_TRUE(c.ok());
    corpus_ = std::move(c).value();
  }
  void Branch(const std::string& name, const std::string& file, const std::string& commit, const std::string& merge,
              const std::string& date) {
    Git("checkout -q -b " + name);
    Write(file, "x = 1\n");
    Commit(commit, date, "Bo");
    Git("checkout -q main");
    Merge(name, merge, date, "Bo");
  }
  std::vector<std::string> Subjects(const std::string& thread) {
    std::vector<std::string> out;
    auto chunks = corpus_->ThreadChunks(thread);
    EXPECT_TRUE(chunks.ok());
    for (const auto& c : *chunks) out.push_back(c.title);
    return out;
  }

};

TEST_F(MergeHistoryTest, EachPullRequestIsOneThreadWhateverTheMergeStyle) {
  SyncReport r = Sync();
  EXPECT_EQ(r.pull_requests, 6);
  // The merge-commit PR: its branch commits in order (main's commit that was
  // merged into the branch is not one of them), the merge last.
  EXPECT_EQ(Subjects("acme/tinylm#310"),
            (std::vector<std::string>{"zloss", "apply zloss to qwen", "Merge branch 'main' into ann/zloss",
                                      "claude refactor of my zloss pr", "Merge pull request #310 from ann/zloss"}));
  auto pr = corpus_->GetThread("acme/tinylm#310");
  ASSERT_TRUE(pr.ok() && *pr);
  EXPECT_EQ((*pr)->kind, "pr");
  EXPECT_EQ((*pr)->state, "merged");
  EXPECT_EQ((*pr)->title, "Add z-loss to the trainer");
  EXPECT_EQ((*pr)->url, "https://github.com/acme/tinylm/pull/310");
  EXPECT_EQ((*pr)->merged, "2026-11-17T09:00:00Z");
  EXPECT_NE((*pr)->description.find("5 commit(s) by Ann, Cy"), std::string::npos) << (*pr)->description;
  EXPECT_NE((*pr)->description.find("2 file(s), +"), std::string::npos) << (*pr)->description;
  auto merge = corpus_->ChunkByRef("acme/tinylm/commit/" + Sha("main~6"));
  ASSERT_TRUE(merge.ok() && *merge);
  EXPECT_EQ((*merge)->title, "Merge pull request #310 from ann/zloss");
  EXPECT_NE((*merge)->text.find("Changed: 2 file(s)"), std::string::npos) << (*merge)->text;
  // The size also travels as facts, for readers that must not parse text.
  auto merge_size = ChangeOf((*merge)->facts);
  ASSERT_TRUE(merge_size.has_value()) << (*merge)->facts;
  EXPECT_EQ(merge_size->files, 2);
  auto pr_size = ChangeOf((*pr)->facts);
  ASSERT_TRUE(pr_size.has_value()) << (*pr)->facts;
  EXPECT_EQ(pr_size->added, merge_size->added);
  EXPECT_EQ(ChangeOf((*corpus_->ChunkByRef("acme/tinylm/commit/" + Sha("main~6^2")))->facts), std::nullopt);  // inside the PR
  EXPECT_FALSE(*corpus_->GetThread("acme/tinylm/commit/" + Sha("main~6")));  // no thread of its own
  EXPECT_EQ(Subjects("acme/tinylm/commit/" + Sha("main~6^1")), std::vector<std::string>{"Readme on main"});

  // The other styles, each with its forge's url shape and its title.
  EXPECT_EQ(Subjects("acme/tinylm#311"), std::vector<std::string>{"Faster loader (#311)"});
  EXPECT_EQ((*corpus_->GetThread("acme/tinylm#311"))->title, "Faster loader");
  EXPECT_EQ((*corpus_->GetThread("acme/tinylm#312"))->url, "https://github.com/acme/tinylm/pulls/312");
  EXPECT_EQ((*corpus_->GetThread("acme/tinylm#312"))->title, "Shard the eval set");
  EXPECT_EQ((*corpus_->GetThread("acme/tinylm#313"))->url, "https://github.com/acme/tinylm/-/merge_requests/313");
  EXPECT_EQ((*corpus_->GetThread("acme/tinylm#313"))->title, "Async checkpoints");
  EXPECT_EQ((*corpus_->GetThread("acme/tinylm#314"))->url, "https://github.com/acme/tinylm/pull-requests/314");
  EXPECT_EQ(Subjects("acme/tinylm#314").size(), 2u);
  EXPECT_EQ(Subjects("acme/tinylm#315"),
            (std::vector<std::string>{"one", "two", "Merge pull request #315 from eve/multi"}));
  // A commit not landed through a PR stays its own thread.
  EXPECT_TRUE(*corpus_->GetThread("acme/tinylm/commit/" + Sha("main")));

  // `show` on the PR's url reads the whole PR.
  auto v = ViewThread(*corpus_, "https://github.com/acme/tinylm/pull/310", 10);
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(v->chunks.size(), 5u);
  EXPECT_EQ(v->thread->title, "Add z-loss to the trainer");
}

TEST_F(MergeHistoryTest, IncrementalMergesAndForcePushesKeepThreadsRight) {
  Sync();
  Git("checkout -q -b fay/lr");
  Write("lr.py", "LR = 3e-4\n");
  Commit("lower the lr", "2026-11-20T09:00:00Z", "Fay");
  Write("lr.py", "LR = 2e-4\n");
  Commit("lower it more", "2026-11-20T10:00:00Z", "Fay");
  Git("checkout -q main");
  Merge("fay/lr", "Merge pull request #316 from fay/lr\n\nLower the learning rate", "2026-11-20T11:00:00Z", "Fay");
  SyncReport r = Sync();
  EXPECT_EQ(r.commits, 3);
  EXPECT_EQ(r.pull_requests, 1);
  EXPECT_EQ(Subjects("acme/tinylm#316"),
            (std::vector<std::string>{"lower the lr", "lower it more", "Merge pull request #316 from fay/lr"}));
  // A force-push that drops the merge drops the PR's thread with it.
  Git("reset -q --hard HEAD~1");
  r = Sync();
  EXPECT_EQ(r.commits_removed, 3);
  EXPECT_TRUE(Subjects("acme/tinylm#316").empty());
  EXPECT_FALSE(*corpus_->GetThread("acme/tinylm#316"));
  EXPECT_EQ(Subjects("acme/tinylm#310").size(), 5u);  // the others stay
}

TEST_F(MergeHistoryTest, AMirroredPullRequestKeepsItsRowAndGainsItsCommits) {
  {
    auto b = corpus_->BeginWrite();
    ASSERT_TRUE(b.ok());
    Thread t;
    t.ref = "acme/tinylm#310";
    t.source = "github";
    t.kind = "pr";
    t.state = "merged";
    t.title = "Z-loss (from GitHub)";
    t.url = "https://github.com/acme/tinylm/pull/310";
    ASSERT_TRUE((*b)->PutThread(t).ok());
    Chunk c;
    c.source = "github";
    c.kind = "pr";
    c.ref = c.parent = t.ref;
    c.title = t.title;
    c.url = t.url;
    c.date = "2026-11-16T08:00:00Z";
    c.text = "Adds z-loss; see the discussion.";
    ASSERT_TRUE((*b)->PutRecord({c}).ok());
    ASSERT_TRUE((*b)->Commit().ok());
  }
  Sync();
  auto v = ViewThread(*corpus_, "https://github.com/acme/tinylm/pull/310", 10);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->thread->source, "github");
  EXPECT_EQ(v->thread->title, "Z-loss (from GitHub)");
  ASSERT_EQ(v->chunks.size(), 6u);  // the PR's body and the five commits that landed it
  EXPECT_EQ(v->chunks[0].source, "github");
}

TEST_F(MergeHistoryTest, CliShowsOnePrThreadSearchesItOnceAndDigestsItOnce) {
  std::string db = dir_.File("cli.db");
  auto sync = testing::Umwelt({"--corpus", db, "sync", "git", repo_});
  ASSERT_EQ(sync.code, 0) << sync.err;
  EXPECT_NE(sync.out.find("(6 pull requests landed"), std::string::npos) << sync.out;
  auto show = testing::Umwelt({"--corpus", db, "show", "https://github.com/acme/tinylm/pull/310"});
  ASSERT_EQ(show.code, 0) << show.err;
  EXPECT_NE(show.out.find("acme/tinylm#310 — Add z-loss to the trainer"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("5 chunks"), std::string::npos) << show.out;
  // A search for the feature: one hit for the PR, not one per commit.
  auto search = testing::Umwelt({"--corpus", db, "search", "zloss", "--json", "--fts-only"});
  ASSERT_EQ(search.code, 0) << search.err;
  json hits = json::parse(search.out)["hits"];
  int git_hits = 0;
  for (const auto& h : hits) git_hits += h["source"] == "git";
  EXPECT_EQ(git_hits, 1) << search.out;
  // The week's digest names PR 310 once, with its size.
  std::string site = dir_.File("site");
  auto digest = testing::Umwelt({"--corpus", db, "digest", "--week", "2026-11-16", "--out", site});
  ASSERT_EQ(digest.code, 0) << digest.err;
  std::string m = testing::ReadFileOrEmpty(site + "/summaries/summary-2026-11-16_2026-11-22.md");
  ASSERT_FALSE(m.empty());
  size_t first = m.find("pull/310) Add z-loss to the trainer — Ann, +3 −0 in 2 files");
  ASSERT_NE(first, std::string::npos) << m;
  EXPECT_EQ(m.find("pull/310)", first + 1), std::string::npos) << m;
  EXPECT_EQ(m.find("claude refactor of my zloss pr"), m.rfind("claude refactor of my zloss pr")) << m;
  // ask cites the PR by its landing commit, under the PR's title; a branch
  // commit is never the citation.
  std::string md = dir_.File("zloss.md");
  auto ask = testing::Umwelt({"--corpus", db, "ask", "What did the zloss change do?", "--md", md});
  ASSERT_EQ(ask.code, 0) << ask.err;
  std::string report = testing::ReadFileOrEmpty(md);
  EXPECT_NE(report.find("/commit/" + Sha("main~6")), std::string::npos) << report;
  for (const char* branch : {"main~6^2", "main~6^2~1", "main~6^2~2"}) {
    EXPECT_EQ(report.find("/commit/" + Sha(branch)), std::string::npos) << branch << "\n" << report;
  }
}

// A rebase merge leaves no trace in the history: the GitHub source's list
// of the PR's commits joins them, whichever source syncs first.
TEST_F(MergeHistoryTest, RebaseMergedCommitsJoinTheirPrThroughTheApi) {
  std::string bump = Sha("main");
  auto github_sync = [&](Corpus& corpus, testing::GithubFake& fake) {
    auto http = NewCurlHttpClient();
    github::SyncOptions o;
    o.repo = "acme/tinylm";
    o.api_base = fake.base();
    o.sleep = [](double) {};
    github::SyncReport r;
    Status s = github::Sync(corpus, *http, o, &r);
    EXPECT_TRUE(s.ok()) << s.message();
  };
  testing::GithubFake fake("acme/tinylm");
  fake.PutIssue(320, "Bump the step, rebased.", "2026-11-19T12:00:00Z", true);
  fake.MergePr(320, {bump}, "2026-11-19T12:00:00Z");
  // git first, then GitHub: the mirrored commit moves into the PR.
  Sync();
  EXPECT_TRUE(*corpus_->GetThread("acme/tinylm/commit/" + bump));
  github_sync(*corpus_, fake);
  EXPECT_FALSE(*corpus_->GetThread("acme/tinylm/commit/" + bump));
  auto v = ViewThread(*corpus_, "https://github.com/acme/tinylm/pull/320", 10);
  ASSERT_TRUE(v.ok()) << v.status().message();
  ASSERT_EQ(v->chunks.size(), 2u);  // the PR's body, then the commit
  EXPECT_EQ(v->chunks[1].ref, "acme/tinylm/commit/" + bump);
  EXPECT_EQ(Subjects("acme/tinylm#315").size(), 3u);  // a merge-commit PR keeps its own
  // GitHub first, then git: the commit lands in the PR as it is written.
  testing::TempDir other;
  auto second = std::move(Corpus::Open(other.File("c.db"), Corpus::Mode::kReadWrite)).value();
  github_sync(*second, fake);
  SyncOptions o;
  o.path = repo_;
  SyncReport r;
  ASSERT_TRUE(git::Sync(*second, o, &r).ok());
  auto chunk = second->ChunkByRef("acme/tinylm/commit/" + bump);
  ASSERT_TRUE(chunk.ok() && *chunk);
  EXPECT_EQ((*chunk)->parent, "acme/tinylm#320");
  EXPECT_FALSE(*second->GetThread("acme/tinylm/commit/" + bump));
  EXPECT_EQ((*second->GetThread("acme/tinylm#320"))->source, "github");
}

TEST(GitShow, AnUnmirroredPullRequestNamedByCommitsListsThem) {
  testing::TempDir dir;
  auto corpus = std::move(Corpus::Open(dir.File("c.db"), Corpus::Mode::kReadWrite)).value();
  auto b = corpus->BeginWrite();
  ASSERT_TRUE(b.ok());
  Chunk c;
  c.source = "git";
  c.kind = "commit";
  c.ref = c.parent = "acme/tinylm/commit/abc";
  c.title = "Follow-up to the loader";
  c.url = "https://github.com/acme/tinylm/commit/abc";
  c.date = "2026-11-20T00:00:00Z";
  c.text = "Follow-up to the loader, see #1373.";
  ASSERT_TRUE((*b)->PutRecord({c}).ok());
  ASSERT_TRUE((*b)->PutLinks(c.ref, FindLinks(c.ref, c.text, "acme/tinylm")).ok());
  ASSERT_TRUE((*b)->Commit().ok());
  auto v = ViewThread(*corpus, "https://github.com/acme/tinylm/pull/1373", 10);
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_TRUE(v->named_only);
  ASSERT_EQ(v->chunks.size(), 1u);
  EXPECT_EQ(v->chunks[0].ref, c.ref);
  EXPECT_FALSE(ViewThread(*corpus, "https://github.com/acme/tinylm/pull/9999", 10).ok());
}

// A commit's permalink with its sha abbreviated to 7 or more hex digits, as
// GitHub takes them and as people paste them, shows that commit; one that
// names two commits says so, and one of under 7 digits names none.
TEST(GitShow, ACommitPermalinkWithItsShaAbbreviatedShowsThatCommit) {
  testing::TempDir dir;
  auto corpus = std::move(Corpus::Open(dir.File("c.db"), Corpus::Mode::kReadWrite)).value();
  auto b = corpus->BeginWrite();
  ASSERT_TRUE(b.ok());
  const std::string shas[] = {"ec40afc523fc71da45e463d5a868ee7895af5b67",
                              "1234567aaa0000000000000000000000000000aa",
                              "1234567bbb0000000000000000000000000000bb"};
  for (const auto& sha : shas) {
    Chunk c;
    c.source = "git";
    c.kind = "commit";
    c.ref = c.parent = "acme/tinylm/commit/" + sha;
    c.title = "Commit " + sha.substr(0, 10);
    c.url = "https://github.com/acme/tinylm/commit/" + sha;
    c.date = "2026-11-20T00:00:00Z";
    c.text = c.title;
    ASSERT_TRUE((*b)->PutRecord({c}).ok());
    Thread t;
    t.ref = c.ref;
    t.source = "git";
    t.kind = "commit";
    t.title = c.title;
    t.url = c.url;
    ASSERT_TRUE((*b)->PutThread(t).ok());
  }
  ASSERT_TRUE((*b)->Commit().ok());
  for (const char* abbreviated : {"ec40afc", "ec40afc523fc"}) {
    auto v = ViewThread(*corpus, std::string("https://github.com/acme/tinylm/commit/") + abbreviated, 10);
    ASSERT_TRUE(v.ok()) << abbreviated << ": " << v.status().message();
    EXPECT_EQ(v->thread_ref, "acme/tinylm/commit/" + shas[0]);
    ASSERT_FALSE(v->chunks.empty());
    EXPECT_EQ(v->chunks[0].title, "Commit ec40afc523");
  }
  auto both = ViewThread(*corpus, "https://github.com/acme/tinylm/commit/1234567", 10);
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.status().message().find("names more than one commit"), std::string::npos)
      << both.status().message();
  auto one = ViewThread(*corpus, "https://github.com/acme/tinylm/commit/1234567b", 10);
  ASSERT_TRUE(one.ok()) << one.status().message();
  EXPECT_EQ(one->thread_ref, "acme/tinylm/commit/" + shas[2]);
  EXPECT_FALSE(ViewThread(*corpus, "https://github.com/acme/tinylm/commit/ec40af", 10).ok());
  EXPECT_FALSE(ViewThread(*corpus, "https://github.com/acme/tinylm/commit/ec40afd", 10).ok());
}

}  // namespace
}  // namespace umwelt::git

namespace umwelt::git {
namespace {

// Issue 14, item 4: every forge's remote, in every form git writes it,
// gives permalinks in that forge's own shapes.
TEST(Forges, RemotesInEveryFormGivePermalinksInTheForgesShapes) {
  struct Case {
    const char* remote;
    const char* kind;
    const char* name;
    const char* commit;
    const char* blob;
  };
  for (const Case& c : std::vector<Case>{
           {"https://github.com/acme/tinylm.git", "github", "acme/tinylm", "https://github.com/acme/tinylm/commit/abc",
            "https://github.com/acme/tinylm/blob/abc/src/x.py#L1-L60"},
           {"git@github.com:acme/tinylm.git", "github", "acme/tinylm", "https://github.com/acme/tinylm/commit/abc",
            "https://github.com/acme/tinylm/blob/abc/src/x.py#L1-L60"},
           {"ssh://git@github.example.com:2222/acme/tinylm", "github", "acme/tinylm",
            "https://github.example.com/acme/tinylm/commit/abc",
            "https://github.example.com/acme/tinylm/blob/abc/src/x.py#L1-L60"},
           {"https://gitlab.com/group/sub/project.git", "gitlab", "gitlab.com/group/sub/project",
            "https://gitlab.com/group/sub/project/-/commit/abc",
            "https://gitlab.com/group/sub/project/-/blob/abc/src/x.py#L1-60"},
           {"git@codeberg.org:acme/tinylm.git", "gitea", "codeberg.org/acme/tinylm",
            "https://codeberg.org/acme/tinylm/commit/abc",
            "https://codeberg.org/acme/tinylm/src/commit/abc/src/x.py#L1-L60"},
           {"https://user@bitbucket.org/acme/tinylm.git", "bitbucket", "bitbucket.org/acme/tinylm",
            "https://bitbucket.org/acme/tinylm/commits/abc", "https://bitbucket.org/acme/tinylm/src/abc/src/x.py#lines-1:60"},
       }) {
    Forge f = ParseRemote(c.remote);
    EXPECT_EQ(f.kind, c.kind) << c.remote;
    EXPECT_EQ(f.name, c.name) << c.remote;
    EXPECT_EQ(CommitUrl(f, "abc"), c.commit) << c.remote;
    EXPECT_EQ(BlobUrl(f, "abc", "src/x.py", 1, 60), c.blob) << c.remote;
  }
  EXPECT_EQ(ParseRemote("https://git.example.org/team/proj.git", "gitlab").kind, "gitlab");  // --forge
  EXPECT_EQ(TreeUrl(ParseRemote("https://gitlab.com/g/p"), "feat"), "https://gitlab.com/g/p/-/tree/feat");
  EXPECT_TRUE(ParseRemote("/srv/git/tinylm.git").kind.empty());
  EXPECT_TRUE(ParseRemote("").kind.empty());
}

}  // namespace
// Issue 16: a commit-heavy week is summarized by the areas of the code its
// changes touch, each section listing what landed biggest first with its
// size, and the XS naming the biggest changes; no file list, diff stat or
// command is quoted as a statement.
class AreaWeekTest : public testing::GitCliTest {};

TEST_F(AreaWeekTest, ACommitHeavyWeekIsWrittenByAreaWithWhatLanded) {
  InitRepo("tinylm");
  Git("remote add origin https://github.com/acme/tinylm.git");
  Write("README.md", "tiny\n");
  Commit("Initial commit", "2026-11-09T10:00:00Z", "Ann");
  std::string big;
  for (int i = 0; i < 120; ++i) big += "line " + std::to_string(i) + "\n";
  Write("src/tinylm/models/llama.py", big);
  Write("tests/test_llama.py", "def test(): pass\n");
  Commit("Add the Llama model (#21)", "2026-11-16T10:00:00Z", "Ann");
  Write("src/tinylm/models/rope.py", "rope = 1\n");
  Commit("Fix rotary embeddings for long contexts", "2026-11-17T10:00:00Z", "Bo");
  Write("src/tinylm/data/loader.py", big + big);
  Commit("Stream shards from the cache (#22)", "2026-11-18T10:00:00Z", "Cy");
  Write("src/tinylm/data/mixture.py", "weights = {}\n");
  Commit("fix(data): mixture weights sum to one", "2026-11-19T10:00:00Z", "Cy");
  Write("src/tinylm/data/shuffle.py", "seed = 0\n");
  Commit("./run_train.sh --training.steps=100 --training.compile", "2026-11-19T11:00:00Z", "Cy");
  std::string db = dir_.File("c.db");
  auto sync = testing::Umwelt({"--corpus", db, "sync", "git", repo_});
  ASSERT_EQ(sync.code, 0) << sync.err;
  std::string site = dir_.File("site");
  auto digest = testing::Umwelt({"--corpus", db, "digest", "--week", "2026-11-16", "--out", site, "--no-store"});
  ASSERT_EQ(digest.code, 0) << digest.err;
  std::string m = testing::ReadFileOrEmpty(site + "/summaries/summary-2026-11-16_2026-11-22.md");
  ASSERT_NE(m.find("## Data"), std::string::npos) << m;
  ASSERT_NE(m.find("## Models"), std::string::npos) << m;
  EXPECT_EQ(m.find("## Add the Llama model"), std::string::npos) << m;  // never one change's title
  // Biggest first, with sizes: #22 (+240) before the fix(data) commit.
  size_t data = m.find("## Data");
  size_t pr22 = m.find("pull/22) Stream shards from the cache — Cy, +240 −0 in 1 file", data);
  size_t fix = m.find("mixture weights sum to one — Cy, +1 −0", data);
  ASSERT_NE(pr22, std::string::npos) << m;
  ASSERT_NE(fix, std::string::npos) << m;
  EXPECT_LT(pr22, fix);
  for (const char* junk : {"> Files:", "> Changed:", "> ./run_train.sh"}) EXPECT_EQ(m.find(junk), std::string::npos) << junk;
  std::string xs = testing::ReadFileOrEmpty(site + "/summaries/summary-2026-11-16_2026-11-22.xs.md");
  EXPECT_NE(xs.find("Stream shards from the cache (#22, +240"), std::string::npos) << xs;
  EXPECT_NE(xs.find("Add the Llama model (#21, +121"), std::string::npos) << xs;
  EXPECT_LE(xs.size(), 281u);
  auto check = testing::Umwelt({"--corpus", db, "publish", "--check", "--strict", site + "/summaries/summary-2026-11-16_2026-11-22.md"});
  EXPECT_EQ(check.code, 0) << check.out << check.err;
}

// Importance is size, discussion and references: a change the week's other
// changes build on leads the XS over a bigger one nobody referenced.
TEST_F(AreaWeekTest, AChangeOthersReferenceLeadsTheTopChanges) {
  InitRepo("tinylm");
  Git("remote add origin https://github.com/acme/tinylm.git");
  Write("README.md", "tiny\n");
  Commit("Initial commit", "2026-11-09T10:00:00Z", "Ann");
  auto lines = [](int n) {
    std::string out;
    for (int i = 0; i < n; ++i) out += "line " + std::to_string(i) + "\n";
    return out;
  };
  Write("src/tinylm/models/llama.py", lines(60));
  Commit("Add the Llama model (#21)", "2026-11-16T10:00:00Z", "Ann");
  Write("src/tinylm/data/loader.py", lines(300));
  Commit("Stream shards from the cache (#22)", "2026-11-17T10:00:00Z", "Cy");
  Write("src/tinylm/models/llama_rope.py", lines(10));
  Commit("Long-context rope for Llama (#23)\n\nBuilds on #21.", "2026-11-18T10:00:00Z", "Bo");
  Write("src/tinylm/models/llama_eval.py", lines(10));
  Commit("Evaluate Llama checkpoints (#24)\n\nUses the model from #21.", "2026-11-19T10:00:00Z", "Di");
  std::string db = dir_.File("c.db");
  auto sync = testing::Umwelt({"--corpus", db, "sync", "git", repo_});
  ASSERT_EQ(sync.code, 0) << sync.err;
  std::string site = dir_.File("site");
  std::string trace = dir_.File("trace.json");
  auto digest = testing::Umwelt({"--corpus", db, "digest", "--week", "2026-11-16", "--out", site, "--no-store", "--trace", trace});
  ASSERT_EQ(digest.code, 0) << digest.err;
  std::string xs = testing::ReadFileOrEmpty(site + "/summaries/summary-2026-11-16_2026-11-22.xs.md");
  size_t pr21 = xs.find("Add the Llama model (#21");
  size_t pr22 = xs.find("Stream shards from the cache (#22");
  ASSERT_NE(pr21, std::string::npos) << xs;
  ASSERT_NE(pr22, std::string::npos) << xs;
  EXPECT_LT(pr21, pr22) << xs;  // +60 referenced twice before +300 referenced never
  EXPECT_NE(testing::ReadFileOrEmpty(trace).find("\"links\": 2"), std::string::npos);  // #23 and #24 build on #21
}

}  // namespace umwelt::git
