// Internal to index/: the on-disk layout of the keyword index (docs/CORPUS.md,
// "Keyword index"). Little-endian, every section 8-byte aligned, mapped
// read-only. A file whose magic, version or content key differs is rebuilt.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "umwelt/file.h"
#include "umwelt/status.h"

namespace umwelt::index_internal {

inline constexpr char kMagic[8] = {'U', 'M', 'W', 'K', 'W', 'I', 'D', 'X'};
// 3: a pull request's commits share one id; 4: stems, body and title apart
// (BM25F); 5: each term's highest score, for pruning; 6: compounds' joined
// forms ("z-loss" -> zloss); 7: each chunk's fingerprint, so a rebuild
// reuses the postings of the chunks that did not change, and no term
// without postings
inline constexpr uint32_t kFormatVersion = 7;

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

// Reads `file`'s header into `h` and checks its magic, version and that
// every section lies in the file at the size the header implies. Corrupt
// otherwise. The content key is the caller's to check.
Status ReadLayout(const MappedFile& file, const std::string& path, Header* h);

}  // namespace umwelt::index_internal
