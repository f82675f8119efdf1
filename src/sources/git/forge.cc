// Where a repository's web pages are, from its remote (see git.h).
#include "umwelt/git.h"
#include "umwelt/pattern.h"
#include "umwelt/text.h"

namespace umwelt::git {

Forge ParseRemote(std::string_view remote_in, const std::string& kind_hint) {
  std::string remote = CollapseWhitespace(remote_in);
  // https://host[:port]/path, ssh://[user@]host[:port]/path, git://host/path, user@host:path
  static const Pattern url(R"((?:https?|ssh|git)://(?:[^@/]+@)?([^/:]+)(?::\d+)?/(.+))");
  static const Pattern scp(R"([^@/]+@([^:/]+):(.+))");
  Groups m;
  std::string host, path;
  if (url.Matches(remote, &m) || scp.Matches(remote, &m)) {
    host = ToLower(std::string(m[1]));
    path = std::string(m[2]);
  }
  while (!path.empty() && path.back() == '/') path.pop_back();
  if (path.size() > 4 && path.substr(path.size() - 4) == ".git") path.resize(path.size() - 4);
  while (!path.empty() && path.front() == '/') path.erase(0, 1);
  Forge f;
  if (host.empty() || path.find('/') == std::string::npos) return f;  // not a forge's remote
  std::string kind = kind_hint;
  if (kind.empty()) {
    // github.com, GitHub Enterprise and the shapes most forges copy are the
    // default; the others are told apart by their hosts.
    kind = "github";
    if (host == "gitlab.com" || host.rfind("gitlab.", 0) == 0) kind = "gitlab";
    else if (host == "bitbucket.org" || host.rfind("bitbucket.", 0) == 0) kind = "bitbucket";
    else if (host == "codeberg.org" || host.rfind("gitea.", 0) == 0 || host.rfind("forgejo.", 0) == 0) kind = "gitea";
  }
  f.kind = kind;
  f.web_base = "https://" + host + "/" + path;
  // A GitHub (or Enterprise) owner/name is the GitHub source's repository
  // name too; another forge's project is named with its host.
  bool owner_name = path.find('/') == path.rfind('/');
  f.name = kind == "github" && owner_name ? path : host + "/" + path;
  return f;
}

// A clone with no forge: git+file://<dir>@<sha>[:<path>#L<a>-L<b>], resolved
// by `show` and the server, accepted by the citation check.
std::string CommitUrl(const Forge& f, const std::string& sha) {
  if (f.kind == "local") return f.web_base + "@" + sha;
  if (f.kind == "gitlab") return f.web_base + "/-/commit/" + sha;
  if (f.kind == "bitbucket") return f.web_base + "/commits/" + sha;
  return f.web_base + "/commit/" + sha;
}

std::string BlobUrl(const Forge& f, const std::string& sha, const std::string& path, int first, int last) {
  std::string a = std::to_string(first), b = std::to_string(last);
  bool lines = first > 0;
  if (f.kind == "local") return f.web_base + "@" + sha + ":" + path + (lines ? "#L" + a + "-L" + b : "");
  if (f.kind == "gitlab") return f.web_base + "/-/blob/" + sha + "/" + path + (lines ? "#L" + a + "-" + b : "");
  if (f.kind == "bitbucket") return f.web_base + "/src/" + sha + "/" + path + (lines ? "#lines-" + a + ":" + b : "");
  if (f.kind == "gitea") return f.web_base + "/src/commit/" + sha + "/" + path + (lines ? "#L" + a + "-L" + b : "");
  return f.web_base + "/blob/" + sha + "/" + path + (lines ? "#L" + a + "-L" + b : "");
}

std::string TreeUrl(const Forge& f, const std::string& branch) {
  if (f.kind == "local") return f.web_base + "@" + branch;
  if (f.kind == "gitlab") return f.web_base + "/-/tree/" + branch;
  if (f.kind == "bitbucket") return f.web_base + "/src/" + branch;
  if (f.kind == "gitea") return f.web_base + "/src/branch/" + branch;
  return f.web_base + "/tree/" + branch;
}

}  // namespace umwelt::git
