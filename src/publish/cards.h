// Internal to publish/: hover cards — what the corpus knows about a link.
#pragma once

#include <optional>
#include <string>

#include "umwelt/corpus.h"

namespace umwelt::publish_internal {

struct Card {
  std::string ref;          // "owner/repo#12"
  std::string kind;         // issue, pr, comment, message, window, run, ...
  std::string state;        // open, closed, merged, draft, or ""
  std::string title;
  std::string owner;        // assignee, else author
  std::string by;           // the linked comment's author, when it is one
  std::string date;         // YYYY-MM-DD of the linked chunk
  std::string description;  // one line
  bool exact = false;       // the exact permalink is a chunk in the corpus
};

// The card for `url`: the chunk with that permalink and its thread, or the
// thread itself (by url, or by the owner/repo#N a GitHub url names).
std::optional<Card> LookupCard(Corpus& corpus, const std::string& url);

// True for links that must resolve to the corpus: the records of the
// sources' permalink schemes (umwelt/permalinks.h): GitHub issues, pulls,
// code and commits; Discord messages; W&B runs.
bool IsCorpusLink(const std::string& url);

// The card as HTML (a <span>, valid inside a paragraph), everything escaped.
std::string CardHtml(const Card& card);

}  // namespace umwelt::publish_internal
