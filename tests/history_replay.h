// Test helper: replays a commit-metadata export (../shared/data/*-history/
// commits.jsonl: messages, people, dates and per-file +/- line counts, no
// contents) into a git repository with the same first-parent history and
// diff stats; each file's content is synthetic lines added and removed in the
// recorded amounts. tests/tools/replay-history.mjs does the same from a shell.
#pragma once

#include <deque>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "test_util.h"
#include "umwelt/text.h"

namespace umwelt::testing {

// Returns false (and says why in `error`) when the export cannot be read or
// git fails.
inline bool ReplayHistory(const std::string& jsonl, const std::string& repo, std::string* error) {
  std::ifstream in(jsonl);
  if (!in) {
    *error = "cannot read " + jsonl;
    return false;
  }
  std::vector<nlohmann::json> commits;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) commits.push_back(nlohmann::json::parse(line));
  }
  std::reverse(commits.begin(), commits.end());  // the export is newest first
  auto ident = [](const nlohmann::json& c, const char* who, const char* domain, const char* date) {
    std::string iso = c[date].get<std::string>();
    auto t = ParseIsoTime(iso);
    std::string zone = "+0000";
    if (iso.size() >= 6 && (iso[iso.size() - 6] == '+' || iso[iso.size() - 6] == '-')) {
      zone = iso.substr(iso.size() - 6, 3) + iso.substr(iso.size() - 2);
    }
    std::string name = c[who].is_string() ? c[who].get<std::string>() : "unknown";
    std::string mail = c[domain].is_string() ? c[domain].get<std::string>() : "example.com";
    return name + " <someone@" + mail + "> " + std::to_string(t ? *t : 0) + " " + zone;
  };
  std::map<std::string, std::deque<std::string>> files;
  long serial = 0;
  std::string stream;
  for (size_t i = 0; i < commits.size(); ++i) {
    const auto& c = commits[i];
    std::string msg = c["subject"].get<std::string>();
    if (c["body"].is_string() && !c["body"].get<std::string>().empty()) msg += "\n\n" + c["body"].get<std::string>();
    stream += "commit refs/heads/main\nmark :" + std::to_string(i + 1) + "\n";
    stream += "author " + ident(c, "author_name", "author_email_domain", "authored_date") + "\n";
    stream += "committer " + ident(c, "committer_name", "committer_email_domain", "committed_date") + "\n";
    stream += "data " + std::to_string(msg.size()) + "\n" + msg + "\n";
    if (i > 0) stream += "from :" + std::to_string(i) + "\n";
    if (!c["files"].is_array()) continue;
    for (const auto& f : c["files"]) {
      if (!f["path"].is_string()) continue;
      std::string path = f["path"].get<std::string>();
      if (path.find('\n') != std::string::npos) continue;
      int64_t added = f["added"].is_number_integer() ? f["added"].get<int64_t>() : 0;
      int64_t deleted = f["deleted"].is_number_integer() ? f["deleted"].get<int64_t>() : 0;
      bool known = files.count(path) > 0;
      auto& lines = files[path];
      for (int64_t k = 0; k < deleted && !lines.empty(); ++k) lines.pop_front();
      for (int64_t k = 0; k < added && k < 2000; ++k) lines.push_back("# " + path + " " + std::to_string(++serial));
      if (lines.empty() && added == 0 && known) {
        files.erase(path);
        stream += "D " + path + "\n";
        continue;
      }
      std::string content;
      for (const auto& l : lines) content += l + "\n";
      stream += "M 100644 inline " + path + "\ndata " + std::to_string(content.size()) + "\n" + content + "\n";
    }
  }
  TempDir tmp;
  WriteFile(tmp.File("fi"), stream);
  std::string repo_name = commits.empty() ? "o/r" : commits.front()["repo"].get<std::string>();
  std::string cmd = "git init -q -b main " + Quote(repo) + " && cd " + Quote(repo) + " && git fast-import --quiet < " +
                    Quote(tmp.File("fi")) + " && git checkout -q main && git remote add origin https://github.com/" +
                    repo_name + ".git";
  if (std::system((cmd + " >/dev/null 2>&1").c_str()) != 0) {
    *error = "git fast-import failed";
    return false;
  }
  return true;
}

}  // namespace umwelt::testing
