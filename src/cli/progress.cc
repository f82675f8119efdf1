// Progress lines on stderr (see cli.h).
#include <unistd.h>

#include <cmath>
#include <cstdio>

#include "cli.h"
#include "umwelt/log.h"
#include "umwelt/text.h"

namespace umwelt::cli {

namespace {

std::string Duration(double s) {
  char buf[32];
  if (s < 90) std::snprintf(buf, sizeof buf, "%.0fs", s);
  else if (s < 5400) std::snprintf(buf, sizeof buf, "%.0fm%02.0fs", std::floor(s / 60), std::fmod(s, 60));
  else std::snprintf(buf, sizeof buf, "%.1fh", s / 3600);
  return buf;
}

}  // namespace

Progress::Progress(std::string what)
    : what_(std::move(what)),
      tty_(::isatty(STDERR_FILENO) != 0),
      quiet_(GetLogLevel() >= LogLevel::kError),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

Progress::~Progress() { Done(); }

void Progress::Update(int64_t done, int64_t total, const std::string& detail) {
  if (quiet_ || done_) return;
  auto now = std::chrono::steady_clock::now();
  double elapsed = std::chrono::duration<double>(now - start_).count();
  double since = std::chrono::duration<double>(now - last_).count();
  // A terminal is redrawn at most ten times a second; elsewhere a line every 5 s.
  if (since < (tty_ ? 0.1 : 5.0) && !(total > 0 && done >= total)) return;
  last_ = now;
  double rate = elapsed > 0 ? static_cast<double>(done) / elapsed : 0;
  std::string line = what_ + (detail.empty() ? "" : " " + detail) + ": ";
  if (total > 0) {
    int width = 24, filled = static_cast<int>(std::min<int64_t>(width, done * width / total));
    line += "[" + std::string(filled, '#') + std::string(width - filled, '.') + "] ";
    line += std::to_string(done) + "/" + std::to_string(total);
  } else {
    line += std::to_string(done);
  }
  char tail[64];
  std::snprintf(tail, sizeof tail, ", %.0f/s", rate);
  line += tail;
  if (total > 0 && rate > 0 && done < total) line += ", " + Duration(static_cast<double>(total - done) / rate) + " left";
  line = TerminalSafe(line);
  if (tty_) {
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
    drawn_ = true;
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  std::fflush(stderr);
}

void Progress::Done() {
  if (done_) return;
  done_ = true;
  if (drawn_) std::fprintf(stderr, "\r\033[K");
}

}  // namespace umwelt::cli
