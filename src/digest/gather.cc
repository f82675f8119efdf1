// The gatherer: a period's chunks and state changes, grouped into sections
// with their evidence ranked (see digest.h).
#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <unordered_map>

#include "digest_internal.h"
#include "umwelt/pattern.h"
#include "umwelt/claims.h"
#include "umwelt/source_traits.h"
#include "umwelt/text.h"

namespace umwelt::digest_internal {

namespace {

using research::Numbers;

// A thread active in the period: its row, its chunks in the period, and the
// state changes it went through.
struct Unit {
  Thread t;
  std::vector<const Chunk*> chunks;
  std::vector<Evidence> events;  // state changes, as evidence citing the thread
  int activity = 0;
  bool epic = false;
  std::string area;       // the area it works in, an AreaKey ("" none)
  std::string path_area;  // the area most of its files are in
};

bool Tracker(const std::string& source) {
  const SourceTraits* t = TraitsOf(source);
  return t && t->tracker;
}

bool Chat(const std::string& source) { return HasRole(source, Role::kMessage); }
bool Runs(const std::string& source) { return HasRole(source, Role::kRun); }

bool Change(const Chunk& c) { return RoleOf(c.source, c.kind) == Role::kChange; }

bool HasAny(const std::vector<std::string>& labels, const std::vector<std::string>& wanted) {
  for (const auto& l : labels) {
    std::string low = ToLower(l);
    for (const auto& w : wanted) {
      if (low == ToLower(w)) return true;
    }
  }
  return false;
}

// "o/r#12" -> "#12" inside the project, the whole ref outside it.
std::string Label(const Thread& t, const std::string& project) {
  size_t hash = t.ref.find('#');
  if (Tracker(t.source) && hash != std::string::npos) {
    return t.ref.substr(0, hash) == project ? t.ref.substr(hash) : t.ref;
  }
  return t.title.empty() ? t.ref : t.title;
}

bool Maintenance(const Thread& t, const DigestConfig& c) {
  if (HasAny(t.labels, c.maintenance_labels)) return true;
  if (t.author.size() > 5 && t.author.substr(t.author.size() - 5) == "[bot]") return true;
  static const Pattern title(
      R"(^\s*(\[?(chore|ci|build|deps?|lint|style|typo)\]?[:(\s]|bump\b|update dependency|pin\b|upgrade\b|fix typos?\b|clean ?up\b|pre-commit)|\bbump .+ from .+ to\b|dependabot|renovate)",
      Pattern::kIgnoreCase);
  return title.Search(t.title);
}

bool Insider(const Thread& t, const DigestConfig& c) {
  std::string a = ToLower(t.author_association);
  if (a == "owner" || a == "member" || a == "collaborator") return true;
  if (a.empty()) return true;  // unknown: never call someone an outsider on no evidence
  for (const auto& m : c.members) {
    if (ToLower(m) == ToLower(t.author)) return true;
  }
  return t.author.size() > 5 && t.author.substr(t.author.size() - 5) == "[bot]";
}

struct UnionFind {
  std::vector<int> p;
  explicit UnionFind(size_t n) : p(n) { std::iota(p.begin(), p.end(), 0); }
  int Find(int x) { return p[x] == x ? x : p[x] = Find(p[x]); }
  void Join(int a, int b) { p[Find(a)] = Find(b); }
};

std::string Slug(const std::string& s) {
  std::string out;
  for (char c : ToLower(s)) {
    if (std::isalnum(static_cast<unsigned char>(c))) out += c;
    else if (!out.empty() && out.back() != '-') out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.substr(0, 60);
}


bool Has(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// The size a chunk's or thread's facts give a landed change.
bool SizeFrom(const std::string& facts, LandedChange* l) {
  std::optional<ChangeSize> c = ChangeOf(facts);
  if (!c) return false;
  l->files = c->files;
  l->added = c->added;
  l->removed = c->removed;
  return true;
}

std::string PackageOf(const std::string& repo) {
  return ToLower(repo.substr(repo.rfind('/') == std::string::npos ? 0 : repo.rfind('/') + 1));
}

// What a change's title and files say of the area it works in.
struct AreaFacts {
  std::vector<TitleTag> tags;            // non-noise title tags, in order
  std::map<std::string, double> paths;   // area -> votes of its files
  std::set<std::string> components;      // folder and file names of its files
  std::map<std::string, std::string> folders;  // tool area -> the folder named (".claude")

  std::string PathArea() const {
    std::string best;
    double most = 0;
    for (const auto& [a, v] : paths) {
      if (v > most) most = v, best = a;
    }
    return best;
  }
  // A tag names the area when the change's own files are in it, or when
  // other changes of the period carry it too (`seen`); else the files'
  // area; else the first tag.
  std::string Choose(const std::map<std::string, int>& seen) const {
    for (const auto& t : tags) {
      auto it = seen.find(t.key);
      if (components.count(t.key) || paths.count(t.key) || (it != seen.end() && it->second >= 2)) return t.key;
    }
    std::string path = PathArea();
    if (!path.empty()) return path;
    return tags.empty() ? "" : tags.front().key;
  }
};

// `tails`: a long record's last part by its base ref (where a commit's
// Files: line is).
AreaFacts FactsOf(const std::string& title, const std::vector<const Chunk*>& chunks, const std::string& project,
                  const std::map<std::string, std::string>& tails) {
  AreaFacts f;
  f.tags = TitleTags(title, project);
  for (const Chunk* c : chunks) {
    if (!Change(*c)) continue;
    for (auto& t : TitleTags(c->title, project)) {  // its commits' tags, after the title's own
      bool known = std::any_of(f.tags.begin(), f.tags.end(), [&](const TitleTag& x) { return x.key == t.key; });
      if (!known) f.tags.push_back(std::move(t));
    }
    std::string package = PackageOf(RepoOf(c->source, c->ref));
    auto tail = tails.find(BaseRef(c->ref));
    for (const auto& path : ChangedFiles(c->source, tail == tails.end() ? c->text : tail->second)) {
      for (auto& k : PathComponents(path)) f.components.insert(std::move(k));
      std::string a = AreaOfPath(path, package);
      if (a.empty()) continue;
      if (a == "agents" || a == "tooling") f.folders.emplace(a, path.substr(0, path.find('/')));
      // Tests, docs, config and tooling go with the work they serve.
      bool serving = a == "docs" || a == "config" || a == "ci" || a == "tooling" || a == "dev_environment";
      f.paths[a] += a == "tests" ? 0.25 : serving ? 0.5 : 1.0;
    }
  }
  return f;
}

// The units of the period, sorted into what becomes which section.
struct Groups {
  std::vector<int> intro, runs, maintenance, rest, unassigned;
  std::map<std::string, std::vector<int>> epics;     // epic ref -> units
  std::map<std::string, std::set<std::string>> linked;  // unit ref -> thread refs its chunks link to
};

class Gatherer {
 public:
  Gatherer(Corpus& corpus, const DigestOptions& o) : corpus_(corpus), o_(o), cfg_(o.config) {}

  Status Run(Digest* d);

 private:
  Status Load(Digest* d);
  void GuessProject();
  Result<int> UnitFor(const std::string& ref, const Chunk* c);
  Status UnitsFromChunks();
  Status StateChanges();
  void CountStats(Digest* d) const;
  Groups Classify();
  void JoinEpicsByLinks(Groups* g);
  std::map<int, std::vector<int>> Cluster(Groups* g);
  Status WorkSections(Groups* g, Digest* d);
  void FixedSections(const Groups& g, Digest* d);
  Status SharedReading(Digest* d);

  Result<Thread*> ThreadRow(const std::string& ref);
  std::string EpicOf(const std::string& ref);
  Evidence FromChunk(const Chunk& c, const Unit& u) const;
  void Rank(DigestSection* s, const std::vector<int>& members);
  DigestSection Section(const std::string& slug, const std::string& kind, const std::string& heading,
                        const std::vector<int>& members);
  std::vector<LandedChange> Landed(const std::vector<int>& members) const;
  double GeneratedShare(const std::vector<const Chunk*>& changes) const;

  Corpus& corpus_;
  const DigestOptions& o_;
  const DigestConfig& cfg_;
  std::string from_, to_;  // ISO bounds, to exclusive
  int64_t from_epoch_ = 0;
  int days_ = 7;
  std::string project_;
  std::vector<Chunk> chunks_;
  std::vector<Thread> changed_;
  std::unordered_map<std::string, std::optional<Thread>> rows_;  // cache of GetThread
  std::vector<Unit> units_;
  std::map<std::string, int> unit_of_;  // thread ref -> index in units_
  std::vector<Link> links_;
  std::map<std::string, std::vector<std::string>> spellings_;
  std::map<std::string, std::string> tails_;  // base ref -> the last part of a record in parts  // area key -> how titles and folders write it
  int next_id_ = 0;
};

Result<Thread*> Gatherer::ThreadRow(const std::string& ref) {
  auto it = rows_.find(ref);
  if (it == rows_.end()) {
    UMWELT_ASSIGN_OR_RETURN(auto row, corpus_.GetThread(ref));
    it = rows_.emplace(ref, std::move(row)).first;
  }
  return it->second ? &*it->second : nullptr;
}

// The nearest epic above `ref` (itself included), following parents; a cycle
// or a chain deeper than 16 ends the walk.
std::string Gatherer::EpicOf(const std::string& ref) {
  std::set<std::string> seen;
  std::string at = ref;
  for (int depth = 0; depth < 16 && !at.empty() && seen.insert(at).second; ++depth) {
    auto row = ThreadRow(at);
    if (!row.ok() || !*row) return "";
    const Thread& t = **row;
    if (HasAny(t.labels, o_.config.epic_labels) || !t.children.empty()) return t.ref;
    at = t.parent;
  }
  return "";
}

Evidence Gatherer::FromChunk(const Chunk& c, const Unit& u) const {
  Evidence e;
  e.url = c.url;
  e.ref = c.ref;
  e.thread = u.t.ref;
  e.source = c.source;
  e.kind = c.kind;
  e.title = c.title;
  e.author = c.author;
  e.date = c.date;
  e.text = c.text;
  e.thread_state = u.t.state;
  e.reactions = Reactions(c.source, c.text);
  double score = 1;
  if (!Numbers(c.text).empty()) score += 3;
  if (Decision(c.text)) score += 3;
  score += std::min(10, e.reactions);
  if (c.text.size() < 40) score -= 2;
  bool opening = RoleOf(c.source, c.kind) == Role::kOpening;
  if (opening && u.t.created >= from_) score += 2;
  // The last word of a thread that closed in the period.
  bool closed_here = (!u.t.closed.empty() && u.t.closed >= from_ && u.t.closed < to_) ||
                     (!u.t.merged.empty() && u.t.merged >= from_ && u.t.merged < to_);
  if (closed_here && !u.chunks.empty() && u.chunks.back() == &c && !opening) {
    e.closeout = true;
    score += 6;
  }
  e.score = score;
  return e;
}

void Gatherer::Rank(DigestSection* s, const std::vector<int>& members) {
  std::vector<Evidence> ev;
  for (int i : members) {
    const Unit& u = units_[i];
    for (const auto& e : u.events) ev.push_back(e);
    for (const Chunk* c : u.chunks) {
      if (Citable(c->url)) ev.push_back(FromChunk(*c, u));
    }
  }
  std::stable_sort(ev.begin(), ev.end(), [](const Evidence& a, const Evidence& b) { return a.score > b.score; });
  std::set<std::string> seen;
  for (auto& e : ev) {
    if (!seen.insert(e.kind == "state" ? e.url + "#" + e.text : e.url).second) continue;
    e.id = "E" + std::to_string(++next_id_);
    s->evidence.push_back(std::move(e));
  }
}

DigestSection Gatherer::Section(const std::string& slug, const std::string& kind, const std::string& heading,
                                const std::vector<int>& members) {
  DigestSection s;
  s.slug = slug;
  s.kind = kind;
  s.heading = heading;
  s.days.assign(days_, DayActivity{});
  for (int i : members) {
    const Unit& u = units_[i];
    s.threads.push_back({u.t.ref, u.t.url, u.t.title, u.t.state, Label(u.t, project_)});
    s.activity += u.activity;
    for (const Chunk* c : u.chunks) {
      int cat = ActivityOf(c->source, c->kind);
      auto t = ParseIsoTime(c->date);
      if (cat < 0 || !t) continue;
      int day = static_cast<int>((*t - from_epoch_) / 86400);
      if (day >= 0 && day < days_) ++s.days[day][cat];
    }
  }
  Rank(&s, members);
  s.landed = Landed(members);
  return s;
}

// The share of the files `changes` touch that are generated, vendored or
// lock files.
double Gatherer::GeneratedShare(const std::vector<const Chunk*>& changes) const {
  int files = 0, generated = 0;
  for (const Chunk* c : changes) {
    auto tail = tails_.find(BaseRef(c->ref));
    for (const auto& path : ChangedFiles(c->source, tail == tails_.end() ? c->text : tail->second)) {
      ++files;
      generated += GeneratedPath(path);
    }
  }
  return files ? static_cast<double>(generated) / files : 0;
}

// What a change's description says beyond its title: the first whole
// statements of its PR body, or of its landing's message (a squash or merge
// commit's body), at most about 300 bytes; "" when nothing says more.
std::string Description(const std::string& title, const std::vector<const Chunk*>& records) {
  for (const Chunk* c : records) {
    std::string out;
    for (const auto& s : research::ProseSentences(c->text)) {
      // Links and requests ("Please see [the doc](…)") are not what it does.
      bool link = s.find("http") != std::string::npos || s.find("](") != std::string::npos;
      if (!research::IsStatement(s) || !WholeSentence(s) || RepeatsTitle(s, title) || Attribution(s) || link ||
          s.rfind("Please ", 0) == 0) {
        continue;
      }
      if (!out.empty() && out.size() + s.size() > 300) break;
      out += (out.empty() ? "" : " ") + s;
      if (out.size() > 160) break;
    }
    if (!out.empty() && out.size() <= 400) return out;
  }
  return "";
}

// Whether a unit landed anything: a merged thread, or commits made to the
// branch directly.
bool LandedSomething(const Unit& u) {
  if (u.t.kind == "commits") return true;
  return std::any_of(u.events.begin(), u.events.end(), [](const Evidence& e) { return e.thread_state == "merged"; });
}

// What landed among `members`: each merged PR (its size from the stored
// facts of its landing), and each commit made to the default branch
// directly; biggest first.
std::vector<LandedChange> Gatherer::Landed(const std::vector<int>& members) const {
  std::vector<LandedChange> out;
  // The other threads of the period that reference each thread.
  std::map<std::string, std::string> chunk_unit;
  for (const auto& u : units_) {
    for (const Chunk* c : u.chunks) chunk_unit[BaseRef(c->ref)] = u.t.ref;
  }
  std::map<std::string, std::set<std::string>> cited_by;
  for (const auto& l : links_) {
    auto from = chunk_unit.find(l.from_ref);
    if (l.kind != kLandedIn && from != chunk_unit.end() && from->second != l.to_ref) cited_by[l.to_ref].insert(from->second);
  }
  for (int i : members) {
    const Unit& u = units_[i];
    int discussion = 0;
    for (const Chunk* c : u.chunks) discussion += !Change(*c);
    const std::string& key = u.area.empty() ? u.path_area : u.area;
    auto spelled = spellings_.find(key);
    std::string area = key.empty() ? "" : AreaName(key, spelled == spellings_.end() ? std::vector<std::string>{} : spelled->second);
    if (u.t.kind == "commits") {
      for (const Chunk* c : u.chunks) {
        // Merging the default branch into a topic branch lands nothing.
        if (c->title.rfind("Merge branch ", 0) == 0 || c->title.rfind("Merge remote-tracking branch ", 0) == 0) continue;
        LandedChange l;
        std::string sha = c->ref.substr(c->ref.rfind('/') + 1);
        l.label = sha.substr(0, 7);
        l.title = c->title.empty() ? c->text.substr(0, c->text.find('\n')) : c->title;
        l.url = c->url;
        l.author = c->author;
        l.date = c->date;
        l.area = area;
        SizeFrom(c->facts, &l);
        l.generated = GeneratedShare({c});
        l.summary = Description(l.title, {c});
        out.push_back(std::move(l));
      }
      continue;
    }
    for (const auto& e : u.events) {
      if (e.thread_state != "merged") continue;
      LandedChange l;
      size_t hash = u.t.ref.rfind('#');
      l.label = hash == std::string::npos ? Label(u.t, project_) : u.t.ref.substr(hash);
      l.title = u.t.title;
      l.url = u.t.url;
      l.date = e.date;
      l.author = u.t.author;
      l.area = area;
      l.discussion = discussion;
      if (auto it = cited_by.find(u.t.ref); it != cited_by.end()) l.links = static_cast<int>(it->second.size());
      // Its size: from its row (a PR the git history knows), else from the
      // chunk that knows it (its landing, or the PR fetched whole).
      if (!SizeFrom(u.t.facts, &l)) {
        for (const Chunk* c : u.chunks) {
          if (SizeFrom(c->facts, &l)) break;
        }
      }
      // No author in its row: the landing's.
      for (const Chunk* c : u.chunks) {
        if (!l.author.empty()) break;
        if (Change(*c) && ChangeOf(c->facts)) l.author = c->author;
      }
      std::vector<const Chunk*> changes, said;
      for (const Chunk* c : u.chunks) {
        if (Change(*c)) changes.push_back(c);
        if (RoleOf(c->source, c->kind) == Role::kOpening) said.push_back(c);  // the PR's own description first
      }
      said.insert(said.end(), changes.begin(), changes.end());
      l.generated = GeneratedShare(changes);
      l.summary = Description(l.title, said);
      out.push_back(std::move(l));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const LandedChange& a, const LandedChange& b) {
    if (a.size() != b.size()) return a.size() > b.size();
    return a.date < b.date;
  });
  return out;
}

Status Gatherer::Run(Digest* d) {
  UMWELT_RETURN_IF_ERROR(Load(d));
  UMWELT_RETURN_IF_ERROR(UnitsFromChunks());
  UMWELT_RETURN_IF_ERROR(StateChanges());
  if (units_.empty()) {
    d->quiet = true;
    return Status::Ok();
  }
  CountStats(d);
  Groups g = Classify();
  JoinEpicsByLinks(&g);
  UMWELT_RETURN_IF_ERROR(WorkSections(&g, d));
  FixedSections(g, d);
  UMWELT_RETURN_IF_ERROR(SharedReading(d));
  if (!g.runs.empty()) d->sections.push_back(Section("runs", "runs", "Runs", g.runs));
  // A commit with its pull request's title is that PR's (a branch commit the
  // history did not tie to it): the PR lists it.
  std::set<std::string> prs;
  for (const auto& s : d->sections) {
    for (const auto& l : s.landed) {
      if (!l.label.empty() && l.label[0] == '#') prs.insert(CollapseWhitespace(l.title));
    }
  }
  for (auto& s : d->sections) {
    std::erase_if(s.landed, [&](const LandedChange& l) {
      return (l.label.empty() || l.label[0] != '#') && prs.count(CollapseWhitespace(l.title));
    });
  }
  return Status::Ok();
}

Status Gatherer::Load(Digest* d) {
  from_ = o_.period.from + "T00:00:00Z";
  from_epoch_ = *DayStart(o_.period.from);
  days_ = o_.period.days();
  to_ = DayString(*DayStart(o_.period.to) + 86400) + "T00:00:00Z";
  UMWELT_ASSIGN_OR_RETURN(chunks_, corpus_.ChunksInPeriod(from_, to_));
  // Code windows are snapshots, web pages fetches and summaries our own
  // words: none is activity. Parts after the first repeat their record
  // (the last one ends with what a change's files were).
  std::map<std::string, int> last_part;
  for (const auto& c : chunks_) {
    if (c.part == 0 || !Change(c)) continue;
    std::string base = BaseRef(c.ref);
    if (auto it = last_part.find(base); it == last_part.end() || it->second < c.part) {
      last_part[base] = c.part;
      tails_[base] = "\n" + c.text;  // its Files: line may open it
    }
  }
  std::erase_if(chunks_, [](const Chunk& c) {  // by source: a reference corpus's code has kinds of its own
    return c.part > 0 || HasRole(c.source, Role::kNote) || HasRole(c.source, Role::kCode) ||
           HasRole(c.source, Role::kPage);
  });
  UMWELT_ASSIGN_OR_RETURN(changed_, corpus_.ThreadsChangedIn(from_, to_));
  if (!corpus_.native()) d->notes.push_back("the corpus has no thread metadata: no states, epics or labels");
  GuessProject();
  return Status::Ok();
}

// The project: the configured one, else the repository most activity is in.
void Gatherer::GuessProject() {
  project_ = cfg_.project;
  if (!project_.empty()) return;
  std::map<std::string, int> repos;
  auto count = [&](const std::string& source, const std::string& ref) {
    if (!Tracker(source)) return;
    if (std::string repo = RepoOf(source, ref); !repo.empty()) ++repos[repo];
  };
  for (const auto& c : chunks_) count(c.source, c.parent);
  for (const auto& t : changed_) count(t.source, t.ref);
  if (repos.empty()) {  // no tracker: the repository the changes are in
    for (const auto& c : chunks_) {
      if (std::string repo = RepoOf(c.source, c.ref); !repo.empty()) ++repos[repo];
    }
  }
  int best = 0;
  for (const auto& [r, n] : repos) {
    if (n > best) best = n, project_ = r;
  }
}

Result<int> Gatherer::UnitFor(const std::string& ref, const Chunk* c) {
  auto it = unit_of_.find(ref);
  if (it != unit_of_.end()) return it->second;
  UMWELT_ASSIGN_OR_RETURN(Thread * row, ThreadRow(ref));
  Unit u;
  if (row) {
    u.t = *row;
  } else {
    // No row (a reference-schema corpus, a commit without a PR): what the
    // chunk says.
    u.t.ref = ref;
    u.t.source = c ? c->source : "";
    u.t.kind = c ? c->kind : "";
    u.t.title = c ? c->title : ref;
    u.t.url = c ? c->url.substr(0, c->url.find('#')) : "";
  }
  units_.push_back(std::move(u));
  unit_of_[ref] = static_cast<int>(units_.size()) - 1;
  return static_cast<int>(units_.size()) - 1;
}

// Each chunk joins its thread's unit. Commits join the PR they name; the
// rest of a repository's commits are one unit.
Status Gatherer::UnitsFromChunks() {
  std::vector<std::string> record_refs;
  for (const auto& c : chunks_) record_refs.push_back(BaseRef(c.ref));
  UMWELT_ASSIGN_OR_RETURN(links_, corpus_.LinksFrom(record_refs));
  std::map<std::string, std::string> commit_pr;
  for (const auto& l : links_) {
    if (l.kind == kLandedIn) commit_pr[l.from_ref] = l.to_ref;
  }
  for (const auto& c : chunks_) {
    std::string ref = c.parent.empty() ? BaseRef(c.ref) : c.parent;
    if (Change(c)) {
      // A commit that landed through a pull request is in the PR's thread
      // (so the PR counts once); else it joins the PR it names, else its
      // repository's other commits.
      auto pr = commit_pr.find(BaseRef(c.ref));
      std::string repo = RepoOf(c.source, c.ref);
      if (LandedThrough(c.source, c.kind, c.parent)) {
        ref = c.parent;
      } else if (pr != commit_pr.end()) {
        ref = pr->second;
      } else {  // the repository's other commits, one unit per area they work in
        std::string area = FactsOf(c.title, {&c}, project_, tails_).Choose({});
        ref = "commits:" + (repo.empty() ? c.ref : repo) + (area.empty() ? "" : ":" + area);
      }
    }
    UMWELT_ASSIGN_OR_RETURN(int i, UnitFor(ref, &c));
    if (ref.rfind("commits:", 0) == 0) {
      std::string rest = ref.substr(8);
      size_t colon = rest.find(':');
      units_[i].t.title = "Commits to " + rest.substr(0, colon) + (colon == std::string::npos ? "" : " (" + rest.substr(colon + 1) + ")");
      units_[i].t.kind = "commits";
      units_[i].t.url.clear();
    }
    units_[i].chunks.push_back(&c);
    units_[i].activity += 1;
  }
  return Status::Ok();
}

// Threads opened, merged, closed or finished in the period, as evidence.
Status Gatherer::StateChanges() {
  auto in = [&](const std::string& t) { return !t.empty() && t >= from_ && t < to_; };
  for (const auto& t : changed_) {
    // A PR known from the git history alone has no opening, only its landing.
    bool opened = in(t.created) && RoleOf(t.source, t.kind) == Role::kOpening;
    bool merged = in(t.merged);
    bool closed = !merged && in(t.closed);
    bool finished = in(t.updated) && Ended(t.source, t.state);
    if (!opened && !merged && !closed && !finished) continue;
    UMWELT_ASSIGN_OR_RETURN(int i, UnitFor(t.ref, nullptr));
    Unit& u = units_[i];
    auto event = [&](const std::string& what, const std::string& when, const std::string& who, double score) {
      Evidence e;
      e.url = u.t.url;
      e.ref = e.thread = u.t.ref;
      e.source = u.t.source;
      e.kind = "state";
      e.title = u.t.title;
      e.author = who;
      e.date = when;
      e.text = Label(u.t, project_) + " " + what + " on " + when.substr(0, 10) + (who.empty() ? "" : " (" + who + ")") +
               ": " + u.t.title;
      // A landing from the git history says its size: commits, authors, lines.
      if (RoleOf(u.t.source, u.t.kind) == Role::kChange && what == "merged" &&
          u.t.description.find(": ") != std::string::npos) {
        e.text += " — " + u.t.description.substr(u.t.description.find(": ") + 2);
      }
      e.thread_state = what;
      e.score = score;
      u.events.push_back(std::move(e));
      u.activity += 3;
    };
    if (opened) event("opened", t.created, t.author, 6);
    if (merged) event("merged", t.merged, "", 10);
    if (closed) {
      event(Proposal(t.source, t.kind) ? "closed without merge" : t.state_reason == "not_planned" ? "closed as not planned" : "closed",
            t.closed, "", 9);
    }
    if (finished) event(t.state, t.updated, t.author, 7);
  }
  return Status::Ok();
}

void Gatherer::CountStats(Digest* d) const {
  std::set<std::string> people, channels;
  for (const auto& c : chunks_) {
    if (!c.author.empty()) people.insert(c.author);
    Role role = RoleOf(c.source, c.kind);
    d->stats.messages += role == Role::kMessage;
    d->stats.commits += role == Role::kChange;
    if (role == Role::kMessage) channels.insert(c.parent);
  }
  for (const auto& u : units_) {
    for (const auto& e : u.events) {
      d->stats.opened += e.thread_state == "opened";
      d->stats.merged += e.thread_state == "merged";
      d->stats.closed += e.thread_state.rfind("closed", 0) == 0;
      d->stats.runs += Runs(e.source);
      if (!e.author.empty()) people.insert(e.author);
    }
  }
  d->stats.chunks = static_cast<int>(chunks_.size());
  d->stats.threads = static_cast<int>(units_.size());
  d->stats.contributors = static_cast<int>(people.size());
  d->stats.channels = static_cast<int>(channels.size());
}

// Introductions, runs, epics (by parent chain) and maintenance take their
// units; the rest is left for the links and clusters.
Groups Gatherer::Classify() {
  Groups g;
  for (int i = 0; i < static_cast<int>(units_.size()); ++i) {
    Unit& u = units_[i];
    if (Chat(u.t.source) && !cfg_.introductions_channel.empty() &&
        ToLower(u.t.title).find(ToLower(cfg_.introductions_channel)) != std::string::npos) {
      g.intro.push_back(i);
    } else if (Runs(u.t.source)) {
      g.runs.push_back(i);
    } else if (std::string epic = Tracker(u.t.source) ? EpicOf(u.t.ref) : ""; !epic.empty()) {
      g.epics[epic].push_back(i);
    } else if (Tracker(u.t.source) && Maintenance(u.t, cfg_)) {
      g.maintenance.push_back(i);
    } else {
      g.rest.push_back(i);
    }
  }
  return g;
}

// A thread that links to an epic joins it (the one it links to most).
void Gatherer::JoinEpicsByLinks(Groups* g) {
  std::map<std::string, std::map<std::string, int>> links_to_epic;  // unit -> epic -> count
  std::map<std::string, std::string> chunk_unit;
  for (const auto& u : units_) {
    for (const Chunk* c : u.chunks) chunk_unit[BaseRef(c->ref)] = u.t.ref;
  }
  for (const auto& l : links_) {
    auto from = chunk_unit.find(l.from_ref);
    if (from == chunk_unit.end() || from->second == l.to_ref) continue;
    g->linked[from->second].insert(l.to_ref);
    const SourceTraits* to = TraitsOfRef(l.to_ref);  // a channel's or a page's thread is no epic
    if ((to && !to->tracker) || l.kind == kLandedIn) continue;
    std::string epic = EpicOf(l.to_ref);
    if (!epic.empty()) ++links_to_epic[from->second][epic];
  }
  for (int i : g->rest) {
    auto it = links_to_epic.find(units_[i].t.ref);
    if (it == links_to_epic.end()) {
      g->unassigned.push_back(i);
      continue;
    }
    auto best = std::max_element(it->second.begin(), it->second.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
    g->epics[best->first].push_back(i);
  }
}

// The unassigned units clustered by links between them and shared labels
// (a channel is a unit, so its messages stay together).
std::map<int, std::vector<int>> Gatherer::Cluster(Groups* g) {
  static const std::set<std::string> kGeneric = {"bug", "enhancement", "feature", "question", "documentation",
                                                 "docs", "good first issue", "help wanted", "duplicate",
                                                 "wontfix", "invalid", "triage", "needs triage", "stale"};
  std::set<int> pool(g->unassigned.begin(), g->unassigned.end());
  UnionFind uf(units_.size());
  std::map<std::string, std::vector<int>> by_label;
  for (int i : g->unassigned) {
    for (const auto& l : units_[i].t.labels) by_label[ToLower(l)].push_back(i);
    for (const auto& to : g->linked[units_[i].t.ref]) {
      auto j = unit_of_.find(to);
      if (j != unit_of_.end() && pool.count(j->second)) uf.Join(i, j->second);
    }
  }
  for (const auto& [label, members] : by_label) {
    // A label shared by a few threads names a workstream; one on most of them
    // names nothing.
    if (members.size() < 2 || kGeneric.count(label) || HasAny({label}, cfg_.epic_labels) ||
        members.size() * 3 > g->unassigned.size() + 3) {
      continue;
    }
    for (size_t k = 1; k < members.size(); ++k) uf.Join(members[0], members[k]);
  }
  // Changes to the same area are one workstream: a title's tag when other
  // changes carry it or the change's files are in it, else its files' area.
  std::vector<AreaFacts> facts(units_.size());
  std::map<std::string, int> seen;  // area key -> units naming it
  for (int i : g->unassigned) {
    Unit& u = units_[i];
    // An issue's title names a problem, not the area of its fix.
    bool issue = RoleOf(u.t.source, u.t.kind) == Role::kOpening && !Proposal(u.t.source, u.t.kind);
    facts[i] = FactsOf(issue ? "" : u.t.title, u.chunks, project_, tails_);
    std::set<std::string> keys;
    for (const auto& t : facts[i].tags) keys.insert(t.key);
    if (std::string p = facts[i].PathArea(); !p.empty()) keys.insert(p);
    for (const auto& k : keys) ++seen[k];
  }
  std::map<std::string, int> by_area;
  for (int i : g->unassigned) {
    Unit& u = units_[i];
    u.area = facts[i].Choose(seen);
    u.path_area = facts[i].PathArea();
    for (const auto& t : facts[i].tags) spellings_[t.key].push_back(t.shown);
    for (const auto& [a, folder] : facts[i].folders) spellings_[a].push_back(folder);
    if (u.area.empty()) continue;
    auto [it, fresh] = by_area.try_emplace(u.area, i);
    if (!fresh) uf.Join(it->second, i);
  }
  std::map<int, std::vector<int>> clusters;
  for (int i : g->unassigned) clusters[uf.Find(i)].push_back(i);
  return clusters;
}

// Epics and clusters by activity. A lone change in an area of its own joins
// the area its files are in, or is listed under "Also landed" with its
// area's name (unless it is among the period's largest); beyond
// `max_workstreams` landed changes go there too, and what landed nothing
// (lone comments on old threads) goes to "Other activity".
Status Gatherer::WorkSections(Groups* g, Digest* d) {
  struct Candidate {
    std::string slug, kind, heading;
    std::vector<int> members;
    int activity = 0;
    std::string area;  // its AreaKey, for a workstream named by its area
  };
  std::vector<Candidate> work;
  for (auto& [epic, members] : g->epics) {
    UMWELT_ASSIGN_OR_RETURN(Thread * row, ThreadRow(epic));
    // The epic itself belongs to its section even when it was quiet.
    UMWELT_ASSIGN_OR_RETURN(int self, UnitFor(epic, nullptr));
    if (!Has(members, self)) members.insert(members.begin(), self);
    work.push_back({"epic-" + Slug(epic), "epic", row ? row->title : epic, members, 0});
  }
  for (auto& [root, members] : Cluster(g)) {
    std::sort(members.begin(), members.end(), [&](int a, int b) { return units_[a].activity > units_[b].activity; });
    const Unit& lead = units_[members[0]];
    // A workstream is named by the area it works in (the one most of its
    // activity is in), never after one of its changes; else by its lead.
    std::map<std::string, int> areas;
    for (int i : members) {
      if (!units_[i].area.empty()) areas[units_[i].area] += units_[i].activity;
    }
    auto area = std::max_element(areas.begin(), areas.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    if (area != areas.end()) {
      work.push_back({"area-" + Slug(area->first), "workstream", AreaName(area->first, spellings_[area->first]), members,
                      0, area->first});
      continue;
    }
    // Commits and git-only PRs in no area of the code fit nowhere: a
    // section is never one change's title.
    bool only_git = std::all_of(members.begin(), members.end(), [&](int i) {
      return units_[i].t.kind == "commits" || RoleOf(units_[i].t.source, units_[i].t.kind) == Role::kChange;
    });
    if (only_git) {
      work.push_back({"other", "other", "", members, 0});
      continue;
    }
    std::string heading = lead.t.title.empty() ? lead.t.ref : lead.t.title;
    std::string slug = Slug(Tracker(lead.t.source) ? lead.t.ref : heading);
    work.push_back({slug.empty() ? "workstream" : slug, "workstream", heading, members, 0});
  }
  // The period's three largest landed changes keep sections of their own.
  std::vector<std::pair<int64_t, int>> sizes;
  for (const auto& c : work) {
    for (int i : c.members) {
      if (!LandedSomething(units_[i])) continue;
      std::vector<LandedChange> l = Landed({i});
      sizes.push_back({l.empty() ? -1 : l.front().size(), i});
    }
  }
  std::sort(sizes.rbegin(), sizes.rend());
  std::set<int> largest;
  for (size_t k = 0; k < sizes.size() && k < 3; ++k) largest.insert(sizes[k].second);
  auto lone = [&](const Candidate& c) {
    if (c.kind != "workstream" || c.members.size() != 1 || largest.count(c.members[0])) return false;
    const Unit& u = units_[c.members[0]];
    int discussion = 0, changes = 0;
    for (const Chunk* ch : u.chunks) discussion += !Change(*ch), changes += Change(*ch);
    // One change: a merged thread, or a single direct commit.
    return LandedSomething(u) && discussion < 3 && (u.t.kind != "commits" || changes == 1);
  };
  std::map<std::string, size_t> by_area;
  for (size_t k = 0; k < work.size(); ++k) {
    if (!work[k].area.empty()) by_area.emplace(work[k].area, k);
  }
  std::set<size_t> receivers;
  for (size_t k = 0; k < work.size(); ++k) {
    Candidate& c = work[k];
    if (!lone(c) || receivers.count(k)) continue;
    const Unit& u = units_[c.members[0]];
    auto to = by_area.find(u.path_area);
    if (u.path_area.empty() || to == by_area.end() || to->second == k || work[to->second].members.empty()) continue;
    work[to->second].members.push_back(c.members[0]);
    receivers.insert(to->second);
    c.members.clear();
  }
  std::erase_if(work, [](const Candidate& c) { return c.members.empty(); });
  for (auto& c : work) {
    for (int i : c.members) c.activity += units_[i].activity;
  }
  std::stable_sort(work.begin(), work.end(), [](const Candidate& a, const Candidate& b) {
    return a.kind == "epic" && b.kind != "epic" ? a.activity * 2 > b.activity : a.activity > b.activity;
  });
  std::vector<int> other, also;
  std::set<std::string> slugs;
  int shown = 0;
  for (auto& c : work) {
    bool big = std::any_of(c.members.begin(), c.members.end(), [&](int i) { return largest.count(i) > 0; });
    bool small = c.kind == "other" || (c.kind != "epic" && c.activity < 2 && !big);
    if (shown >= cfg_.max_workstreams || small || lone(c)) {
      for (int i : c.members) {
        bool named = !units_[i].area.empty() || !units_[i].path_area.empty();
        (LandedSomething(units_[i]) && named ? also : other).push_back(i);
      }
      continue;
    }
    std::string slug = c.slug;
    for (int n = 2; !slugs.insert(slug).second; ++n) slug = c.slug + "-" + std::to_string(n);
    d->sections.push_back(Section(slug, c.kind, c.heading, c.members));
    ++shown;
  }
  if (!also.empty()) {
    DigestSection s = Section("also-landed", "also", "Also landed", also);
    std::stable_sort(s.landed.begin(), s.landed.end(), [](const LandedChange& a, const LandedChange& b) { return a.area < b.area; });
    d->sections.push_back(std::move(s));
  }
  if (!other.empty()) d->sections.push_back(Section("other", "other", "Other activity", other));
  return Status::Ok();
}

// Maintenance, outside contributors (a cross-cut of the threads above),
// Discord and introductions.
void Gatherer::FixedSections(const Groups& g, Digest* d) {
  if (!g.maintenance.empty()) d->sections.push_back(Section("maintenance", "maintenance", "Routine maintenance", g.maintenance));
  std::vector<int> outside;
  std::map<std::string, std::vector<int>> chat;  // by source, in the sources' order below
  for (int i = 0; i < static_cast<int>(units_.size()); ++i) {
    const Unit& u = units_[i];
    if (Chat(u.t.source) && !Has(g.intro, i)) chat[u.t.source].push_back(i);
    if (!Tracker(u.t.source) || RoleOf(u.t.source, u.t.kind) != Role::kOpening || Insider(u.t, cfg_)) continue;
    bool own = u.t.created >= from_;
    for (const Chunk* c : u.chunks) own |= c->author == u.t.author;
    if (own) outside.push_back(i);
  }
  if (!outside.empty()) d->sections.push_back(Section("outside-contributors", "outside", "Outside contributors", outside));
  for (const auto& s : AllSourceTraits()) {  // each chat source's section: "discord", "Discord"
    auto it = chat.find(std::string(s.name));
    if (it != chat.end()) d->sections.push_back(Section(it->first, "chat", std::string(s.label), it->second));
  }
  if (!g.intro.empty()) d->sections.push_back(Section("introductions", "introductions", "Introductions", g.intro));
}

// Web pages linked in the period, with who shared them first: public
// pages only, credentials stripped, review-tool mirrors of the project's own
// PRs left to the PRs themselves.
Status Gatherer::SharedReading(Digest* d) {
  const SourceTraits* pages = FirstWithRole(Role::kPage);  // the fetched pages' source
  if (!pages || pages->ref_prefix.empty()) return Status::Ok();
  const std::string prefix(pages->ref_prefix);
  std::vector<std::string> urls;
  std::set<std::string> seen;
  for (const auto& l : links_) {
    if (l.to_ref.rfind(prefix, 0) != 0) continue;
    std::string url = l.to_ref.substr(prefix.size());
    if (seen.insert(url).second) urls.push_back(url);
  }
  if (urls.empty()) return Status::Ok();
  DigestSection s = Section("shared-reading", "reading", "Shared reading", {});
  std::set<std::string> shown;
  for (const auto& u : urls) {
    std::string shareable = ShareableUrl(u, project_);
    if (shareable.empty() || BoilerplateLink(shareable) || !shown.insert(shareable).second) continue;
    // Who shared it to be read: a line that only credits a tool or a
    // co-author ("Generated with [Claude Code](…)") shares nothing.
    auto shared_on = [&](const Chunk& c) {
      for (size_t at = c.text.find(u); at != std::string::npos; at = c.text.find(u, at + 1)) {
        size_t start = c.text.rfind('\n', at);
        start = start == std::string::npos ? 0 : start + 1;
        size_t end = c.text.find('\n', at);
        if (!Attribution(std::string_view(c.text).substr(start, end == std::string::npos ? std::string::npos : end - start))) {
          return true;
        }
      }
      return false;
    };
    auto sharer = std::find_if(chunks_.begin(), chunks_.end(), shared_on);
    if (sharer == chunks_.end()) continue;
    Evidence e;
    e.id = "E" + std::to_string(++next_id_);
    e.url = shareable;
    e.ref = std::string(pages->ref_prefix) + u;
    e.source = pages->name;
    e.kind = "link";
    e.author = sharer->author;
    e.date = sharer->date;
    UMWELT_ASSIGN_OR_RETURN(Thread * page, ThreadRow(e.ref));
    e.title = page && !page->title.empty() ? page->title : shareable;
    e.text = "Shared by " + e.author + " in " + sharer->title + " (" + sharer->url + ")";
    e.thread = sharer->url;  // where it was shared
    s.evidence.push_back(std::move(e));
    d->shared_links.push_back(shareable);
    if (s.evidence.size() >= 12) break;
  }
  s.activity = static_cast<int>(s.evidence.size());
  if (!s.evidence.empty()) d->sections.push_back(std::move(s));
  return Status::Ok();
}

}  // namespace

Status Gather(Corpus& corpus, const DigestOptions& options, Digest* d) {
  Gatherer g(corpus, options);
  return g.Run(d);
}

}  // namespace umwelt::digest_internal
