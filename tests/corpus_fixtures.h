// Builders for the thread and chunk rows tests put in a corpus.
#pragma once

#include <string>

#include "umwelt/corpus.h"

namespace umwelt::testing {

// A GitHub thread "owner/repo#N" with its html url derived from the ref.
inline Thread GithubThread(const std::string& ref, const std::string& kind, const std::string& state,
                           const std::string& title, const std::string& author = "ann",
                           const std::string& description = "") {
  Thread t;
  t.ref = ref;
  t.source = "github";
  t.kind = kind;
  t.state = state;
  t.title = title;
  t.author = author;
  t.description = description;
  size_t hash = ref.find('#');
  t.url = "https://github.com/" + ref.substr(0, hash) + (kind == "pr" ? "/pull/" : "/issues/") + ref.substr(hash + 1);
  return t;
}

// A chunk of thread `parent` at permalink `url`.
inline Chunk GithubChunk(const std::string& ref, const std::string& parent, const std::string& kind,
                         const std::string& url, const std::string& text, const std::string& author = "",
                         const std::string& date = "") {
  Chunk c;
  c.source = "github";
  c.kind = kind;
  c.ref = ref;
  c.parent = parent;
  c.url = url;
  c.text = text;
  c.author = author;
  c.date = date;
  return c;
}

}  // namespace umwelt::testing
