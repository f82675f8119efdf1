#include "engine.h"

namespace umwelt::server_internal {

Result<std::string> StateKey(Corpus& corpus) {
  UMWELT_ASSIGN_OR_RETURN(std::string key, corpus.ContentKey());
  UMWELT_ASSIGN_OR_RETURN(auto spaces, CorpusSpaces(corpus));
  for (const auto& [space, model] : spaces) {
    UMWELT_ASSIGN_OR_RETURN(std::string v, corpus.VectorKey(space));
    key += "|" + space + "=" + model + ":" + v;
  }
  return key;
}

void FifoGate::Enter() {
  std::unique_lock<std::mutex> lock(mu_);
  if (active_ < limit_ && queue_.empty()) {
    ++active_;
    return;
  }
  Waiter w;
  queue_.push_back(&w);
  w.cv.wait(lock, [&] { return w.admitted; });  // Leave() handed its place over
}

void FifoGate::Leave() {
  std::lock_guard<std::mutex> lock(mu_);
  if (queue_.empty()) {
    --active_;
    return;
  }
  Waiter* next = queue_.front();
  queue_.pop_front();
  next->admitted = true;
  next->cv.notify_one();
}

Result<Corpus*> Engine::Connection() {
  struct Local {
    const Engine* owner = nullptr;
    uint64_t generation = 0;
    std::unique_ptr<Corpus> corpus;
  };
  thread_local Local local;
  uint64_t gen = generation_.load();
  if (local.owner != this || local.generation != gen || !local.corpus) {
    local.corpus.reset();
    UMWELT_ASSIGN_OR_RETURN(local.corpus, Corpus::Open(path_, Corpus::Mode::kReadOnly));
    local.owner = this;
    local.generation = gen;
  }
  return local.corpus.get();
}

std::shared_ptr<Engine::State> Engine::Current() {
  std::lock_guard<std::mutex> lock(mu_);
  return state_;
}

std::string Engine::content_key() {
  auto s = Current();
  return s ? s->key : "";
}

Status Engine::Refresh() {
  std::lock_guard<std::mutex> one(reload_mu_);
  UMWELT_ASSIGN_OR_RETURN(auto corpus, Corpus::Open(path_, Corpus::Mode::kReadOnly));
  UMWELT_ASSIGN_OR_RETURN(std::string key, StateKey(*corpus));
  if (auto cur = Current(); cur && cur->key == key) return Status::Ok();
  auto next = std::make_shared<State>();
  next->key = key;
  UMWELT_ASSIGN_OR_RETURN(next->keyword, KeywordIndex::Open(*corpus));
  UMWELT_ASSIGN_OR_RETURN(next->spaces, LoadSpaces(*corpus, configs_, &next->notes));
  for (auto& sp : next->spaces) sp.embedder = SerializedEmbedder(std::move(sp.embedder));
  std::lock_guard<std::mutex> lock(mu_);
  state_ = std::move(next);
  return Status::Ok();
}

Result<HybridResult> Engine::Search(const SearchRequest& r, bool* hybrid) {
  std::shared_ptr<State> s = Current();
  if (!s) return Status::Unavailable("the search indexes are still loading");
  gate_.Enter();
  struct Exit {
    FifoGate& g;
    ~Exit() { g.Leave(); }
  } exit{gate_};
  UMWELT_ASSIGN_OR_RETURN(Corpus * corpus, Connection());
  HybridResult out;
  *hybrid = !r.fts_only && (!s->spaces.empty() || r.vec_only);
  if (!*hybrid) {
    UMWELT_ASSIGN_OR_RETURN(out.hits, umwelt::Search(*corpus, *s->keyword, r.search));
    out.notes = s->notes;
    return out;
  }
  HybridOptions ho;
  ho.search = r.search;
  ho.vec_only = r.vec_only;
  ho.vec_texts = r.vec_texts;
  ho.vector_weight = r.vec_weight;
  UMWELT_ASSIGN_OR_RETURN(out, HybridSearch(*corpus, *s->keyword, s->spaces, ho));
  out.notes.insert(out.notes.begin(), s->notes.begin(), s->notes.end());
  return out;
}

}  // namespace umwelt::server_internal
