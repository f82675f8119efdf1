// `run ENTITY/PROJECT/RUN`: one W&B run from the corpus.
#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

#include <memory>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "umwelt/permalinks.h"
#include "umwelt/text.h"
#include "umwelt/wandb.h"

namespace umwelt::cli {

Status CmdRun(const std::string& path, const std::string& run, bool json) {
  std::string name = run;
  if (name.rfind("http://", 0) == 0 || name.rfind("https://", 0) == 0) {  // https://wandb.ai/E/P/runs/R -> E/P/R
    std::optional<std::string> ref = SourceThreadRef(name);
    if (!ref || ref->rfind("wandb:", 0) != 0) return Status::Invalid("`" + run + "` is not a W&B run url");
    name = ref->substr(6);
  }
  auto slashes = std::count(name.begin(), name.end(), '/');
  if (slashes < 1 || slashes > 2 || name.front() == '/' || name.back() == '/' || name.find("//") != std::string::npos) {
    return Status::Invalid("`" + run + "` is not PROJECT/RUN, ENTITY/PROJECT/RUN or a run's url");
  }
  size_t last = name.rfind('/');
  UMWELT_ASSIGN_OR_RETURN(auto corpus, OpenCorpus(path, Corpus::Mode::kReadOnly));
  UMWELT_ASSIGN_OR_RETURN(auto facts, wandb::RunConfigJson(*corpus, name.substr(0, last), name.substr(last + 1)));
  if (!facts) {
    return Status::NotFound("run " + name + " is not in the corpus " + path +
                            " (sync it with `umwelt sync wandb ENTITY/PROJECT`)");
  }
  if (json) {
    std::printf("%s\n", nlohmann::json::parse(*facts).dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return Status::Ok();
  }
  nlohmann::json f = nlohmann::json::parse(*facts);
  auto str = [&f](const char* k) { return f.contains(k) && f[k].is_string() ? f[k].get<std::string>() : std::string(); };
  std::printf("%s  [%s/%s]  state=%s\n  url: %s\n", str("name").c_str(), str("entity").c_str(), str("project").c_str(),
              str("state").c_str(), str("url").c_str());
  if (!str("note").empty()) std::printf("  note: %s\n", str("note").c_str());
  for (const char* section : {"summary", "config"}) {
    if (!f.contains(section) || !f[section].is_object() || f[section].empty()) continue;
    std::printf("  %s:\n", std::string(section) == "summary" ? "final numbers" : "config");
    for (const auto& [k, v] : f[section].items()) {
      if (!k.empty() && k[0] == '_' && k != "_step" && k != "_runtime") continue;
      std::string value = v.is_string() ? v.get<std::string>() : v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      if (value.size() > 200) value = std::string(TruncateUtf8(value, 200)) + "…";
      std::printf("    %s = %s\n", k.c_str(), value.c_str());
    }
  }
  return Status::Ok();
}

void AddRunVerb(const VerbContext& v) {
  struct Args {
    std::string run_name;
    bool run_json = false;
  };
  auto args = std::make_shared<Args>();
  std::string& run_name = args->run_name;
  bool& run_json = args->run_json;
  auto* run_cmd = v.app.add_subcommand("run", "A W&B run's state, config and final numbers");
  run_cmd->add_option("run", run_name, "PROJECT/RUN, ENTITY/PROJECT/RUN, or the run's url")->required();
  run_cmd->add_flag("--json", run_json, "Emit JSON");
  run_cmd->callback([v, args] {
    *v.run = [v, args]() -> Status {
      return CmdRun(v.corpus, args->run_name, args->run_json);
    };
  });
}

}  // namespace umwelt::cli
