// `show`: a thread whole and in order, by permalink or ref.
#include <cstdio>
#include <optional>

#include <memory>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "params_cli.h"
#include "umwelt/text.h"

namespace umwelt::cli {
Status CmdShow(const std::string& path, const ShowArgs& args) {
  UMWELT_ASSIGN_OR_RETURN(auto corpus, OpenCorpus(path, Corpus::Mode::kReadOnly));
  UMWELT_ASSIGN_OR_RETURN(ThreadView v, ViewThread(*corpus, args.target, args.around));
  const std::string& thread_ref = v.thread_ref;
  const std::string& focus_ref = v.focus_ref;
  const std::vector<Chunk>& chunks = v.chunks;
  const std::optional<Thread>& thread = v.thread;
  const std::vector<Chunk>& linked = v.linked;
  bool window = v.window;
  size_t first = 0;
  if (args.tail > 0 && static_cast<size_t>(args.tail) < chunks.size()) first = chunks.size() - args.tail;
  if (args.json) {
    std::printf("%s\n", ThreadViewJson(v, first, args.toc).c_str());
    return Status::Ok();
  }

  const Chunk& head = chunks.front();
  std::string title = thread && !thread->title.empty() ? thread->title : v.named_only ? "(named, not mirrored)" : head.title;
  std::printf("%s — %s\n", thread_ref.c_str(), TerminalSafe(title).c_str());
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
  if (v.named_only) std::printf("not mirrored in the corpus; these records name it:\n");
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
                part.c_str(), mark, c.url.c_str(), TerminalSafe(c.text).c_str());  // a NUL must not end the output
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

void AddShowVerb(const VerbContext& v) {
  struct Args {
    std::shared_ptr<ParamTexts> texts = std::make_shared<ParamTexts>();
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  auto* show = v.app.add_subcommand("show", "Show a thread whole, by url or ref");
  AddParamFlags(show, ShowParams(), args->texts);
  show->add_flag("--json", args->json, "Emit JSON");
  show->callback([v, args] {
    *v.run = [v, args]() -> Status {
      UMWELT_ASSIGN_OR_RETURN(ShowRequest r, ShowParams().FromTexts(TextsOf(args->texts)));
      ShowArgs a;
      static_cast<ShowRequest&>(a) = r;
      a.json = args->json;
      return CmdShow(v.corpus, a);
    };
  });
}

}  // namespace umwelt::cli
