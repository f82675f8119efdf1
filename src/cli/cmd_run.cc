// `run ENTITY/PROJECT/RUN`: one W&B run from the corpus.
#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

#include <memory>

#include <CLI/CLI.hpp>

#include "cli.h"

namespace umwelt::cli {

Status CmdRun(const std::string& path, const std::string& run, bool json) {
  std::string name = run;
  const std::string prefix = "https://wandb.ai/";
  if (name.rfind(prefix, 0) == 0) {  // https://wandb.ai/E/P/runs/R -> E/P/R
    std::string rest = name.substr(prefix.size());
    size_t runs = rest.find("/runs/");
    if (runs == std::string::npos) return Status::Invalid("`" + run + "` is not a W&B run url");
    name = rest.substr(0, runs) + "/" + rest.substr(runs + 6);
    name = name.substr(0, name.find_first_of("?#"));
  }
  if (std::count(name.begin(), name.end(), '/') != 2) {
    return Status::Invalid("`" + run + "` is not ENTITY/PROJECT/RUN");
  }
  UMWELT_ASSIGN_OR_RETURN(auto corpus, OpenCorpus(path, Corpus::Mode::kReadOnly));
  std::string ref = "wandb:" + name;
  UMWELT_ASSIGN_OR_RETURN(auto chunks, corpus->ThreadChunks(ref));
  if (chunks.empty()) {
    return Status::NotFound("run " + name + " is not in the corpus " + path +
                            " (sync it with `umwelt sync wandb ENTITY/PROJECT`)");
  }
  UMWELT_ASSIGN_OR_RETURN(auto thread, corpus->GetThread(ref));
  std::string text;
  for (const auto& c : chunks) text += c.text;
  if (json) {
    nlohmann::json out = {{"ref", ref}, {"url", chunks[0].url}, {"title", chunks[0].title},
                          {"author", chunks[0].author}, {"created", chunks[0].date}, {"text", text}};
    if (thread) {
      out["state"] = thread->state;
      out["updated"] = thread->updated;
      out["tags"] = thread->labels;
    }
    std::printf("%s\n", out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return Status::Ok();
  }
  std::printf("%s — %s\n%s\n", name.c_str(), chunks[0].title.c_str(), chunks[0].url.c_str());
  if (thread) {
    std::printf("%s · by %s · created %s · updated %s\n", thread->state.c_str(), thread->author.c_str(),
                thread->created.c_str(), thread->updated.c_str());
  }
  std::printf("\n%s\n", text.c_str());
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
  run_cmd->add_option("run", run_name, "ENTITY/PROJECT/RUN, or the run's url")->required();
  run_cmd->add_flag("--json", run_json, "Emit JSON");
  run_cmd->callback([v, args] {
    *v.run = [v, args]() -> Status {
      return CmdRun(v.corpus, args->run_name, args->run_json);
    };
  });
}

}  // namespace umwelt::cli
