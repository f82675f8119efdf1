// The digest site: one page per period, an index with a chart of weekly
// activity, an Atom feed, and inline SVG activity strips.
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "digest_internal.h"
#include "umwelt/pattern.h"
#include "umwelt/json_read.h"
#include "umwelt/claims.h"
#include "umwelt/source_traits.h"
#include "umwelt/file.h"
#include "umwelt/publish.h"
#include "umwelt/text.h"

namespace umwelt {
namespace di = digest_internal;
using json = nlohmann::json;

namespace digest_internal {

std::optional<int64_t> DayStart(std::string_view date) {
  if (date.size() != 10 || date[4] != '-' || date[7] != '-') return std::nullopt;
  auto t = ParseIsoTime(std::string(date) + "T00:00:00Z");
  // ParseIsoTime accepts 2026-02-31; a round trip does not.
  if (!t || FormatIsoTime(*t).substr(0, 10) != date) return std::nullopt;
  return t;
}

std::string DayString(int64_t epoch) { return FormatIsoTime(epoch).substr(0, 10); }

std::string LongDate(const std::string& date) {
  static const char* months[] = {"January", "February", "March",     "April",   "May",      "June",
                                 "July",    "August",   "September", "October", "November", "December"};
  if (!DayStart(date)) return date;
  int m = std::stoi(date.substr(5, 2)), d = std::stoi(date.substr(8, 2));
  return std::string(months[m - 1]) + " " + std::to_string(d) + ", " + date.substr(0, 4);
}

std::string Inline(std::string_view text, size_t max_bytes) {
  std::string t = CollapseWhitespace(text);
  bool cut = t.size() > max_bytes;
  t = std::string(TruncateUtf8(t, max_bytes));
  return research::Neutralize(t) + (cut ? "…" : "");
}

namespace {

const char* kColors[kActivityKinds] = {"#f28e2b", "#59a14f", "#4e79a7", "#b07aa1", "#76b7b2", "#e0b83c"};

std::string Num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  std::string s = b;
  if (s.size() > 2 && s.substr(s.size() - 2) == ".0") s.resize(s.size() - 2);
  return s;
}

int Sum(const DayActivity& a) {
  int n = 0;
  for (int v : a) n += v;
  return n;
}

// Stacked bars, one per slot, bottom-up in category order.
std::string Bars(const std::vector<DayActivity>& slots, double x0, double width, double gap, double height,
                 double top) {
  int max = 1;
  for (const auto& s : slots) max = std::max(max, Sum(s));
  std::string out;
  for (size_t i = 0; i < slots.size(); ++i) {
    double y = top + height;
    double x = x0 + i * (width + gap);
    if (Sum(slots[i]) == 0) {
      out += "<rect x=\"" + Num(x) + "\" y=\"" + Num(top + height - 1) + "\" width=\"" + Num(width) +
             "\" height=\"1\" fill=\"currentColor\" opacity=\".35\"/>";
      continue;
    }
    for (int k = 0; k < kActivityKinds; ++k) {
      if (!slots[i][k]) continue;
      double h = std::max(1.0, height * slots[i][k] / max);
      y -= h;
      out += "<rect x=\"" + Num(x) + "\" y=\"" + Num(y) + "\" width=\"" + Num(width) + "\" height=\"" + Num(h) +
             "\" fill=\"" + kColors[k] + "\"><title>" + std::to_string(slots[i][k]) + " " + ActivityCategories()[k] +
             "</title></rect>";
    }
  }
  return out;
}

std::string Describe(const DayActivity& total) {
  std::string out;
  for (int k = 0; k < kActivityKinds; ++k) {
    if (total[k]) out += (out.empty() ? "" : ", ") + std::to_string(total[k]) + " " + ActivityCategories()[k];
  }
  return out.empty() ? "no activity" : out;
}

}  // namespace

std::string ActivityStripSvg(const std::vector<DayActivity>& days, const std::string& from) {
  if (days.empty()) return "";
  double width = days.size() <= 7 ? 12 : std::max(2.0, 96.0 / days.size());
  double gap = days.size() <= 7 ? 3 : 1;
  double w = days.size() * (width + gap) - gap;
  DayActivity total{};
  for (const auto& d : days) {
    for (int k = 0; k < kActivityKinds; ++k) total[k] += d[k];
  }
  std::string label = "Activity per day from " + from + ": " + Describe(total);
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + Num(w) + "\" height=\"34\" viewBox=\"0 0 " +
                    Num(w) + " 34\" role=\"img\" aria-label=\"" + HtmlEscape(label) + "\"><title>" +
                    HtmlEscape(label) + "</title>" + Bars(days, 0, width, gap, 22, 0);
  if (days.size() <= 7) {
    static const char* kDays = "MTWTFSS";
    auto start = DayStart(from);
    int weekday = start ? static_cast<int>((*start / 86400 + 3) % 7) : 0;
    for (size_t i = 0; i < days.size(); ++i) {
      svg += "<text x=\"" + Num(i * (width + gap) + width / 2) +
             "\" y=\"33\" text-anchor=\"middle\" font-size=\"8\" fill=\"currentColor\">" +
             std::string(1, kDays[(weekday + i) % 7]) + "</text>";
    }
  }
  return svg + "</svg>";
}

std::string WeeklyChartSvg(const std::vector<WeekTotal>& weeks) {
  if (weeks.empty()) return "";
  const double width = 600, height = 110, left = 28;
  double slot = (width - left) / weeks.size();
  double bar = std::max(1.0, std::min(28.0, slot * 0.75));
  std::vector<DayActivity> totals;
  int max = 1;
  for (const auto& w : weeks) {
    totals.push_back(w.total);
    max = std::max(max, Sum(w.total));
  }
  std::string label = "Activity per week over " + std::to_string(weeks.size()) + " weeks, at most " +
                      std::to_string(max) + " in one week";
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 600 132\" role=\"img\" aria-label=\"" +
                    HtmlEscape(label) + "\"><title>" + HtmlEscape(label) + "</title>";
  svg += "<line x1=\"" + Num(left - 4) + "\" y1=\"" + Num(height) + "\" x2=\"600\" y2=\"" + Num(height) +
         "\" stroke=\"currentColor\" opacity=\".4\"/>";
  svg += "<text x=\"" + Num(left - 8) + "\" y=\"8\" text-anchor=\"end\" font-size=\"9\" fill=\"currentColor\">" +
         std::to_string(max) + "</text>";
  svg += "<text x=\"" + Num(left - 8) + "\" y=\"" + Num(height) +
         "\" text-anchor=\"end\" font-size=\"9\" fill=\"currentColor\">0</text>";
  svg += Bars(totals, left + (slot - bar) / 2, bar, slot - bar, height - 2, 2);
  size_t step = std::max<size_t>(1, weeks.size() / 6);
  for (size_t i = 0; i < weeks.size(); i += step) {
    svg += "<text x=\"" + Num(left + i * slot + slot / 2) + "\" y=\"124\" text-anchor=\"middle\" font-size=\"9\" "
           "fill=\"currentColor\">" + HtmlEscape(weeks[i].label) + "</text>";
  }
  return svg + "</svg>";
}

std::string ActivityLegendHtml() {
  std::string out = "<span class=\"legend\">";
  for (int k = 0; k < kActivityKinds; ++k) {
    out += "<span><i style=\"background:" + std::string(kColors[k]) + "\"></i>" + ActivityCategories()[k] + "</span>";
  }
  return out + "</span>";
}

std::vector<std::string> MarkdownLinks(std::string_view md) {
  std::vector<std::string> out;
  for (auto& url : research::MarkdownLinks(md)) {
    if (url.rfind("http://", 0) == 0 || url.rfind("https://", 0) == 0) out.push_back(std::move(url));
  }
  return out;
}

// What the page rests on, after the marker the citation check reads: the
// data's extent, notes, and the shared links it lists without fetching.
std::string Provenance(const Digest& d) {
  std::string md = "\n<!--provenance-->\n\n";
  md += "> Data: " + std::to_string(d.stats.chunks) + " chunks dated " + d.period.from + " to " + d.period.to + " in " +
        std::to_string(d.stats.threads) + " threads; " + std::to_string(d.stats.contributors) + " contributors";
  if (d.partial) md += "; the period had not ended when this was written";
  md += ".\n";
  if (!d.notes.empty()) {
    md += ">\n> Notes: ";
    for (size_t i = 0; i < d.notes.size(); ++i) md += (i ? "; " : "") + di::Inline(d.notes[i], 300);
    md += ".\n";
  }
  if (!d.shared_links.empty()) {
    md += "\nShared links (not fetched): ";
    for (size_t i = 0; i < d.shared_links.size(); ++i) md += (i ? " · " : "") + std::string("<") + d.shared_links[i] + ">";
    md += "\n";
  }
  return md;
}

}  // namespace digest_internal

std::string SitePagePath(const std::string& period) { return std::string(kPagesFolder) + "/summary-" + period + ".html"; }

namespace {

const char* kNavToken = "UMWELTPERIODNAV";

std::string PageName(const std::string& period) { return "summary-" + period + ".html"; }

// Sites written before the reference layout kept the periods beside the
// index: their files move into summaries/ (a file already there wins).
// Returns whether any moved (their pages' links need writing again).
bool MovePagesIntoFolder(const std::string& out_dir) {
  static const Pattern re(R"(summary-\d{4}-\d{2}-\d{2}_\d{4}-\d{2}-\d{2}[.a-z]*)");
  std::error_code ec;
  std::vector<std::filesystem::path> old;
  for (const auto& entry : std::filesystem::directory_iterator(out_dir, ec)) {
    if (entry.is_regular_file(ec) && re.Matches(entry.path().filename().string())) old.push_back(entry.path());
  }
  for (const auto& from : old) {
    std::filesystem::path to = std::filesystem::path(out_dir) / kPagesFolder / from.filename();
    if (std::filesystem::exists(to, ec)) {
      std::filesystem::remove(from, ec);
    } else {
      std::filesystem::rename(from, to, ec);
    }
  }
  return !old.empty();
}

std::string FigureKey(const std::string& slug) { return "UMWELTFIGURE-" + slug; }

std::string ShortWeek(const std::string& from) {
  std::string d = di::LongDate(from);
  return d.substr(0, d.find(','));
}

Status WriteFile(const std::string& path, const std::string& data) { return WriteFileAtomic(path, data); }

// The page's Markdown, with a token where the navigation goes.
std::string PageMarkdown(const Digest& d) {
  std::string md = "---\ntitle: " + CollapseWhitespace(d.title) + "\ndate: " + d.period.to + "\n---\n\n";
  md += std::string(kNavToken) + "\n\n";
  md += "*" + di::Inline(d.xs, 400) + "*\n\n";
  if (d.extractive && !d.quiet) {
    md += "> **Extractive summary.** No language model was used: each section leads with its threads' state "
          "changes and quotes its best evidence with author, date and link.\n\n";
  }
  if (!d.sections.empty()) {
    md += "**In brief**\n\n" + DigestS(d) + "\n";
  }
  for (const auto& s : d.sections) {
    md += "## " + di::Inline(s.heading, 80) + "\n\n" + FigureKey(s.slug) + "\n\n" + s.body + "\n";
  }
  return md + di::Provenance(d);
}

struct PeriodFile {
  std::string period;
  json j;
};

std::vector<PeriodFile> LoadPeriods(const std::string& dir) {
  std::vector<PeriodFile> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    static const Pattern re(R"(summary-(\d{4}-\d{2}-\d{2}_\d{4}-\d{2}-\d{2})\.json)");
    Groups m;
    if (!re.Matches(name, &m)) continue;
    auto text = ReadWholeFile(entry.path().string());
    if (!text.ok()) continue;
    json j = json::parse(*text, nullptr, false);
    if (!j.is_object() || !j.contains("page_markdown")) continue;
    out.push_back({std::string(m[1]), std::move(j)});
  }
  std::sort(out.begin(), out.end(), [](const PeriodFile& a, const PeriodFile& b) { return a.period < b.period; });
  return out;
}

std::vector<DayActivity> DaysOf(const json& section) {
  std::vector<DayActivity> days;
  if (!section.contains("days") || !section["days"].is_array()) return days;
  for (const auto& d : section["days"]) {
    DayActivity a{};
    for (int k = 0; k < kActivityKinds && d.is_array() && k < static_cast<int>(d.size()); ++k) {
      a[k] = d[k].is_number_integer() ? d[k].get<int>() : 0;
    }
    days.push_back(a);
  }
  return days;
}

// Renders one stored period with its neighbours' links.
Result<std::string> RenderPage(const std::vector<PeriodFile>& all, size_t i, Corpus* corpus, int64_t generated_at) {
  const json& j = all[i].j;
  std::string md = StrField(j, "page_markdown");  // a file of the site folder: read leniently
  // Neighbours are linked only when they exist.
  std::string nav;
  if (i > 0) nav += "[← " + ShortWeek(all[i - 1].period.substr(0, 10)) + "](" + PageName(all[i - 1].period) + ") · ";
  nav += "[All summaries](../index.html)";
  if (i + 1 < all.size()) {
    nav += " · [" + ShortWeek(all[i + 1].period.substr(0, 10)) + " →](" + PageName(all[i + 1].period) + ")";
  }
  size_t at = md.find(kNavToken);
  if (at != std::string::npos) md.replace(at, std::string(kNavToken).size(), nav);
  PublishOptions po;
  po.system = "umwelt digest";
  po.byline = BoolField(j, "extractive", true) ? "Written by umwelt digest, extractively" : "Written by umwelt digest with " +
                                                                                          StrField(j, "model", "a model");
  po.date = all[i].period.substr(11);
  po.generated_at = generated_at;
  po.math = false;
  if (j.contains("sections") && j["sections"].is_array()) {
    bool legend = true;  // under the first strip only
    for (const auto& s : j["sections"]) {
      std::string slug = StrField(s, "slug");
      std::vector<DayActivity> days = DaysOf(s);
      bool any = false;
      for (const auto& d : days) any |= d != DayActivity{};
      // A section without dated activity (shared reading) keeps its anchor, not a strip.
      po.figures[FigureKey(slug)] = "<figure class=\"activity\" id=\"s-" + HtmlEscape(slug) + "\">" +
                                    (any ? di::ActivityStripSvg(days, all[i].period.substr(0, 10)) : "") +
                                    (any && legend ? di::ActivityLegendHtml() : "") + "</figure>";
      legend &= !any;
    }
  }
  UMWELT_ASSIGN_OR_RETURN(PublishResult page, Publish(md, po, corpus));
  if (page.has_errors()) {
    std::string why;
    for (const auto& p : page.problems) {
      if (p.severity == CheckProblem::Severity::kError) {
        why = (p.url.empty() ? "" : p.url + ": ") + p.message;
        break;
      }
    }
    return Status::Invalid("summary " + all[i].period + " fails the citation check: " + why);
  }
  return page.html;
}

std::string IndexMarkdown(const std::vector<PeriodFile>& all, const std::string& project) {
  std::string md = "---\ntitle: " + CollapseWhitespace(project) + ": weekly summaries\n---\n\n";
  md += "UMWELTFIGURE-weekly\n\n[Atom feed](feed.xml) · " + std::to_string(all.size()) + " period" +
        (all.size() == 1 ? "" : "s") + "\n\n";
  for (size_t i = all.size(); i-- > 0;) {
    const json& j = all[i].j;
    std::string from = all[i].period.substr(0, 10), to = all[i].period.substr(11);
    auto a = di::DayStart(from), b = di::DayStart(to);
    bool week = a && b && *b - *a == 6 * 86400;
    md += "### [" + (week ? "Week of " + di::LongDate(from) : di::LongDate(from) + " to " + di::LongDate(to)) + "](" +
          SitePagePath(all[i].period) + ")\n\n" + di::Inline(StrField(j, "xs"), 400) + "\n\n";
  }
  return md;
}

std::string FeedXml(const std::vector<PeriodFile>& all, const std::string& project, const std::string& site_url,
                    int64_t generated_at) {
  // Any title or text the corpus gave is made XML first: one ESC or NUL
  // would make the whole feed unreadable.
  auto X = [](std::string_view text) { return HtmlEscape(XmlChars(text)); };
  std::string base = site_url.empty() ? "" : (site_url.back() == '/' ? site_url : site_url + "/");
  std::string x = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n";
  x += "<title>" + X(project + ": weekly summaries") + "</title>\n";
  x += "<id>" + X(base.empty() ? "urn:umwelt:digest:" + project : base + "feed.xml") + "</id>\n";
  x += "<link rel=\"self\" href=\"" + X(base + "feed.xml") + "\"/>\n";
  x += "<link href=\"" + X(base + "index.html") + "\"/>\n";
  x += "<updated>" + FormatIsoTime(generated_at) + "</updated>\n<generator>umwelt</generator>\n";
  for (size_t i = all.size(); i-- > 0;) {
    const json& j = all[i].j;
    std::string url = base + SitePagePath(all[i].period);
    std::string content = "<p>" + X(StrField(j, "xs")) + "</p><ul>";
    if (j.contains("sections")) {
      for (const auto& s : j["sections"]) {
        content += "<li><strong>" + X(StrField(s, "heading")) + "</strong> — " +
                   X(StrField(s, "bullet")) + "</li>";
      }
    }
    content += "</ul>";
    x += "<entry>\n<title>" + X(StrField(j, "title", all[i].period)) + "</title>\n";
    x += "<id>" + X(base.empty() ? "urn:umwelt:digest:" + project + ":" + all[i].period : url) + "</id>\n";
    x += "<link href=\"" + X(url) + "\"/>\n";
    x += "<updated>" + X(StrField(j, "generated_at", FormatIsoTime(generated_at))) + "</updated>\n";
    x += "<summary>" + X(StrField(j, "xs")) + "</summary>\n";
    x += "<content type=\"html\">" + X(content) + "</content>\n</entry>\n";
  }
  return x + "</feed>\n";
}

}  // namespace

Result<std::string> WriteDigestSite(const Digest& d, const SiteOptions& o, Corpus* corpus) {
  if (o.out_dir.empty()) return Status::Invalid("no output folder for the digest site");
  std::error_code ec;
  std::string pages = o.out_dir + "/" + kPagesFolder;
  std::filesystem::create_directories(pages, ec);
  if (ec) return Status::Io("cannot create " + pages + ": " + ec.message());
  bool moved = MovePagesIntoFolder(o.out_dir);
  int64_t generated = o.generated_at ? o.generated_at : NowEpoch();
  std::string period = d.period.id();
  std::string base = pages + "/summary-" + period;

  json j;
  j["period"] = period;
  j["title"] = d.title;
  j["project"] = d.project;
  j["xs"] = d.xs;
  j["extractive"] = d.extractive;
  j["quiet"] = d.quiet;
  j["partial"] = d.partial;
  j["generated_at"] = FormatIsoTime(generated);
  j["stats"] = {{"chunks", d.stats.chunks},   {"threads", d.stats.threads}, {"contributors", d.stats.contributors},
                {"opened", d.stats.opened},   {"merged", d.stats.merged},   {"closed", d.stats.closed},
                {"messages", d.stats.messages}, {"channels", d.stats.channels}, {"commits", d.stats.commits},
                {"runs", d.stats.runs}};
  j["sections"] = json::array();
  DayActivity total{};
  for (const auto& s : d.sections) {
    json days = json::array();
    for (const auto& day : s.days) days.push_back(day);
    j["sections"].push_back({{"slug", s.slug}, {"kind", s.kind}, {"heading", s.heading}, {"bullet", s.bullet},
                             {"activity", s.activity}, {"days", days}});
    // Cross-cutting sections repeat threads counted elsewhere.
    if (s.kind != "outside" && s.kind != "reading") {
      for (const auto& day : s.days) {
        for (int k = 0; k < kActivityKinds; ++k) total[k] += day[k];
      }
    }
  }
  j["total"] = total;
  j["page_markdown"] = PageMarkdown(d);
  j["removed"] = d.removed;
  j["notes"] = d.notes;

  // Render first: a page that fails the check writes nothing.
  std::vector<PeriodFile> all = LoadPeriods(pages);
  std::erase_if(all, [&](const PeriodFile& p) { return p.period == period; });
  all.push_back({period, j});
  std::sort(all.begin(), all.end(), [](const PeriodFile& a, const PeriodFile& b) { return a.period < b.period; });
  size_t at = std::find_if(all.begin(), all.end(), [&](const PeriodFile& p) { return p.period == period; }) - all.begin();
  UMWELT_ASSIGN_OR_RETURN(std::string html, RenderPage(all, at, corpus, generated));

  std::string md = "# " + d.title + "\n\n" + DigestM(d) + di::Provenance(d);
  UMWELT_RETURN_IF_ERROR(WriteFile(base + ".md", md));
  UMWELT_RETURN_IF_ERROR(WriteFile(base + ".s.md", DigestS(d)));
  UMWELT_RETURN_IF_ERROR(WriteFile(base + ".xs.md", DigestXs(d)));
  UMWELT_RETURN_IF_ERROR(WriteFile(base + ".json", j.dump(1)));
  UMWELT_RETURN_IF_ERROR(WriteFile(base + ".html", html));
  // The neighbours' previous / next links (every page's, after a move).
  for (size_t n = 0; n < all.size(); ++n) {
    if (n == at || (!moved && n + 1 != at && n != at + 1)) continue;
    auto neighbour = RenderPage(all, n, corpus, generated);
    if (neighbour.ok()) UMWELT_RETURN_IF_ERROR(WriteFile(pages + "/" + PageName(all[n].period), *neighbour));
  }
  // Index and feed.
  std::vector<di::WeekTotal> weeks;
  for (const auto& p : all) {
    di::WeekTotal w;
    w.period = p.period;
    w.label = ShortWeek(p.period.substr(0, 10));
    if (p.j.contains("total") && p.j["total"].is_array()) {
      for (int k = 0; k < kActivityKinds && k < static_cast<int>(p.j["total"].size()); ++k) {
        const json& n = p.j["total"][k];
        w.total[k] = n.is_number_integer() ? static_cast<int>(std::clamp<int64_t>(n.get<int64_t>(), 0, 1 << 30)) : 0;
      }
    }
    weeks.push_back(w);
  }
  PublishOptions io;
  io.byline = "Written by umwelt digest";
  io.generated_at = generated;
  io.math = false;
  io.figures["UMWELTFIGURE-weekly"] =
      "<figure class=\"chart\">" + di::WeeklyChartSvg(weeks) + di::ActivityLegendHtml() + "</figure>";
  UMWELT_ASSIGN_OR_RETURN(PublishResult index, Publish(IndexMarkdown(all, d.project), io, corpus));
  UMWELT_RETURN_IF_ERROR(WriteFile(o.out_dir + "/index.html", index.html));
  UMWELT_RETURN_IF_ERROR(WriteFile(o.out_dir + "/feed.xml", FeedXml(all, d.project, o.site_url, generated)));
  return base + ".html";
}

}  // namespace umwelt
