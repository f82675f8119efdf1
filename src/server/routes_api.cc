// The JSON API and the snapshot downloads (see server.h).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>

#include "server_impl.h"
#include "umwelt/corpus.h"
#include "umwelt/digest.h"
#include "umwelt/pattern.h"
#include "umwelt/research.h"
#include "umwelt/sources.h"
#include "umwelt/text.h"
#include "umwelt/vector.h"
#include "umwelt/wandb.h"

namespace umwelt::server_internal {
namespace {

// The manifest's sources: each recorded source's health (SourceHealthValue)
// by its name, with the two fields the reference client reads to warn of a
// failing source: `error` and `last_ok_at` (epoch seconds, null when never).
json ManifestSources(const std::vector<SyncState>& states) {
  json out = json::object();
  int64_t now = NowEpoch();
  for (const auto& st : states) {
    json h = SourceHealthValue(st, now);
    h["error"] = h["last_error"];
    auto ok_at = ParseIsoTime(st.last_success);
    h["last_ok_at"] = ok_at ? json(*ok_at) : json(nullptr);
    out[st.source] = std::move(h);
  }
  return out;
}

}  // namespace

// The JSON API, by resource.
void ServerImpl::ApiRoutes() {
  SearchApiRoutes();
  ThreadApiRoutes();
  SummaryApiRoutes();
  RunApiRoutes();
  AskApiRoutes();
}

// /api/status, /api/search, /api/search-multi.
void ServerImpl::SearchApiRoutes() {
  http_.Get("/api/status", [this](const Request&, Response& res) {
    auto s = StatusJson();
    if (!s.ok()) return Fail(res, s.status());
    SetJson(res, *s);
  });
  http_.Get("/api/search", [this](const Request& req, Response& res) {
    auto r = ParseSearch(req);
    if (!r.ok()) return Fail(res, r.status());
    auto out = engine_->Search(*r, ClientKey(req.remote_addr));
    if (!out.ok()) return Fail(res, out.status());
    SetJson(res, SearchResponseJson(*r, *out));
  });
  http_.Get("/api/search-multi", [this](const Request& req, Response& res) {
    auto m = SearchMultiParams().FromTexts(QueryTexts(req));
    if (!m.ok()) return Fail(res, m.status());
    auto out = engine_->SearchMulti(m->queries, m->base, m->total, ClientKey(req.remote_addr));
    if (!out.ok()) return Fail(res, out.status());
    SetJson(res, SearchMultiJson(out->queries, out->total, out->hits, out->notes));
  });
}

// /api/show and /api/threads/{ref}.
void ServerImpl::ThreadApiRoutes() {
  http_.Get("/api/show", [this](const Request& req, Response& res) {
    auto r = ShowParams().FromTexts(QueryTexts(req));
    if (!r.ok()) return Fail(res, r.status());
    auto corpus = engine_->Connection();
    if (!corpus.ok()) return Fail(res, corpus.status());
    auto v = ViewThread(**corpus, r->target, r->around);
    if (!v.ok()) return Fail(res, v.status());
    size_t first = r->tail > 0 && static_cast<size_t>(r->tail) < v->chunks.size() ? v->chunks.size() - r->tail : 0;
    SetJson(res, ThreadViewJson(*v, first, r->toc));
  });
  http_.Get("/api/threads/{*}", [this](const Request& req, Response& res) {
    auto corpus = engine_->Connection();
    if (!corpus.ok()) return Fail(res, corpus.status());
    std::string ref = req.matches[1];
    auto t = (*corpus)->GetThread(ref);
    if (!t.ok()) return Fail(res, t.status());
    if (!*t) return Fail(res, Status::NotFound("no thread " + ref + " in the corpus"));
    auto linked = (*corpus)->LinkedFrom(ref, 20);
    json out = ThreadJson(**t);
    out["linked_from"] = json::array();
    if (linked.ok()) {
      for (const auto& l : *linked) out["linked_from"].push_back(LinkedFromJson(l));
    }
    SetJson(res, out.dump(-1, ' ', false, json::error_handler_t::replace));
  });
}

// /api/summaries and /api/summaries/{period}.
void ServerImpl::SummaryApiRoutes() {
  auto summaries = [this](const std::string& period, Response& res) {
    auto corpus = engine_->Connection();
    if (!corpus.ok()) return Fail(res, corpus.status());
    auto out = SummariesJson(**corpus, period);
    if (!out.ok()) return Fail(res, out.status());
    SetJson(res, *out);
  };
  http_.Get("/api/summaries", [summaries](const Request&, Response& res) { summaries("", res); });
  http_.Get("/api/summaries/{}", [summaries](const Request& req, Response& res) { summaries(req.matches[1], res); });
}

// A W&B run's config and summary, in the reference client's shape.
void ServerImpl::RunApiRoutes() {
  // PROJECT/RUN or ENTITY/PROJECT/RUN.
  auto config = [this](const Request& req, Response& res) {
    std::string project = req.matches[1], run = req.matches.back();
    if (req.matches.size() == 4) project += "/" + req.matches[2];
    auto corpus = engine_->Connection();
    if (!corpus.ok()) return Fail(res, corpus.status());
    auto out = wandb::RunConfigJson(**corpus, project, run);
    if (!out.ok()) return Fail(res, out.status());
    if (!*out) return Fail(res, Status::NotFound("W&B run " + project + "/" + run + " is not mirrored in this corpus"));
    SetJson(res, **out);
  };
  http_.Get("/wandb/{}/{}/config", config);
  http_.Get("/wandb/{}/{}/{}/config", config);
}

// /api/ask and its jobs: state and progress events.
void ServerImpl::AskApiRoutes() {
  http_.Post("/api/ask", [this](const Request& req, Response& res) {
    // {"question": "..."} (what else the body holds is the client's), or ?question=.
    json body = json::parse(req.body, nullptr, false);
    json args = json::object();
    if (body.is_object() && body.contains("question")) {
      args["question"] = body["question"];
    } else if (req.HasParam("question")) {
      args["question"] = req.Param("question");
    }
    auto asked = AskParams().FromJson(args);
    if (!asked.ok()) return Fail(res, asked.status());
    const std::string& question = asked->question;
    if (stopping_) return Fail(res, Status::Unavailable("the server is shutting down"));
    auto job = jobs_.Submit(question, req.login);
    if (!job) {
      res.SetHeader("Retry-After", "10");
      return Fail(res, Status::Exhausted("too many questions in progress; try again shortly"));
    }
    res.status = 202;
    res.SetHeader("Location", "/api/jobs/" + job->id);
    res.SetContent(json{{"id", job->id}, {"state", "queued"}, {"events", "/api/jobs/" + job->id + "/events"}}.dump(),
                    "application/json");
  });
  http_.Get("/api/jobs/{hex32}", [this](const Request& req, Response& res) {
    auto job = jobs_.Find(req.matches[1], req.login);
    if (!job) return Fail(res, Status::NotFound("no such job"));
    MutexLock lock(job->mu);
    json out = {{"id", job->id},       {"question", job->question}, {"state", job->state},
                {"events", job->events}, {"error", job->error},     {"removed", job->removed},
                {"seconds", job->seconds}};
    if (job->state == "done") {
      out["markdown"] = job->markdown;
      out["report_url"] = "/jobs/" + job->id + "/report";
    }
    SetJson(res, out.dump(-1, ' ', false, json::error_handler_t::replace));
  });
  http_.Get("/api/jobs/{hex32}/events", [this](const Request& req, Response& res) {
    auto job = jobs_.Find(req.matches[1], req.login);
    if (!job) return Fail(res, Status::NotFound("no such job"));
    res.SetHeader("Cache-Control", "no-store");
    res.SetStream("text/event-stream", [this, job, sent = size_t{0}](size_t, DataSink& sink) mutable {
      MutexLock lock(job->mu);
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
      while (!(sent < job->events.size() || job->state == "done" || job->state == "failed" || stopping_.load()) &&
             job->cv.wait_until(lock.native(), deadline) != std::cv_status::timeout) {
      }
      std::string out;
      for (; sent < job->events.size(); ++sent) out += "event: progress\ndata: " + job->events[sent].dump() + "\n\n";
      bool finished = job->state == "done" || job->state == "failed";
      if (finished) {
        out += "event: done\ndata: " + json{{"state", job->state}, {"error", job->error}}.dump() + "\n\n";
      }
      if (out.empty()) out = ": keep-alive\n\n";
      lock.unlock();
      if (!sink.Write(out.data(), out.size())) return false;
      if (finished || stopping_) sink.Done();
      return true;
    });
  });

}

// One range at most: a list of ranges is answered with the whole file once
// (a long list of overlapping ranges would multiply the bytes sent), a
// malformed one is ignored (RFC 9110), and one that starts past the end is
// 416. Sets [*offset, *offset + *length) and the 206 headers; false when it
// answered 416 itself.
bool SingleRange(const Request& req, int64_t size, Response& res, int64_t* offset, int64_t* length) {
  res.SetHeader("Accept-Ranges", "bytes");
  *offset = 0;
  *length = size;
  std::string h = req.Header("Range");
  static const Pattern one(R"(\s*bytes\s*=\s*(\d{0,18})\s*-\s*(\d{0,18})\s*)");
  Groups m;
  if (h.empty() || !one.Matches(h, &m) || (m[1].empty() && m[2].empty())) return true;
  int64_t first, last;
  if (m[1].empty()) {  // the last N bytes
    int64_t n = static_cast<int64_t>(std::stoll(std::string(m[2])));
    if (n == 0) {
      first = size;
      last = size - 1;
    } else {
      first = std::max<int64_t>(0, size - n);
      last = size - 1;
    }
  } else {
    first = static_cast<int64_t>(std::stoll(std::string(m[1])));
    last = m[2].empty() ? size - 1 : std::min<int64_t>(std::stoll(std::string(m[2])), size - 1);
    if (last < first && first < size) return true;  // malformed: ignored
  }
  if (first >= size) {
    res.status = 416;
    res.SetHeader("Content-Range", "bytes */" + std::to_string(size));
    SetJson(res, json{{"detail", "the range starts past the end of the " + std::to_string(size) + "-byte snapshot"}}.dump());
    return false;
  }
  *offset = first;
  *length = last - first + 1;
  res.status = 206;
  res.SetHeader("Content-Range", "bytes " + std::to_string(first) + "-" + std::to_string(last) + "/" + std::to_string(size));
  return true;
}

void ServerImpl::SnapshotRoutes() {
  http_.Get("/manifest.json", [this](const Request&, Response& res) {
    auto corpus = engine_->Connection();
    if (!corpus.ok()) return Fail(res, corpus.status());
    auto snap = snapshot_->Ensure(**corpus);
    if (!snap.ok()) return Fail(res, snap.status());
    auto states = (*corpus)->SyncStates();
    auto built = (*corpus)->GetMeta("built_at_epoch");
    json out = {{"built_at_epoch", built.ok() && !built->empty() ? std::atoll(built->c_str()) : snap->made_at},
                {"snapshot_at_epoch", snap->made_at},
                {"corpus_index", {{"sha256", snap->sha256}, {"bytes", snap->bytes}, {"url", "/corpus-index.db"}}},
                {"sources", ManifestSources(states.ok() ? *states : std::vector<SyncState>{})},
                {"embed_spaces", snap->spaces},
                {"embed_spaces_left_out", snap->left_out},
                {"scheduler", scheduler_.StateValue()}};
    SetJson(res, out.dump(1, ' ', false, json::error_handler_t::replace));
  });
  http_.Get("/corpus-index.db", [this](const Request& req, Response& res) {
    auto corpus = engine_->Connection();
    if (!corpus.ok()) return Fail(res, corpus.status());
    int fd = -1;
    auto snap = snapshot_->Open(**corpus, &fd);  // an open file keeps its bytes when a newer snapshot replaces it
    if (!snap.ok()) return Fail(res, snap.status());
    const std::string& sha = snap->sha256;
    int64_t size = snap->bytes;
    int64_t offset = 0, length = 0;
    if (!SingleRange(req, size, res, &offset, &length)) {
      ::close(fd);
      return;
    }
    res.SetHeader("ETag", "\"" + sha + "\"");
    res.SetHeader("X-Umwelt-Sha256", sha);
    res.SetFile(fd, offset, length, "application/octet-stream");
  });

}

}  // namespace umwelt::server_internal
