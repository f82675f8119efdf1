#include "lsa.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <unordered_set>

#include <Eigen/Dense>
#include <Eigen/Sparse>

namespace umwelt::lsa {
namespace {

using Matrix = Eigen::MatrixXf;
using Sparse = Eigen::SparseMatrix<float, Eigen::RowMajor>;

// An orthonormal basis of the columns of `m` (thin Q of its QR).
Matrix Orthonormal(const Matrix& m) {
  Eigen::HouseholderQR<Matrix> qr(m);
  return qr.householderQ() * Matrix::Identity(m.rows(), m.cols());
}

}  // namespace

float LogTf(uint32_t count) { return std::log1p(static_cast<float>(count)); }

void Trainer::Add(const std::vector<std::string>& terms) {
  std::vector<uint32_t> ids;
  ids.reserve(terms.size());
  for (const auto& t : terms) {
    auto [it, fresh] = ids_.try_emplace(t, static_cast<uint32_t>(terms_.size()));
    if (fresh) {
      terms_.push_back(t);
      df_.push_back(0);
    }
    ids.push_back(it->second);
  }
  if (ids.empty()) return;
  std::sort(ids.begin(), ids.end());
  std::vector<std::pair<uint32_t, uint32_t>> counts;  // (term, occurrences), by term
  for (size_t i = 0, j; i < ids.size(); i = j) {
    for (j = i + 1; j < ids.size() && ids[j] == ids[i];) ++j;
    counts.emplace_back(ids[i], static_cast<uint32_t>(j - i));
    ++df_[ids[i]];
  }
  docs_.push_back(std::move(counts));
}

bool IsStopWord(std::string_view word) {
  static const auto* const kWords = new std::unordered_set<std::string_view>{
      "a", "about", "above", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be",
      "because", "been", "before", "being", "between", "both", "but", "by", "can", "could", "did", "do", "does",
      "doing", "down", "during", "each", "for", "from", "further", "had", "has", "have", "having", "he", "her",
      "here", "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "me", "more",
      "most", "my", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "out",
      "over", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them",
      "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "us", "very",
      "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would",
      "you", "your", "yours"};
  return kWords->count(word) > 0;
}

std::vector<std::pair<std::string_view, float>> LogTermFrequencies(const std::vector<std::string>& terms) {
  std::vector<std::string_view> sorted(terms.begin(), terms.end());
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::pair<std::string_view, float>> out;
  for (size_t i = 0, j; i < sorted.size(); i = j) {
    for (j = i + 1; j < sorted.size() && sorted[j] == sorted[i];) ++j;
    out.emplace_back(sorted[i], LogTf(static_cast<uint32_t>(j - i)));
  }
  return out;
}

Result<Model> Trainer::Train(const TrainOptions& o) const {
  // The vocabulary: terms in at least min_df documents, the most widespread
  // max_terms of them, as columns in the order of their terms.
  // A corpus too small for any term to reach min_df (a few texts) keeps
  // every term rather than fail.
  std::vector<uint32_t> kept;
  for (uint32_t min_df : {static_cast<uint32_t>(std::max(1, o.min_df)), 1u}) {
    for (uint32_t id = 0; id < terms_.size(); ++id) {
      if (df_[id] >= min_df) kept.push_back(id);
    }
    if (!kept.empty()) break;
  }
  if (kept.empty()) return Status::Invalid("the sampled texts hold no words");
  if (kept.size() > o.max_terms) {
    std::stable_sort(kept.begin(), kept.end(), [&](uint32_t a, uint32_t b) { return df_[a] > df_[b]; });
    kept.resize(o.max_terms);
  }
  std::sort(kept.begin(), kept.end(), [&](uint32_t a, uint32_t b) { return terms_[a] < terms_[b]; });
  std::vector<int32_t> column(terms_.size(), -1);
  for (size_t c = 0; c < kept.size(); ++c) column[kept[c]] = static_cast<int32_t>(c);

  Model m;
  m.dim = o.dim;
  const double n_docs = static_cast<double>(docs_.size());
  for (uint32_t id : kept) {
    m.terms.push_back(terms_[id]);
    m.idf.push_back(static_cast<float>(std::log((n_docs + 1) / (df_[id] + 0.5))));
  }

  // W: documents × terms, log(1 + tf) · idf.
  std::vector<Eigen::Triplet<float>> cells;
  int rows = 0;
  for (const auto& doc : docs_) {
    bool any = false;
    for (const auto& [id, n] : doc) {
      int32_t c = column[id];
      if (c < 0) continue;
      cells.emplace_back(rows, c, LogTf(n) * m.idf[c]);
      any = true;
    }
    if (any) ++rows;
  }
  const auto cols = static_cast<Eigen::Index>(kept.size());
  Sparse w(rows, cols);
  w.setFromTriplets(cells.begin(), cells.end());
  cells = {};

  // The range of W from a seeded Gaussian sketch, sharpened by power
  // iterations; then the SVD of the small projection B = Qᵀ W through the
  // eigenvectors of B Bᵀ.
  const Eigen::Index rank = std::min<Eigen::Index>(rows, cols);
  const Eigen::Index width = std::min<Eigen::Index>(rank, o.dim + 10);
  std::mt19937_64 rng(o.seed);
  std::normal_distribution<float> gauss;
  Matrix omega(cols, width);
  for (Eigen::Index j = 0; j < width; ++j) {
    for (Eigen::Index i = 0; i < cols; ++i) omega(i, j) = gauss(rng);
  }
  Matrix q = Orthonormal(w * omega);
  for (int i = 0; i < o.power_iterations; ++i) {
    Matrix z = Orthonormal(w.transpose() * q);
    q = Orthonormal(w * z);
  }
  Matrix bt = w.transpose() * q;  // terms × width
  Eigen::MatrixXd gram = (bt.transpose() * bt).cast<double>();
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(gram);
  if (eig.info() != Eigen::Success) return Status::Invalid("the latent space did not converge on the sampled texts");

  // Right singular vectors v_j = Bᵀ u_j / σ_j, largest σ first; components
  // past the matrix's rank stay zero.
  m.vectors.assign(static_cast<size_t>(cols) * o.dim, 0.0f);
  const Eigen::Index k = std::min<Eigen::Index>(width, o.dim);
  for (Eigen::Index j = 0; j < k; ++j) {
    Eigen::Index e = width - 1 - j;  // eigenvalues ascend
    double lambda = eig.eigenvalues()(e);
    if (lambda <= 1e-9) break;
    Eigen::VectorXf v = bt * eig.eigenvectors().col(e).cast<float>() / static_cast<float>(std::sqrt(lambda));
    for (Eigen::Index t = 0; t < cols; ++t) m.vectors[static_cast<size_t>(t) * o.dim + j] = v(t);
  }
  return m;
}

}  // namespace umwelt::lsa
