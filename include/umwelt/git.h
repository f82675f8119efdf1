// umwelt/git.h — the git source: commits on the default branch, the code on
// it as line windows, and the files in flight on active branches, read with
// libgit2 from a local clone.
//
// Refs (O/R is the GitHub owner/repo, else "local/<dir>"):
//   commit        "O/R/commit/<sha>"       source git,  kind commit; its own
//                 thread, unless it landed through a pull request:
//   pull request  "O/R#N" (the GitHub source's ref of the same PR), kind pr:
//                 the PR's commits in order, the merge or squash commit last
//                 (with its files and +/- lines). The thread row is written
//                 only where no other source (GitHub) has one.
//   main window   "O/R/blob/<path>#L<a>-L<b>"   source code, kind window,
//                 parent "O/R/blob/<path>" (a file thread)
//   branch window "O/R/tree/<branch>/<path>#L<a>-L<b>"  kind branch-window,
//                 parent "O/R/tree/<branch>" (a branch thread)
// Commit messages are prose, so commits are source `git` and sit in the prose
// lane; windows are source `code` and fill the code lanes.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "umwelt/corpus.h"

namespace umwelt::git {

// The line of a commit's text that lists the files it touched ("Files: a.py,
// b.py, and 3 more"); others read it through umwelt/source_traits.h.
inline constexpr std::string_view kFilesLine = "\nFiles: ";

struct SyncOptions {
  std::string path;        // a working tree or a bare repository
  std::string remote_url;  // names the project; default: the `origin` remote
  std::string forge;       // github, gitlab, gitea or bitbucket: the remote's url shapes ("" = by its host)
  int branch_days = 30;    // branches with a commit this recent are mirrored
  int64_t now = 0;         // epoch seconds; 0 = the clock (tests pin it)
  int window_lines = 60;
  int window_overlap = 15;
  // Each phase's progress: "history" (commits walked, no total), "commits"
  // and "files" (done of total).
  std::function<void(const std::string& what, int64_t done, int64_t total)> progress;
};

struct SyncReport {
  std::string repo;              // "O/R"
  int64_t commits = 0;           // commits written
  int64_t commits_removed = 0;   // commits no longer on the default branch (force-push)
  int64_t pull_requests = 0;     // pull request threads written (landed in this sync)
  int64_t files = 0;             // files (re)windowed on the default branch
  int64_t windows = 0;
  int64_t branches = 0;          // active branches synced
  int64_t branch_windows = 0;
  int64_t skipped_files = 0;     // the sum of the reasons below
  int64_t binary = 0;            // binary files
  int64_t vendored = 0;          // vendored, lock and minified files by path
  int64_t too_large = 0;         // over the size a window is cut from
  int64_t generated = 0;         // files that say they are generated
  int64_t not_files = 0;         // symbolic links and other tree entries that are no file
  int64_t missing_objects = 0;   // files whose blob is not in this clone (partial or damaged); retried next sync
  int64_t lfs_pointers = 0;      // Git LFS pointers (the file is not in git)
  int64_t submodules = 0;        // other repositories' commits (gitlinks)
  bool shallow = false;          // a shallow clone: the history ends at its grafted commits
  bool full = false;             // no usable cursor: a whole sync
};

// Mirrors the repository at options.path into the corpus: new commits since
// the recorded head (all of them after a force-push, dropping those no longer
// reachable), windows of the files that changed, and the active branches.
// Each phase commits on its own; the cursor moves last, so an interrupted sync
// redoes the same work.
Status Sync(Corpus& corpus, const SyncOptions& options, SyncReport* report);

// What a git source's sync state remembers between runs (its cursor, JSON):
// the head it read, its branch and checkout, the branch heads, and the paths
// that could not be read (retried next time).
struct Cursor {
  std::string head, branch, path;
  std::map<std::string, std::string> branches;  // name -> sha
  std::set<std::string> retry;
  // What the last sync left out and why ("lfs", "submodule"; "missing" is
  // retry's size), and whether the clone is shallow: for `status`.
  std::map<std::string, int64_t> skipped;
  bool shallow = false;
};
// "2 files not in this clone (tried again next sync), 1 Git LFS pointer;
// a shallow clone", or "" when nothing was left out.
std::string DescribeSkips(const Cursor& c);
// The cursor in `text`; false when `text` is not a cursor object (fields of
// the wrong type read as absent).
bool ParseCursor(std::string_view text, Cursor* out);
std::string FormatCursor(const Cursor& c);

// "https://github.com/O/R(.git)", "git@github.com:O/R.git", "ssh://git@github.com/O/R"
// -> "O/R"; "" for other hosts.
std::string GithubRepoFromRemote(std::string_view url);

// A repository's home on a forge, from its remote url in any of git's forms
// (https://, ssh://, git://, user@host:path). `kind` is github (also GitHub
// Enterprise, and hosts the remote does not name), gitlab, gitea (Gitea,
// Forgejo, Codeberg) or bitbucket; "" when the remote names no forge. A
// clone without one is kind "local", its base git+file://<dir>, and its
// permalinks git+file://<dir>@<sha>:<path>#L<a>-L<b> (commits
// git+file://<dir>@<sha>), which `show`, the server and the citation check
// resolve from the corpus.
struct Forge {
  std::string kind, web_base, name;  // name: "O/R" on github.com, else "host/path"
};
Forge ParseRemote(std::string_view remote, const std::string& kind_hint = "");
// Permalinks in the forge's own shapes (first = 0: the whole file).
std::string CommitUrl(const Forge& f, const std::string& sha);
std::string BlobUrl(const Forge& f, const std::string& sha, const std::string& path, int first, int last);
std::string TreeUrl(const Forge& f, const std::string& branch);

// --- pure helpers, exposed for tests ---

struct Window {
  int first = 0, last = 0;  // 1-based, inclusive
  std::string text;
  std::string symbol;  // enclosing function or class, "" when none found
};
// Splits a text file into windows of `lines` lines overlapping by `overlap`.
std::vector<Window> SliceWindows(std::string_view content, int lines = 60, int overlap = 15);
// Whether a path is vendored or generated by its name alone.
bool SkippedPath(std::string_view path);
// Whether the first lines of a file say it is generated.
bool LooksGenerated(std::string_view content);
// How a pull request landed on the default branch, as its landing commit's
// message tells:
//   kSquash     GitHub squash or rebase-and-squash: "Title (#N)"
//   kGithub     "Merge pull request #N from owner/branch", the title in the body
//   kGitea      Gitea/Forgejo: "Merge pull request 'Title' (#N) from branch into main"
//   kGitlab     "Merge branch 'x' into 'main'", the title in the body, and
//               "See merge request group/project!N"
//   kBitbucket  "Merged in branch (pull request #N)", the title in the body
enum class LandingStyle { kNone, kSquash, kGithub, kGitea, kGitlab, kBitbucket };
struct Landing {
  LandingStyle style = LandingStyle::kNone;
  int64_t number = 0;
  std::string title;  // the PR's title, "" when the message does not carry it
  // Whether the style is a merge commit, whose PR commits are those reachable
  // from its second (and further) parents and not from its first.
  bool merge() const { return style != LandingStyle::kNone && style != LandingStyle::kSquash; }
};
Landing ParseLanding(std::string_view message);
// The PR's web page in its forge's shape: /pull/N (GitHub), /pulls/N
// (Gitea), /-/merge_requests/N (GitLab), /pull-requests/N (Bitbucket).
std::string PullRequestUrl(const std::string& web_base, LandingStyle style, int64_t number);
// The PR number a commit subject or message names as its landing; 0 when none.
int64_t PullRequestOfCommit(std::string_view message);

}  // namespace umwelt::git
