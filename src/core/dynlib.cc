#include "umwelt/dynlib.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace umwelt {

namespace {

std::mutex& Mu() {
  static std::mutex mu;
  return mu;
}

// Opened libraries by the name asked for; never closed.
std::map<std::string, std::unique_ptr<DynLib>>& Opened() {
  static auto* opened = new std::map<std::string, std::unique_ptr<DynLib>>();
  return *opened;
}

std::string ExecutableDir() {
  std::string buf(4096, '\0');
  ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size());
  if (n <= 0) return "";
  buf.resize(static_cast<size_t>(n));
  size_t slash = buf.rfind('/');
  return slash == std::string::npos ? "" : buf.substr(0, slash);
}

}  // namespace

Result<const DynLib*> DynLib::Open(const std::string& soname, const std::string& purpose) {
  std::lock_guard<std::mutex> lock(Mu());
  auto it = Opened().find(soname);
  if (it != Opened().end()) return static_cast<const DynLib*>(it->second.get());
  void* handle = ::dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = ::dlerror();
    return Status::Unsupported(purpose + " needs " + soname + ", which could not be loaded: " +
                               (why ? why : "not found") + " (install the library's package; see README)");
  }
  auto& slot = Opened()[soname];
  slot.reset(new DynLib(handle, soname));
  return static_cast<const DynLib*>(slot.get());
}

Result<const DynLib*> DynLib::OpenModule(const std::string& name, const std::string& purpose) {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("UMWELT_MODULE_DIR"); env && *env) dirs.emplace_back(env);
  if (std::string exe = ExecutableDir(); !exe.empty()) {
    dirs.push_back(exe);
    dirs.push_back(exe + "/../lib/umwelt");
  }
#ifdef UMWELT_BUILD_MODULE_DIR
  dirs.emplace_back(UMWELT_BUILD_MODULE_DIR);
#endif
  std::string tried;
  for (const auto& dir : dirs) {
    std::string path = dir + "/" + name + ".so";
    if (::access(path.c_str(), R_OK) != 0) {
      tried += (tried.empty() ? "" : ", ") + dir;
      continue;
    }
    return Open(path, purpose);
  }
  return Status::Unsupported(purpose + " needs umwelt's module " + name + ".so, not found in " +
                             (tried.empty() ? std::string("any module folder") : tried) +
                             " (set UMWELT_MODULE_DIR to the folder holding it)");
}

Result<void*> DynLib::Symbol(const char* symbol) const {
  void* p = ::dlsym(handle_, symbol);
  if (!p) return Status::Unsupported(name_ + " has no function " + symbol + " (a different version than umwelt was built against?)");
  return p;
}

}  // namespace umwelt
