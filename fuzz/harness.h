// Shared pieces of the libFuzzer targets:
//   Pieces        an input split into documents at the record separator
//                 (0x1e), so one input can be a whole conversation: a
//                 channel list, then a page of threads, then messages
//   ScriptedHttp  an HttpClient that answers each request with the next piece
//   ScratchCorpus a corpus in /dev/shm (else /tmp), started afresh every few
//                 thousand inputs so it never grows without bound
//   MutateJson    a structure-aware mutator: parses one piece as JSON and
//                 swaps a value's type, drops or duplicates a member, or
//                 halves an array, the surprises a hostile API or a
//                 hand-edited file holds; half the time libFuzzer's own byte
//                 mutations instead
// A target opts into the mutator with UMWELT_FUZZ_JSON_MUTATOR().
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "umwelt/corpus.h"
#include "umwelt/http.h"
#include "umwelt/json_read.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace umwelt::fuzz {

constexpr char kSeparator = '\x1e';

inline std::vector<std::string> Pieces(const uint8_t* data, size_t size) {
  std::vector<std::string> out;
  if (size == 0) return {""};
  const char* p = reinterpret_cast<const char*>(data);
  const char* end = p + size;
  while (true) {
    const char* sep = static_cast<const char*>(std::memchr(p, kSeparator, static_cast<size_t>(end - p)));
    out.emplace_back(p, sep ? sep : end);
    if (!sep) return out;
    p = sep + 1;
  }
}

inline std::string Join(const std::vector<std::string>& pieces) {
  std::string out;
  for (size_t i = 0; i < pieces.size(); ++i) out += (i ? std::string(1, kSeparator) : "") + pieces[i];
  return out;
}

// A directory for scratch files, on tmpfs when there is one.
inline const std::string& ScratchDir() {
  static const std::string dir = [] {
    std::string tmpl = (::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") + std::string("/umwelt-fuzz-XXXXXX");
    if (!::mkdtemp(tmpl.data())) std::abort();
    return tmpl;
  }();
  return dir;
}

class ScratchCorpus {
 public:
  explicit ScratchCorpus(std::string name, int inputs_per_corpus = 4096)
      : path_(ScratchDir() + "/" + name + ".db"), every_(inputs_per_corpus) {}

  Corpus& Get() {
    if (!corpus_ || ++uses_ % every_ == 0) {
      corpus_.reset();
      for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path_ + suffix).c_str());
      auto c = Corpus::Open(path_, Corpus::Mode::kReadWrite);
      if (!c.ok()) {
        std::fprintf(stderr, "fuzz: cannot open a scratch corpus: %s\n", c.status().message().c_str());
        std::abort();
      }
      corpus_ = std::move(c).value();
    }
    return *corpus_;
  }

 private:
  std::string path_;
  int every_;
  int uses_ = 0;
  std::unique_ptr<Corpus> corpus_;
};

// Answers request i with piece i (status 200), then `rest` with `rest_status`.
class ScriptedHttp final : public HttpClient {
 public:
  ScriptedHttp(std::vector<std::string> pieces, std::string rest = "[]", int rest_status = 200)
      : pieces_(std::move(pieces)), rest_(std::move(rest)), rest_status_(rest_status) {}
  Result<HttpResponse> Send(const HttpRequest&) override {
    HttpResponse r;
    if (next_ < pieces_.size()) {
      r.status = 200;
      r.body = pieces_[next_++];
    } else {
      r.status = rest_status_;
      r.body = rest_;
    }
    return r;
  }

 private:
  std::vector<std::string> pieces_;
  std::string rest_;
  int rest_status_;
  size_t next_ = 0;
};

namespace detail {

using json = nlohmann::json;

struct Slot {
  json* node;
  json* parent;  // nullptr for the root
  std::string key;
  size_t index = 0;
};

inline void Collect(json& root, std::vector<Slot>* out) {
  std::vector<Slot> stack = {{&root, nullptr, "", 0}};
  while (!stack.empty() && out->size() < 100000) {
    Slot s = stack.back();
    stack.pop_back();
    out->push_back(s);
    if (s.node->is_object()) {
      for (auto it = s.node->begin(); it != s.node->end(); ++it) stack.push_back({&it.value(), s.node, it.key(), 0});
    } else if (s.node->is_array()) {
      for (size_t i = 0; i < s.node->size(); ++i) stack.push_back({&(*s.node)[i], s.node, "", i});
    }
  }
}

inline json Surprise(std::minstd_rand& rng) {
  switch (rng() % 18) {
    case 0: return nullptr;
    case 1: return true;
    case 2: return 0;
    case 3: return -1;
    case 4: return std::numeric_limits<int64_t>::min();
    case 5: return std::numeric_limits<int64_t>::max();
    case 6: return std::numeric_limits<uint64_t>::max();
    case 7: return 1e308;
    case 8: return -0.5;
    case 9: return "";
    case 10: return "1234567890123456789012345";
    case 11: return "2024-13-45T99:99:99Z";
    case 12: return std::string(rng() % 70000, 'x');
    case 13: return json::array();
    case 14: return json::object();
    case 15: {
      json v = "deep";
      for (int i = 0; i < 40; ++i) v = json::array({v});
      return v;
    }
    case 16: return json{{"id", 7}, {"name", nullptr}, {"type", "x"}};
    default: return "\xe2\x80\xae\x1b[31m<script>alert(1)</script>";
  }
}

// The same value as another type: 12 <-> "12", a list <-> its first member.
inline json Swapped(const json& v, std::minstd_rand& rng) {
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number()) return v.dump();
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    json n = json::parse(s, nullptr, false);
    if (n.is_number()) return n;
    return rng() % 2 ? json(s.size()) : json::array({s});
  }
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_array()) return v.empty() ? json::object() : v[0];
  if (v.is_object()) {
    json a = json::array();
    for (const auto& [k, x] : v.items()) a.push_back(x);
    return a;
  }
  return 0;
}

}  // namespace detail

inline size_t MutateJson(uint8_t* data, size_t size, size_t max_size, unsigned seed) {
  using detail::json;
  std::minstd_rand rng(seed);
  if (rng() % 2 == 0 || size == 0) return LLVMFuzzerMutate(data, size, max_size);
  auto pieces = Pieces(data, size);
  std::string& piece = pieces[rng() % pieces.size()];
  json doc = ParseJson(piece);
  if (doc.is_discarded()) return LLVMFuzzerMutate(data, size, max_size);
  std::vector<detail::Slot> slots;
  detail::Collect(doc, &slots);
  detail::Slot s = slots[rng() % slots.size()];
  // Inputs that grew past a quarter of the limit only shrink or swap: long
  // runs stay quick and a big input is no better at finding faults.
  bool may_grow = size < max_size / 4;
  unsigned op = rng() % 6;
  if (!may_grow && (op == 3 || op == 5)) op = 2;
  switch (op) {
    case 0: *s.node = detail::Surprise(rng); break;
    case 1: *s.node = detail::Swapped(*s.node, rng); break;
    case 2:  // drop the member
      if (s.parent && s.parent->is_object()) s.parent->erase(s.key);
      else if (s.parent && s.parent->is_array()) s.parent->erase(s.index);
      else *s.node = nullptr;
      break;
    case 3:  // duplicate it: the same key twice is not JSON, so a sibling
      if (s.parent && s.parent->is_array()) s.parent->push_back(*s.node);
      else if (s.parent && s.parent->is_object()) (*s.parent)[s.key + "_"] = *s.node;
      break;
    case 4:  // halve a list (big seeds shrink, so each run is quick)
      if (s.node->is_array() && s.node->size() > 1) {
        json half(s.node->begin(), s.node->begin() + static_cast<long>(s.node->size() / 2));
        *s.node = std::move(half);
      } else {
        *s.node = detail::Surprise(rng);
      }
      break;
    default:  // a value from elsewhere in the document
      *s.node = *slots[rng() % slots.size()].node;
      break;
  }
  piece = doc.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string out = Join(pieces);
  if (out.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, out.data(), out.size());
  return out.size();
}

}  // namespace umwelt::fuzz

#define UMWELT_FUZZ_JSON_MUTATOR()                                                                          \
  extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) { \
    return umwelt::fuzz::MutateJson(data, size, max_size, seed);                                           \
  }
