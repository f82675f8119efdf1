// Builders for the thread and chunk rows tests put in a corpus.
#pragma once

#include <string>

#include "umwelt/corpus.h"
#include "umwelt/git.h"
#include "umwelt/text.h"

namespace umwelt::testing {

// The git repository at `repo` synced into a corpus at `db` as of
// 2026-11-25; false when the open or the sync fails.
inline bool SyncGitInto(const std::string& repo, const std::string& db) {
  auto c = Corpus::Open(db, Corpus::Mode::kReadWrite);
  if (!c.ok()) return false;
  git::SyncOptions o;
  o.path = repo;
  o.now = *ParseIsoTime("2026-11-25T00:00:00Z");
  git::SyncReport report;
  return git::Sync(**c, o, &report).ok();
}

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

// A message `id` of Discord channel or thread `thread` on `guild`, at its
// permalink (a forum thread is one whose opening message has its own id).
inline Chunk DiscordMessage(const std::string& guild, const std::string& thread, const std::string& id,
                            const std::string& author, const std::string& title, const std::string& date,
                            const std::string& text) {
  Chunk m;
  m.source = "discord";
  m.kind = "message";
  m.parent = "discord:" + guild + "/" + thread;
  m.ref = m.parent + "/" + id;
  m.url = "https://discord.com/channels/" + guild + "/" + thread + "/" + id;
  m.title = title;
  m.author = author;
  m.date = date;
  m.text = text;
  return m;
}

}  // namespace umwelt::testing
