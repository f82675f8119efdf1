// Libraries loaded on first use. A process pays for a library (and the dozens
// it drags in: libcurl brings Kerberos and LDAP, poppler brings fonts and
// images) only in the verbs that need it, so `umwelt search` starts in a few
// milliseconds. Each user lists the functions it calls in an X-macro and gets a
// table of pointers to them:
//
//   #define UMWELT_CURL_API(X) X(curl_, easy_init) X(curl_, easy_cleanup)
//   UMWELT_DYNLIB_TABLE(CurlApi, UMWELT_CURL_API)
//   const Result<const CurlApi*>& Curl() {
//     static const auto api = LoadTable<CurlApi>(UMWELT_SONAME_CURL, "HTTP");
//     return api;
//   }
//   ... (*Curl())->easy_init() ...
//
// The sonames come from the build (cmake/Soname.cmake reads them off the
// libraries linked against at configure time), so the version loaded is the
// version compiled against.
#pragma once

#include <string>

#include "umwelt/status.h"

namespace umwelt {

// A library opened with dlopen and never closed (its functions may be held
// anywhere). Open caches by name; it is safe from any thread.
class DynLib {
 public:
  // `soname` as the loader finds it ("libcurl.so.4"); `purpose` names what
  // needs it in the error ("HTTP requests need libcurl (libcurl.so.4): ...").
  static Result<const DynLib*> Open(const std::string& soname, const std::string& purpose);
  // One of umwelt's own plugin modules ("umwelt-pdf"): looked for in
  // $UMWELT_MODULE_DIR, next to the executable, in ../lib/umwelt from it, and
  // in the build tree it was compiled in.
  static Result<const DynLib*> OpenModule(const std::string& name, const std::string& purpose);
  // The address of `symbol`, or an error naming it and the library.
  Result<void*> Symbol(const char* symbol) const;

 private:
  DynLib(void* handle, std::string name) : handle_(handle), name_(std::move(name)) {}
  void* handle_;
  std::string name_;
};

// Declares struct NAME with one pointer per X(prefix, fn) entry, named fn and
// typed after prefix##fn, plus Bind() that fills them from a library.
// NOLINTBEGIN(bugprone-macro-parentheses): the arguments are names, pasted
#define UMWELT_DYNLIB_MEMBER(prefix, fn) decltype(&::prefix##fn) fn = nullptr;
#define UMWELT_DYNLIB_BIND(prefix, fn)                                           \
  {                                                                              \
    auto sym = lib.Symbol(#prefix #fn);                                          \
    if (!sym.ok()) return sym.status();                                          \
    fn = reinterpret_cast<decltype(fn)>(*sym);                                   \
  }
#define UMWELT_DYNLIB_TABLE(NAME, LIST)                                          \
  struct NAME {                                                                  \
    LIST(UMWELT_DYNLIB_MEMBER)                                                   \
    ::umwelt::Status Bind(const ::umwelt::DynLib& lib) {                         \
      LIST(UMWELT_DYNLIB_BIND)                                                   \
      return ::umwelt::Status::Ok();                                             \
    }                                                                            \
  };
// NOLINTEND(bugprone-macro-parentheses)

// Opens `soname` and binds a Table from it, then runs `init` on it once (a
// library's global set-up); the error says what needs it.
template <typename Table>
Result<const Table*> LoadTable(const std::string& soname, const std::string& purpose,
                               void (*init)(const Table&) = nullptr) {
  auto lib = DynLib::Open(soname, purpose);
  if (!lib.ok()) return lib.status();
  auto* table = new Table();  // lives as long as the library: the process
  if (Status s = table->Bind(**lib); !s.ok()) {
    delete table;
    return s;
  }
  if (init) init(*table);
  return static_cast<const Table*>(table);
}

// The C entry point `symbol` of umwelt's module `module`, typed as Fn (a
// function pointer type), or the error of finding either.
template <typename Fn>
Result<Fn> LoadModuleFunction(const std::string& module, const char* symbol, const std::string& purpose) {
  auto lib = DynLib::OpenModule(module, purpose);
  if (!lib.ok()) return lib.status();
  auto fn = (*lib)->Symbol(symbol);
  if (!fn.ok()) return fn.status();
  return reinterpret_cast<Fn>(*fn);
}

}  // namespace umwelt
