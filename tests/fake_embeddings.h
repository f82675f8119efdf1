// Test-only: a scripted OpenAI-compatible /v1/embeddings on loopback.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace umwelt::testing {

// A scripted /v1/embeddings: answers each input with [len, 1, 0], after any
// scripted failures (and refuses every call past fail_after_).
class FakeEmbeddings {
 public:
  FakeEmbeddings() {
    server_.server().Post("/v1/embeddings", [this](const httplib::Request& req, httplib::Response& res) {
      ++calls_;
      auth_ = req.get_header_value("Authorization");
      if (fail_after_ >= 0 && calls_ > fail_after_) {
        res.status = 401;
        res.set_content("{\"error\":\"scripted\"}", "application/json");
        return;
      }
      if (!failures_.empty()) {
        int code = failures_.front();
        failures_.erase(failures_.begin());
        res.status = code;
        res.set_content("{\"error\":\"scripted\"}", "application/json");
        return;
      }
      auto body = nlohmann::json::parse(req.body);
      model_ = body["model"];
      nlohmann::json data = nlohmann::json::array();
      int i = 0;
      for (auto& t : body["input"]) {
        nlohmann::json v = nlohmann::json::array({static_cast<double>(t.get<std::string>().size()), 1.0, 0.0});
        if (wrong_dim_ && i == 1) v.push_back(5.0);
        data.push_back({{"index", i++}, {"embedding", v}, {"object", "embedding"}});
      }
      res.set_content(malformed_ ? "{\"data\": [" : nlohmann::json({{"data", data}, {"model", model_}}).dump(), "application/json");
    });
  }
  std::string base() { return server_.base() + "/v1"; }
  TestServer server_;
  std::atomic<int> calls_{0};
  std::vector<int> failures_;
  int fail_after_ = -1;  // when set, every call after that many is refused (401)
  bool malformed_ = false;
  bool wrong_dim_ = false;
  std::string auth_, model_;
};

}  // namespace umwelt::testing
