// Clang's thread-safety analysis, made visible in the code: which mutex
// guards which state, and which functions must hold it. Compiled with
// -Wthread-safety by scripts/thread_safety.sh (CI), so a read of guarded state
// without its lock is a build error there; other compilers ignore the macros.
//
//   Mutex mu_;
//   int count_ GUARDED_BY(mu_) = 0;
//   void Bump() { MutexLock lock(mu_); ++count_; }
//   void BumpLocked() REQUIRES(mu_) { ++count_; }
#pragma once

#include <condition_variable>
#include <mutex>

#if defined(__clang__)
#define UMWELT_TSA(x) __attribute__((x))
#else
#define UMWELT_TSA(x)
#endif

#define CAPABILITY(x) UMWELT_TSA(capability(x))
#define SCOPED_CAPABILITY UMWELT_TSA(scoped_lockable)
#define GUARDED_BY(x) UMWELT_TSA(guarded_by(x))
#define PT_GUARDED_BY(x) UMWELT_TSA(pt_guarded_by(x))
#define REQUIRES(...) UMWELT_TSA(requires_capability(__VA_ARGS__))
#define ACQUIRE(...) UMWELT_TSA(acquire_capability(__VA_ARGS__))
#define RELEASE(...) UMWELT_TSA(release_capability(__VA_ARGS__))
#define EXCLUDES(...) UMWELT_TSA(locks_excluded(__VA_ARGS__))
#define NO_THREAD_SAFETY_ANALYSIS UMWELT_TSA(no_thread_safety_analysis)

namespace umwelt {

// std::mutex with the analysis's annotations.
class CAPABILITY("mutex") Mutex {
 public:
  void lock() ACQUIRE() { mu_.lock(); }
  void unlock() RELEASE() { mu_.unlock(); }
  // For condition variables: the std::mutex underneath.
  std::mutex& native() { return mu_; }

 private:
  std::mutex mu_;
};

// Holds a Mutex for a scope; unlock()/lock() in between (around slow work, or
// as the lock a CondVar waits on) keep the analysis informed.
class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mu) ACQUIRE(mu) : lock_(mu.native()) {}
  ~MutexLock() RELEASE() = default;
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;
  void lock() ACQUIRE() { lock_.lock(); }
  void unlock() RELEASE() { lock_.unlock(); }
  // What std::condition_variable waits on.
  std::unique_lock<std::mutex>& native() { return lock_; }

 private:
  std::unique_lock<std::mutex> lock_;
};

}  // namespace umwelt
