#include <cstdio>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <memory>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "umwelt/clock.h"
#include "umwelt/server.h"
#include "umwelt/sources.h"
#include "umwelt/text.h"
#include "umwelt/vector.h"

namespace umwelt::cli {
namespace {

std::string Age(const std::string& iso) {
  auto t = ParseIsoTime(iso);
  if (!t) return "never";
  int64_t s = NowEpoch() - *t;
  if (s < 0) s = 0;
  if (s < 120) return std::to_string(s) + "s ago";
  if (s < 7200) return std::to_string(s / 60) + "m ago";
  if (s < 172800) return std::to_string(s / 3600) + "h ago";
  return std::to_string(s / 86400) + "d ago";
}

}  // namespace

Status CmdStatus(const std::string& path, bool json) {
  UMWELT_ASSIGN_OR_RETURN(auto corpus, OpenCorpus(path, Corpus::Mode::kReadOnly));
  UMWELT_ASSIGN_OR_RETURN(CorpusStats s, corpus->Stats());
  if (json) {
    nlohmann::json out = {{"corpus", path}, {"native", corpus->native()}};
    out.update(CorpusStatusValue(s, NowEpoch()));
    UMWELT_ASSIGN_OR_RETURN(nlohmann::json hooks, WebhookStatus(path));
    if (!hooks.is_null()) out["hooks"] = std::move(hooks);
    std::printf("%s\n", out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return Status::Ok();
  }
  std::printf("corpus   %s%s\n", path.c_str(), corpus->native() ? "" : " (reference schema, read-only)");
  std::printf("chunks   %lld · threads %lld · links %lld\n", static_cast<long long>(s.total_chunks),
              static_cast<long long>(s.threads), static_cast<long long>(s.links));
  std::printf("updated  %s (%s)\n", s.built_at.empty() ? "never" : s.built_at.c_str(), Age(s.built_at).c_str());
  std::printf("\n%-10s %-16s %10s\n", "source", "kind", "chunks");
  for (const auto& c : s.counts) {
    std::printf("%-10s %-16s %10lld\n", c.source.c_str(), c.kind.c_str(), static_cast<long long>(c.chunks));
  }
  if (!s.sync.empty()) {
    std::printf("\n%-32s %-22s %s\n", "sync", "last success", "last error");
    for (const auto& st : s.sync) {
      std::string err = st.last_error.empty() ? "-" : st.last_error + " (since " + st.error_since + ")";
      std::printf("%-32s %-22s %s\n", st.source.c_str(),
                  st.last_success.empty() ? "never" : (st.last_success + " " + Age(st.last_success)).c_str(),
                  err.c_str());
      const Source* source = SourceOf(st.source);
      if (std::string left = source ? source->DescribeCursor(st.cursor) : ""; !left.empty()) {
        std::printf("  last sync left out: %s\n", left.c_str());
      }
    }
  }
  UMWELT_ASSIGN_OR_RETURN(nlohmann::json hooks, WebhookStatus(path));
  if (hooks.is_object()) {
    for (const auto& [source, h] : hooks.items()) {
      const bool gateway = source == "discord";  // gateway events, kept as deliveries are
      std::printf("\n%s: %lld received · %lld applied · %lld ignored · %lld waiting",
                  gateway ? "discord gateway events" : ("webhooks " + TerminalSafe(source)).c_str(),
                  static_cast<long long>(h.value("received", 0)), static_cast<long long>(h.value("applied", 0)),
                  static_cast<long long>(h.value("ignored", 0)), static_cast<long long>(h.value("pending", 0)));
      if (h.value("pending", 0) > 0) std::printf(" (the oldest for %.0f s)", h.value("lag_seconds", 0.0));
      std::printf("\n");
      if (std::string last = h.value("last_received", ""); !last.empty()) {
        std::printf("  last received %s %s\n", last.c_str(), Age(last).c_str());
      }
      if (std::string last = h.value("last_applied", ""); !last.empty()) {
        std::printf("  last applied %s %s, searchable %lld ms after it arrived\n", last.c_str(), Age(last).c_str(),
                    static_cast<long long>(h.value("last_lag_ms", 0)));
      }
      for (const auto& f : h.value("failures", nlohmann::json::array())) {
        std::printf("  %s %s (%s) %s after %lld attempts: %s\n", gateway ? "event" : "delivery",
                    TerminalSafe(f.value("delivery", "")).c_str(),
                    TerminalSafe(f.value("event", "")).c_str(), f.value("given_up", false) ? "given up" : "failing",
                    static_cast<long long>(f.value("attempts", 0)), TerminalSafe(f.value("error", "")).c_str());
      }
    }
  }
  // Each vector space, and whether search can use it: a builtin model's word
  // table lives beside the corpus and does not travel inside it.
  nlohmann::json spaces = s.spaces_json.empty() ? nlohmann::json() : nlohmann::json::parse(s.spaces_json, nullptr, false);
  if (!spaces.is_object() || spaces.empty()) {
    std::printf("\nvector spaces: none (keyword search only)\n");
    return Status::Ok();
  }
  std::printf("\n%-10s %-32s %5s  %-30s %s\n", "space", "model", "dim", "sources", "state");
  for (const auto& [name, space] : spaces.items()) {
    std::string model = space.is_object() && space.contains("model") && space["model"].is_string() ? space["model"].get<std::string>() : "";
    int dim = space.is_object() && space.contains("dim") && space["dim"].is_number_integer() ? space["dim"].get<int>() : 0;
    std::string sources;
    if (space.is_object() && space.contains("sources") && space["sources"].is_array()) {
      for (const auto& src : space["sources"]) {
        if (src.is_string()) sources += (sources.empty() ? "" : ", ") + src.get<std::string>();
      }
    }
    std::string state = "ready";
    if (model.rfind("builtin:", 0) == 0) {
      std::string words = BuiltinModelPath(*corpus, name);
      if (!std::filesystem::exists(words)) state = "model file missing (" + words + "): search skips it; run `umwelt index`";
    }
    std::printf("%-10s %-32s %5d  %-30s %s\n", TerminalSafe(name).c_str(), TerminalSafe(model).c_str(), dim,
                TerminalSafe(sources).c_str(), state.c_str());
  }
  return Status::Ok();
}

void AddStatusVerb(const VerbContext& v) {
  struct Args {
    bool status_json = false;
  };
  auto args = std::make_shared<Args>();
  bool& status_json = args->status_json;
  auto* status = v.app.add_subcommand("status", "Counts, sync health and age of the corpus");
  status->add_flag("--json", status_json, "Emit JSON");
  status->callback([v, args] {
    *v.run = [v, args]() -> Status {
      return CmdStatus(v.corpus, args->status_json);
    };
  });
}

}  // namespace umwelt::cli
