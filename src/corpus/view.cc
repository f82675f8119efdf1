// Threads read for display: `show` and the server's thread page.
#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <string_view>

#include "umwelt/corpus.h"
#include "umwelt/source_traits.h"
#include "umwelt/text.h"

namespace umwelt {

const std::vector<std::string>& CorpusSources() {
  static const std::vector<std::string> sources = [] {
    std::vector<std::string> out;
    for (const auto& s : AllSourceTraits()) out.emplace_back(s.name);
    return out;
  }();
  return sources;
}

const ParamTable<ShowRequest>& ShowParams() {
  static const ParamTable<ShowRequest> table = [] {
    using T = ParamType;
    using V = const ParamValue&;
    ParamTable<ShowRequest> t;
    t.params = {
        {{.name = "target", .type = T::kString, .help = "A permalink or ref (owner/repo#123)", .max = 2000, .required = true,
          .flag = "@"},
         [](ShowRequest& r, V v) { r.target = CollapseWhitespace(v.text); }},
        {{.name = "tail", .type = T::kInt, .help = "Only the last N records (the close-out)", .min = 0, .max = 100000},
         [](ShowRequest& r, V v) { r.tail = static_cast<int>(v.integer); }},
        {{.name = "toc", .type = T::kBool, .help = "One line per record"}, [](ShowRequest& r, V v) { r.toc = v.flag; }},
        {{.name = "around", .type = T::kInt, .help = "A chat message: messages either side (-1: the whole channel)", .min = -1,
          .max = 1000, .fallback = "10"},
         [](ShowRequest& r, V v) { r.around = static_cast<int>(v.integer); }},
    };
    return t;
  }();
  return table;
}

namespace {

// Whether `url` ends in a commit's sha of 7 to 39 hex digits, after
// "/commit/" (a forge's permalink) or "@" (a local repository's).
bool AbbreviatedCommitUrl(std::string_view url) {
  size_t hex = url.size();
  while (hex > 0 && std::isxdigit(static_cast<unsigned char>(url[hex - 1])) != 0) --hex;
  const size_t n = url.size() - hex;
  if (n < 7 || n >= 40) return false;
  return url.substr(0, hex).ends_with("/commit/") || url.substr(0, hex).ends_with("@");
}

}  // namespace

Result<ThreadView> ViewThread(Corpus& corpus, const std::string& target, int around) {
  ThreadView v;
  std::optional<Chunk> focus;
  if (target.rfind("http://", 0) == 0 || target.rfind("https://", 0) == 0 || target.rfind("git+file://", 0) == 0) {
    UMWELT_ASSIGN_OR_RETURN(auto chunk, corpus.ChunkByUrl(target));
    if (chunk) {
      v.thread_ref = chunk->parent.empty() ? chunk->ref : chunk->parent;
      v.focus_ref = chunk->ref;
      focus = chunk;
    } else {
      v.thread_ref = ThreadRefFromUrl(target);
      if (v.thread_ref.empty()) {
        UMWELT_ASSIGN_OR_RETURN(auto t, corpus.ThreadByUrl(target));
        if (t) v.thread_ref = t->ref;
      }
      // A commit's permalink with its sha abbreviated, as GitHub takes them
      // (".../commit/ec40afc"): the one commit whose sha begins so.
      if (AbbreviatedCommitUrl(target)) {
        UMWELT_ASSIGN_OR_RETURN(auto refs, corpus.ThreadRefsByUrlPrefix(target, 2));
        if (refs.size() > 1) {
          return Status::Invalid("`" + target + "` names more than one commit (" + refs[0] + ", " + refs[1] +
                                 ", ...): give more of its sha");
        }
        if (refs.size() == 1) v.thread_ref = refs[0];
      }
    }
  } else {
    UMWELT_ASSIGN_OR_RETURN(auto chunk, corpus.ChunkByRef(target));
    if (!chunk) {
      UMWELT_ASSIGN_OR_RETURN(auto first_part, corpus.ChunkByRef(target + ":p0"));
      chunk = first_part;
    }
    v.thread_ref = chunk && !chunk->parent.empty() ? chunk->parent : target;
    if (chunk) v.focus_ref = chunk->ref;
    focus = chunk;
  }
  if (v.thread_ref.empty()) return Status::NotFound("`" + target + "` is not in the corpus " + corpus.path());
  // A chat message is read in its conversation: the messages around it, not
  // the whole channel.
  v.window = focus && RoleOf(focus->source, focus->kind) == Role::kMessage && around >= 0;
  v.around = around;
  if (v.window) {
    UMWELT_ASSIGN_OR_RETURN(v.chunks, corpus.ChunksAround(v.thread_ref, focus->date, BaseRef(focus->ref), around));
  } else {
    UMWELT_ASSIGN_OR_RETURN(v.chunks, corpus.ThreadChunks(v.thread_ref));
  }
  if (v.chunks.empty()) {
    // Not mirrored: what names it is the answer, said as such.
    UMWELT_ASSIGN_OR_RETURN(v.chunks, corpus.LinkedFrom(v.thread_ref, 200));
    if (v.chunks.empty()) return Status::NotFound("`" + target + "` is not in the corpus " + corpus.path());
    std::sort(v.chunks.begin(), v.chunks.end(), [](const Chunk& a, const Chunk& b) { return a.date < b.date; });
    v.named_only = true;
    UMWELT_ASSIGN_OR_RETURN(v.thread, corpus.GetThread(v.thread_ref));
    return v;
  }
  UMWELT_ASSIGN_OR_RETURN(v.thread, corpus.GetThread(v.thread_ref));
  UMWELT_ASSIGN_OR_RETURN(v.linked, corpus.LinkedFrom(v.thread_ref));
  return v;
}

nlohmann::json ThreadJson(const Thread& t) {
  return {{"ref", t.ref},           {"source", t.source},     {"kind", t.kind},
          {"title", t.title},       {"state", t.state},       {"state_reason", t.state_reason},
          {"author", t.author},     {"url", t.url},           {"labels", t.labels},
          {"assignees", t.assignees}, {"created", t.created}, {"closed", t.closed},
          {"merged", t.merged},     {"parent", t.parent},     {"children", t.children},
          {"description", t.description}};
}

nlohmann::json LinkedFromJson(const Chunk& c) {
  return {{"ref", c.ref},     {"source", c.source}, {"kind", c.kind}, {"title", c.title},
          {"author", c.author}, {"date", c.date},   {"url", c.url}};
}

std::string ThreadViewJson(const ThreadView& v, size_t first, bool toc) {
  return ThreadViewValue(v, first, toc).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json ThreadViewValue(const ThreadView& v, size_t first, bool toc) {
  using json = nlohmann::json;
  json out;
  out["ref"] = v.thread_ref;
  if (v.named_only) out["named_only"] = true;
  if (v.thread) out["thread"] = ThreadJson(*v.thread);
  out["n_chunks"] = v.chunks.size();
  if (v.window) out["around"] = v.around;
  out["chunks"] = json::array();
  for (size_t i = first; i < v.chunks.size(); ++i) {
    const Chunk& c = v.chunks[i];
    json j = {{"ref", c.ref},   {"source", c.source}, {"kind", c.kind},       {"author", c.author}, {"date", c.date},
              {"url", c.url},   {"part", c.part},     {"n_parts", c.n_parts}, {"text", c.text}};
    if (toc) j.erase("text");
    out["chunks"].push_back(std::move(j));
  }
  out["linked_from"] = json::array();
  for (const auto& l : v.linked) out["linked_from"].push_back(LinkedFromJson(l));
  return out;
}

const char* SqliteVersion() { return sqlite3_libversion(); }

}  // namespace umwelt
