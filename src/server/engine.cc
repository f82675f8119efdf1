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

SearchPool::SearchPool(int threads, std::chrono::milliseconds max_wait) : max_wait_(max_wait) {
  for (int i = 0; i < std::max(1, threads); ++i) threads_.emplace_back([this] { Work(); });
}

SearchPool::~SearchPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void SearchPool::Work() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, nothing left
    Task* t = queue_.front();
    queue_.pop_front();
    t->started = true;
    t->cv.notify_all();
    lock.unlock();
    (*t->fn)();
    lock.lock();
    t->done = true;
    t->cv.notify_all();
  }
}

Status SearchPool::Run(const std::function<void()>& fn) {
  Task t;
  t.fn = &fn;
  std::unique_lock<std::mutex> lock(mu_);
  if (stop_) return Status::Unavailable("the server is shutting down");
  queue_.push_back(&t);
  cv_.notify_one();
  if (!t.cv.wait_for(lock, max_wait_, [&] { return t.started; })) {
    queue_.erase(std::find(queue_.begin(), queue_.end(), &t));
    return Status::Unavailable("the server is busy: this search could not start within " +
                               std::to_string(max_wait_.count()) + " ms; retry shortly");
  }
  t.cv.wait(lock, [&] { return t.done; });
  return Status::Ok();
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
  Result<HybridResult> result = Status::Unavailable("the search did not run");
  bool is_hybrid = !r.fts_only && (!s->spaces.empty() || r.vec_only);
  std::function<void()> task = [&] { result = SearchOn(*s, r, is_hybrid); };
  UMWELT_RETURN_IF_ERROR(pool_.Run(task));
  *hybrid = is_hybrid;
  return result;
}

// On a pool thread.
Result<HybridResult> Engine::SearchOn(State& s, const SearchRequest& r, bool hybrid) {
  UMWELT_ASSIGN_OR_RETURN(Corpus * corpus, Connection());
  HybridResult out;
  if (!hybrid) {
    UMWELT_ASSIGN_OR_RETURN(out.hits, umwelt::Search(*corpus, *s.keyword, r.search));
    out.notes = s.notes;
    return out;
  }
  HybridOptions ho;
  ho.search = r.search;
  ho.vec_only = r.vec_only;
  ho.vec_texts = r.vec_texts;
  ho.vector_weight = r.vec_weight;
  UMWELT_ASSIGN_OR_RETURN(out, HybridSearch(*corpus, *s.keyword, s.spaces, ho));
  out.notes.insert(out.notes.begin(), s.notes.begin(), s.notes.end());
  return out;
}

}  // namespace umwelt::server_internal
