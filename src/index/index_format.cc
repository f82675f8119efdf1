// Checks a keyword index file's layout (index_format.h).
#include "index_format.h"

#include <algorithm>
#include <cstring>

namespace umwelt::index_internal {

Status ReadLayout(const MappedFile& file, const std::string& path, Header* h) {
  if (file.size() < sizeof *h) return Status::Corrupt(path + ": shorter than a keyword index header");
  std::memcpy(h, file.data(), sizeof *h);
  if (std::memcmp(h->magic, kMagic, sizeof h->magic) != 0 || h->version != kFormatVersion) {
    return Status::Corrupt(path + ": not a keyword index of this version");
  }
  for (int i = 0; i < kNumSections; ++i) {
    if (h->offset[i] % 8 != 0 || h->offset[i] > file.size() || h->size[i] > file.size() - h->offset[i]) {
      return Status::Corrupt(path + ": section " + std::to_string(i) + " out of bounds");
    }
  }
  const uint64_t n = h->n_docs;
  bool ok = h->size[kChunkIds] == n * 8 && h->size[kLenBody] == n * 4 && h->size[kLenTitle] == n * 4 &&
            h->size[kLenSyms] == n * 4 && h->size[kSourceIds] == n && h->size[kKindIds] == n &&
            h->size[kDates] == n * 8 && h->size[kAuthorIds] == n * 4 && h->size[kUrlIds] == n * 4 &&
            h->size[kDocHashes] == n * 8 && h->size[kTermOffsets] == (uint64_t{h->n_terms} + 1) * 4 &&
            h->size[kTermPostings] == uint64_t{h->n_terms} * sizeof(TermEntry) &&
            h->size[kPostDocs] == h->n_postings * 4 && h->size[kPostTf] == h->n_postings * 2 &&
            h->size[kPostTitleTf] == h->n_postings && h->size[kUrlKeys] == uint64_t{h->n_urls} * 8 &&
            h->size[kMasked] % 4 == 0 && (h->base_hash != 0 || h->size[kMasked] == 0);
  const uint64_t n_str = uint64_t{h->n_sources} + h->n_kinds + h->n_authors;
  ok = ok && h->size[kStrOffsets] == (n_str + 1) * 4;
  if (!ok) return Status::Corrupt(path + ": section sizes disagree with the header");
  auto at = [&](int section) { return file.data() + h->offset[section]; };
  uint32_t end = 0;
  std::memcpy(&end, at(kTermOffsets) + uint64_t{h->n_terms} * 4, 4);
  if (end != h->size[kTermBlob]) return Status::Corrupt(path + ": term table");
  std::memcpy(&end, at(kStrOffsets) + n_str * 4, 4);
  if (end != h->size[kStrBlob]) return Status::Corrupt(path + ": string table");
  return Status::Ok();
}

const int64_t* LowerBoundDense(const int64_t* ids, size_t n, int64_t id) {
  if (n == 0 || id <= ids[0]) return ids;
  if (id > ids[n - 1]) return ids + n;
  // Now ids[0] < id <= ids[n - 1]: bracket it, ids[lo] < id <= ids[hi].
  const auto span = static_cast<unsigned __int128>(static_cast<uint64_t>(ids[n - 1]) - static_cast<uint64_t>(ids[0]));
  const auto from = static_cast<unsigned __int128>(static_cast<uint64_t>(id) - static_cast<uint64_t>(ids[0]));
  const auto guess = static_cast<size_t>(from * (n - 1) / span);
  size_t lo = 0, hi = n - 1;
  if (ids[guess] < id) {
    lo = guess;
    for (size_t step = 1;; step *= 2) {
      const size_t next = lo + step;
      if (next >= n - 1 || ids[next] >= id) {
        hi = std::min(next, n - 1);
        break;
      }
      lo = next;
    }
  } else {
    hi = guess;
    for (size_t step = 1;; step *= 2) {
      if (hi <= step || ids[hi - step] < id) {
        lo = hi > step ? hi - step : 0;
        break;
      }
      hi -= step;
    }
  }
  return std::lower_bound(ids + lo, ids + hi + 1, id);
}

}  // namespace umwelt::index_internal
