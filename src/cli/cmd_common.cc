#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <memory>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "umwelt/file.h"
#include "umwelt/log.h"
#include "umwelt/text.h"
#include "umwelt/vector.h"

namespace umwelt::cli {

std::string DefaultCorpusPath() {
  if (const char* p = std::getenv("UMWELT_CORPUS"); p && *p) return p;
  if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x) return std::string(x) + "/umwelt/corpus.db";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.local/share/umwelt/corpus.db";
  return "umwelt-corpus.db";
}

const char* const kVersion = UMWELT_VERSION;

std::string VersionText() {
  return std::string("umwelt ") + kVersion + " (commit " + UMWELT_COMMIT + ")\nSQLite " + SqliteVersion() +
         "\nloaded when a verb needs them: " UMWELT_SONAME_CURL " (HTTP), " UMWELT_SONAME_CRYPTO " (digests), "
         UMWELT_SONAME_LIBGIT2 " (git sync), " UMWELT_SONAME_MHD " (serve), umwelt-pdf.so (poppler: PDFs), "
         "umwelt-fasttext.so (fastText: training builtin vectors)"
#ifdef UMWELT_SONAME_OPENBLAS
         ", " UMWELT_SONAME_OPENBLAS " (OpenBLAS, where installed: the lists of a large vector space)"
#endif
      ;
}

Result<std::unique_ptr<Corpus>> OpenCorpus(const std::string& path, Corpus::Mode mode) {
  if (mode == Corpus::Mode::kReadWrite) {  // create the parent folder of a default path on first use
    size_t slash = path.rfind('/');
    if (slash != std::string::npos && slash > 0) UMWELT_RETURN_IF_ERROR(MakeDirs(path.substr(0, slash)));
  }
  return Corpus::Open(path, mode);
}

Result<std::unique_ptr<ChatModel>> OpenModel(const std::string& flag, bool replay) {
  std::string spec = flag;
  if (spec.empty()) {
    if (const char* env = std::getenv("UMWELT_LLM"); env) spec = env;
  }
  if (spec.empty()) {
    if (replay) return Status::Invalid("--replay needs --llm (or $UMWELT_LLM)");
    return std::unique_ptr<ChatModel>();
  }
  LlmOptions lo;
  lo.spec = spec;
  lo.replay = replay;
  return ChatModel::Open(lo);
}

void PrintNotes(const std::string& path, const std::vector<std::string>& notes) {
  for (const auto& n : notes) {
    // A missing side file is named once per corpus (status names it until a
    // write or `index` rebuilds it), not before every result.
    bool missing_file = n.find("no builtin model") != std::string::npos;
    if (missing_file) {
      auto corpus = Corpus::Open(path, Corpus::Mode::kReadWrite);
      if (corpus.ok()) {
        std::string key = "noted:" + n;
        auto seen = (*corpus)->GetMeta(key);
        if (seen.ok() && !seen->empty()) continue;
        if (auto b = (*corpus)->BeginWrite(); b.ok() && (*b)->PutMeta(key, "1").ok()) (void)(*b)->Commit();
      }
    }
    std::fprintf(stderr, "umwelt: note: %s%s\n", TerminalSafe(n).c_str(),
                 missing_file ? " (said once; `umwelt status` shows it until the next write or `umwelt index` rebuilds it)"
                              : "");
  }
}

bool IsLoopbackApi(const std::string& base) {
  for (const char* prefix : {"http://127.", "http://localhost:", "http://localhost/", "http://[::1]"}) {
    if (base.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

Status RefreshIndex(Corpus& corpus) {
  auto index = KeywordIndex::Open(corpus);
  if (!index.ok()) return index.status().WithContext("keyword index");
  // A builtin space whose model file is gone (a corpus copied without its
  // side files) is trained and embedded again here, on this machine.
  UMWELT_ASSIGN_OR_RETURN(auto spaces, CorpusSpaces(corpus));
  std::vector<std::string> specs;
  for (const auto& [name, model] : spaces) {
    if (model.rfind("builtin:", 0) == 0 && !std::filesystem::exists(BuiltinModelPath(corpus, name))) {
      specs.push_back(name + "=builtin");
    }
  }
  if (specs.empty()) return Status::Ok();
  UMWELT_ASSIGN_OR_RETURN(auto configs, ParseSpaceConfigs(specs));
  Progress progress("index");
  IndexOptions o;
  o.progress = [&](const std::string& space, int64_t done, int64_t total) { progress.Update(done, total, space); };
  IndexReport report;
  Status s = IndexSpaces(corpus, configs, o, &report);
  progress.Done();
  for (const auto& sp : report.spaces) {
    std::fprintf(stderr, "umwelt: space %s's model file was missing: trained again (%s) and %lld chunks embedded\n",
                 sp.space.c_str(), sp.model.c_str(), static_cast<long long>(sp.embedded));
  }
  return s.ok() ? Status::Ok() : s.WithContext("rebuilding the builtin model");
}

Status CmdInit(const std::string& path) {
  UMWELT_ASSIGN_OR_RETURN(auto corpus, OpenCorpus(path, Corpus::Mode::kReadWrite));
  std::printf("corpus ready: %s (schema_version %d)\n", path.c_str(), kSchemaVersion);
  return Status::Ok();
}

Status WriteText(const std::string& path, const std::string& text) { return WriteFileAtomic(path, text); }

void AddInitVerb(const VerbContext& v) {
  auto* init = v.app.add_subcommand("init", "Create an empty corpus (or migrate an old one)");
  init->callback([v] { *v.run = [v] { return CmdInit(v.corpus); }; });
}

}  // namespace umwelt::cli
