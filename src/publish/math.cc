#include "math.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

namespace umwelt::publish_internal {
namespace {

// Reads [{tex, display}] on stdin, writes [mathml] on stdout.
const char* kScript = R"js(
let katex;
try { katex = require('katex'); } catch (e) { process.stderr.write('katex not found'); process.exit(3); }
let input = '';
process.stdin.on('data', d => input += d);
process.stdin.on('end', () => {
  const out = JSON.parse(input).map(m => katex.renderToString(m.tex, {
    displayMode: m.display, output: 'mathml', throwOnError: false, strict: 'ignore', trust: false }));
  process.stdout.write(JSON.stringify(out));
});
)js";

std::string Quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

Result<std::vector<std::string>> RenderMath(const std::vector<Math>& math, const std::string& node) {
  std::vector<std::string> out;
  if (math.empty()) return out;
  nlohmann::json input = nlohmann::json::array();
  for (const auto& m : math) input.push_back({{"tex", m.tex}, {"display", m.display}});
  char in_path[] = "/tmp/umwelt-math-XXXXXX";
  int fd = ::mkstemp(in_path);
  if (fd < 0) return Status::Io("math: cannot create a temporary file");
  std::string text = input.dump();
  bool wrote = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  if (!wrote) {
    ::unlink(in_path);
    return Status::Io("math: cannot write a temporary file");
  }
  const char* env_path = std::getenv("NODE_PATH");
  std::string node_path = "/usr/share/nodejs:/usr/lib/nodejs" + std::string(env_path ? ":" : "") + (env_path ? env_path : "");
  std::string cmd = "NODE_PATH=" + Quote(node_path) + " " + Quote(node) + " -e " + Quote(kScript) + " < " +
                    Quote(in_path) + " 2>/dev/null";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) {
    ::unlink(in_path);
    return Status::Unavailable("math: cannot run " + node);
  }
  std::string result;
  char buf[8192];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) result.append(buf, n);
  int rc = ::pclose(p);
  ::unlink(in_path);
  int code = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  if (code == 3) return Status::Unavailable("math: KaTeX is not installed (apt-get install katex)");
  if (code != 0) return Status::Unavailable("math: `" + node + "` is not available to run KaTeX");
  auto j = nlohmann::json::parse(result, nullptr, false);
  if (!j.is_array() || j.size() != math.size()) return Status::Unavailable("math: KaTeX gave no answer");
  for (auto& e : j) out.push_back(e.is_string() ? e.get<std::string>() : "");
  return out;
}

}  // namespace umwelt::publish_internal
