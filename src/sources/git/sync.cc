// The git source's sync, over libgit2: commits, main windows, branch windows.
#include <array>
#include <git2.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <set>

#include <nlohmann/json.hpp>

#include "umwelt/dynlib.h"
#include "umwelt/json_read.h"
#include "umwelt/git.h"
#include "umwelt/log.h"
#include "umwelt/text.h"

namespace umwelt::git {
namespace {

using json = nlohmann::json;

constexpr size_t kMaxFileBytes = 1 << 20;
constexpr int kCommitsPerBatch = 2000;
constexpr int kFilesPerBatch = 500;

// libgit2 is loaded on the first git sync (umwelt/dynlib.h): no other verb
// needs it or the TLS and SSH libraries it brings. It is initialised once per
// process and never shut down: cheap, and safe against concurrent syncs.
#define UMWELT_GIT_API(X) \
  X(git_, blob_free) X(git_, blob_is_binary) X(git_, blob_lookup) X(git_, blob_rawcontent) \
  X(git_, blob_rawsize) X(git_, branch_iterator_free) X(git_, branch_iterator_new) \
  X(git_, branch_name) X(git_, branch_next) X(git_, commit_author) X(git_, commit_committer) \
  X(git_, commit_free) X(git_, commit_id) X(git_, commit_lookup) X(git_, commit_message) \
  X(git_, commit_parent) X(git_, commit_parent_id) X(git_, commit_parentcount) \
  X(git_, commit_time) X(git_, commit_tree) X(git_, diff_free) X(git_, diff_get_delta) \
  X(git_, diff_get_stats) X(git_, diff_num_deltas) X(git_, diff_stats_deletions) \
  X(git_, diff_stats_files_changed) X(git_, diff_stats_free) X(git_, diff_stats_insertions) \
  X(git_, diff_tree_to_tree) X(git_, error_last) X(git_, libgit2_init) X(git_, merge_base) \
  X(git_, oid_equal) X(git_, oid_fromstr) X(git_, oid_tostr) X(git_, reference_free) \
  X(git_, reference_is_branch) X(git_, reference_resolve) X(git_, reference_target) \
  X(git_, remote_free) X(git_, remote_lookup) X(git_, remote_url) X(git_, repository_free) \
  X(git_, repository_head) X(git_, repository_is_shallow) X(git_, repository_open_ext) \
  X(git_, repository_path) X(git_, repository_workdir) X(git_, revwalk_free) \
  X(git_, revwalk_hide) X(git_, revwalk_new) X(git_, revwalk_next) X(git_, revwalk_push) \
  X(git_, revwalk_sorting) X(git_, tree_entry_bypath) X(git_, tree_entry_filemode) \
  X(git_, tree_entry_free) X(git_, tree_entry_id) X(git_, tree_free)
UMWELT_DYNLIB_TABLE(GitApi, UMWELT_GIT_API)

const Result<const GitApi*>& LoadLibgit2() {
  static const auto api =
      LoadTable<GitApi>(UMWELT_SONAME_LIBGIT2, "reading git repositories", [](const GitApi& g) { g.libgit2_init(); });
  return api;
}

// Only called once GitSync::Run has loaded the library.
const GitApi& Git() { return **LoadLibgit2(); }

template <typename T, void (*GitApi::*Free)(T*)>
class Owned {
 public:
  Owned() = default;
  ~Owned() {
    if (p_) (Git().*Free)(p_);
  }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  T** out() {
    if (p_) (Git().*Free)(p_);
    p_ = nullptr;
    return &p_;
  }
  T* get() const { return p_; }

 private:
  T* p_ = nullptr;
};
using RepoPtr = Owned<git_repository, &GitApi::repository_free>;
using RefPtr = Owned<git_reference, &GitApi::reference_free>;
using CommitPtr = Owned<git_commit, &GitApi::commit_free>;
using TreePtr = Owned<git_tree, &GitApi::tree_free>;
using BlobPtr = Owned<git_blob, &GitApi::blob_free>;
using WalkPtr = Owned<git_revwalk, &GitApi::revwalk_free>;
using DiffPtr = Owned<git_diff, &GitApi::diff_free>;
using RemotePtr = Owned<git_remote, &GitApi::remote_free>;
using BranchIterPtr = Owned<git_branch_iterator, &GitApi::branch_iterator_free>;

// One clear error naming what failed, with libgit2's reason.
Status GitError(const std::string& what) {
  const git_error* e = Git().error_last();
  return Status::Io(what + ": " + (e && e->message ? e->message : "libgit2 failed"));
}

std::string Hex(const git_oid& oid) {
  char buf[GIT_OID_HEXSZ + 1];
  Git().oid_tostr(buf, sizeof buf, &oid);
  return buf;
}

std::string CommitTime(const git_commit* c) { return FormatIsoTime(Git().commit_time(c)); }

// Visits the deltas between two trees (either may be null: everything).
Status ForEachDelta(git_repository* repo, git_tree* from, git_tree* to, const std::string& what,
                    const std::function<void(const git_diff_delta&)>& visit) {
  DiffPtr diff;
  git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
  opts.flags |= GIT_DIFF_SKIP_BINARY_CHECK;
  if (Git().diff_tree_to_tree(diff.out(), repo, from, to, &opts) != 0) return GitError("git: diff of " + what);
  size_t n = Git().diff_num_deltas(diff.get());
  for (size_t i = 0; i < n; ++i) visit(*Git().diff_get_delta(diff.get(), i));
  return Status::Ok();
}

// A commit's tree and its first parent's (none for a root commit).
Status CommitTrees(git_commit* c, TreePtr* tree, TreePtr* parent_tree) {
  std::string sha = Hex(*Git().commit_id(c));
  if (Git().commit_tree(tree->out(), c) != 0) return GitError("git: tree of commit " + sha);
  if (Git().commit_parentcount(c) > 0) {
    CommitPtr parent;
    int rc = Git().commit_parent(parent.out(), c, 0);
    if (rc == GIT_ENOTFOUND) return Status::Ok();  // a shallow clone's grafted root: compared against nothing
    if (rc != 0 || Git().commit_tree(parent_tree->out(), parent.get()) != 0) {
      return GitError("git: parent of commit " + sha);
    }
  }
  return Status::Ok();
}

// The paths a commit changed against its first parent (all of them for a root).
Status ChangedPaths(git_repository* repo, git_commit* c, std::vector<std::string>* out) {
  TreePtr tree, parent_tree;
  UMWELT_RETURN_IF_ERROR(CommitTrees(c, &tree, &parent_tree));
  std::string sha = Hex(*Git().commit_id(c));
  return ForEachDelta(repo, parent_tree.get(), tree.get(), "commit " + sha, [&](const git_diff_delta& d) {
    out->push_back(d.status == GIT_DELTA_DELETED ? d.old_file.path : d.new_file.path);
  });
}

// A commit's size against its first parent: files, added and removed lines.
struct DiffStat {
  int64_t files = 0, added = 0, removed = 0;
  bool known = false;  // counted (the clone held the blobs)
};
Status CommitStat(git_repository* repo, git_commit* c, DiffStat* out) {
  TreePtr tree, parent_tree;
  UMWELT_RETURN_IF_ERROR(CommitTrees(c, &tree, &parent_tree));
  std::string sha = Hex(*Git().commit_id(c));
  DiffPtr diff;
  if (Git().diff_tree_to_tree(diff.out(), repo, parent_tree.get(), tree.get(), nullptr) != 0) {
    return GitError("git: diff of commit " + sha);
  }
  git_diff_stats* stats = nullptr;
  if (Git().diff_get_stats(&stats, diff.get()) != 0) return GitError("git: diff stats of commit " + sha);
  out->files = static_cast<int64_t>(Git().diff_stats_files_changed(stats));
  out->added = static_cast<int64_t>(Git().diff_stats_insertions(stats));
  out->removed = static_cast<int64_t>(Git().diff_stats_deletions(stats));
  Git().diff_stats_free(stats);
  return Status::Ok();
}

struct FileChange {
  std::string path;
  bool deleted = false;
};

// Files that differ between two trees (either may be null: everything).
Status TreeChanges(git_repository* repo, git_tree* from, git_tree* to, std::vector<FileChange>* out) {
  return ForEachDelta(repo, from, to, "two trees", [&](const git_diff_delta& d) {
    if (d.status == GIT_DELTA_DELETED) {
      out->push_back({d.old_file.path, true});
      return;
    }
    if (d.status == GIT_DELTA_RENAMED) out->push_back({d.old_file.path, true});
    out->push_back({d.new_file.path, false});  // submodules and links too: windowing skips and counts them
  });
}

class GitSync {
 public:
  GitSync(Corpus& corpus, const SyncOptions& o, SyncReport* r) : corpus_(corpus), o_(o), r_(*r) {}

  Status Run() {
    if (!LoadLibgit2().ok()) return LoadLibgit2().status();
    if (Git().repository_open_ext(repo_.out(), o_.path.c_str(), 0, nullptr) != 0) {
      return GitError("git: cannot open a repository at " + o_.path);
    }
    UMWELT_RETURN_IF_ERROR(Identify());
    UMWELT_RETURN_IF_ERROR(LoadCursor());
    UMWELT_RETURN_IF_ERROR(ResolveHead());
    UMWELT_RETURN_IF_ERROR(PlanPullRequests());
    UMWELT_RETURN_IF_ERROR(Commits());
    UMWELT_RETURN_IF_ERROR(MainWindows());
    UMWELT_RETURN_IF_ERROR(Branches());
    return SaveCursor();
  }

 private:
  // The project's name and the base of its permalinks.
  Status Identify() {
    std::string remote = o_.remote_url;
    if (remote.empty()) {
      RemotePtr origin;
      if (Git().remote_lookup(origin.out(), repo_.get(), "origin") == 0 && Git().remote_url(origin.get())) {
        remote = Git().remote_url(origin.get());
      }
    }
    forge_ = ParseRemote(remote, o_.forge);
    if (!forge_.kind.empty()) {
      repo_name_ = forge_.name;
    } else {
      const char* wd = Git().repository_workdir(repo_.get());
      std::filesystem::path dir = std::filesystem::absolute(wd ? wd : Git().repository_path(repo_.get()));
      std::string name = dir.lexically_normal().parent_path().filename().string();
      if (name.size() > 4 && name.substr(name.size() - 4) == ".git") name.resize(name.size() - 4);
      repo_name_ = "local/" + (name.empty() ? std::string("repo") : name);
      forge_ = {"local", "git+file://" + dir.lexically_normal().parent_path().string(), repo_name_};
    }
    // Only a GitHub repository's "#N" names its issues and PRs as the GitHub
    // source mirrors them.
    github_ = forge_.kind == "github" && repo_name_.find('/') == repo_name_.rfind('/');
    r_.repo = repo_name_;
    source_key_ = "git:" + repo_name_;
    return Status::Ok();
  }

  Status LoadCursor() {
    UMWELT_ASSIGN_OR_RETURN(auto state, corpus_.GetSyncState(source_key_));
    if (!state || state->cursor.empty()) return Status::Ok();
    Cursor cursor;
    if (!ParseCursor(state->cursor, &cursor)) {
      LogWarn(source_key_ + ": the stored cursor is not JSON; syncing everything again");
      return Status::Ok();
    }
    old_head_ = cursor.head;
    old_retry_ = std::move(cursor.retry);
    old_branches_ = std::move(cursor.branches);
    return Status::Ok();
  }

  Status ResolveHead() {
    RefPtr head;
    int rc = Git().repository_head(head.out(), repo_.get());
    if (rc == GIT_EUNBORNBRANCH || rc == GIT_ENOTFOUND) {
      return Status::NotFound("git: " + o_.path + " has no commits on its default branch");
    }
    if (rc != 0) return GitError("git: reading HEAD of " + o_.path);
    if (Git().reference_is_branch(head.get())) {
      const char* name = nullptr;
      Git().branch_name(&name, head.get());
      branch_ = name ? name : "HEAD";
    } else {
      branch_ = "HEAD";
    }
    RefPtr resolved;
    if (Git().reference_resolve(resolved.out(), head.get()) != 0) return GitError("git: resolving HEAD of " + o_.path);
    head_oid_ = *Git().reference_target(resolved.get());
    if (Git().commit_lookup(head_.out(), repo_.get(), &head_oid_) != 0) {
      return GitError("git: HEAD commit " + Hex(head_oid_) + " of " + o_.path);
    }
    if (!old_head_.empty()) {
      git_oid old;
      CommitPtr c;
      if (Git().oid_fromstr(&old, old_head_.c_str()) == 0 && Git().commit_lookup(c.out(), repo_.get(), &old) == 0) {
        old_oid_ = old;
        have_old_ = true;
      } else {
        LogWarn(source_key_ + ": recorded head " + old_head_ + " is gone from the repository; comparing against nothing");
      }
    }
    r_.full = !have_old_;
    return Status::Ok();
  }

  std::string CommitRef(const std::string& sha) const { return repo_name_ + "/commit/" + sha; }

  // The new commits, oldest first: reachable from HEAD, not from the recorded
  // head. A shallow clone's history ends at grafted commits whose parents are
  // absent; libgit2's walk refuses it, so those are walked here, each grafted
  // commit a root.
  Status NewCommits(std::vector<git_oid>* out) {
    WalkPtr walk;
    if (Git().revwalk_new(walk.out(), repo_.get()) != 0) return GitError("git: revwalk");
    Git().revwalk_sorting(walk.get(), GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
    if (Git().revwalk_push(walk.get(), &head_oid_) != 0) return GitError("git: walking from HEAD");
    if (have_old_ && Git().revwalk_hide(walk.get(), &old_oid_) != 0) return GitError("git: hiding the recorded head");
    git_oid oid;
    int rc;
    while ((rc = Git().revwalk_next(&oid, walk.get())) == 0) {
      out->push_back(oid);
      if (o_.progress && out->size() % 1000 == 0) o_.progress("history", static_cast<int64_t>(out->size()), 0);
    }
    if (rc == GIT_ITEROVER) return Status::Ok();
    if (rc != GIT_ENOTFOUND || !Git().repository_is_shallow(repo_.get())) {
      return GitError("git: walking the history of " + o_.path);
    }
    out->clear();
    r_.shallow = true;
    std::set<std::string> hidden;
    if (have_old_) UMWELT_RETURN_IF_ERROR(PostOrder(old_oid_, {}, [&](const git_oid& o) { hidden.insert(Hex(o)); }));
    return PostOrder(head_oid_, hidden, [&](const git_oid& o) { out->push_back(o); });
  }

  // Visits the commits reachable from `from`, parents before children,
  // skipping `hidden` and parents that are not in the repository.
  Status PostOrder(const git_oid& from, const std::set<std::string>& hidden, const std::function<void(const git_oid&)>& visit) {
    struct Frame {
      std::unique_ptr<CommitPtr> commit = std::make_unique<CommitPtr>();
      unsigned next = 0;
    };
    std::vector<Frame> stack;
    std::set<std::string> seen;
    auto push = [&](const git_oid& o) {
      std::string sha = Hex(o);
      if (hidden.count(sha) || !seen.insert(sha).second) return;
      Frame f;
      if (Git().commit_lookup(f.commit->out(), repo_.get(), &o) != 0) return;  // beyond a grafted root
      stack.push_back(std::move(f));
    };
    push(from);
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.next < Git().commit_parentcount(top.commit->get())) {
        git_oid parent = *Git().commit_parent_id(top.commit->get(), top.next++);
        push(parent);
        continue;
      }
      visit(*Git().commit_id(top.commit->get()));
      stack.pop_back();
    }
    return Status::Ok();
  }

  std::string PrRef(int64_t n) const { return repo_name_ + "#" + std::to_string(n); }

  // Which new commits landed through which pull request: a squash commit is
  // its PR's only commit; a merge commit's PR holds the commits reachable
  // from its other parents and not from its first (nor from the recorded
  // head). A commit claimed by an earlier merge (a PR merged into a PR's
  // branch) stays with it.
  Status PlanPullRequests() {
    if (have_old_ && Git().oid_equal(&old_oid_, &head_oid_)) return Status::Ok();
    UMWELT_RETURN_IF_ERROR(NewCommits(&new_commits_));
    for (const git_oid& oid : new_commits_) {
      CommitPtr c;
      if (Git().commit_lookup(c.out(), repo_.get(), &oid) != 0) return GitError("git: commit " + Hex(oid));
      Landing l = ParseLanding(Git().commit_message(c.get()) ? Git().commit_message(c.get()) : "");
      if (l.number <= 0) continue;
      std::string sha = Hex(oid);
      pr_of_.emplace(sha, l.number);
      PrInfo& info = prs_[l.number];
      info.landing = l;
      info.landing_sha = sha;
      unsigned parents = Git().commit_parentcount(c.get());
      if (!l.merge() || parents < 2) continue;
      WalkPtr branch;
      if (Git().revwalk_new(branch.out(), repo_.get()) != 0) return GitError("git: revwalk");
      for (unsigned i = 1; i < parents; ++i) Git().revwalk_push(branch.get(), Git().commit_parent_id(c.get(), i));
      Git().revwalk_hide(branch.get(), Git().commit_parent_id(c.get(), 0));
      if (have_old_) Git().revwalk_hide(branch.get(), &old_oid_);
      git_oid b;
      while (Git().revwalk_next(&b, branch.get()) == 0) pr_of_.emplace(Hex(b), l.number);
    }
    return Status::Ok();
  }

  // One thread per pull request that landed in this sync, unless another
  // source (GitHub) already has the PR's row.
  Status PutPullRequests(WriteBatch& batch) {
    for (const auto& [n, info] : prs_) {
      UMWELT_ASSIGN_OR_RETURN(auto have, corpus_.GetThread(PrRef(n)));
      if (have && have->source != "git") continue;
      Thread t;
      t.ref = PrRef(n);
      t.source = "git";
      t.kind = "pr";
      t.state = "merged";
      t.title = info.landing.title.empty() ? info.subject : info.landing.title;
      t.author = info.authors.empty() ? "" : info.authors.front();
      t.url = PullRequestUrl(forge_.web_base, info.landing.style, n);
      t.created = info.first_date;
      t.updated = t.closed = t.merged = info.merged_date;
      std::string who;
      for (size_t i = 0; i < info.authors.size() && i < 5; ++i) who += (i ? ", " : "") + info.authors[i];
      t.description = "#" + std::to_string(n) + " merged as " + info.landing_sha.substr(0, 10) + " on " + branch_ + ": " +
                      std::to_string(info.commits) + " commit(s) by " + who + "; " + std::to_string(info.stat.files) +
                      " file(s), +" + std::to_string(info.stat.added) + " −" + std::to_string(info.stat.removed);
      if (info.stat.known) t.facts = ChangeFacts({info.stat.files, info.stat.added, info.stat.removed});
      UMWELT_RETURN_IF_ERROR(batch.PutThread(t));
      r_.pull_requests++;
    }
    return Status::Ok();
  }

  // New commits: reachable from HEAD and not from the recorded head. After a
  // force-push, the commits reachable only from the old head are removed.
  Status Commits() {
    if (have_old_ && Git().oid_equal(&old_oid_, &head_oid_)) return Status::Ok();
    std::unique_ptr<WriteBatch> batch;
    int in_batch = 0;
    for (const git_oid& oid : new_commits_) {
      if (!batch) {
        UMWELT_ASSIGN_OR_RETURN(batch, corpus_.BeginWrite());
      }
      UMWELT_RETURN_IF_ERROR(PutCommit(*batch, oid));
      if (++in_batch == kCommitsPerBatch) {
        UMWELT_RETURN_IF_ERROR(batch->Commit());
        batch.reset();
        in_batch = 0;
        if (o_.progress) o_.progress("commits", r_.commits, static_cast<int64_t>(new_commits_.size()));
      }
    }
    if (!batch && (have_old_ || !prs_.empty())) {
      UMWELT_ASSIGN_OR_RETURN(batch, corpus_.BeginWrite());
    }
    if (have_old_) UMWELT_RETURN_IF_ERROR(DropUnreachable(*batch));
    if (batch) UMWELT_RETURN_IF_ERROR(PutPullRequests(*batch));
    if (batch) UMWELT_RETURN_IF_ERROR(batch->Commit());
    if (o_.progress && !new_commits_.empty()) {
      o_.progress("commits", static_cast<int64_t>(new_commits_.size()), static_cast<int64_t>(new_commits_.size()));
    }
    return Status::Ok();
  }

  // A force-push: what only the old head reached is gone, and so is a pull
  // request thread of ours left without commits.
  Status DropUnreachable(WriteBatch& batch) {
    WalkPtr gone;
    if (Git().revwalk_new(gone.out(), repo_.get()) != 0) return GitError("git: revwalk");
    Git().revwalk_push(gone.get(), &old_oid_);
    Git().revwalk_hide(gone.get(), &head_oid_);
    std::set<std::string> prs;
    git_oid oid;
    while (Git().revwalk_next(&oid, gone.get()) == 0) {
      std::string ref = CommitRef(Hex(oid));
      UMWELT_ASSIGN_OR_RETURN(auto chunk, corpus_.ChunkByRef(ref));
      if (chunk && chunk->parent != ref) prs.insert(chunk->parent);
      UMWELT_RETURN_IF_ERROR(batch.DeleteRecord(ref));
      UMWELT_RETURN_IF_ERROR(batch.DeleteThread(ref));
      r_.commits_removed++;
    }
    for (const auto& pr : prs) {
      UMWELT_ASSIGN_OR_RETURN(auto left, corpus_.ThreadChunks(pr));
      UMWELT_ASSIGN_OR_RETURN(auto row, corpus_.GetThread(pr));
      if (left.empty() && row && row->source == "git") UMWELT_RETURN_IF_ERROR(batch.DeleteThread(pr));
    }
    return Status::Ok();
  }

  Status PutCommit(WriteBatch& batch, const git_oid& oid) {
    CommitPtr c;
    std::string sha = Hex(oid);
    if (Git().commit_lookup(c.out(), repo_.get(), &oid) != 0) return GitError("git: commit " + sha);
    std::string message = SanitizeUtf8(Git().commit_message(c.get()) ? Git().commit_message(c.get()) : "");
    std::string subject = CollapseWhitespace(message.substr(0, message.find('\n')));
    std::vector<std::string> paths;
    UMWELT_RETURN_IF_ERROR(ChangedPaths(repo_.get(), c.get(), &paths));
    std::string text = message;
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    if (!paths.empty()) {
      text += "\n" + std::string(kFilesLine);
      for (size_t i = 0; i < paths.size() && i < 40; ++i) text += (i ? ", " : "") + paths[i];
      if (paths.size() > 40) text += ", and " + std::to_string(paths.size() - 40) + " more";
    }
    const git_signature* author = Git().commit_author(c.get());
    auto pr = pr_of_.find(sha);
    PrInfo* info = pr == pr_of_.end() ? nullptr : &prs_[pr->second];
    Landing own = ParseLanding(message);  // this commit lands a PR (maybe again: a revert and reland)
    bool landing = info && own.number == pr->second;
    DiffStat stat;
    if (landing || !info) {
      // A landing or a commit made to the branch directly says how big the
      // change was (when the clone holds the blobs to count lines in).
      if (CommitStat(repo_.get(), c.get(), &stat).ok()) {
        stat.known = true;
        text += "\nChanged: " + std::to_string(stat.files) + " file(s), +" + std::to_string(stat.added) + " −" +
                std::to_string(stat.removed);
        if (info && info->landing.merge()) text += " (the whole pull request)";
      }
    }
    // A commit the history does not tie to a PR may still be one the GitHub
    // source listed as a merged PR's (a rebase merge).
    std::string joined;
    if (!info) {
      UMWELT_ASSIGN_OR_RETURN(auto from, corpus_.LinksFrom({CommitRef(sha)}));
      for (const auto& l : from) {
        if (l.kind == "pr-commit") joined = l.to_ref;
      }
    }
    Chunk ch;
    ch.source = "git";
    ch.kind = "commit";
    ch.ref = CommitRef(sha);
    ch.parent = info ? PrRef(pr->second) : !joined.empty() ? joined : ch.ref;
    ch.title = subject;
    ch.author = SanitizeUtf8(author && author->name ? author->name : "");
    ch.date = CommitTime(c.get());
    ch.url = CommitUrl(forge_, sha);
    ch.text = text;
    if (stat.known) ch.facts = ChangeFacts({stat.files, stat.added, stat.removed});
    ch.updated = ch.date;
    UMWELT_RETURN_IF_ERROR(batch.PutRecord(SplitIntoParts(ch)).status());
    if (info) {
      info->commits++;
      if (std::find(info->authors.begin(), info->authors.end(), ch.author) == info->authors.end()) {
        info->authors.push_back(ch.author);
      }
      if (info->first_date.empty() || ch.date < info->first_date) info->first_date = ch.date;
      if (landing) {
        info->merged_date = ch.date;
        info->stat = stat;
        info->subject = subject;
      }
    }
    UMWELT_RETURN_IF_ERROR(PutCommitThread(batch, ch, subject, sha, paths.size(), info || !joined.empty()));
    std::vector<Link> links = FindLinks(ch.ref, message, github_ ? repo_name_ : "");
    if (!joined.empty()) links.push_back({ch.ref, joined, "pr-commit"});  // kept: the links are replaced below
    if (int64_t n = own.number; n > 0 && github_) {
      std::string to = PrRef(n);
      links.erase(std::remove_if(links.begin(), links.end(), [&](const Link& l) { return l.to_ref == to; }),
                  links.end());
      UMWELT_RETURN_IF_ERROR(batch.AddLink({ch.ref, to, std::string(kLandedIn)}));
    }
    UMWELT_RETURN_IF_ERROR(batch.PutLinks(ch.ref, links));
    r_.commits++;
    return Status::Ok();
  }

  // A commit that did not land through a pull request is its own thread; one
  // that did has none (its PR is its thread).
  Status PutCommitThread(WriteBatch& batch, const Chunk& ch, const std::string& subject, const std::string& sha,
                         size_t files, bool in_pr) {
    if (in_pr) return batch.DeleteThread(ch.ref);  // a commit re-synced into its PR
    Thread t;
    t.ref = ch.ref;
    t.source = "git";
    t.kind = "commit";
    t.state = "merged";
    t.title = subject;
    t.author = ch.author;
    t.url = ch.url;
    t.created = t.updated = ch.date;
    t.description = sha.substr(0, 10) + " on " + branch_ + ", " + std::to_string(files) + " file(s)";
    return batch.PutThread(t);
  }

  // Windows of one file of `tree`, under thread `parent` (the caller has
  // removed the file's old windows).
  Status WindowFile(WriteBatch& batch, git_tree* tree, const std::string& path, const std::string& parent,
                    const std::string& kind, const std::string& sha, const std::string& date,
                    const std::string& author, const std::string& title_prefix, int64_t* count) {
    git_tree_entry* entry = nullptr;
    if (Git().tree_entry_bypath(&entry, tree, path.c_str()) != 0) return GitError("git: " + path + " at " + sha);
    git_oid blob_id = *Git().tree_entry_id(entry);
    git_filemode_t mode = Git().tree_entry_filemode(entry);
    Git().tree_entry_free(entry);
    if (mode == GIT_FILEMODE_COMMIT) {  // a submodule: another repository's commit
      r_.skipped_files++;
      r_.submodules++;
      return Status::Ok();
    }
    if (mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE) {
      r_.skipped_files++;
      r_.not_files++;
      return Status::Ok();
    }
    BlobPtr blob;
    if (int rc = Git().blob_lookup(blob.out(), repo_.get(), &blob_id); rc != 0) {
      // Absent from this clone (a partial or damaged one): skipped, counted,
      // and tried again by the next sync.
      if (rc != GIT_ENOTFOUND) return GitError("git: reading " + path + " at " + sha);
      r_.skipped_files++;
      r_.missing_objects++;
      if (kind == "window") retry_.insert(path);
      return Status::Ok();
    }
    auto size = static_cast<size_t>(Git().blob_rawsize(blob.get()));
    if (SkippedPath(path) || size > kMaxFileBytes || Git().blob_is_binary(blob.get())) {
      r_.skipped_files++;
      ++(SkippedPath(path) ? r_.vendored : size > kMaxFileBytes ? r_.too_large : r_.binary);
      return Status::Ok();
    }
    std::string_view content(static_cast<const char*>(Git().blob_rawcontent(blob.get())), size);
    if (content.size() < 1024 && content.rfind("version https://git-lfs.github.com/spec/", 0) == 0) {
      r_.skipped_files++;  // a Git LFS pointer: the file itself is not in git
      r_.lfs_pointers++;
      return Status::Ok();
    }
    if (LooksGenerated(content)) {
      r_.skipped_files++;
      r_.generated++;
      return Status::Ok();
    }
    std::string text = SanitizeUtf8(content);
    for (auto& w : SliceWindows(text, o_.window_lines, o_.window_overlap)) {
      Chunk ch;
      ch.source = "code";
      ch.kind = kind;
      std::string lines = "#L" + std::to_string(w.first) + "-L" + std::to_string(w.last);
      ch.ref = (kind == "window" ? parent : parent + "/" + path) + lines;
      ch.parent = parent;
      ch.title = title_prefix + path + (w.symbol.empty() ? "" : " — " + w.symbol);
      ch.author = author;
      ch.date = date;
      ch.url = BlobUrl(forge_, sha, path, w.first, w.last);
      ch.text = std::move(w.text);
      UMWELT_RETURN_IF_ERROR(batch.PutRecord(SplitIntoParts(ch)).status());
      ++*count;
    }
    return Status::Ok();
  }

  std::string FileThread(const std::string& path) const { return repo_name_ + "/blob/" + path; }

  // Windows of the default branch: the files that changed since the recorded
  // head (every file on a first sync).
  Status MainWindows() {
    if (have_old_ && Git().oid_equal(&old_oid_, &head_oid_) && old_retry_.empty()) return Status::Ok();
    TreePtr tree, old_tree;
    if (Git().commit_tree(tree.out(), head_.get()) != 0) return GitError("git: tree of HEAD");
    if (have_old_) {
      CommitPtr old;
      if (Git().commit_lookup(old.out(), repo_.get(), &old_oid_) != 0 || Git().commit_tree(old_tree.out(), old.get()) != 0) {
        return GitError("git: tree of the recorded head");
      }
    }
    std::vector<FileChange> changes;
    UMWELT_RETURN_IF_ERROR(TreeChanges(repo_.get(), old_tree.get(), tree.get(), &changes));
    // Files an earlier sync could not read are tried again.
    std::set<std::string> listed;
    for (const auto& c : changes) listed.insert(c.path);
    for (const auto& path : old_retry_) {
      git_tree_entry* e = nullptr;
      if (listed.count(path) || Git().tree_entry_bypath(&e, tree.get(), path.c_str()) != 0) continue;
      Git().tree_entry_free(e);
      changes.push_back({path, false});
    }
    std::string sha = Hex(head_oid_), date = CommitTime(head_.get());
    std::unique_ptr<WriteBatch> batch;
    int in_batch = 0;
    int64_t done = 0;
    for (const auto& change : changes) {
      ++done;
      if (!batch) {
        UMWELT_ASSIGN_OR_RETURN(batch, corpus_.BeginWrite());
      }
      std::string parent = FileThread(change.path);
      UMWELT_ASSIGN_OR_RETURN(auto old, corpus_.RecordRefs(parent, "window"));
      for (const auto& ref : old) UMWELT_RETURN_IF_ERROR(batch->DeleteRecord(ref));
      if (change.deleted) {
        UMWELT_RETURN_IF_ERROR(batch->DeleteThread(parent));
      } else {
        int64_t before = r_.windows;
        UMWELT_RETURN_IF_ERROR(
            WindowFile(*batch, tree.get(), change.path, parent, "window", sha, date, "", "", &r_.windows));
        if (r_.windows > before) {
          Thread t;
          t.ref = parent;
          t.source = "code";
          t.kind = "file";
          t.title = change.path;
          t.url = BlobUrl(forge_, sha, change.path, 0, 0);
          t.updated = date;
          t.description = change.path + " on " + branch_ + " at " + sha.substr(0, 10);
          UMWELT_RETURN_IF_ERROR(batch->PutThread(t));
          r_.files++;
        } else {
          UMWELT_RETURN_IF_ERROR(batch->DeleteThread(parent));  // became binary, vendored or too large
        }
      }
      if (++in_batch == kFilesPerBatch) {
        UMWELT_RETURN_IF_ERROR(batch->Commit());
        batch.reset();
        in_batch = 0;
        if (o_.progress) o_.progress("files", done, static_cast<int64_t>(changes.size()));
      }
    }
    if (batch) UMWELT_RETURN_IF_ERROR(batch->Commit());
    if (o_.progress && !changes.empty()) o_.progress("files", done, static_cast<int64_t>(changes.size()));
    return Status::Ok();
  }

  std::string BranchThread(const std::string& name) const { return repo_name_ + "/tree/" + name; }

  Status DropBranch(WriteBatch& batch, const std::string& name) {
    std::string parent = BranchThread(name);
    UMWELT_ASSIGN_OR_RETURN(auto old, corpus_.RecordRefs(parent, "branch-window"));
    for (const auto& ref : old) UMWELT_RETURN_IF_ERROR(batch.DeleteRecord(ref));
    return batch.DeleteThread(parent);
  }

  // Active branches (a commit in the last branch_days days): the files that
  // differ from their merge base with the default branch, as branch windows
  // tagged with the branch and its last committer. Branches that went quiet
  // or were deleted leave the corpus.
  Status Branches() {
    int64_t now = o_.now ? o_.now : NowEpoch();
    int64_t cutoff = now - int64_t{o_.branch_days} * 86400;
    std::map<std::string, git_oid> tips;  // branch name -> tip (local wins over remote)
    BranchIterPtr it;
    if (Git().branch_iterator_new(it.out(), repo_.get(), GIT_BRANCH_ALL) != 0) return GitError("git: listing branches");
    git_reference* ref = nullptr;
    git_branch_t type;
    while (Git().branch_next(&ref, &type, it.get()) == 0) {
      RefPtr owned;
      *owned.out() = ref;
      const char* cname = nullptr;
      if (Git().branch_name(&cname, ref) != 0 || !cname) continue;
      std::string name = cname;
      if (type == GIT_BRANCH_REMOTE) {
        size_t slash = name.find('/');
        if (slash == std::string::npos) continue;
        name = name.substr(slash + 1);
        if (name == "HEAD") continue;
      }
      if (name == branch_) continue;
      RefPtr resolved;
      if (Git().reference_resolve(resolved.out(), ref) != 0 || !Git().reference_target(resolved.get())) continue;
      if (type == GIT_BRANCH_REMOTE && tips.count(name)) continue;
      tips[name] = *Git().reference_target(resolved.get());
    }
    std::set<std::string> active;
    for (const auto& [name, oid] : tips) {
      CommitPtr tip;
      if (Git().commit_lookup(tip.out(), repo_.get(), &oid) != 0) {
        LogWarn(source_key_ + ": branch " + name + " points at a missing commit; skipped");
        continue;
      }
      if (Git().commit_time(tip.get()) < cutoff) continue;
      active.insert(name);
      std::string sha = Hex(oid);
      new_branches_[name] = sha;
      auto old = old_branches_.find(name);
      if (old != old_branches_.end() && old->second == sha) continue;  // unchanged
      UMWELT_RETURN_IF_ERROR(SyncBranch(name, oid, tip.get()));
    }
    UMWELT_ASSIGN_OR_RETURN(auto batch, corpus_.BeginWrite());
    for (const auto& [name, sha] : old_branches_) {
      if (!active.count(name)) UMWELT_RETURN_IF_ERROR(DropBranch(*batch, name));
    }
    return batch->Commit();
  }

  Status SyncBranch(const std::string& name, const git_oid& oid, git_commit* tip) {
    git_oid base;
    TreePtr base_tree, tip_tree;
    if (Git().merge_base(&base, repo_.get(), &oid, &head_oid_) == 0) {
      CommitPtr base_commit;
      if (Git().commit_lookup(base_commit.out(), repo_.get(), &base) != 0 ||
          Git().commit_tree(base_tree.out(), base_commit.get()) != 0) {
        return GitError("git: merge base of " + name);
      }
    }  // no common history: every file of the branch is in flight
    if (Git().commit_tree(tip_tree.out(), tip) != 0) return GitError("git: tree of branch " + name);
    std::vector<FileChange> changes;
    UMWELT_RETURN_IF_ERROR(TreeChanges(repo_.get(), base_tree.get(), tip_tree.get(), &changes));
    const git_signature* committer = Git().commit_committer(tip);
    std::string who = SanitizeUtf8(committer && committer->name ? committer->name : "");
    std::string sha = Hex(oid), date = CommitTime(tip), parent = BranchThread(name);
    UMWELT_ASSIGN_OR_RETURN(auto batch, corpus_.BeginWrite());
    UMWELT_RETURN_IF_ERROR(DropBranch(*batch, name));
    int files = 0;
    for (const auto& change : changes) {
      if (change.deleted) continue;
      int64_t before = r_.branch_windows;
      UMWELT_RETURN_IF_ERROR(WindowFile(*batch, tip_tree.get(), change.path, parent, "branch-window", sha, date, who,
                                        "[" + name + "] ", &r_.branch_windows));
      if (r_.branch_windows > before) ++files;
    }
    Thread t;
    t.ref = parent;
    t.source = "code";
    t.kind = "branch";
    t.state = "open";
    t.title = name;
    t.author = who;
    t.url = TreeUrl(forge_, name);
    t.updated = date;
    t.description = "branch " + name + ", last commit by " + who + " on " + date.substr(0, 10) + ", " +
                    std::to_string(files) + " file(s) differ from " + branch_;
    UMWELT_RETURN_IF_ERROR(batch->PutThread(t));
    r_.branches++;
    return batch->Commit();
  }

  Status SaveCursor() {
    Cursor cursor;
    cursor.head = Hex(head_oid_);
    cursor.branch = branch_;
    std::error_code ec;
    cursor.path = std::filesystem::absolute(o_.path, ec).lexically_normal().string();  // for `ask --refresh`
    cursor.branches = new_branches_;
    cursor.retry = retry_;
    if (!retry_.empty()) cursor.skipped["missing"] = static_cast<int64_t>(retry_.size());
    if (r_.lfs_pointers) cursor.skipped["lfs"] = r_.lfs_pointers;
    if (r_.submodules) cursor.skipped["submodule"] = r_.submodules;
    cursor.shallow = r_.shallow;
    UMWELT_ASSIGN_OR_RETURN(auto batch, corpus_.BeginWrite());
    SyncState s;
    s.source = source_key_;
    s.cursor = FormatCursor(cursor);
    MarkSyncSuccess(&s, NowEpoch());
    UMWELT_RETURN_IF_ERROR(batch->PutSyncState(s));
    return batch->Commit();
  }

  Corpus& corpus_;
  const SyncOptions& o_;
  SyncReport& r_;
  RepoPtr repo_;
  CommitPtr head_;
  git_oid head_oid_{}, old_oid_{};
  bool have_old_ = false;
  std::string repo_name_, source_key_, branch_, old_head_;
  Forge forge_;
  bool github_ = false;  // a github.com (or Enterprise) owner/name
  std::map<std::string, std::string> old_branches_, new_branches_;
  struct PrInfo {
    Landing landing;
    std::string landing_sha, subject, first_date, merged_date;
    std::vector<std::string> authors;
    int64_t commits = 0;
    DiffStat stat;
  };
  std::vector<git_oid> new_commits_;      // oldest first
  std::set<std::string> old_retry_, retry_;  // main files not readable last time / this time
  std::map<std::string, int64_t> pr_of_;  // sha of a new commit -> the PR it landed through
  std::map<int64_t, PrInfo> prs_;         // the PRs that landed in this sync
};

}  // namespace

std::string GithubRepoFromRemote(std::string_view url) {
  Forge f = ParseRemote(url, "github");
  bool on_github = f.web_base.rfind("https://github.com/", 0) == 0;
  return on_github && f.name.find('/') == f.name.rfind('/') ? f.name : "";
}

bool ParseCursor(std::string_view text, Cursor* out) {
  *out = Cursor{};
  json j = ParseJson(text);
  if (!j.is_object()) return false;
  out->head = StrField(j, "head");
  out->branch = StrField(j, "branch");
  out->path = StrField(j, "path");
  for (const auto& p : ArrayField(j, "retry")) {
    if (p.is_string()) out->retry.insert(p.get<std::string>());
  }
  if (const json* b = FieldOf(j, "branches"); b && b->is_object()) {
    for (auto& [k, v] : b->items()) {
      if (v.is_string()) out->branches[k] = v.get<std::string>();
    }
  }
  if (const json* k = FieldOf(j, "skipped"); k && k->is_object()) {
    for (auto& [why, n] : k->items()) {
      int64_t count = IntField(*k, why.c_str());
      if (count > 0) out->skipped[why] = count;
    }
  }
  out->shallow = BoolField(j, "shallow");
  return true;
}

std::string DescribeSkips(const Cursor& c) {
  static const std::vector<std::array<std::string, 3>> kWhy = {
      {"missing", "file not in this clone", "files not in this clone"},
      {"lfs", "Git LFS pointer", "Git LFS pointers"},
      {"submodule", "submodule", "submodules"}};
  std::string out;
  for (const auto& [why, one, many] : kWhy) {
    auto it = c.skipped.find(why);
    if (it == c.skipped.end()) continue;
    out += (out.empty() ? "" : ", ") + std::to_string(it->second) + " " + (it->second == 1 ? one : many);
    if (why == "missing") out += " (tried again next sync)";
  }
  if (c.shallow) out += (out.empty() ? "" : "; ") + std::string("a shallow clone (history from its grafted commits)");
  return out;
}

std::string FormatCursor(const Cursor& c) {
  json j;
  j["head"] = c.head;
  j["branch"] = c.branch;
  j["path"] = c.path;
  j["branches"] = json::object();
  for (const auto& [name, sha] : c.branches) j["branches"][name] = sha;
  j["retry"] = json::array();
  for (const auto& path : c.retry) j["retry"].push_back(path);
  if (!c.skipped.empty()) j["skipped"] = c.skipped;
  if (c.shallow) j["shallow"] = true;
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

Status Sync(Corpus& corpus, const SyncOptions& options, SyncReport* report) {
  GitSync sync(corpus, options, report);
  Status s = sync.Run();
  if (!s.ok() && !report->repo.empty()) {
    // Say so in the corpus too (status shows it), without touching its data.
    RecordSyncFailure(corpus, "git:" + report->repo, s.message(), NowEpoch());
  }
  return s;
}

}  // namespace umwelt::git
