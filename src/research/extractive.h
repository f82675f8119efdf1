// Internal to research/: the report `ask` writes without a model, and the
// Markdown helpers it shares with the rest of ask.cc.
#pragma once

#include <string>
#include <vector>

#include "umwelt/research.h"

namespace umwelt::research_internal {

// Corpus text (a title, a name) on one line of Markdown, inert: urls in code
// spans, markup escaped (which covers the | of table cells).
std::string Cell(const std::string& s);
// Text shown as code: backticks cannot close the span early.
std::string CodeSpan(std::string s);

// The extractive report: statements quoted from the evidence with their
// authors, dates and links, chosen by the kind of answer the question asks
// for. `found`: whether the corpus holds anything on the question; `keys`:
// its key constraints; `abstain`: they never meet, so the closest records
// appear as related, never as the answer.
std::string Extractive(const std::string& question, const std::vector<Facet>& facets, const std::vector<Evidence>& ev,
                       bool found, const std::vector<std::string>& keys, bool abstain);

}  // namespace umwelt::research_internal
