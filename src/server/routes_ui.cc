// The web UI's routes: search, threads, ask, sign-in, summaries and reports.
#include <filesystem>

#include "server_impl.h"
#include "ui.h"
#include "umwelt/corpus.h"
#include "umwelt/digest.h"
#include "umwelt/pattern.h"
#include "umwelt/text.h"

namespace umwelt::server_internal {

const char* const kAskJs = R"js(
(function () {
  var form = document.getElementById('ask'), progress = document.getElementById('progress'),
      answer = document.getElementById('answer');
  function line(t) { var d = document.createElement('div'); d.textContent = t; progress.appendChild(d); }
  function follow(id) {
    var es = new EventSource('/api/jobs/' + encodeURIComponent(id) + '/events');
    es.addEventListener('progress', function (e) { var d = JSON.parse(e.data); line(d.stage + ': ' + d.detail); });
    es.addEventListener('done', function (e) {
      var d = JSON.parse(e.data);
      es.close();
      if (d.state !== 'done') { line('failed: ' + d.error); return; }
      var base = '/jobs/' + encodeURIComponent(id) + '/report';
      // The report is this server's own page, its source text escaped when
      // it was published: shown here as it is, with a link to it alone.
      fetch(base + '.part', {credentials: 'same-origin'})
        .then(function (r) { if (!r.ok) throw new Error('the report did not load (' + r.status + ')'); return r.text(); })
        .then(function (html) {
          var part = document.createElement('div');
          part.className = 'answer-part';
          part.innerHTML = html;
          var p = document.createElement('p'), a = document.createElement('a');
          p.className = 'meta';
          a.href = base;
          a.textContent = 'The report as a page of its own';
          p.appendChild(a);
          answer.appendChild(part);
          answer.appendChild(p);
          progress.hidden = true;
        })
        .catch(function (err) { line(String(err.message)); });
    });
  }
  if (form) form.addEventListener('submit', function (e) {
    e.preventDefault();
    progress.textContent = ''; answer.textContent = '';
    fetch('/api/ask', {method: 'POST', credentials: 'same-origin', headers: {'Content-Type': 'application/json'},
                       body: JSON.stringify({question: document.getElementById('question').value})})
      .then(function (r) { return r.json().then(function (j) { if (!r.ok) throw new Error(j.detail || r.status); return j; }); })
      .then(function (j) { line('job ' + j.id + ' started'); follow(j.id); })
      .catch(function (err) { line(String(err.message)); });
  });
  if (progress && progress.dataset.job) follow(progress.dataset.job);
})();
)js";

void ServerImpl::UiRoutes() {
  for (const auto& [path, text] : {std::pair<std::string, std::string>{"/ui.js", si::UiScript()}, {"/ask.js", kAskJs}}) {
    http_.Get(path, [text = text](const Request&, Response& res) {
      res.SetHeader("Cache-Control", "no-cache");
      res.SetContent(text, "text/javascript; charset=utf-8");
    });
  }
  http_.Get("/", [this](const Request& req, Response& res) {
    si::SearchForm f;
    f.q = req.Param("q");
    f.source = req.Param("source");
    f.kind = req.Param("kind");
    f.since = req.Param("since");
    f.until = req.Param("until");
    f.author = req.Param("author");
    f.fts_only = Truthy(req.Param("fts_only"));
    f.by_thread = req.Param("group") == "thread";
    f.page = PageParam(req, 1000 / si::kPageHits);
    si::View view = View(nullptr);
    auto page = [&](int status, const std::string& title, const std::string& error) {
      Html(res, status, title, si::SearchBody(f, nullptr, false, error, view), req);
    };
    if (CollapseWhitespace(f.q).empty()) return page(200, "Search", "");
    auto r = ParseSearch(req);
    if (!r.ok()) return page(HttpStatusOf(r.status()), "Search", r.status().message());
    // A page reads the ranking down to its own end and one past it (the
    // facets count what was read); grouped, that many threads.
    r->search.k = si::SearchDepth(f.page);
    auto out = engine_->Search(*r, ClientKey(req.remote_addr));
    if (!out.ok()) return page(HttpStatusOf(out.status()), "Search", out.status().message());
    auto corpus = engine_->Connection();
    view.corpus = corpus.ok() ? *corpus : nullptr;
    Html(res, 200, f.q,
         si::SearchBody(f, &out->result, out->hybrid, "", view, out->grouped ? &out->threads : nullptr), req);
  });
  http_.Get("/thread", [this](const Request& req, Response& res) {
    std::string ref = req.Param("ref");
    if (ref.empty()) ref = req.Param("url");
    auto corpus = engine_->Connection();
    if (!corpus.ok()) return Html(res, 500, "Error", si::ErrorBody(500, corpus.status().message()), req);
    auto v = ViewThread(**corpus, ref, 10);
    if (!v.ok()) return Html(res, HttpStatusOf(v.status()), "Not found", si::ErrorBody(HttpStatusOf(v.status()), v.status().message()), req);
    std::string title = v->thread && !v->thread->title.empty() ? v->thread->title : v->thread_ref;
    Html(res, 200, title, si::ThreadBody(*v, View(*corpus), PageParam(req, 1 << 20, 0)), req);
  });
  http_.Get("/ask", [this](const Request& req, Response& res) {
    Html(res, 200, "Ask", si::AskBody(), req, "/ask.js");
  });
  http_.Get("/jobs/{hex32}", [this](const Request& req, Response& res) {
    auto job = jobs_.Find(req.matches[1], req.login);
    if (!job) return Html(res, 404, "Not found", si::ErrorBody(404, "no such job"), req);
    Html(res, 200, "Ask", si::JobBody(job->id), req, "/ask.js");
  });
  http_.Get("/jobs/{hex32}/report", [this](const Request& req, Response& res) {
    auto job = jobs_.Find(req.matches[1], req.login);
    if (!job) return Html(res, 404, "Not found", si::ErrorBody(404, "no such job"), req);
    MutexLock lock(job->mu);
    if (job->state != "done") return Html(res, 409, "Not ready", si::ErrorBody(409, "the report is " + job->state), req);
    res.SetHeader("Content-Security-Policy", Csp());
    res.SetContent(job->html, "text/html; charset=utf-8");
  });
  // The report without its page, for the ask page to show in place.
  http_.Get("/jobs/{hex32}/report.part", [this](const Request& req, Response& res) {
    auto job = jobs_.Find(req.matches[1], req.login);
    if (!job) return Fail(res, Status::NotFound("no such job"));
    MutexLock lock(job->mu);
    if (job->state != "done") return Fail(res, Status::Precondition("the report is " + job->state));
    res.SetHeader("Cache-Control", "no-store");
    res.SetContent(si::ReportPart(job->html), "text/html; charset=utf-8");
  });
  SignInRoutes();
  SiteRoutes();
}

// Sign-in through the form (a session cookie) and sign-out.
void ServerImpl::SignInRoutes() {
  http_.Get("/login", [this](const Request& req, Response& res) {
    Html(res, 200, "Sign in", si::LoginBody("", SafeNext(req.Param("next"))), req);
  });
  http_.Post("/login", [this](const Request& req, Response& res) {
    if (!auth_) {
      res.status = 303;
      res.SetHeader("Location", "/");
      return;
    }
    std::string token = req.Param("token");
    std::string next = SafeNext(req.Param("next"));
    si::AuthVerdict v = token.empty() ? si::AuthVerdict{401, "", "no token given"} : auth_->CheckToken(token, req.remote_addr);
    if (v.status != 200) return Html(res, v.status, "Sign in", si::LoginBody(v.detail, next), req);
    std::string id = sign_ins_.Add(v.login, token, NowEpoch());
    bool https = req.Header("X-Forwarded-Proto") == "https";
    res.SetHeader("Set-Cookie", "umwelt_session=" + id + "; Path=/; HttpOnly; SameSite=Strict; Max-Age=43200" +
                                     std::string(https ? "; Secure" : ""));
    res.status = 303;
    res.SetHeader("Location", next);
  });
  http_.Get("/logout", [this](const Request& req, Response& res) {
    if (std::string id = SessionId(req); !id.empty()) sign_ins_.Remove(id);
    res.SetHeader("Set-Cookie", "umwelt_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0");
    res.status = 303;
    res.SetHeader("Location", "/");
  });
}

// Pages made elsewhere and served from folders: the weekly summaries site and
// published reports.
void ServerImpl::SiteRoutes() {
  http_.Get("/summaries", [](const Request&, Response& res) {
    res.status = 301;
    res.SetHeader("Location", "/summaries/");
  });
  // The digest site's root: the reference client, pointed here by
  // MARIN_MWS_URL, follows the index's links into summaries/.
  http_.Get("/summaries/{?}", [this](const Request& req, Response& res) {
    std::string name = req.matches[1];
    std::error_code ec;
    static const Pattern period_file(R"(summary-[0-9_-]+\.[a-z.]+)");
    if (period_file.Matches(name) && !o_.summaries_dir.empty() &&
        !std::filesystem::exists(std::filesystem::path(o_.summaries_dir) / name, ec)) {
      res.status = 301;  // a page's address before the reference layout
      res.SetHeader("Location", "/summaries/" + std::string(kPagesFolder) + "/" + name);
      return;
    }
    si::Chrome nav = Chrome(req);
    ServeDir(o_.summaries_dir, name, res, &nav);
  });
  http_.Get("/summaries/summaries/{}", [this](const Request& req, Response& res) {
    si::Chrome nav = Chrome(req);
    ServeDir(o_.summaries_dir.empty() ? "" : o_.summaries_dir + "/" + kPagesFolder, req.matches[1], res, &nav);
  });
  http_.Get("/reports/{?}", [this](const Request& req, Response& res) {
    ServeDir(o_.reports_dir, req.matches[1], res);
  });
}

}  // namespace umwelt::server_internal
