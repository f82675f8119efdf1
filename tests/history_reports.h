// Test helpers for the reports `ask` writes on small git histories (issue
// 34's subject tests): a history of dated commits synced into a corpus, the
// report on a question about it, and what its short answer says.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "corpus_fixtures.h"
#include "test_util.h"
#include "umwelt/research.h"
#include "umwelt/text.h"

namespace umwelt::testing {

// The report on `question` of a history `commits` makes: shell lines that
// call `c DATE MESSAGE`, each commit appending its message to a file, run in
// a new repository `name` under `dir` and synced into a corpus (its path is
// in every permalink). "" when any step fails (the failure is reported).
inline std::string ReportOn(TempDir& dir, const std::string& commits, const std::string& question,
                            const std::string& name = "repo") {
  std::string repo = dir.File(name);
  std::filesystem::create_directories(repo);
  RunResult git = RunShell(
      "cd " + Quote(repo) +
      " && export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 && git init -q -b main . && "
      "c() { echo \"$2\" >> notes.txt && git add -A && GIT_AUTHOR_DATE=\"$1\" GIT_COMMITTER_DATE=\"$1\" "
      "git -c user.name=T -c user.email=t@example.com commit -q -m \"$2\"; } && " +
      commits);
  EXPECT_EQ(git.code, 0) << git.err;
  std::string db = dir.File("c.db");
  if (git.code != 0 || !SyncGitInto(repo, db)) return "";
  AskOptions o;
  o.corpus_path = db;
  o.question = question;
  o.now = *ParseIsoTime("2026-11-25T00:00:00Z");
  auto r = Ask(o);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? r->markdown : "";
}

// `n` more commits for ReportOn, one a day through `month` ("2023-01") and
// round again, each with `message(i)`.
inline std::string ManyCommits(int n, const std::string& month,
                               const std::function<std::string(int)>& message) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    int day = i % 28 + 1;
    out += " && c " + month + "-" + (day < 10 ? "0" : "") + std::to_string(day) + "T10:00:00Z '" +
           message(i) + "'";
  }
  return out;
}

// Whether a report abstains: "The corpus does not state this", or, where no
// record was near enough to list, "holds nothing that answers" it.
inline bool Abstains(const std::string& md) {
  return md.find("does not state this") != std::string::npos ||
         md.find("holds nothing that answers this question") != std::string::npos;
}

// The lines of a report's short answer that quote a record.
inline std::vector<std::string> AnswerLines(const std::string& md) {
  std::string answer = md.substr(std::min(md.find("## Short answer"), md.size()));
  std::istringstream in(answer.substr(0, answer.find("\n## ", 3)));
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("- ")) out.push_back(line);
  }
  return out;
}

// Whether any of `lines` holds `text`.
inline bool Says(const std::vector<std::string>& lines, const std::string& text) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(text) != std::string::npos; });
}

}  // namespace umwelt::testing
