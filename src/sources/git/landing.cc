// Pull-request landings, read from commit messages (see git.h).
#include "umwelt/git.h"
#include "umwelt/pattern.h"
#include "umwelt/text.h"

namespace umwelt::git {

namespace {

// The first non-empty line of the body (after the subject), skipping
// trailers and the GitLab/Bitbucket boilerplate.
std::string BodyTitle(std::string_view message) {
  size_t nl = message.find('\n');
  if (nl == std::string_view::npos) return "";
  std::string_view rest = message.substr(nl + 1);
  while (!rest.empty()) {
    size_t end = rest.find('\n');
    std::string line = CollapseWhitespace(rest.substr(0, end));
    if (!line.empty() && line.rfind("See merge request", 0) != 0 && line.rfind("Approved-by:", 0) != 0 &&
        line.rfind("Signed-off-by:", 0) != 0 && line.rfind("Co-authored-by:", 0) != 0 && line[0] != '*') {
      return line;
    }
    if (end == std::string_view::npos) break;
    rest = rest.substr(end + 1);
  }
  return "";
}

int64_t Number(std::string_view digits) {
  return digits.empty() || digits.size() > 9 ? 0 : std::stoll(std::string(digits));
}

}  // namespace

Landing ParseLanding(std::string_view message) {
  std::string subject = CollapseWhitespace(message.substr(0, message.find('\n')));
  static const Pattern github(R"(^Merge pull request #(\d{1,9}) from \S+)");
  static const Pattern gitea(R"(^Merge pull request '(.*)' \(#(\d{1,9})\) from .+ into \S+$)");
  static const Pattern bitbucket(R"(^Merged in \S+ \(pull request #(\d{1,9})\))");
  static const Pattern gitlab(R"(See merge request [\w./-]+!(\d{1,9}))");
  static const Pattern squash(R"((.*\S)\s*\(#(\d{1,9})\)(.*))");  // the last "(#N)"
  Groups m;
  Landing l;
  std::string whole(message.find("See merge request ") != std::string_view::npos ? message : std::string_view());
  // Plain prefilters first: most commits are none of these, and a pattern
  // per style per commit would dominate the sync of a long history.
  bool merge_pr = subject.rfind("Merge pull request ", 0) == 0;
  if (merge_pr && gitea.Search(subject, &m)) {
    l = {LandingStyle::kGitea, Number(m[2]), std::string(m[1])};
  } else if (merge_pr && github.Search(subject, &m)) {
    l = {LandingStyle::kGithub, Number(m[1]), BodyTitle(message)};
  } else if (subject.rfind("Merged in ", 0) == 0 && bitbucket.Search(subject, &m)) {
    l = {LandingStyle::kBitbucket, Number(m[1]), BodyTitle(message)};
  } else if (message.find("See merge request ") != std::string_view::npos && gitlab.Search(whole, &m)) {
    l = {LandingStyle::kGitlab, Number(m[1]), subject.rfind("Merge branch", 0) == 0 ? BodyTitle(message) : subject};
  } else if (subject.find("(#") != std::string::npos && squash.Matches(subject, &m)) {
    l = {LandingStyle::kSquash, Number(m[2]), CollapseWhitespace(std::string(m[1]) + std::string(m[3]))};
  }
  if (l.number <= 0) return Landing{};
  return l;
}

std::string PullRequestUrl(const std::string& web_base, LandingStyle style, int64_t number) {
  std::string n = std::to_string(number);
  switch (style) {
    case LandingStyle::kGitea: return web_base + "/pulls/" + n;
    case LandingStyle::kGitlab: return web_base + "/-/merge_requests/" + n;
    case LandingStyle::kBitbucket: return web_base + "/pull-requests/" + n;
    default: return web_base + "/pull/" + n;
  }
}

int64_t PullRequestOfCommit(std::string_view message) { return ParseLanding(message).number; }

}  // namespace umwelt::git
