// `show`: a thread whole and in order, by permalink or ref.
#include <cstdio>
#include <optional>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "umwelt/text.h"

namespace umwelt::cli {
namespace {

nlohmann::json ChunkJson(const Chunk& c) {
  return {{"ref", c.ref}, {"source", c.source}, {"kind", c.kind}, {"author", c.author},
          {"date", c.date}, {"url", c.url}, {"part", c.part}, {"n_parts", c.n_parts},
          {"text", c.text}};
}

}  // namespace

Status CmdShow(const std::string& path, const ShowArgs& args) {
  UMWELT_ASSIGN_OR_RETURN(auto corpus, OpenCorpus(path, Corpus::Mode::kReadOnly));
  const std::string& target = args.target;
  std::string thread_ref, focus_ref;
  std::optional<Chunk> focus;
  if (target.rfind("http://", 0) == 0 || target.rfind("https://", 0) == 0) {
    UMWELT_ASSIGN_OR_RETURN(auto chunk, corpus->ChunkByUrl(target));
    if (chunk) {
      thread_ref = chunk->parent.empty() ? chunk->ref : chunk->parent;
      focus_ref = chunk->ref;
      focus = chunk;
    } else {
      thread_ref = ThreadRefFromUrl(target);
    }
  } else {
    UMWELT_ASSIGN_OR_RETURN(auto chunk, corpus->ChunkByRef(target));
    if (!chunk) {
      UMWELT_ASSIGN_OR_RETURN(auto first_part, corpus->ChunkByRef(target + ":p0"));
      chunk = first_part;
    }
    thread_ref = chunk && !chunk->parent.empty() ? chunk->parent : target;
    if (chunk) focus_ref = chunk->ref;
    focus = chunk;
  }
  // A chat message is read in its conversation: the messages around it, not
  // the whole channel.
  bool window = focus && focus->kind == "message" && args.around >= 0;
  std::vector<Chunk> chunks;
  if (window) {
    UMWELT_ASSIGN_OR_RETURN(chunks, corpus->ChunksAround(thread_ref, focus->date, BaseRef(focus->ref), args.around));
  } else {
    UMWELT_ASSIGN_OR_RETURN(chunks, corpus->ThreadChunks(thread_ref));
  }
  if (chunks.empty()) return Status::NotFound("`" + target + "` is not in the corpus " + path);
  UMWELT_ASSIGN_OR_RETURN(auto thread, corpus->GetThread(thread_ref));
  UMWELT_ASSIGN_OR_RETURN(auto linked, corpus->LinkedFrom(thread_ref));
  size_t first = 0;
  if (args.tail > 0 && static_cast<size_t>(args.tail) < chunks.size()) first = chunks.size() - args.tail;

  if (args.json) {
    nlohmann::json out;
    out["ref"] = thread_ref;
    if (thread) {
      out["thread"] = {{"title", thread->title}, {"state", thread->state},
                       {"state_reason", thread->state_reason}, {"author", thread->author},
                       {"url", thread->url}, {"labels", thread->labels},
                       {"assignees", thread->assignees}, {"created", thread->created},
                       {"closed", thread->closed}, {"merged", thread->merged},
                       {"parent", thread->parent}, {"children", thread->children},
                       {"description", thread->description}};
    }
    out["n_chunks"] = chunks.size();
    if (window) out["around"] = args.around;
    out["chunks"] = nlohmann::json::array();
    for (size_t i = first; i < chunks.size(); ++i) {
      auto j = ChunkJson(chunks[i]);
      if (args.toc) j.erase("text");
      out["chunks"].push_back(std::move(j));
    }
    out["linked_from"] = nlohmann::json::array();
    for (const auto& l : linked) {
      out["linked_from"].push_back({{"ref", l.ref}, {"source", l.source}, {"kind", l.kind},
                                    {"title", l.title}, {"date", l.date}, {"url", l.url}});
    }
    std::string text = out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    std::printf("%s\n", text.c_str());
    return Status::Ok();
  }

  const Chunk& head = chunks.front();
  std::string title = thread && !thread->title.empty() ? thread->title : head.title;
  std::printf("%s — %s\n", thread_ref.c_str(), title.c_str());
  if (thread && thread->state.empty() && thread->author.empty()) {
    std::printf("%s%s%s\n", thread->description.empty() ? "" : (thread->description + "\n").c_str(),
                thread->kind.c_str(), (" · " + thread->url).c_str());
  } else if (thread) {
    std::string labels;
    for (const auto& l : thread->labels) labels += (labels.empty() ? "" : ", ") + l;
    std::printf("%s%s · by %s · opened %s%s%s\n%s\n", thread->state.c_str(),
                thread->state_reason.empty() ? "" : (" (" + thread->state_reason + ")").c_str(),
                thread->author.c_str(), thread->created.substr(0, 10).c_str(),
                labels.empty() ? "" : " · labels: ", labels.c_str(), thread->url.c_str());
    if (!thread->parent.empty()) std::printf("sub-issue of %s\n", thread->parent.c_str());
    if (!thread->children.empty()) {
      std::string kids;
      for (const auto& c : thread->children) kids += (kids.empty() ? "" : ", ") + c;
      std::printf("sub-issues: %s\n", kids.c_str());
    }
  }
  if (window) std::printf("%d messages either side of %s:\n", args.around, focus_ref.c_str());
  std::printf("%zu chunks%s\n", chunks.size(),
              first > 0 ? (", showing the last " + std::to_string(chunks.size() - first)).c_str() : "");
  for (size_t i = first; i < chunks.size(); ++i) {
    const Chunk& c = chunks[i];
    const char* mark = c.ref == focus_ref ? " ◀" : "";
    std::string part = c.n_parts > 1 ? " (part " + std::to_string(c.part + 1) + "/" + std::to_string(c.n_parts) + ")" : "";
    if (args.toc) {
      std::string line = CollapseWhitespace(c.text);
      std::printf("%3zu. %-14s %-20s %s %s%s%s\n", i + 1, c.kind.c_str(), c.author.c_str(),
                  c.date.substr(0, 10).c_str(), std::string(TruncateUtf8(line, 70)).c_str(),
                  part.c_str(), mark);
      continue;
    }
    std::printf("\n── %s · %s · %s%s%s\n%s\n%s\n", c.kind.c_str(), c.author.c_str(), c.date.c_str(),
                part.c_str(), mark, c.url.c_str(), c.text.c_str());
  }
  if (!linked.empty()) {
    std::printf("\nlinked from:\n");
    for (const auto& l : linked) {
      std::printf("  [%s/%s] %s · %s\n    %s\n", l.source.c_str(), l.kind.c_str(), l.title.c_str(),
                  l.date.substr(0, 10).c_str(), l.url.c_str());
    }
  }
  return Status::Ok();
}

}  // namespace umwelt::cli
