// Vector spaces: configuration, `umwelt index`, and loading at query time.
#include <functional>
#include <future>
#include <set>
#include <system_error>

#include <nlohmann/json.hpp>

#include "umwelt/json_read.h"
#include "umwelt/log.h"
#include "umwelt/source_traits.h"
#include "umwelt/vector.h"

namespace umwelt {

Result<std::unique_ptr<Embedder>> LoadBuiltinEmbedder(const std::string& path);  // builtin_embedder.cc

namespace {

using json = nlohmann::json;

json SpacesJson(Corpus& corpus) {
  auto s = corpus.GetMeta("spaces");
  json j = s.ok() && !s->empty() ? json::parse(*s, nullptr, false) : json::object();
  return j.is_object() ? j : json::object();
}

}  // namespace

bool SpaceCovers(const std::string& space, const std::string& source) { return SpaceOf(source) == space; }

Result<std::vector<SpaceConfig>> ParseSpaceConfigs(const std::vector<std::string>& specs) {
  std::vector<SpaceConfig> out;
  for (const auto& spec : specs) {
    size_t p = 0;
    while (p < spec.size()) {
      // Entries are comma-separated; a provider url may itself hold no comma.
      size_t comma = spec.find(',', p);
      std::string item = spec.substr(p, comma == std::string::npos ? std::string::npos : comma - p);
      p = comma == std::string::npos ? spec.size() : comma + 1;
      if (item.empty()) continue;
      size_t eq = item.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == item.size()) {
        return Status::Invalid("embedder `" + item + "` should be SPACE=PROVIDER (e.g. prose=builtin)");
      }
      SpaceConfig c{item.substr(0, eq), item.substr(eq + 1)};
      if (c.space != "prose" && c.space != "code") {
        return Status::Invalid("unknown space `" + c.space + "` (spaces are prose and code)");
      }
      if (c.provider != "builtin" && c.provider.rfind("openai:", 0) != 0) {
        return Status::Invalid("unknown embedder `" + c.provider + "` (builtin, or openai:<base-url>#<model>)");
      }
      if (c.provider.rfind("openai:", 0) == 0 && c.provider.find('#') == std::string::npos) {
        return Status::Invalid("embedder `" + c.provider + "` names no model: openai:<base-url>#<model>");
      }
      out.push_back(c);
    }
  }
  return out;
}

Result<std::unique_ptr<Embedder>> MakeEmbedder(const std::string& provider, Corpus& corpus, const std::string& space,
                                               int max_retries) {
  if (provider == "builtin") return LoadBuiltinEmbedder(BuiltinModelPath(corpus, space));
  if (provider.rfind("openai:", 0) == 0) {
    size_t hash = provider.rfind('#');
    OpenAiEmbedderOptions o;
    o.base_url = provider.substr(7, hash - 7);
    o.model = provider.substr(hash + 1);
    o.max_retries = max_retries;
    if (max_retries <= 1) {
      o.backoff_seconds = 0.2;
      o.timeout_seconds = 20;
    }
    if (const char* key = std::getenv("OPENAI_API_KEY"); key && *key) o.api_key = key;
    return NewOpenAiEmbedder(o);
  }
  return Status::Invalid("unknown embedder `" + provider + "`");
}

bool PortableModel(const std::string& model) { return !model.empty() && model.rfind("builtin:", 0) != 0; }

Result<std::map<std::string, std::string>> CorpusSpaces(Corpus& corpus) {
  std::map<std::string, std::string> out;
  json j = SpacesJson(corpus);
  for (auto& [name, v] : j.items()) {
    if (v.is_object() && v.contains("model") && v["model"].is_string()) out[name] = v["model"];
  }
  return out;
}

// meta.spaces names the sources a space holds as a list, as the reference
// client reads it (it filters spaces by them).
Status RecordSpaceSources(Corpus& corpus, const std::string& space, json* all) {
  UMWELT_ASSIGN_OR_RETURN(CorpusStats stats, corpus.Stats());
  std::set<std::string> sources;
  for (const auto& c : stats.counts) {
    if (SpaceCovers(space, c.source)) sources.insert(c.source);
  }
  json list(sources);
  json& entry = (*all)[space];
  if (!entry.is_object() || (entry.contains("sources") && entry["sources"] == list)) return Status::Ok();
  entry["sources"] = list;
  UMWELT_ASSIGN_OR_RETURN(auto batch, corpus.BeginWrite());
  UMWELT_RETURN_IF_ERROR(batch->PutMeta("spaces", all->dump()));
  return batch->Commit();
}

Status IndexSpaces(Corpus& corpus, const std::vector<SpaceConfig>& spaces, const IndexOptions& o, IndexReport* report) {
  for (const auto& cfg : spaces) {
    auto start = std::chrono::steady_clock::now();
    if (cfg.provider == "builtin") {
      // A model of another kind than asked for (a fastText table, from
      // before LSA was the default) is trained again, as --retrain would.
      auto existing = MakeEmbedder("builtin", corpus, cfg.space);
      bool other_kind = existing.ok() && (*existing)->model().rfind("builtin:" + o.builtin.method + "-", 0) != 0;
      if (o.retrain || !existing.ok() || other_kind) UMWELT_RETURN_IF_ERROR(TrainBuiltin(corpus, cfg.space, o.builtin));
    }
    UMWELT_ASSIGN_OR_RETURN(auto embedder, MakeEmbedder(cfg.provider, corpus, cfg.space));
    json all = SpacesJson(corpus);
    std::string recorded = all.contains(cfg.space) ? StrField(all[cfg.space], "model") : "";
    if (recorded != embedder->model()) {
      if (!recorded.empty()) {
        LogWarn("space " + cfg.space + ": model changed from " + recorded + " to " + embedder->model() +
                "; embedding it afresh");
      }
      UMWELT_ASSIGN_OR_RETURN(auto batch, corpus.BeginWrite());
      UMWELT_RETURN_IF_ERROR(batch->ClearSpace(cfg.space));
      all[cfg.space] = {{"model", embedder->model()}, {"dim", embedder->dim()}, {"sources", json::array()}};
      UMWELT_RETURN_IF_ERROR(batch->PutMeta("spaces", all.dump()));
      UMWELT_RETURN_IF_ERROR(batch->Commit());
    }
    IndexReport::Space rep{cfg.space, embedder->model(), 0, 0};
    // Batch after batch: each is embedded on another thread while this one
    // reads the next batch's rows and stores the last one's vectors. Each
    // read goes on where the last one stopped, so every row is read once.
    const size_t step = static_cast<size_t>(std::max(1, o.batch));
    auto covers = [&](std::string_view src) { return SpaceCovers(cfg.space, std::string(src)); };
    int64_t scanned = 0;
    bool exhausted = false;
    auto read = [&]() -> Result<std::vector<Chunk>> {
      if (exhausted) return std::vector<Chunk>();
      UMWELT_ASSIGN_OR_RETURN(auto chunks, corpus.NextToEmbed(cfg.space, scanned, step, covers, &scanned));
      exhausted = chunks.size() < step;
      return chunks;
    };
    // What is left is not counted (that would read the corpus once more):
    // the batch in flight and the ids not yet read bound it from above,
    // exactly at the end.
    UMWELT_ASSIGN_OR_RETURN(const int64_t max_id, corpus.MaxChunkId());
    auto left_at_most = [&] { return exhausted ? 0 : std::max<int64_t>(0, max_id - scanned); };
    auto embed = [&embedder](const std::vector<Chunk>& chunks) {
      std::vector<std::string> texts;
      texts.reserve(chunks.size());
      for (const auto& c : chunks) texts.push_back(c.title + "\n" + c.text);
      return embedder->Embed(texts);
    };
    auto start_embed = [&](const std::vector<Chunk>& chunks) {
      try {
        return std::async(std::launch::async, embed, std::cref(chunks));
      } catch (const std::system_error&) {  // no thread to be had: when asked for
        return std::async(std::launch::deferred, embed, std::cref(chunks));
      }
    };
    // Two batches in hand: the one being embedded and the one read (or
    // stored) meanwhile. `pending` is declared after them: leaving early, it
    // waits for the embedding before they go.
    std::vector<Chunk> slot[2];
    std::future<Result<std::vector<std::vector<float>>>> pending;
    UMWELT_ASSIGN_OR_RETURN(slot[0], read());
    if (!slot[0].empty()) pending = start_embed(slot[0]);
    for (size_t cur = 0; !slot[cur].empty(); cur ^= 1) {
      UMWELT_ASSIGN_OR_RETURN(slot[cur ^ 1], read());
      UMWELT_ASSIGN_OR_RETURN(auto vectors, pending.get());
      const int dim = embedder->dim();  // read before the embedder is busy again
      if (!slot[cur ^ 1].empty()) pending = start_embed(slot[cur ^ 1]);
      const std::vector<Chunk>& chunks = slot[cur];
      if (vectors.size() != chunks.size()) {
        return Status::Invalid("space " + cfg.space + ": the embedder returned " + std::to_string(vectors.size()) +
                               " vectors for " + std::to_string(chunks.size()) + " texts");
      }
      UMWELT_ASSIGN_OR_RETURN(auto batch, corpus.BeginWrite());
      if (dim > 0 && IntField(all[cfg.space], "dim") != dim) {
        all[cfg.space]["dim"] = dim;  // a server reveals its dimension on first use
        UMWELT_RETURN_IF_ERROR(batch->PutMeta("spaces", all.dump()));
      }
      for (size_t i = 0; i < chunks.size(); ++i) UMWELT_RETURN_IF_ERROR(batch->PutEmbedding(chunks[i].id, cfg.space, vectors[i]));
      UMWELT_RETURN_IF_ERROR(batch->Commit());
      rep.embedded += static_cast<int64_t>(chunks.size());
      if (o.progress) {
        const auto in_flight = static_cast<int64_t>(slot[cur ^ 1].size());  // read, not yet stored
        o.progress(cfg.space, rep.embedded, rep.embedded + in_flight + left_at_most());
      }
    }
    UMWELT_RETURN_IF_ERROR(RecordSpaceSources(corpus, cfg.space, &all));
    rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    report->spaces.push_back(rep);
  }
  return Status::Ok();
}

Result<std::vector<Space>> LoadSpaces(Corpus& corpus, const std::vector<SpaceConfig>& configs,
                                      std::vector<std::string>* notes, const VectorFileOptions& files) {
  UMWELT_ASSIGN_OR_RETURN(auto recorded, CorpusSpaces(corpus));
  std::vector<Space> out;
  for (const auto& [name, model] : recorded) {
    std::string provider;
    for (const auto& c : configs) {
      if (c.space == name) provider = c.provider;
    }
    if (provider.empty() && model.rfind("builtin:", 0) == 0) provider = "builtin";
    if (provider.empty()) {
      notes->push_back("space " + name + " skipped: it was built with " + model + "; give --embedder " + name +
                       "=openai:<base-url>#" + model);
      continue;
    }
    auto embedder = MakeEmbedder(provider, corpus, name, /*max_retries=*/1);
    if (!embedder.ok()) {
      notes->push_back("space " + name + " skipped: " + embedder.status().message());
      continue;
    }
    if ((*embedder)->model() != model) {
      return Status::Invalid("space " + name + " was built with model " + model + " but the embedder is " +
                             (*embedder)->model() + "; vectors of two models are never mixed (re-run `umwelt index`)");
    }
    auto index = VectorIndex::Open(corpus, name, files);
    if (!index.ok()) {
      notes->push_back("space " + name + " skipped: " + index.status().message());
      continue;
    }
    out.push_back({name, std::move(embedder).value(), std::move(index).value()});
  }
  return out;
}

}  // namespace umwelt
