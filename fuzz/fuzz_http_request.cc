// libFuzzer target: what a client controls in a request before any route
// runs — the path against every route pattern, the Cookie, Range and Host
// headers, and how the access log shows the path. Pieces (0x1e): path,
// cookie, range, host.
#include <cstdint>
#include <string>

#include "harness.h"
#include "server/http_server.h"
#include "server/server_impl.h"

using namespace umwelt;
using namespace umwelt::server_internal;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto pieces = fuzz::Pieces(data, size);
  auto piece = [&](size_t i) { return i < pieces.size() ? std::string(pieces[i]) : std::string(); };
  static const std::vector<std::vector<std::string>> routes = [] {
    std::vector<std::vector<std::string>> r;
    for (const char* p : {"/", "/api/threads/{*}", "/api/summaries/{}", "/wandb/{}/{}/{}/config", "/jobs/{hex32}/report",
                          "/summaries/{?}", "/summaries/summaries/{}"}) {
      r.push_back(RouteSegments(p));
    }
    return r;
  }();
  std::string path = piece(0);
  for (const auto& segments : routes) {
    std::vector<std::string> captures;
    size_t wanted = 0;
    for (const auto& s : segments) wanted += !s.empty() && s.front() == '{';
    if (MatchRoute(segments, path, &captures) && captures.size() != wanted) __builtin_trap();  // one capture each
  }
  Request req;
  req.path = path;
  req.headers = {{"Cookie", piece(1)}, {"Range", piece(2)}, {"Host", piece(3)}};
  std::string id = SessionId(req);
  if (!id.empty() && id.size() != 32) __builtin_trap();
  Response res;
  int64_t offset = 0, length = 0;
  if (SingleRange(req, 1000, res, &offset, &length) && (offset < 0 || length < 0 || offset + length > 1000)) __builtin_trap();
  std::string host, port;
  (void)LoopbackHost(piece(3));
  if (SplitHostPort(piece(3), &host, &port) && host.empty()) __builtin_trap();
  (void)ClientKey(piece(3));
  std::string logged = LoggedPath(path);
  for (unsigned char c : logged) {
    if (c < 0x20 || c >= 0x7f) __builtin_trap();  // nothing a terminal or a log reader acts on
  }
  return 0;
}
