#include "index/lsa.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <sstream>

namespace umwelt::lsa {
namespace {

std::vector<std::string> Words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// A text's vector as the embedder makes it: log(1 + tf) · idf weighted sum.
std::vector<double> Embed(const Model& m, const std::string& text) {
  std::map<std::string, size_t> at;
  for (size_t i = 0; i < m.terms.size(); ++i) at[m.terms[i]] = i;
  std::vector<std::string> words = Words(text);
  std::vector<double> v(m.dim, 0.0);
  for (const auto& [term, log_tf] : LogTermFrequencies(words)) {
    auto it = at.find(std::string(term));
    if (it == at.end()) continue;
    for (int k = 0; k < m.dim; ++k) v[k] += log_tf * m.idf[it->second] * m.vectors[it->second * m.dim + k];
  }
  return v;
}

double Cosine(const std::vector<double>& a, const std::vector<double>& b) {
  double ab = 0, aa = 0, bb = 0;
  for (size_t i = 0; i < a.size(); ++i) ab += a[i] * b[i], aa += a[i] * a[i], bb += b[i] * b[i];
  return aa > 0 && bb > 0 ? ab / std::sqrt(aa * bb) : 0;
}

// Two topics that share no word, and within each, texts that share only
// some: a text about "kernel" must land near one about "throughput" that
// never says "kernel" (they co-occur elsewhere), and far from the other topic.
TEST(Lsa, TermsThatCooccurLandTogether) {
  Trainer t;
  for (int i = 0; i < 6; ++i) {
    t.Add(Words("gpu kernel throughput cluster"));
    t.Add(Words("gpu kernel slow"));
    t.Add(Words("gpu throughput faster"));
    t.Add(Words("tokenizer vocabulary data mixture"));
    t.Add(Words("tokenizer numbers split"));
    t.Add(Words("data mixture cleaning"));
  }
  t.Add(Words("singleton"));  // in one text: no vector at min_df 2
  TrainOptions o;
  o.dim = 2;  // fewer dimensions than kinds of text: a topic must share one
  auto m = t.Train(o);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->dim, 2);
  EXPECT_TRUE(std::is_sorted(m->terms.begin(), m->terms.end()));
  EXPECT_EQ(std::count(m->terms.begin(), m->terms.end(), "singleton"), 0);
  ASSERT_EQ(m->vectors.size(), m->terms.size() * 2);
  auto kernel = Embed(*m, "kernel");
  EXPECT_GT(Cosine(kernel, Embed(*m, "throughput faster")), 0.8);
  EXPECT_LT(std::abs(Cosine(kernel, Embed(*m, "tokenizer data"))), 0.05);
  EXPECT_GT(Cosine(Embed(*m, "vocabulary"), Embed(*m, "data cleaning")), 0.8);
}

// The vectors are right singular vectors: orthonormal columns, as many as
// the matrix's rank, zeros past it.
TEST(Lsa, ColumnsAreOrthonormalUpToTheRank) {
  Trainer t;
  t.Add(Words("a b"));
  t.Add(Words("a b c"));
  t.Add(Words("c d d"));
  t.Add(Words("d e"));
  t.Add(Words("e a"));
  TrainOptions o;
  o.dim = 8;  // more than the 5 × 5 matrix's rank
  o.min_df = 1;
  auto m = t.Train(o);
  ASSERT_TRUE(m.ok()) << m.status().message();
  const size_t n = m->terms.size();
  ASSERT_EQ(n, 5u);
  for (int j = 0; j < 8; ++j) {
    for (int k = j; k < 8; ++k) {
      double dot = 0;
      for (size_t t2 = 0; t2 < n; ++t2) dot += double{m->vectors[t2 * 8 + j]} * m->vectors[t2 * 8 + k];
      double want = j == k && j < 5 ? 1.0 : 0.0;
      EXPECT_NEAR(dot, want, 1e-4) << j << "," << k;
    }
  }
}

TEST(Lsa, NothingToLearnIsAnError) {
  Trainer empty;
  auto e = empty.Train({});
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), Code::kInvalidArgument);
  EXPECT_NE(e.status().message().find("no words"), std::string::npos) << e.status().message();
  Trainer blank;
  blank.Add({});
  EXPECT_EQ(blank.documents(), 0u);  // an empty text is no document
  EXPECT_FALSE(blank.Train({}).ok());
}

// A corpus of one text has no word in two texts: it keeps them all rather
// than leave a new corpus without a vector space.
TEST(Lsa, ATinyCorpusKeepsEveryWord) {
  Trainer once;
  once.Add(Words("every word here once"));
  TrainOptions o;
  o.dim = 3;
  auto m = once.Train(o);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->terms.size(), 4u);
  EXPECT_EQ(m->vectors.size(), 12u);
}

TEST(Lsa, LogTermFrequenciesCountEachTermOnce) {
  auto w = Words("b a b b");
  auto f = LogTermFrequencies(w);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].first, "a");
  EXPECT_FLOAT_EQ(f[0].second, std::log1p(1.0f));
  EXPECT_EQ(f[1].first, "b");
  EXPECT_FLOAT_EQ(f[1].second, std::log1p(3.0f));
}

TEST(Lsa, FunctionWordsAreNotTerms) {
  for (const char* w : {"why", "should", "the", "is", "what"}) EXPECT_TRUE(IsStopWord(w)) << w;
  for (const char* w : {"gpu", "training", "slower", "why_not", "whyx", ""}) EXPECT_FALSE(IsStopWord(w)) << w;
}

}  // namespace
}  // namespace umwelt::lsa
