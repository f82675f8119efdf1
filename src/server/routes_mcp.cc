// MCP over HTTP (the Streamable HTTP transport) at /mcp: a POST carries one
// JSON-RPC message; a request is answered as JSON, or as an event stream
// (progress, then the response) when the client accepts one and asked for
// progress. Behind the same gate as the API: bearer tokens, Origin checks.
#include "server_impl.h"
#include "umwelt/json_read.h"

namespace umwelt::server_internal {

void ServerImpl::McpRoutes() {
  http_.Post("/mcp", [this](const Request& req, Response& res) {
    res.SetHeader("Cache-Control", "no-store");
    std::string version = req.Header("MCP-Protocol-Version");
    const auto& versions = mcp::ProtocolVersions();
    if (!version.empty() && std::find(versions.begin(), versions.end(), version) == versions.end()) {
      return Detail(res, 400, "unsupported MCP-Protocol-Version " + version.substr(0, 40));
    }
    json msg = ParseJson(req.body);
    std::string method = msg.is_object() ? StrField(msg, "method") : "";
    bool request = msg.is_object() && msg.contains("id") && !method.empty();
    std::shared_ptr<mcp::Session> session;
    std::string session_id = req.Header("Mcp-Session-Id");
    if (method == "initialize") {
      mcp::Options o;
      o.corpus_path = o_.corpus_path;
      o.searcher = &engine_->searcher();
      o.llm = o_.llm;
      o.extractive_ask = true;  // /api/ask answers without a model too
      // Every search a session makes shares the pool, fairly, as its client's.
      o.run = [this, client = ClientKey(req.remote_addr)](const std::vector<std::function<void()>>& tasks) {
        return engine_->RunAll(tasks, client);
      };
      o.max_message_bytes = o_.max_body_bytes;
      o.server_version = o_.version;
      o.served = true;
      o.ask_slot = [this] { return jobs_.Reserve(); };  // the bound /api/ask keeps
      session = std::make_shared<mcp::Session>(std::move(o));
      session_id = mcp_sessions_.Add(session, req.login);
    } else {
      if (session_id.empty()) return Fail(res, Status::Invalid("Mcp-Session-Id is required: initialize first"));
      session = mcp_sessions_.Find(session_id, req.login);
      if (!session) return Fail(res, Status::NotFound("no such MCP session (it ended or expired): initialize again"));
    }
    res.SetHeader("Mcp-Session-Id", session_id);
    bool progress = false;
    if (const json* params = msg.is_object() ? FieldOf(msg, "params") : nullptr) {
      if (const json* meta = FieldOf(*params, "_meta")) progress = FieldOf(*meta, "progressToken") != nullptr;
    }
    if (!request) {  // a notification or a response: accepted, nothing to answer
      std::string reply = session->Handle(req.body, nullptr);
      if (reply.empty()) {
        res.status = 202;
        return;
      }
      res.status = 400;
      return res.SetContent(reply, "application/json");
    }
    if (!progress || req.Header("Accept").find("text/event-stream") == std::string::npos) {
      return res.SetContent(session->Handle(req.body, nullptr), "application/json");
    }
    res.SetStream("text/event-stream", [session, body = req.body](size_t, DataSink& sink) {
      std::mutex mu;
      auto event = [&](const std::string& message) {
        std::lock_guard<std::mutex> lock(mu);
        std::string e = "event: message\ndata: " + message + "\n\n";
        sink.Write(e.data(), e.size());
      };
      event(session->Handle(body, event));
      sink.Done();
      return true;
    });
  });
  http_.Delete("/mcp", [this](const Request& req, Response& res) {
    if (!mcp_sessions_.Remove(req.Header("Mcp-Session-Id"), req.login)) {
      return Fail(res, Status::NotFound("no such MCP session"));
    }
    res.status = 204;
  });
  http_.Get("/mcp", [this](const Request&, Response& res) {
    res.SetHeader("Allow", "POST, DELETE");
    Detail(res, 405, "this server sends no stream of its own: POST JSON-RPC messages to /mcp");
  });
}

}  // namespace umwelt::server_internal
