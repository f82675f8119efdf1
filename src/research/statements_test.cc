// What a report may quote as a statement, how a question's names meet the
// records' spellings of them, and which statements answer which kind of
// question (issues 16 and 34).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "research/extractive.h"
#include "umwelt/claims.h"
#include "umwelt/research.h"
#include "umwelt/text.h"

namespace umwelt {
namespace {

TEST(Statements, NonProseIsNeverAStatement) {
  for (const char* junk :
       {"./run_train.sh --training.steps=100 --training.compile",
        "Files: config/olmo2_sft.yaml, src/levanter/models/olmo.py, tests/test_olmo.py",
        "Changed: 8 file(s), +25 −66", "| mfu | 0.41 | h100 |", "- [ ] add the eval harness",
        "Traceback (most recent call last):", "tests/test_llama.py::test_rope 46 passed in 3.2s",
        "Bumps [actions/checkout](https://github.com/actions/checkout) from 3 to 4.",
        "Update tensorstore requirement from <0.1.70,>=0.1.65 to >=0.1.65,<0.1.73",
        "x = jnp.zeros((batch, seq), dtype=jnp.float32); y = f(x)", "## Results",
        "Co-authored-by: Ann <ann@example.com>", "pip install -e .[dev]", "make -j8 check install",
        "export UMWELT_CORPUS=/tmp/c.db and rerun"}) {
    EXPECT_FALSE(research::IsStatement(junk)) << junk;
  }
  for (const char* prose :
       {"Add olmo 2 for main, validated and working!", "We moved to the fused kernel; MFU is 38.5% now.",
        "Update the tokenizer to handle byte fallback", "The loader now prefetches two batches ahead.",
        "At the moment we shard over the data axis.", "The test passed in CI after the fix.",
        "Exception handling in the loader now retries twice.",
        // A command is typed in lower case; a title's verb is capitalized.
        "Make composite manager mode run-time selectable", "Export only public API symbols",
        // A commit's title: a verb and the name in code it acts on.
        "Add GetScreenResourcesCurrent", "Add [GS]etOutputPrimary", "Remove take_socket",
        // A title of a name and what of it.
        "EPS support", "libFS ansification.", "RandR cleanup"}) {
    EXPECT_TRUE(research::IsStatement(prose)) << prose;
  }
  for (const char* fragment : {"Add it", "see GetScreenResourcesCurrent", "Add src/foo_bar.c", "Add 1.2.3",
                               "LGTM thanks", "Fix typo", "EPS", "Xinerama"}) {
    EXPECT_FALSE(research::IsStatement(fragment)) << fragment;
  }
  // A name a library's prefix starts is also the name without it.
  EXPECT_EQ(research::KeyConstraints("When was XRRSetOutputPrimary added?"),
            std::vector<std::string>{"xrrsetoutputprimary|setoutputprimary"});
  EXPECT_EQ(research::KeyConstraints("Does HTTPServer log?"), std::vector<std::string>{"httpserver"});
  // A name's own last s is no plural's ("D-Bus" was "d-bu", met in "build").
  EXPECT_EQ(research::KeyConstraints("When was D-Bus support added?"), std::vector<std::string>{"d-bus"});
  EXPECT_EQ(research::KeyConstraints("When did ixion start requiring C++17?"),
            std::vector<std::string>{"c++17"});
  // The generic names a question writes in capitals, not its words written so.
  EXPECT_EQ(research::GenericNames("WHEN DID the API ADD JSON output?"),
            (std::vector<std::string>{"api", "json"}));
  EXPECT_EQ(research::KeyConstraints("How does it export to Prometheus?"),
            std::vector<std::string>{"prometheus"});
  EXPECT_EQ(research::KeyConstraints("Which Olmos ran on TPUs?"), std::vector<std::string>{"olmo"});
  // A platform's or a toolchain's other names, whatever the project.
  EXPECT_EQ(research::KeyConstraints("When did we add launchd support on macOS?"),
            std::vector<std::string>{"macos|mac os x|os x|osx"});
  EXPECT_EQ(research::KeyConstraints("Does it build with Microsoft Visual C++?"),
            std::vector<std::string>{"microsoft visual|msvc|visual c++|visual studio"});
  EXPECT_EQ(research::KeyConstraints("When did it build on Windows?"),
            std::vector<std::string>{"windows|win32"});
  // "version 2" after a name is part of it, as "6" is of "Qt 6".
  EXPECT_EQ(research::KeyConstraints("When was support for XDMCP version 2 added?"),
            std::vector<std::string>{"xdmcp 2"});
  // A name of several words in brackets after another is its other name.
  EXPECT_EQ(research::KeyConstraints("When was support for EPS (Encapsulated PostScript) documents added?"),
            std::vector<std::string>{"eps|encapsulated postscript"});
  // A name of three to five words written out is also its initials.
  EXPECT_EQ(research::KeyConstraints("When did GnuPG add Web Key Directory support?"),
            (std::vector<std::string>{"gnupg", "web key directory|wkd"}));
  EXPECT_EQ(research::KeyConstraints("When was MoE (Mixture of Experts) routing added?"),
            std::vector<std::string>{"moe|mixture of experts"});
  EXPECT_EQ(research::KeyConstraints("Was MFU (as measured) higher?"), std::vector<std::string>{"mfu"});
  // So is a word alone in brackets, of a key or of the thing before it.
  EXPECT_EQ(research::KeyConstraints("When was support for Ubuntu Online Accounts (libaccounts) added?"),
            std::vector<std::string>{"ubuntu online account|libaccounts"});
  EXPECT_EQ(research::KeyConstraints("When was the shared memory (shm) transmitter added?"),
            std::vector<std::string>{"shm|shared memory"});
  EXPECT_EQ(research::KeyConstraints("When were PDF outlines (bookmarks) added?"),
            (std::vector<std::string>{"pdf", "bookmark|outline"}));
  EXPECT_EQ(research::KeyConstraints("When did the driver add force feedback (haptics) support?"),
            std::vector<std::string>{"haptic|force feedback"});
  // A word written with its version is a name, and so is what a thing went to.
  EXPECT_EQ(research::KeyConstraints("When did it port to libsoup 3?"),
            std::vector<std::string>{"libsoup 3"});
  EXPECT_EQ(research::KeyConstraints("When did the build switch from autotools to meson?"),
            std::vector<std::string>{"meson"});
  EXPECT_TRUE(research::KeyConstraints("Did the loss stay under 2 after more than 3 restarts?").empty());
  EXPECT_TRUE(research::KeyConstraints("When did the batch size go from 8 to 16?").empty());
  // The facet on the names is headed by them as the question gives them, and searches every spelling.
  auto names = research_internal::NamesQuery("When was launchd support for Mac OS X added?",
                                             {"mac os x|macos|os x|osx", "png|svg", "rotate|rotat"}, {});
  EXPECT_EQ(names.heading, "mac os x png rotate");
  EXPECT_EQ(names.query, "mac os x macos os x osx png svg rotate");
  EXPECT_EQ(research::BestSentence("Files: a/b.py, c/d.py\nChanged: 2 file(s), +3 −1", {}), "");
  EXPECT_EQ(research::KeyConstraints("What MFU did we reach on H200 GPUs?"),
            (std::vector<std::string>{"mfu", "h200"}));
  EXPECT_EQ(research::KeyConstraints("How was Olmo2 support added?"), (std::vector<std::string>{"olmo2"}));
  EXPECT_TRUE(research::KeyConstraints("why is the loader slow").empty());
  EXPECT_EQ(research::KeyConstraints("Is the UI served over HTTPS on TPUs?"),
            (std::vector<std::string>{"ui", "https"}));
  EXPECT_EQ(research::KeyConstraints("Are Pre-trained models and Llama-based ones told apart?"),
            (std::vector<std::string>{"pre-trained", "llama"}));
  EXPECT_EQ(research::KeyConstraints("How are GPTQ-quantized models evaluated on H100-based nodes?"),
            (std::vector<std::string>{"gptq", "h100"}));
  EXPECT_EQ(research::KeyConstraints("When did Mixture-of-Experts and GPT-4o-mini arrive?"),
            (std::vector<std::string>{"mixture-of-expert", "gpt-4o-mini"}));
  EXPECT_EQ(
      research::KeyConstraints("How is a Hugging Face model steered, and Weights & Biases fed, on TPU Pods?"),
      (std::vector<std::string>{"hugging face", "weight", "biase", "pod"}));
  // A list of alternatives is one constraint; a list of things together is not.
  EXPECT_EQ(research::KeyConstraints("Which tool renders PDF pages to PNG, JPEG, PostScript or SVG?"),
            (std::vector<std::string>{"pdf", "png|jpeg|postscript|svg"}));
  EXPECT_EQ(research::KeyConstraints("Is MFU or HFU reported on TPUs, GPUs and CPUs?"),
            (std::vector<std::string>{"mfu|hfu"}));
  // A name in brackets after another names the same thing; a version after
  // a name is part of it, and a record writes it joined or apart.
  EXPECT_EQ(research::KeyConstraints("When was the AltiVec (VMX) implementation added?"),
            (std::vector<std::string>{"altivec|vmx"}));
  EXPECT_EQ(research::KeyConstraints("When were Qt 6 bindings added, and Llama 4 (MoE) run?"),
            (std::vector<std::string>{"qt 6", "llama 4|moe"}));
  EXPECT_TRUE(research::MentionsAll("Qt6 frontend", research::WithVariants({"qt 6"}, {})));
  EXPECT_FALSE(research::MentionsAll("Qt5 frontend for 6 pages", research::WithVariants({"qt 6"}, {})));
  // And the other way: xinput's first XI2 commit says "XI 2"; the number
  // written apart ends a word ("DRI 3D" is not DRI3), and a one-letter name
  // is not split ("x 11").
  EXPECT_TRUE(research::MentionsAll("tell the server we can do XI 2.", research::WithVariants({"xi2"}, {})));
  EXPECT_TRUE(research::MentionsAll("XI 2.2 raw events", research::WithVariants({"xi2"}, {})));
  EXPECT_FALSE(research::MentionsAll("XI 20 events", research::WithVariants({"xi2"}, {})));
  EXPECT_FALSE(research::MentionsAll("the DRI 3D driver", research::WithVariants({"dri3"}, {})));
  EXPECT_EQ(research::WithVariants({"x11"}, {}), (std::vector<std::string>{"x11"}));
  EXPECT_TRUE(research::MentionsAll("pdftocairo: png/jpeg/ps/pdf/svg",
                                    research::WithVariants({"pdf", "png|jpeg|postscript|svg"}, {})));
  EXPECT_FALSE(
      research::MentionsAll("pdftocairo: ps/eps", research::WithVariants({"pdf", "png|jpeg|svg"}, {})));
  // Names in code are names, however they are cased.
  EXPECT_EQ(research::KeyConstraints("When did the code stop using std::auto_ptr and call getCString?"),
            (std::vector<std::string>{"auto_ptr", "getcstring"}));
  EXPECT_TRUE(research::MentionsAll("auto_ptr -> unique_ptr", research::WithVariants({"auto_ptr"}, {})));
  EXPECT_TRUE(research::MentionsAll("H100 MFU is 41%", {"mfu", "h100"}));
  // Junk counts quotes, not a timeline's dates before an unnumbered title.
  EXPECT_EQ(
      research::CountJunkQuotes("- 2024-08-05 — [Apply float8 to all parts](https://x.io/c/1) (ann)\n"
                                "> pip install -e .[dev] — [ann, 2024-08-05](https://x.io/c/1)\n"
                                "- The loader now prefetches two batches ahead. — [ann](https://x.io/c/2)\n"),
      1);
}

// Issue 34, item 1: a constraint meets its other spellings, and the
// acronym or expansion the found records pair with it.
TEST(Statements, ConstraintsMeetTheirSpellingsAcronymsAndExpansions) {
  using research::MentionsAll;
  using research::WithVariants;
  auto z = WithVariants({"z-loss"}, {});
  for (const char* text : {"add zloss", "loss = z_loss(x)", "class ZLoss:", "Z-Loss keeps logits small"}) {
    EXPECT_TRUE(MentionsAll(text, z)) << text;
  }
  EXPECT_FALSE(MentionsAll("fix normalization in loss", z));
  EXPECT_TRUE(MentionsAll("adds zloss", WithVariants({"zloss"}, {})));
  EXPECT_TRUE(MentionsAll("We use z-loss now", WithVariants({"zloss"}, {})));
  // Learned from what was found, no list per project.
  std::vector<std::string> found = {"MoE (mixture-of-experts) routing lands",
                                    "Support MoE layers in the trainer"};
  auto moe = WithVariants({"mixture-of-expert"}, found);
  EXPECT_TRUE(MentionsAll("Support MoE layers in the trainer", moe));
  EXPECT_TRUE(MentionsAll("a Mixture of Experts model", moe));
  EXPECT_FALSE(MentionsAll("Support MoE layers in the trainer", WithVariants({"mixture-of-expert"}, {})))
      << "without a record pairing them, the acronym is not assumed";
  auto fsdp = WithVariants({"fsdp"}, {"We shard with fully sharded data parallel (FSDP) on TPUs."});
  EXPECT_TRUE(MentionsAll("fully sharded data parallel wraps each block", fsdp));
  EXPECT_EQ(research::Shown(fsdp[0]), "fsdp");
  auto flex = WithVariants({"flexattention"}, {});
  EXPECT_TRUE(MentionsAll("FlexAttention with document masking", flex));
  // A name whose capitals spell an acronym of three letters or more is said by it, as a record writes it.
  auto gpg = WithVariants({"gpg"}, {"daemon: Remove the GnuPG agent"});
  EXPECT_TRUE(MentionsAll("Remove the GnuPG agent", gpg)) << gpg[0];
  EXPECT_EQ(WithVariants({"nm"}, {"NetworkManager and ModemManager"}), std::vector<std::string>{"nm"});
  EXPECT_EQ(WithVariants({"gpg"}, {"GoPro raw files", "GPGPU code"}), std::vector<std::string>{"gpg"});
  // A joined form says a name from one of its words' starts, never across
  // where two words meet: "flush" and "dri2" say no "hdr".
  EXPECT_FALSE(MentionsAll("added a vmwgfx_flush_dri2 on vt switch", WithVariants({"hdr"}, {})));
  EXPECT_FALSE(MentionsAll("the ctx-tx path", WithVariants({"xt"}, {})));
  EXPECT_TRUE(MentionsAll("set use_z_loss in the config", {"zloss"}));
  EXPECT_TRUE(MentionsAll("a [GS]etFoo pair", WithVariants({"setfoo"}, {})));
  EXPECT_TRUE(MentionsAll(std::string("a text's own \x1f mark, then z-loss"), z));
}

TEST(Statements, WhatAsksIsToldFromWhatTells) {
  for (const char* asks : {"Can generators only run in pipelines?", "I was wondering if it installs offline.",
                           "Is there a way to dump the schema", "Does anyone know why the worker crashed.",
                           "how do I enable TLS", "Any idea why it fails"}) {
    EXPECT_TRUE(research::Asks(asks)) << asks;
  }
  for (const char* tells :
       {"Generators only run in CI pipelines.", "There is a way: the /api/schema endpoint.",
        "Anyone can open a proposed change.", "I wondered too, and the fix is in 1.3."}) {
    EXPECT_FALSE(research::Asks(tells)) << tells;
  }
  EXPECT_EQ(research::BestSentence("Is the proxy the fix? The proxy terminates TLS.", {"proxy"},
                                   research::AnswerType::kOther, true),
            "The proxy terminates TLS.");
}

// Issue 16: statements are chosen by the kind of answer asked for.
TEST(Statements, AnswerTypesAndTheNumbersThatAnswer) {
  using research::AnswerType;
  EXPECT_EQ(research::AnswerTypeOf("When was Gemma support added?"), AnswerType::kWhen);
  EXPECT_EQ(research::AnswerTypeOf("Which version of JAX do we need?"), AnswerType::kWhen);
  EXPECT_EQ(research::AnswerTypeOf("How many tokens per second does training reach?"), AnswerType::kQuantity);
  EXPECT_EQ(research::AnswerTypeOf("What final loss did the Mixtral run reach?"), AnswerType::kQuantity);
  EXPECT_EQ(research::AnswerTypeOf("Which Qwen models can we train?"), AnswerType::kNamed);
  EXPECT_EQ(research::AnswerTypeOf("Who maintains the data loader?"), AnswerType::kNamed);
  EXPECT_EQ(research::AnswerTypeOf("Why did the loader stall?"), AnswerType::kOther);
  // Numbers near the question's words, or with a unit it names; never versions.
  std::vector<std::string> throughput = {"throughput", "tokens"};
  EXPECT_EQ(research::AnsweringNumbers("Throughput is now 451k tokens/s after moving to transformers 4.55.0",
                                       throughput),
            (std::vector<std::string>{"451k"}));
  EXPECT_EQ(research::AnsweringNumbers("We saw 9000 tokens/s.", throughput),
            (std::vector<std::string>{"9000 tokens/s"}));
  EXPECT_TRUE(research::AnsweringNumbers("set the default save interval to 15 minutes", throughput).empty());
  EXPECT_TRUE(
      research::AnsweringNumbers("Gemma 1 has a normalization on its embeddings", throughput).empty());
  // The statement picked from a record is the one that answers.
  std::string text =
      "Throughput matters for this run. We reached 451k tokens/s on the new kernel. Thanks all.";
  EXPECT_EQ(research::BestSentence(text, throughput, AnswerType::kQuantity),
            "We reached 451k tokens/s on the new kernel.");
  EXPECT_GT(research::AnswerFit("Added gemma support in v0.3.", AnswerType::kWhen, {"gemma"}),
            research::AnswerFit("Gemma is a model family.", AnswerType::kWhen, {"gemma"}));
  EXPECT_GT(research::AnswerFit("We support Qwen2 and Qwen3 via the HFCheckpointConverter.",
                                AnswerType::kNamed, {"qwen"}),
            research::AnswerFit("We support qwen models.", AnswerType::kNamed, {"qwen"}));
  // The project's own name, in every permalink, is no constraint.
  std::vector<Evidence> ev(4);
  for (size_t i = 0; i < ev.size(); ++i)
    ev[i].url = "https://github.com/acme/tinylm/issues/" + std::to_string(i);
  EXPECT_EQ(research::WithoutProjectNames({"tinylm", "h100"}, ev), (std::vector<std::string>{"h100"}));
  // A name of several words is the project's where its permalinks hyphen it.
  std::vector<Evidence> mc(4);
  for (size_t i = 0; i < mc.size(); ++i)
    mc[i].url = "https://github.com/o/telepathy-mission-control/commit/" + std::to_string(i);
  EXPECT_EQ(research::WithoutProjectNames({"mission control", "gdbus"}, mc),
            (std::vector<std::string>{"gdbus"}));
  // A name that begins with two words of the project's hyphened name is told by its others
  // ("validate:" of desktop-file-validate); one word is not enough (telepathy-glib).
  std::vector<Evidence> dfu(4);
  for (size_t i = 0; i < dfu.size(); ++i)
    dfu[i].url = "https://github.com/o/desktop-file-utils/commit/" + std::to_string(i);
  EXPECT_EQ(research::WithoutProjectNames({"desktop-file-validate", "keyword"}, dfu),
            (std::vector<std::string>{"validate", "keyword"}));
  EXPECT_EQ(research::WithoutProjectNames({"telepathy-glib"}, mc),
            (std::vector<std::string>{"telepathy-glib"}));
  // A name with other spellings is the project's by the name as written ("parole|parol" of xfce/parole).
  std::vector<Evidence> parole(4);
  for (size_t i = 0; i < parole.size(); ++i)
    parole[i].url = "https://github.com/xfce/parole/commit/" + std::to_string(i);
  EXPECT_EQ(research::WithoutProjectNames({"parole|parol", "gstreamer 1.0"}, parole),
            (std::vector<std::string>{"gstreamer 1.0"}));
  // A version of the project is that version, which its records call "version 1.5".
  EXPECT_EQ(research::WithoutProjectNames({"tinylm 1.5"}, ev),
            (std::vector<std::string>{"tinylm 1.5|version 1.5"}));
}

}  // namespace
}  // namespace umwelt
