// Internal to index/: the on-disk layout of the keyword index (docs/CORPUS.md,
// "Keyword index"). Little-endian, every section 8-byte aligned, mapped
// read-only. A file whose magic, version or content key differs is rebuilt.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <vector>

#include "umwelt/corpus.h"
#include "umwelt/file.h"
#include "umwelt/status.h"

namespace umwelt::index_internal {

inline constexpr char kMagic[8] = {'U', 'M', 'W', 'K', 'W', 'I', 'D', 'X'};
// 3: a pull request's commits share one id; 4: stems, body and title apart
// (BM25F); 5: each term's highest score, for pruning; 6: compounds' joined
// forms ("z-loss" -> zloss); 7: each chunk's fingerprint, so a rebuild
// reuses the postings of the chunks that did not change, and no term
// without postings; 8: the change-log point, each url's key, and the delta
// segment (a file of the chunks changed since a base, and the base's
// documents they replace); 9: a link's scheme (http://, https://) is not a
// term; 10: names written as a glob of initials ("[GS]etFoo" -> getfoo,
// setfoo)
inline constexpr uint32_t kFormatVersion = 10;

enum Section : int {
  kChunkIds = 0,   // int64[n_docs]
  kLenBody,        // uint32[n_docs]  words in the text
  kLenTitle,       // uint32[n_docs]  words in the title
  kLenSyms,        // uint32[n_docs]
  kSourceIds,      // uint8[n_docs]
  kKindIds,        // uint8[n_docs]
  kDates,          // int64[n_docs]   epoch seconds, INT64_MIN when unknown
  kAuthorIds,      // uint32[n_docs]
  kUrlIds,         // uint32[n_docs]  docs sharing a url (or a pull request's commits) share an id
  kTermOffsets,    // uint32[n_terms + 1] into kTermBlob
  kTermBlob,       // sorted terms, concatenated
  kTermPostings,   // TermEntry[n_terms]
  kPostDocs,       // uint32[n_postings]
  kPostTf,         // uint16[n_postings]  occurrences in the body (symbols), saturated
  kPostTitleTf,    // uint8[n_postings]   occurrences in the title (0 for symbols), saturated
  kStrOffsets,     // uint32[n_strings + 1]: sources, then kinds, then authors
  kStrBlob,
  kDocHashes,      // uint64[n_docs]  fingerprint of the chunk's indexed fields (DocHash)
  kUrlKeys,        // uint64[n_urls]  what each url id stands for (HitKey), the same in every file
  kMasked,         // uint32[]        a delta's: the base's documents it deletes or replaces, ascending
  kNumSections,
};

// A term's postings: as a stem of the text and title ("exact"), and as an
// identifier part in the symbols (spelled as the part).
struct TermEntry {
  uint64_t exact_off;
  uint32_t exact_n;
  uint32_t syms_n;
  uint64_t syms_off;
  // The highest score one posting of each list adds at weight 1 under the
  // default KeywordTuning (TermScore): the pruning's bound for the term.
  float exact_max;
  float syms_max;
};

struct Header {
  char magic[8];
  uint32_t version;
  uint32_t n_docs;
  uint64_t content_hash;
  uint32_t n_terms;
  uint32_t n_sources;
  uint32_t n_kinds;
  uint32_t n_authors;
  uint64_t n_postings;
  double avg_len_body;
  double avg_len_title;
  double avg_len_syms;
  uint32_t n_urls;
  // Whether the corpus kept a change log when this was built, and the
  // log's newest entry then (Corpus::LogPoint): a delta indexes what the
  // log lists after it.
  uint32_t has_log;
  int64_t log_seq;
  int64_t log_id;
  // Whose log: the hash of the corpus's corpus_id (another file's log says
  // nothing about this index, however its numbers line up).
  uint64_t log_corpus;
  // A delta's: the content hash of the base file it applies to; 0 in a base.
  uint64_t base_hash;
  uint64_t offset[kNumSections];
  uint64_t size[kNumSections];
};

// Section `id` of the index mapped in `file`, as an array of T.
template <typename T>
const T* SectionOf(const MappedFile& file, const Header& h, int id) {
  return reinterpret_cast<const T*>(file.data() + h.offset[id]);
}

// The dictionary's term `i` (< h.n_terms); "" when its offsets are damaged.
inline std::string_view TermAt(const MappedFile& file, const Header& h, uint32_t i) {
  const uint32_t* off = SectionOf<uint32_t>(file, h, kTermOffsets);
  if (off[i] > off[i + 1] || off[i + 1] > h.size[kTermBlob]) return {};
  return std::string_view(SectionOf<char>(file, h, kTermBlob) + off[i], off[i + 1] - off[i]);
}

// Whether `e`'s postings lie within the file's postings. Checked as each
// term is read rather than for every term at open, which would touch the
// whole term table (tens of MB at millions of terms) in every one-shot search.
inline bool InBounds(const Header& h, const TermEntry& e) {
  return e.exact_off <= h.n_postings && e.exact_n <= h.n_postings - e.exact_off && e.syms_off <= h.n_postings &&
         e.syms_n <= h.n_postings - e.syms_off;
}

// The first of the ascending `ids[0, n)` not below `id` (std::lower_bound's
// answer). Chunk ids are nearly dense, so the search starts where an even
// spread would put `id` and gallops out from there: a page or two of a
// large index read, where a binary search touches twenty in a fresh process.
const int64_t* LowerBoundDense(const int64_t* ids, size_t n, int64_t id);

// Reads `file`'s header into `h` and checks its magic, version and that
// every section lies in the file at the size the header implies. Corrupt
// otherwise. The content key is the caller's to check, and each term's
// postings (InBounds) the reader's.
Status ReadLayout(const MappedFile& file, const std::string& path, Header* h);

// Writes to `path` the delta segment of the base index in `base_file`: the
// chunks among `changed` (sorted ids, from the corpus's change log after the
// base's point) that still exist, indexed with the base's average lengths,
// and the base's documents among them, masked. `content_key` and `at` are
// the corpus's key and log point, read before `changed`.
Status WriteDelta(Corpus& corpus, const MappedFile& base_file, const Header& base, const std::vector<int64_t>& changed,
                  const std::string& content_key, const Corpus::LogPoint& at, const std::string& path);

// The hash of `corpus`'s corpus_id, which a log point belongs to.
Result<uint64_t> LogCorpus(Corpus& corpus);

}  // namespace umwelt::index_internal
