// Issue 38: the weekly summary reads as a person's — areas a person would
// name, the changes that mattered, whole sentences, measures with their
// quantity, no credit links.
#include <gtest/gtest.h>

#include "digest/digest_internal.h"
#include "git_cli.h"
#include "umwelt/claims.h"
#include "umwelt/digest.h"
#include "umwelt/text.h"

namespace umwelt {
namespace {

namespace di = digest_internal;

TEST(DigestAreas, TagsNameAreasAndNoiseNamesNone) {
  auto keys = [](const std::string& title) {
    std::string out;
    for (const auto& t : di::TitleTags(title, "pytorch/torchtitan")) out += (out.empty() ? "" : ",") + t.key;
    return out;
  };
  EXPECT_EQ(keys("[ez] [rl] fix deprecation warning"), "rl");
  EXPECT_EQ(keys("[torchtitan][resubmit] experimenting new replicate"), "");
  EXPECT_EQ(keys("[RFC] Merge simple_fsdp and compiler_toolkit"), "");
  EXPECT_EQ(keys("[Qwen3][GPT-OSS][DSV3] Enable FlexAttention"), "qwen3,gpt_oss,dsv3");
  EXPECT_EQ(keys("[1/n] [WIP] [Reland] [nit] Split the loader"), "");
  EXPECT_EQ(keys("fix(ckpt): async save"), "ckpt");
  EXPECT_EQ(keys("fix: a typo"), "");
  EXPECT_EQ(keys("docs: the README"), "docs");
  EXPECT_EQ(di::AreaKey("[Simple-FSDP]"), "simple_fsdp");
  EXPECT_EQ(di::AreaKey("RL"), di::AreaKey("rl"));
}

TEST(DigestAreas, PathsNameTheProjectInsideAFolderOfProjectsAndToolsByWhatTheyHold) {
  EXPECT_EQ(di::AreaOfPath("torchtitan/experiments/graph_trainer/passes.py", "torchtitan"), "graph_trainer");
  EXPECT_EQ(di::AreaOfPath("torchtitan/experiments/README.md", "torchtitan"), "experiments");
  EXPECT_EQ(di::AreaOfPath("src/levanter/models/llama.py", "levanter"), "models");
  EXPECT_EQ(di::AreaOfPath("lm_eval/models/vllm.py", "lm-evaluation-harness"), "models");
  EXPECT_EQ(di::AreaOfPath(".claude/rules/naming.md", "torchtitan"), "agents");
  EXPECT_EQ(di::AreaOfPath("CLAUDE.md", "torchtitan"), "agents");
  EXPECT_EQ(di::AreaOfPath(".github/workflows/ci.yaml", "x"), "ci");
  EXPECT_EQ(di::AreaOfPath(".ci/docker/build.sh", "x"), "ci");
  EXPECT_EQ(di::AreaOfPath("README.md", "x"), "docs");
  EXPECT_EQ(di::AreaOfPath("pyproject.toml", "x"), "packaging");
  EXPECT_EQ(di::AreaOfPath("LICENSE", "x"), "");
  EXPECT_TRUE(di::GeneratedPath("uv.lock"));
  EXPECT_TRUE(di::GeneratedPath("third_party/cutlass/x.h"));
  EXPECT_TRUE(di::GeneratedPath("proto/api_pb2.py"));
  EXPECT_FALSE(di::GeneratedPath("src/lock.py"));
}

TEST(DigestAreas, HeadingsUseTheProjectsSpellingOrUpperCaseAcronyms) {
  EXPECT_EQ(di::AreaName("rl", {"rl", "RL", "RL"}), "RL");
  EXPECT_EQ(di::AreaName("hybridep", {"HybridEP"}), "HybridEP");
  EXPECT_EQ(di::AreaName("simple_fsdp", {"simple_fsdp"}), "Simple FSDP");
  EXPECT_EQ(di::AreaName("graph_trainer", {"graph_trainer"}), "Graph trainer");
  EXPECT_EQ(di::AreaName("ci", {}), "CI");
  EXPECT_EQ(di::AreaName("agents", {".claude"}), "Agent instructions (.claude)");
  EXPECT_EQ(di::AreaName("models", {}), "Models");
}

TEST(DigestWriting, TitlesAreShortenedAtWordsNeverInside) {
  std::string t = "[graph_trainer] Validate full_inductor_compilation pass ordering for models with side effects (#2548)";
  EXPECT_EQ(di::ShortTitle(t, 200), "Validate full_inductor_compilation pass ordering for models with side effects");
  std::string cut = di::ShortTitle(t, 40);
  EXPECT_LE(cut.size(), 40u);
  EXPECT_EQ(cut, "Validate full_inductor_compilation…");
  EXPECT_EQ(di::ShortTitle("[x] (#3)", 50), "[x] (#3)") << "nothing but tags: the title as it is";
  // One word longer than the room is kept whole rather than cut.
  EXPECT_EQ(di::ShortTitle("schedule_overlap_bucketing_from_inductor_configs", 20),
            "schedule_overlap_bucketing_from_inductor_configs");
  EXPECT_EQ(di::ShortTitle("[Module] Add Linear (#2527)", 80, false), "[Module] Add Linear");
}

TEST(DigestWriting, QuotesAreWholeSentencesThatSayMoreThanTheTitle) {
  std::string message =
      "Fix inductor_decomposition_pass input mismatch (#2546)\n\n"
      "This caused \"Input count mismatch: 432 inputs vs 440\n"
      "placeholders\" on DeepSeek-V3.\n\n"
      "It is hard to do the remaining changes, 1) state initialization and 2)\n";
  std::vector<std::string> s = research::ProseSentences(message);
  ASSERT_GE(s.size(), 2u);
  EXPECT_EQ(s[1], "This caused \"Input count mismatch: 432 inputs vs 440 placeholders\" on DeepSeek-V3.");
  EXPECT_TRUE(di::WholeSentence(s[1]));
  EXPECT_FALSE(di::WholeSentence("It is hard to do the remaining changes, 1) state initialization and 2)"));
  EXPECT_FALSE(di::WholeSentence("Previous: 2 separate converters (linear, grouped_mm)"));
  EXPECT_FALSE(di::WholeSentence("Tested with DSv3 16B, 8xH100:"));
  EXPECT_TRUE(di::RepeatsTitle("Fix inductor_decomposition_pass input mismatch (#2546)", "Fix inductor_decomposition_pass input mismatch (#2546)"));
  EXPECT_TRUE(di::RepeatsTitle("Add missing top_p to SamplingParams().", "Add missing top_p to SamplingParams() (fixes #2537)"));
  EXPECT_FALSE(di::RepeatsTitle(s[1], "Fix inductor_decomposition_pass input mismatch (#2546)"));
  EXPECT_TRUE(di::SaysSomething("We decided to keep the old loader for one more release."));
  EXPECT_TRUE(di::SaysSomething("This reduces peak memory on 8 GPUs."));
  EXPECT_FALSE(di::SaysSomething("Add the config for the new model."));
}

TEST(DigestWriting, MeasuresCarryTheirQuantity) {
  std::vector<std::string> m = di::Measures("no AC: memory: 49.65GiB(52.27%) tps: 4,878 tflops: 282.50 mfu: 28.56%");
  ASSERT_FALSE(m.empty());
  EXPECT_EQ(m[0], "memory 49.65GiB");
  EXPECT_NE(std::find(m.begin(), m.end(), "tps 4,878"), m.end());
  EXPECT_EQ(di::Measures("MFU went to 38.5% on v5p.")[0], "MFU 38.5%");
  EXPECT_EQ(di::Measures("Throughput of 451k tokens/s after the change.")[0], "Throughput 451k tokens/s");
  // Counts of setup and versions are no measures.
  EXPECT_TRUE(di::Measures("Training results (CP=2, compile, 100 steps, 8 GPUs):").empty());
  EXPECT_TRUE(di::Measures("FSDP+TP+PP+compile with torchcomms (8 GPU).").empty());
  EXPECT_TRUE(di::Measures("Bumps torch to version 2.5.1.").empty());
  EXPECT_EQ(di::Measures("Loss: 2,410, then 2.2.")[0], "Loss 2,410") << "no trailing comma";
  EXPECT_TRUE(di::Measures("Llama3-8B FSDP=4, TP=2, EP=8.").empty()) << "settings are no measures";
}

TEST(DigestWriting, CreditsAndBoilerplateAreNotReading) {
  EXPECT_TRUE(di::Attribution("\xF0\x9F\xA4\x96 Generated with [Claude Code](https://claude.com/claude-code)"));
  EXPECT_TRUE(di::Attribution("Co-authored-by: Someone <a@b.c>"));
  EXPECT_FALSE(di::Attribution("Design doc: https://docs.example.org/d/1"));
  EXPECT_TRUE(di::BoilerplateLink("https://img.shields.io/badge/x-y-green"));
  EXPECT_TRUE(di::BoilerplateLink("https://github.com/o/r/blob/main/LICENSE"));
  EXPECT_TRUE(di::BoilerplateLink("https://www.contributor-covenant.org/version/2/1/code_of_conduct/"));
  EXPECT_FALSE(di::BoilerplateLink("https://arxiv.org/abs/2309.06180"));
}

// A squash-merged week built with git: tags and folders meet in one area
// each, noise tags and the project's name name none, a lone change joins
// the area its files are in, the largest change is never in "Other", and
// nothing said is a title again or a credit link.
class DigestWeekTest : public testing::GitCliTest {
 protected:
  void SetUp() override {
    InitRepo("tinylm");
    Git("remote add origin https://github.com/acme/tinylm.git");
    Write("tinylm/train.py", "step = 0\n");
    Commit("Initial trainer", "2026-11-09T09:00:00Z", "Ann");
    auto land = [&](const std::string& file, int lines, const std::string& message, const std::string& date,
                    const std::string& who) {
      std::string body;
      for (int i = 0; i < lines; ++i) body += "x" + std::to_string(i) + " = " + std::to_string(i) + "\n";
      Write(file, body);
      Commit(message, date, who);
    };
    land("tinylm/experiments/rl/episode.py", 40, "[rl] Refactor episodes (#10)\n\nEpisodes are one completion now, which removes the flattening in three places.", "2026-11-16T09:00:00Z", "Ann");
    land("tinylm/experiments/rl/config.py", 12, "[RL] Add a 1.7B config (#11)", "2026-11-16T10:00:00Z", "Bo");
    land("tinylm/experiments/rl/ckpt.py", 6, "[ez] [rl] fix a deprecation warning (#12)", "2026-11-16T11:00:00Z", "Cy");
    land("tinylm/experiments/graph/passes.py", 300,
         "[tinylm][resubmit] [RFC] Merge the graph experiments into one (#13)\n\n"
         "This merges the two graph experiments into a single graph trainer so users control the compiler stack.\n\n"
         "\xF0\x9F\xA4\x96 Generated with [Claude Code](https://claude.com/claude-code)",
         "2026-11-17T09:00:00Z", "Dee");
    land("tinylm/experiments/graph/sac.py", 30, "[graph] Graph-based SAC with a default policy (#14)\n\nno AC: mfu: 28.56% tflops: 282.50 on 8 GPUs.", "2026-11-17T10:00:00Z", "Dee");
    land("tinylm/distributed/hybrid.py", 20, "[HybridEP] Support hybrid EP on NVL72 (#15)", "2026-11-18T09:00:00Z", "Eve");
    land("tinylm/distributed/utils.py", 25, "Remove a dead helper from distributed/utils.py (#16)", "2026-11-18T10:00:00Z", "Eve");
    land("tinylm/distributed/cp.py", 10, "Context parallel for flex attention (#17)", "2026-11-18T11:00:00Z", "Fay");
    land(".claude/rules/review.md", 15, "Add review rules for agents (#18)", "2026-11-19T09:00:00Z", "Gus");
    land("CLAUDE.md", 8, "Improve CLAUDE.md guidance (#19)", "2026-11-19T10:00:00Z", "Gus");
    auto c = Corpus::Open(dir_.File("c.db"), Corpus::Mode::kReadWrite);
    ASSERT_TRUE(c.ok());
    corpus_ = std::move(c).value();
    Sync();
    corpus_.reset();
  }

  Result<Digest> Week() {
    DigestOptions o;
    o.corpus_path = dir_.File("c.db");
    o.period = *WeekOf("2026-11-16");
    o.now = *ParseIsoTime("2026-11-25T00:00:00Z");
    return BuildDigest(o);
  }
};

TEST_F(DigestWeekTest, AreasAreNamedAsAPersonWould) {
  auto d = Week();
  ASSERT_TRUE(d.ok()) << d.status().message();
  std::map<std::string, std::vector<std::string>> landed;  // heading -> labels
  for (const auto& s : d->sections) {
    for (const auto& l : s.landed) landed[s.heading].push_back(l.label);
  }
  std::string headings;
  for (const auto& [h, l] : landed) headings += h + "; ";
  // [rl], [RL] and experiments/rl/ are one area, "RL"; [ez] is no area.
  ASSERT_TRUE(landed.count("RL")) << headings;
  EXPECT_EQ(landed["RL"].size(), 3u) << headings;
  // The RFC is the week's largest: in the area its files are in, never Other.
  ASSERT_TRUE(landed.count("Graph")) << headings;
  EXPECT_EQ(landed["Graph"].front(), "#13") << headings;
  // A lone tag ([HybridEP]) joins the area its files are in.
  ASSERT_TRUE(landed.count("Distributed")) << headings;
  EXPECT_EQ(landed["Distributed"].size(), 3u) << headings;
  // .claude/ and CLAUDE.md are agent instructions.
  EXPECT_TRUE(landed.count("Agent instructions (.claude)")) << headings;
  for (const char* noise : {"Ez", "Tinylm", "Resubmit", "RFC", ".claude", "Other activity", "HybridEP"}) {
    EXPECT_FALSE(landed.count(noise)) << noise << " in " << headings;
  }
  // The weekly checks agree.
  auto corpus = Corpus::Open(dir_.File("c.db"), Corpus::Mode::kReadOnly);
  ASSERT_TRUE(corpus.ok());
  auto c = CheckDigest(*d, **corpus);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->landed_in_other, 0);
  EXPECT_FALSE(c->largest_in_other);
  EXPECT_TRUE(c->noise_areas.empty());
  EXPECT_TRUE(c->cut_titles.empty());
  EXPECT_TRUE(c->title_quotes.empty()) << c->title_quotes.front();
  EXPECT_TRUE(c->fragment_quotes.empty()) << c->fragment_quotes.front();
  EXPECT_TRUE(c->bare_numbers.empty());
  EXPECT_TRUE(c->attribution_links.empty());
  EXPECT_EQ(c->top_in_s, c->top);
}

TEST_F(DigestWeekTest, SectionsOpenWithASentenceAndDescribeTheirBiggestChanges) {
  auto d = Week();
  ASSERT_TRUE(d.ok()) << d.status().message();
  std::string m = DigestM(*d);
  // The area's first sentence says what landed, led by what, from whom.
  EXPECT_NE(m.find("3 changes landed, led by \xE2\x80\x9CRefactor episodes\xE2\x80\x9D"), std::string::npos) << m;
  // The squash commit's body describes the change under its line.
  EXPECT_NE(m.find("  This merges the two graph experiments into a single graph trainer"), std::string::npos) << m;
  // A measure with its quantity.
  EXPECT_NE(m.find("**mfu 28.56%**"), std::string::npos) << m;
  // The tool credit is no reading.
  EXPECT_EQ(m.find("claude.com"), std::string::npos) << m;
  for (const auto& l : d->shared_links) EXPECT_EQ(l.find("claude.com"), std::string::npos) << l;
  // S names changes by their titles without tags, whole words.
  std::string s = DigestS(*d);
  EXPECT_NE(s.find("Merge the graph experiments into one (#13"), std::string::npos) << s;
  EXPECT_EQ(s.find("[tinylm]"), std::string::npos) << s;
}

}  // namespace
}  // namespace umwelt
