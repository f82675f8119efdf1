// `umwelt digest`: gather a period's activity, group it into workstreams,
// rank each section's evidence and write the three tiers (see digest.h).
#include <nlohmann/json.hpp>

#include "umwelt/digest.h"

#include <algorithm>
#include <chrono>

#include "digest_internal.h"
#include "umwelt/claims.h"
#include "umwelt/source_traits.h"
#include "umwelt/text.h"

namespace umwelt {
namespace di = digest_internal;

using research::Neutralize;

int Period::days() const {
  auto a = di::DayStart(from), b = di::DayStart(to);
  return a && b && *b >= *a ? static_cast<int>((*b - *a) / 86400) + 1 : 0;
}

Result<Period> WeekOf(const std::string& date) {
  auto t = di::DayStart(date);
  if (!t) return Status::Invalid("not a date (YYYY-MM-DD): " + date);
  int64_t day = *t / 86400;                 // 1970-01-01 was a Thursday
  int64_t weekday = (day + 3) % 7;          // 0 = Monday
  int64_t monday = (day - weekday) * 86400;
  return Period{di::DayString(monday), di::DayString(monday + 6 * 86400)};
}

Period LastCompleteWeek(int64_t now) {
  Period this_week = *WeekOf(di::DayString(now));
  return *WeekOf(di::DayString(*di::DayStart(this_week.from) - 86400));
}

Result<Period> ParsePeriod(const std::string& from, const std::string& to) {
  if (to.empty() && from.size() == 21 && from[10] == '_') return ParsePeriod(from.substr(0, 10), from.substr(11));
  if (to.empty()) return WeekOf(from);
  auto a = di::DayStart(from), b = di::DayStart(to);
  if (!a) return Status::Invalid("not a date (YYYY-MM-DD): " + from);
  if (!b) return Status::Invalid("not a date (YYYY-MM-DD): " + to);
  if (*b < *a) return Status::Invalid("the period ends (" + to + ") before it begins (" + from + ")");
  if (*b - *a > 366 * 86400) return Status::Invalid("a digest covers at most a year; " + from + " to " + to + " is longer");
  return Period{from, to};
}

const ParamTable<DigestRequest>& DigestParams() {
  static const ParamTable<DigestRequest> table = [] {
    using T = ParamType;
    using V = const ParamValue&;
    ParamTable<DigestRequest> t;
    t.params = {
        {{.name = "week", .type = T::kDate, .help = "A day of the week to summarize, YYYY-MM-DD (default: the last complete week)"},
         [](DigestRequest& r, V v) { r.week = v.text; }},
        {{.name = "weeks", .type = T::kInt, .help = "Summarize this many weeks, ending with --week", .min = 1, .max = 520,
          .fallback = "1"},
         [](DigestRequest& r, V v) { r.weeks = static_cast<int>(v.integer); }},
        {{.name = "from", .type = T::kDate, .help = "Start of a custom period, YYYY-MM-DD"},
         [](DigestRequest& r, V v) { r.from = v.text; }},
        {{.name = "to", .type = T::kDate, .help = "End of a custom period, YYYY-MM-DD (inclusive)"},
         [](DigestRequest& r, V v) { r.to = v.text; }},
        {{.name = "tiers", .type = T::kNames, .help = "Tiers to print (all are written beside the page)", .max = 3,
          .fallback = "xs,s,m", .choices = {"xs", "s", "m"}},
         [](DigestRequest& r, V v) { r.tiers = v.list; }},
        {{.name = "project", .type = T::kString, .help = "The name in titles (default: the main repository)", .max = 200},
         [](DigestRequest& r, V v) { r.config.project = v.text; }},
        {{.name = "epic_label", .type = T::kList, .help = "Labels that mark epics (repeatable; default epic)", .max = 100},
         [](DigestRequest& r, V v) { r.config.epic_labels = v.list; }},
        {{.name = "member", .type = T::kList, .help = "Logins counted as the project's own (repeatable)", .max = 10000},
         [](DigestRequest& r, V v) { r.config.members = v.list; }},
        {{.name = "introductions", .type = T::kString, .help = "The chat channel of introductions (default introductions)",
          .max = 200},
         [](DigestRequest& r, V v) { r.config.introductions_channel = v.text; }},
    };
    t.check = [](const DigestRequest& r) {
      if (!r.week.empty() && (!r.from.empty() || !r.to.empty())) return Status::Invalid("week and from/to exclude each other");
      if (r.from.empty() != r.to.empty()) return Status::Invalid("from and to go together");
      if (!r.from.empty() && r.weeks != 1) return Status::Invalid("weeks goes with week, not from/to");
      return Status::Ok();
    };
    return t;
  }();
  return table;
}

Result<std::vector<Period>> DigestPeriods(const DigestRequest& r, int64_t now) {
  if (!r.from.empty()) {
    UMWELT_ASSIGN_OR_RETURN(Period p, ParsePeriod(r.from, r.to));
    return std::vector<Period>{p};
  }
  Period last = LastCompleteWeek(now);
  if (!r.week.empty()) {
    UMWELT_ASSIGN_OR_RETURN(last, WeekOf(r.week));
  }
  std::vector<Period> out;
  int64_t monday = *di::DayStart(last.from);
  for (int i = r.weeks - 1; i >= 0; --i) {
    UMWELT_ASSIGN_OR_RETURN(Period p, WeekOf(di::DayString(monday - 7LL * 86400 * i)));
    out.push_back(p);
  }
  return out;
}

namespace {
using Clock = std::chrono::steady_clock;
}  // namespace

Result<Digest> BuildDigest(const DigestOptions& o) {
  auto t0 = Clock::now();
  Digest d;
  d.period = o.period;
  auto from = di::DayStart(o.period.from), to = di::DayStart(o.period.to);
  if (!from || !to || *to < *from) return Status::Invalid("not a period: " + o.period.from + " to " + o.period.to);
  int64_t now = o.now ? o.now : NowEpoch();
  if (*from > now) {
    return Status::Invalid("the period " + o.period.id() + " has not begun (today is " + di::DayString(now) + ")");
  }
  d.partial = *to + 86400 > now;
  if (d.partial) d.notes.push_back("the period has not ended: activity through " + FormatIsoTime(now));
  auto progress = [&](const std::string& stage, const std::string& detail) {
    if (o.progress) o.progress(stage, detail);
  };
  UMWELT_ASSIGN_OR_RETURN(auto corpus, Corpus::Open(o.corpus_path, Corpus::Mode::kReadOnly));
  progress("gather", o.period.id());
  UMWELT_RETURN_IF_ERROR(di::Gather(*corpus, o, &d));
  d.project = o.config.project;
  if (d.project.empty()) {
    for (const auto& s : d.sections) {
      for (const auto& t : s.threads) {
        if (d.project.empty() && t.ref.find('#') != std::string::npos && t.ref.find(':') == std::string::npos) {
          d.project = t.ref.substr(0, t.ref.find('#'));
        }
      }
    }
  }
  if (d.project.empty()) d.project = "Project";
  d.title = d.project + ": week of " + di::LongDate(o.period.from);
  if (o.period.days() != 7) d.title = d.project + ": " + di::LongDate(o.period.from) + " to " + di::LongDate(o.period.to);

  // Continuity: last period's sections, by slug.
  if (auto prev_from = di::DayStart(o.period.from)) {
    Period prev{di::DayString(*prev_from - 86400LL * o.period.days()), di::DayString(*prev_from - 86400)};
    std::string parent = NarrativeRef(prev.id());
    auto chunks = corpus->ThreadChunks(parent);
    if (chunks.ok()) {
      for (auto& s : d.sections) {
        for (const auto& c : *chunks) {
          size_t slash = c.ref.rfind('/');
          if (slash != std::string::npos && c.ref.size() > slash + 4 && c.ref.substr(slash + 4) == s.slug) {
            // The stored text is "## heading\n\nbody".
            size_t body = c.text.find("\n\n");
            s.previous = body == std::string::npos ? c.text : c.text.substr(body + 2);
          }
        }
      }
    }
  }

  if (d.quiet) {
    d.xs = "Quiet week: no activity recorded in the corpus from " + o.period.from + " to " + o.period.to + ".";
    if (o.period.days() != 7) d.xs = "Quiet period: no activity recorded from " + o.period.from + " to " + o.period.to + ".";
    d.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return d;
  }

  if (!o.llm) {
    progress("write", "extractive, " + std::to_string(d.sections.size()) + " sections");
    di::WriteAllExtractive(&d, o.config);
  } else {
    progress("write", std::to_string(d.sections.size()) + " sections with " + o.llm->model());
    UMWELT_RETURN_IF_ERROR(di::WriteAllWithModel(&d, *o.llm, o.config));
  }
  d.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return d;
}

std::string DigestXs(const Digest& d) { return d.xs + "\n"; }

std::string DigestS(const Digest& d) {
  std::string out;
  for (const auto& s : d.sections) {
    out += "- **" + di::Inline(s.heading, 80) + "** — " + Neutralize(s.bullet) + "\n";
  }
  return out;
}

std::string DigestM(const Digest& d) {
  std::string out;
  if (d.quiet) return d.xs + "\n";
  for (const auto& s : d.sections) out += "## " + di::Inline(s.heading, 80) + "\n\n" + s.body + "\n";
  return out;
}

std::string DigestTraceJson(const Digest& d) {
  nlohmann::json t;
  t["period"] = d.period.id();
  t["extractive"] = d.extractive;
  t["notes"] = d.notes;
  t["removed"] = d.removed;
  t["llm"] = {{"calls", d.usage.calls}, {"input_tokens", d.usage.input_tokens}, {"output_tokens", d.usage.output_tokens},
              {"cost_usd", d.usage.cost_usd}};
  t["sections"] = nlohmann::json::array();
  for (const auto& s : d.sections) {
    nlohmann::json sec = {{"slug", s.slug}, {"kind", s.kind}, {"heading", s.heading}, {"activity", s.activity}};
    sec["landed"] = nlohmann::json::array();
    for (const auto& l : s.landed) {
      sec["landed"].push_back({{"label", l.label}, {"title", l.title}, {"url", l.url}, {"author", l.author},
                               {"files", l.files}, {"added", l.added}, {"removed", l.removed},
                               {"discussion", l.discussion}, {"links", l.links}});
    }
    sec["evidence"] = nlohmann::json::array();
    for (const auto& e : s.evidence) {
      sec["evidence"].push_back({{"id", e.id}, {"url", e.url}, {"source", e.source}, {"kind", e.kind},
                                 {"author", e.author}, {"date", e.date}, {"thread_state", e.thread_state},
                                 {"closeout", e.closeout}, {"score", e.score},
                                 {"text", std::string(TruncateUtf8(e.text, 300))}});
    }
    t["sections"].push_back(std::move(sec));
  }
  return t.dump(1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Result<WrittenDigest> WriteDigest(const WriteDigestOptions& o) {
  WrittenDigest out;
  UMWELT_ASSIGN_OR_RETURN(out.digest, BuildDigest(o.digest));
  bool native = false;
  {
    UMWELT_ASSIGN_OR_RETURN(auto probe, Corpus::Open(o.digest.corpus_path, Corpus::Mode::kReadOnly));
    native = probe->native();
  }
  UMWELT_ASSIGN_OR_RETURN(auto corpus, Corpus::Open(o.digest.corpus_path, native && o.store ? Corpus::Mode::kReadWrite
                                                                                              : Corpus::Mode::kReadOnly));
  if (!o.site.out_dir.empty()) {
    UMWELT_ASSIGN_OR_RETURN(out.page, WriteDigestSite(out.digest, o.site, corpus.get()));
  }
  if (o.store && native) {
    UMWELT_RETURN_IF_ERROR(StoreDigest(*corpus, out.digest, o.page_url));
    out.stored = true;
  } else if (o.store) {
    out.digest.notes.push_back("the corpus is in the reference schema (read-only): the digest is not fed back");
  }
  if (!o.post_kind.empty()) UMWELT_RETURN_IF_ERROR(PostDigest(out.digest, o.post_kind, o.post_webhook));
  return out;
}

}  // namespace umwelt
