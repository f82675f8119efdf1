// Internal to index/: one posting's BM25F score, shared by the ranking
// (keyword_index.cc) and the index build, which stores each term's highest
// for the pruning bounds (keyword_build.cc).
#pragma once

#include <cstdint>

#include "umwelt/search.h"

namespace umwelt::index_internal {

// One query term's postings in one channel, and how much they weigh.
struct Channel {
  const uint32_t* docs;
  const uint16_t* tfs;
  const uint8_t* title_tfs;  // null: a channel without a title field (symbols)
  uint32_t n;
  double weight;  // idf x the term's weight in the query
};

// Document lengths and the BM25F parameters of the fields.
struct Fields {
  const uint32_t* len_body;
  const uint32_t* len_title;
  double avg_body, avg_title;
  const KeywordTuning* t;
};

// Posting i's contribution to document d's score: the field frequencies,
// each normalised by its field's length, summed with the title's weight,
// then saturated once (Robertson, Zaragoza & Taylor 2004). Every path that
// scores uses this, so the pruned ranking's scores are the exhaustive one's
// to the bit.
inline float TermScore(const Channel& c, const Fields& f, uint32_t i, uint32_t d) {
  const double k1 = f.t->k1;
  const double b = f.t->b, tb = f.t->title_b, tw = f.t->title_weight;
  double tf = c.tfs[i] / (1 - b + b * f.len_body[d] / f.avg_body);
  if (c.title_tfs && c.title_tfs[i]) tf += tw * c.title_tfs[i] / (1 - tb + tb * f.len_title[d] / f.avg_title);
  double s = c.weight * tf * (k1 + 1) / (tf + k1);
  return static_cast<float>(s);
}

// Whether `t` scores postings as the defaults do (the stored maxima hold).
inline bool DefaultScoring(const KeywordTuning& t) {
  const KeywordTuning d;
  return t.k1 == d.k1 && t.b == d.b && t.title_weight == d.title_weight && t.title_b == d.title_b;
}

}  // namespace umwelt::index_internal
