// `digest`, `summaries` and `eval digest`.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include <memory>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "params_cli.h"
#include "umwelt/digest.h"
#include "umwelt/file.h"
#include "umwelt/text.h"

namespace umwelt::cli {
namespace {

using json = nlohmann::json;

DigestOptions Options(const std::string& path, const Period& period, const DigestRequest& r, ChatModel* llm,
                      int64_t now) {
  DigestOptions o;
  o.corpus_path = path;
  o.period = period;
  o.config = r.config;
  o.llm = llm;
  o.now = now;
  return o;
}

std::string PageUrl(const DigestArgs& a, const Period& p) {
  std::string name = SitePagePath(p.id());
  if (!a.site_url.empty()) return a.site_url + (a.site_url.back() == '/' ? "" : "/") + name;
  std::error_code ec;
  std::string abs = std::filesystem::absolute(a.out, ec).lexically_normal().string();
  return "file://" + abs + "/" + name;
}

}  // namespace

Status CmdDigest(const std::string& path, const DigestArgs& a) {
  int64_t now = NowEpoch();
  UMWELT_ASSIGN_OR_RETURN(DigestRequest r, DigestParams().FromTexts(TextsOf(a.texts)));
  UMWELT_ASSIGN_OR_RETURN(std::vector<Period> periods, DigestPeriods(r, now));
  auto wants = [&](const char* tier) { return std::find(r.tiers.begin(), r.tiers.end(), tier) != r.tiers.end(); };
  bool want_xs = wants("xs"), want_s = wants("s"), want_m = wants("m");
  std::string webhook;
  if (!a.post.empty()) {
    const char* var = a.post == "discord" ? "UMWELT_DISCORD_WEBHOOK" : a.post == "slack" ? "UMWELT_SLACK_WEBHOOK" : nullptr;
    if (!var) return Status::Invalid("--post takes discord or slack, not " + a.post);
    const char* url = std::getenv(var);
    if (!url || !*url) return Status::Invalid("--post " + a.post + " needs the webhook url in $" + var);
    webhook = url;
  }
  UMWELT_ASSIGN_OR_RETURN(auto llm, OpenModel(a.llm, a.replay));
  // The corpus must exist; digests never create one.
  UMWELT_ASSIGN_OR_RETURN(auto probe, OpenCorpus(path, Corpus::Mode::kReadOnly));
  probe.reset();
  bool tty = ::isatty(2) && !a.quiet;
  json traces = json::array();
  for (const auto& period : periods) {
    WriteDigestOptions w;
    w.digest = Options(path, period, r, llm.get(), now);
    if (tty) {
      w.digest.progress = [](const std::string& stage, const std::string& detail) {
        std::fprintf(stderr, "\r\033[Kdigest: %s: %s", stage.c_str(), detail.c_str());
      };
    }
    w.site.out_dir = a.out;
    w.site.site_url = a.site_url;
    w.site.generated_at = now;
    w.page_url = PageUrl(a, period);
    w.store = !a.no_store;
    w.post_kind = webhook.empty() ? "" : a.post;
    w.post_webhook = webhook;
    auto written = WriteDigest(w);
    if (tty) std::fprintf(stderr, "\r\033[K");
    UMWELT_RETURN_IF_ERROR(written.status());
    const Digest* d = &written->digest;
    const std::string& page = written->page;
    for (const auto& n : d->notes) std::fprintf(stderr, "umwelt: note: %s\n", n.c_str());
    for (const auto& x : d->removed) std::fprintf(stderr, "umwelt: removed by the checks: %s\n", x.c_str());
    if (!a.trace.empty()) traces.push_back(json::parse(DigestTraceJson(*d)));
    if (!a.quiet) {
      if (want_xs) std::printf("%s\n", d->xs.c_str());
      if (want_s && !d->sections.empty()) std::printf("\n%s", DigestS(*d).c_str());
      if (want_m && periods.size() == 1) std::printf("\n%s", DigestM(*d).c_str());
      if (periods.size() > 1) std::printf("\n");
    }
    std::fprintf(stderr, "digest %s: %s, %zu sections, %d chunks, %d contributors, %.2f s (%d LLM calls, %lld in / %lld out tokens, $%.4f); %s\n",
                 period.id().c_str(), d->quiet ? "quiet" : d->extractive ? "extractive" : "llm", d->sections.size(),
                 d->stats.chunks, d->stats.contributors, d->seconds, d->usage.calls,
                 static_cast<long long>(d->usage.input_tokens), static_cast<long long>(d->usage.output_tokens),
                 d->usage.cost_usd, page.c_str());
  }
  if (!a.trace.empty()) {  // one period: its trace; several: a list
    const json& t = traces.size() == 1 ? traces[0] : traces;
    UMWELT_RETURN_IF_ERROR(WriteText(a.trace, t.dump(1, ' ', false, json::error_handler_t::replace) + "\n"));
  }
  return Status::Ok();
}

Status CmdSummaries(const std::string& path, const std::string& action, const std::string& period, bool as_json) {
  UMWELT_ASSIGN_OR_RETURN(auto corpus, OpenCorpus(path, Corpus::Mode::kReadOnly));
  if (action != "list" && period.empty()) {
    return Status::Invalid("summaries " + action + " needs a period (YYYY-MM-DD_YYYY-MM-DD, a day, or latest)");
  }
  if (as_json && action != "links") {
    UMWELT_ASSIGN_OR_RETURN(std::string out, SummariesJson(*corpus, action == "list" ? "" : period));
    std::printf("%s\n", out.c_str());
    return Status::Ok();
  }
  if (action == "list") {
    UMWELT_ASSIGN_OR_RETURN(auto all, ListSummaries(*corpus));
    if (all.empty()) std::fprintf(stderr, "no summaries yet: run `umwelt digest`\n");
    for (const auto& s : all) std::printf("%s  %s\n", s.period.c_str(), s.xs.c_str());
    return Status::Ok();
  }
  if (action == "show") {
    UMWELT_ASSIGN_OR_RETURN(std::string text, SummaryText(*corpus, period));
    std::fputs(text.c_str(), stdout);
    return Status::Ok();
  }
  UMWELT_ASSIGN_OR_RETURN(auto links, SummaryLinks(*corpus, period));
  if (as_json) {
    std::printf("%s\n", json(links).dump(1).c_str());
  } else {
    for (const auto& l : links) std::printf("%s\n", l.c_str());
  }
  return Status::Ok();
}

Status CmdEvalDigest(const std::string& path, const DigestArgs& a, const std::string& reference,
                     const std::string& expect_path, bool as_json) {
  int64_t now = NowEpoch();
  UMWELT_ASSIGN_OR_RETURN(DigestRequest r, DigestParams().FromTexts(TextsOf(a.texts)));
  UMWELT_ASSIGN_OR_RETURN(std::vector<Period> periods, DigestPeriods(r, now));
  UMWELT_ASSIGN_OR_RETURN(auto llm, OpenModel(a.llm, a.replay));
  UMWELT_ASSIGN_OR_RETURN(auto corpus, OpenCorpus(path, Corpus::Mode::kReadOnly));
  json rows = json::array();
  int bad = 0;
  json expect;
  if (!expect_path.empty()) {
    UMWELT_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(expect_path));
    expect = json::parse(text, nullptr, false);
    if (!expect.is_object()) return Status::Invalid(expect_path + ": expected {\"YYYY-MM-DD\": [\"#N\", ...]} (week start -> PRs)");
  }
  for (const auto& period : periods) {
    UMWELT_ASSIGN_OR_RETURN(Digest d, BuildDigest(Options(path, period, r, llm.get(), now)));
    UMWELT_ASSIGN_OR_RETURN(DigestCheck c, CheckDigest(d, *corpus));
    // Changes a reader must see that week (--expect), by #N.
    std::vector<std::string> unseen;
    if (expect.is_object() && expect.contains(period.from) && expect[period.from].is_array()) {
      std::string m = DigestM(d);
      for (const auto& n : expect[period.from]) {
        std::string label = n.is_string() ? n.get<std::string>() : "";
        if (label.size() < 2 || label[0] != '#') continue;
        if (m.find("[\\" + label + "](") == std::string::npos && m.find("/pull/" + label.substr(1) + ")") == std::string::npos) {
          unseen.push_back(label);
        }
      }
    }
    // "Other" holds at most a fifth of what landed, and never the largest change.
    bool other_ok = c.landed_in_other * 5 <= c.landed_changes && !c.largest_in_other;
    bad += static_cast<int>(c.bad_links.size()) + !c.xs_ok + !c.s_ok + static_cast<int>(c.landed_missing.size()) +
           c.junk + static_cast<int>(c.unsafe_links.size()) + c.check_problems + static_cast<int>(unseen.size()) +
           !other_ok + static_cast<int>(c.cut_titles.size() + c.title_quotes.size() + c.fragment_quotes.size() +
                                        c.bare_numbers.size() + c.noise_areas.size() + c.attribution_links.size());
    rows.push_back({{"period", period.id()}, {"quiet", d.quiet}, {"extractive", d.extractive},
                    {"links", c.links}, {"bad_links", c.bad_links}, {"notable", c.notable}, {"covered", c.covered},
                    {"coverage", c.notable ? static_cast<double>(c.covered) / c.notable : 1.0}, {"missed", c.missed},
                    {"xs_chars", c.xs_chars}, {"xs_ok", c.xs_ok}, {"s_bullets", c.s_bullets}, {"s_ok", c.s_ok},
                    {"m_sections", c.m_sections}, {"m_chars", c.m_chars}, {"max_bullet_chars", c.max_bullet_chars},
                    {"landed", c.landed}, {"landed_in_m", c.landed_in_m}, {"landed_missing", c.landed_missing},
                    {"top", c.top}, {"top_in_s", c.top_in_s}, {"junk", c.junk}, {"unsafe_links", c.unsafe_links},
                    {"check_problems", c.check_problems}, {"expected_unseen", unseen},
                    {"landed_in_other", c.landed_in_other}, {"largest_in_other", c.largest_in_other},
                    {"landed_changes", c.landed_changes},
                    {"other_share", c.landed_changes ? static_cast<double>(c.landed_in_other) / c.landed_changes : 0.0},
                    {"cut_titles", c.cut_titles}, {"title_quotes", c.title_quotes},
                    {"fragment_quotes", c.fragment_quotes}, {"bare_numbers", c.bare_numbers},
                    {"noise_areas", c.noise_areas}, {"attribution_links", c.attribution_links},
                    {"llm_calls", d.usage.calls}, {"seconds", d.seconds}});
  }
  // The reference tiers' shape, for comparison.
  json ref = json::array();
  if (!reference.empty()) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(reference, ec)) {
      if (!entry.is_directory()) continue;
      auto xs = ReadWholeFile((entry.path() / "xs.md").string());
      auto s = ReadWholeFile((entry.path() / "s.md").string());
      auto m = ReadWholeFile((entry.path() / "m.md").string());
      if (!xs.ok() || !s.ok() || !m.ok()) continue;
      int bullets = 0, sections = 0, max_bullet = 0;
      size_t p = 0;
      while (p < s->size()) {
        size_t nl = s->find('\n', p);
        std::string line = s->substr(p, nl == std::string::npos ? std::string::npos : nl - p);
        p = nl == std::string::npos ? s->size() : nl + 1;
        if (line.rfind("- ", 0) != 0) continue;
        ++bullets;
        size_t dash = line.find(" — ");
        if (dash != std::string::npos) max_bullet = std::max(max_bullet, static_cast<int>(line.size() - dash - 5));
      }
      for (size_t q = 0; (q = m->find("## ", q)) != std::string::npos; q += 3) {
        if (q == 0 || (*m)[q - 1] == '\n') ++sections;
      }
      std::string x = CollapseWhitespace(*xs);
      ref.push_back({{"week", entry.path().filename().string()}, {"xs_chars", x.size()}, {"s_bullets", bullets},
                     {"m_sections", sections}, {"m_chars", m->size()}, {"max_bullet_chars", max_bullet}});
    }
    std::sort(ref.begin(), ref.end(), [](const json& x, const json& y) { return x["week"] < y["week"]; });
  }
  if (as_json) {
    std::printf("%s\n", json{{"digests", rows}, {"reference", ref}}.dump(1).c_str());
  } else {
    std::printf("%-23s %6s %5s %9s %8s %9s %10s %8s %8s %9s %6s %5s %7s %6s %6s %5s %7s %5s %5s %7s\n", "period", "links", "bad",
                "coverage", "xs_chars", "s_bullets", "m_sections", "m_chars", "max_s", "landed_m", "top_s", "junk", "unsafe",
                "check", "other", "cut", "quotes", "bare", "noise", "credit");
    for (const auto& r : rows) {
      std::printf("%-23s %6d %5zu %4d/%-4d %8d %9d %10d %8d %8d %4d/%-4d %2d/%-3d %5d %7zu %6d %5.0f%% %5zu %7zu %5zu %5zu %7zu\n",
                  r["period"].get<std::string>().c_str(), r["links"].get<int>(), r["bad_links"].size(),
                  r["covered"].get<int>(), r["notable"].get<int>(), r["xs_chars"].get<int>(), r["s_bullets"].get<int>(),
                  r["m_sections"].get<int>(), r["m_chars"].get<int>(), r["max_bullet_chars"].get<int>(),
                  r["landed_in_m"].get<int>(), r["landed"].get<int>(), r["top_in_s"].get<int>(), r["top"].get<int>(),
                  r["junk"].get<int>(), r["unsafe_links"].size(), r["check_problems"].get<int>(),
                  100 * r["other_share"].get<double>(), r["cut_titles"].size(),
                  r["title_quotes"].size() + r["fragment_quotes"].size(), r["bare_numbers"].size(),
                  r["noise_areas"].size(), r["attribution_links"].size());
      if (r["largest_in_other"].get<bool>()) std::printf("  the period's largest change is in Other activity\n");
      for (const char* key : {"cut_titles", "title_quotes", "fragment_quotes", "bare_numbers", "noise_areas", "attribution_links"}) {
        for (const auto& b : r[key]) std::printf("  %s: %s\n", key, b.get<std::string>().c_str());
      }
      for (const auto& b : r["landed_missing"]) std::printf("  landed, not in M: %s\n", b.get<std::string>().c_str());
      for (const auto& b : r["unsafe_links"]) std::printf("  unsafe link: %s\n", b.get<std::string>().c_str());
      for (const auto& b : r["expected_unseen"]) std::printf("  expected, not in M: %s\n", b.get<std::string>().c_str());
      for (const auto& b : r["bad_links"]) std::printf("  bad link: %s\n", b.get<std::string>().c_str());
      for (const auto& m : r["missed"]) std::printf("  not mentioned: %s\n", m.get<std::string>().c_str());
    }
    if (!ref.empty()) {
      std::printf("\nreference (%s)\n", reference.c_str());
      for (const auto& r : ref) {
        std::printf("%-23s %6s %5s %9s %8d %9d %10d %8d %8d\n", r["week"].get<std::string>().c_str(), "", "", "",
                    r["xs_chars"].get<int>(), r["s_bullets"].get<int>(), r["m_sections"].get<int>(),
                    r["m_chars"].get<int>(), r["max_bullet_chars"].get<int>());
      }
    }
  }
  if (bad) return Status::Corrupt("eval digest: " + std::to_string(bad) + " check failure(s)");
  return Status::Ok();
}

void AddDigestVerbs(const VerbContext& v, CLI::App& eval) {
  struct Args {
    DigestArgs dg;
    std::string sum_action;
    std::string sum_period;
    bool sum_json = false;
    DigestArgs eval_dg;
    std::string eval_ref;
    std::string eval_expect;
    bool eval_dg_json = false;
  };
  auto args = std::make_shared<Args>();
  DigestArgs& dg = args->dg;
  std::string& sum_action = args->sum_action;
  std::string& sum_period = args->sum_period;
  bool& sum_json = args->sum_json;
  DigestArgs& eval_dg = args->eval_dg;
  std::string& eval_ref = args->eval_ref;
  std::string& eval_expect = args->eval_expect;
  bool& eval_dg_json = args->eval_dg_json;
  auto* digest = v.app.add_subcommand("digest", "Summarize a week (or period) by workstream in three tiers; publish it as a site");
  auto digest_options = [](CLI::App* cmd, DigestArgs& a) {
    AddParamFlags(cmd, DigestParams(), a.texts);
    cmd->add_option("--llm", a.llm, "openai:<base-url>#<model> or anthropic:<model> (else $UMWELT_LLM; none: extractive)");
    cmd->add_flag("--replay", a.replay, "Write only from the LLM cache; a miss is an error");
  };
  digest_options(digest, dg);
  digest->add_option("--out,-o", dg.out, "The site folder")->default_val("summaries");
  digest->add_option("--site-url", dg.site_url, "Where the site is served (absolute links in the feed and corpus)");
  digest->add_flag("--no-store", dg.no_store, "Do not feed the sections back into the corpus");
  digest->add_option("--trace", dg.trace, "Write each section's evidence pack and landed list as JSON to this file");
  digest->add_option("--post", dg.post, "Post XS, then S and M, to a webhook: discord ($UMWELT_DISCORD_WEBHOOK) or slack ($UMWELT_SLACK_WEBHOOK)");
  auto* summaries = v.app.add_subcommand("summaries", "Stored weekly summaries: list, show PERIOD|latest, links PERIOD");
  summaries->add_option("action", sum_action, "list, show or links")->required()->check(CLI::IsMember({"list", "show", "links"}));
  summaries->add_option("period", sum_period, "YYYY-MM-DD_YYYY-MM-DD, a day in it, or latest");
  summaries->add_flag("--json", sum_json, "Emit JSON");
  auto* eval_digest = eval.add_subcommand("digest", "Check digests: links, coverage of notable events, tier rules; compare with reference tiers");
  digest_options(eval_digest, eval_dg);
  eval_digest->add_option("--reference", eval_ref, "A folder of reference weeks (xs.md, s.md, m.md) to compare shapes with");
  eval_digest->add_option("--expect", eval_expect, "A JSON file of the PRs each week must show: {\"YYYY-MM-DD\": [\"#N\", ...]}");
  eval_digest->add_flag("--json", eval_dg_json, "Emit JSON");
  digest->callback([v, args] {
    *v.run = [v, args]() -> Status {
      args->dg.quiet = v.quiet;
      return CmdDigest(v.corpus, args->dg);
    };
  });
  summaries->callback([v, args] {
    *v.run = [v, args]() -> Status {
      return CmdSummaries(v.corpus, args->sum_action, args->sum_period, args->sum_json);
    };
  });
  eval_digest->callback([v, args] {
    *v.run = [v, args]() -> Status {
      return CmdEvalDigest(v.corpus, args->eval_dg, args->eval_ref, args->eval_expect, args->eval_dg_json);
    };
  });
}

}  // namespace umwelt::cli
