#include "umwelt/clock.h"

#include <chrono>
#include <cstdlib>
#include <thread>

namespace umwelt {
namespace {

std::atomic<ManualClock*> g_manual{nullptr};

}  // namespace

int64_t NowEpoch() {
  if (ManualClock* m = g_manual.load()) return m->now();
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

int64_t NowEpochMs() {
  if (ManualClock* m = g_manual.load()) return m->now() * 1000;
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void SleepSeconds(double seconds) {
  if (!(seconds > 0)) return;
  if (ManualClock* m = g_manual.load()) {
    m->Advance(seconds);
    m->slept_.fetch_add(seconds);
    return;
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

ManualClock::ManualClock(int64_t start_epoch) : now_(static_cast<double>(start_epoch)) {
  ManualClock* none = nullptr;
  if (!g_manual.compare_exchange_strong(none, this)) std::abort();  // one at a time
}

ManualClock::~ManualClock() { g_manual.store(nullptr); }

void ManualClock::Advance(double seconds) { now_.fetch_add(seconds); }

int64_t ManualClock::now() const { return static_cast<int64_t>(now_.load()); }

}  // namespace umwelt
