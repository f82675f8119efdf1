// Offline import of saved GitHub API output, one transaction per file.
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "store.h"
#include "umwelt/file.h"
#include "umwelt/github.h"
#include "umwelt/log.h"
#include "umwelt/pattern.h"
#include "umwelt/text.h"

namespace umwelt::github {
namespace {


bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Parses the exchanges of a recording; non-2xx responses are noted, not data.
Status ParseExchanges(const std::vector<Exchange>& exchanges, const std::string& path, Records* out) {
  for (size_t i = 0; i < exchanges.size(); ++i) {
    const auto& ex = exchanges[i];
    std::string origin = path + " exchange " + std::to_string(i) + " (" + ex.method + " " + ex.path + ")";
    if (ex.method != "GET") {
      ++out->skipped;
      continue;
    }
    if (ex.status < 200 || ex.status >= 300) {
      out->warnings.push_back(origin + ": recorded HTTP " + std::to_string(ex.status) + ", skipped");
      ++out->skipped;
      continue;
    }
    if (ex.body.empty()) continue;
    UMWELT_RETURN_IF_ERROR(ParsePage(ex.body, ex.path, origin, out));
  }
  return Status::Ok();
}

// Per-thread listings carry no record of their parent. A file named like
// `sub-issues-101.json` or `timeline-101.json` supplies it; the repository
// comes from the records' own html_url.
std::string ContextFromName(const std::string& path, std::string_view text) {
  static const Pattern name_re(R"((sub[-_]issues|timeline)[-_](\d+)[^/]*$)", Pattern::kIgnoreCase);
  static const Pattern repo_re(R"re("html_url"\s*:\s*"https?://[^/"]+/([^/"]+/[^/"]+)/(issues|pull)/)re");
  Groups m;
  if (!name_re.Search(path, &m)) return "";
  std::string kind = ToLower(m[1]) == "timeline" ? "timeline" : "sub_issues";
  std::string number(m[2]);
  Groups r;
  if (!repo_re.Search(text.substr(0, 1u << 16), &r)) return "";
  return "/repos/" + std::string(r[1]) + "/issues/" + number + "/" + kind;
}

// What a JSON file holds, in a few words, for an error about its shape:
// "a JSON object with keys name, version, scripts".
std::string ShapeOf(const std::string& text) {
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(text, nullptr, false);
  if (j.is_discarded()) return "JSON Lines or several documents";
  auto keys = [](const nlohmann::ordered_json& o) {
    std::string out;
    int n = 0;
    for (auto it = o.begin(); it != o.end() && n < 6; ++it, ++n) out += (out.empty() ? "" : ", ") + it.key();
    return o.size() > 6 ? out + ", ..." : out;
  };
  if (j.is_object()) return "a JSON object with keys " + keys(j);
  if (j.is_array() && !j.empty() && j[0].is_object()) {
    return "an array of " + std::to_string(j.size()) + " objects with keys " + keys(j[0]);
  }
  if (j.is_array()) return "an array of " + std::to_string(j.size()) + " values";
  return "a JSON " + std::string(j.type_name());
}

Status ParseFile(const std::string& path, const std::string& text, Records* out) {
  std::string_view head = text;
  while (!head.empty() && (head[0] == ' ' || head[0] == '\n' || head[0] == '\r' || head[0] == '\t')) {
    head.remove_prefix(1);
  }
  if (head.empty()) return Status::Corrupt(path + ": empty file");
  if (StartsWith(head, "https\n") || StartsWith(head, "http\n") || StartsWith(head, "https\r\n")) {
    UMWELT_ASSIGN_OR_RETURN(auto exchanges, ParsePyGithubReplay(text, path));
    return ParseExchanges(exchanges, path, out);
  }
  UMWELT_ASSIGN_OR_RETURN(auto values, SplitJsonValues(text, path));
  if (values.size() == 1 && head[0] == '[' && head.find("\"rawHeaders\"") != std::string_view::npos &&
      head.find("\"scope\"") != std::string_view::npos) {
    UMWELT_ASSIGN_OR_RETURN(auto exchanges, ParseOctokitFixture(values[0], path));
    return ParseExchanges(exchanges, path, out);
  }
  std::string api_path = ContextFromName(path, text);
  for (size_t i = 0; i < values.size(); ++i) {
    std::string origin = values.size() == 1 ? path : path + " page " + std::to_string(i + 1);
    UMWELT_RETURN_IF_ERROR(ParsePage(values[i], api_path, origin, out));
  }
  // Saved API output holds records; a file of other things is another file.
  if (out->records.empty() && out->threads.empty() && out->skipped > 0) {
    return Status::Corrupt(path + ": not GitHub API output — expected issues, pull requests, comments or reviews "
                                  "(`gh api --paginate` output, JSON Lines or a recording); found " +
                           ShapeOf(text));
  }
  return Status::Ok();
}

}  // namespace

Status ImportFiles(Corpus& corpus, const std::vector<std::string>& paths, ImportReport* report) {
  return ImportEachFile(paths, [&](const std::string& path) -> Status {
    UMWELT_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path));
    Records records;
    UMWELT_RETURN_IF_ERROR(ParseFile(path, text, &records));
    StoreCounts counts;
    UMWELT_RETURN_IF_ERROR(StoreRecords(corpus, records, &counts).WithContext(path));
    report->files++;
    report->records += counts.records;
    report->changed += counts.changed;
    report->threads += counts.threads;
    report->skipped += records.skipped;
    for (auto& w : records.warnings) {
      LogWarn(w);
      report->warnings.push_back(w);
    }
    return Status::Ok();
  });
}

}  // namespace umwelt::github
