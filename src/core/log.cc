#include "umwelt/log.h"

#include <cstdio>
#include <mutex>
#include <vector>

#include "umwelt/redact.h"

namespace umwelt {
namespace {
std::mutex mu;
LogLevel level = LogLevel::kWarn;          // guarded by mu
}  // namespace

void SetLogLevel(LogLevel l) {
  std::lock_guard<std::mutex> lock(mu);
  level = l;
}

LogLevel GetLogLevel() {
  std::lock_guard<std::mutex> lock(mu);
  return level;
}

void AddLogSecret(std::string secret) { AddSecret(std::move(secret)); }

void Log(LogLevel l, std::string_view message) {
  std::lock_guard<std::mutex> lock(mu);
  if (l < level) return;
  static const char* names[] = {"debug", "info", "warning", "error"};
  std::string line = RedactSecrets(message);
  std::fprintf(stderr, "umwelt: %s: %s\n", names[static_cast<int>(l)], line.c_str());
}

}  // namespace umwelt
