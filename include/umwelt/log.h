// umwelt/log.h — diagnostics to stderr. Library code never prints to stdout;
// it reports through here, at a level the CLI sets once at start-up.
// Thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace umwelt {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3, kQuiet = 4 };

void SetLogLevel(LogLevel level);
LogLevel GetLogLevel();
// Registers a secret (a token) that is replaced by "***" in every log line
// and stored error (AddSecret in redact.h).
void AddLogSecret(std::string secret);
void Log(LogLevel level, std::string_view message);
inline void LogInfo(std::string_view m) { Log(LogLevel::kInfo, m); }
inline void LogWarn(std::string_view m) { Log(LogLevel::kWarn, m); }

}  // namespace umwelt
