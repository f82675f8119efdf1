// Builds the keyword index file from a corpus.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <vector>

#include <xxhash.h>

#include "bm25f.h"
#include "index_format.h"
#include "string_hash.h"
#include "umwelt/file.h"
#include "umwelt/parallel.h"
#include "umwelt/search.h"
#include "umwelt/source_traits.h"
#include "umwelt/text.h"

namespace umwelt {
namespace ii = index_internal;

namespace {

struct Posting {
  uint32_t doc;
  uint16_t tf;       // in the body (or, for an identifier part, in the symbols)
  uint8_t title_tf;  // in the title
};

// Names to dense ids.
class Interner {
 public:
  uint32_t Id(std::string_view s) {
    auto it = ids_.find(s);
    if (it != ids_.end()) return it->second;
    uint32_t id = static_cast<uint32_t>(names_.size());
    names_.emplace_back(s);
    ids_.emplace(names_.back(), id);
    return id;
  }
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::unordered_map<std::string, uint32_t, StringHash, std::equal_to<>> ids_;
  std::vector<std::string> names_;
};

// A term's postings in document order, compact while the index is built (a
// 10M-chunk corpus has ~600M of them; as Posting they took 8 bytes each plus
// the vectors' slack): each is the varint gap from the previous document,
// the varint of tf·2 + (title tf > 0), and the title tf when there is one.
class PostingList {
 public:
  // REQUIRES: p.doc above the last posting's.
  void Add(const Posting& p) {
    Varint(p.doc - last_);
    Varint(uint32_t{p.tf} << 1 | (p.title_tf > 0));
    if (p.title_tf > 0) bytes_.push_back(p.title_tf);
    last_ = p.doc;
    ++n_;
  }
  uint32_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  // Calls visit(const Posting&) for each posting, in document order.
  template <typename Visit>
  void ForEach(Visit&& visit) const {
    const uint8_t* p = bytes_.data();
    Posting x{0, 0, 0};
    for (uint32_t i = 0; i < n_; ++i) {
      x.doc += Read(p);
      uint32_t tf = Read(p);
      x.tf = static_cast<uint16_t>(tf >> 1);
      x.title_tf = (tf & 1) ? *p++ : uint8_t{0};
      visit(static_cast<const Posting&>(x));
    }
  }
  std::vector<Posting> Decode() const {
    std::vector<Posting> out;
    out.reserve(n_);
    ForEach([&](const Posting& p) { out.push_back(p); });
    return out;
  }

 private:
  void Varint(uint32_t v) {
    for (; v >= 128; v >>= 7) bytes_.push_back(static_cast<uint8_t>(v | 128));
    bytes_.push_back(static_cast<uint8_t>(v));
  }
  static uint32_t Read(const uint8_t*& p) {
    uint32_t v = 0;
    for (int shift = 0;; shift += 7) {
      const uint8_t b = *p++;
      v |= uint32_t{b & 127u} << shift;
      if (b < 128) return v;
    }
  }
  std::vector<uint8_t> bytes_;
  uint32_t n_ = 0;
  uint32_t last_ = 0;
};

struct TermPostings {
  PostingList exact, syms;
};

uint16_t Saturate(uint32_t tf) { return static_cast<uint16_t>(std::min<uint32_t>(65535, tf)); }
uint8_t SaturateTitle(uint32_t tf) { return static_cast<uint8_t>(std::min<uint32_t>(255, tf)); }

class Writer {
 public:
  explicit Writer(int fd) : fd_(fd) {}
  Status Put(const void* data, size_t n) {
    const char* p = static_cast<const char*>(data);
    while (n > 0) {
      ssize_t w = ::write(fd_, p, n);
      if (w < 0) return Status::Io(std::string("writing keyword index: ") + std::strerror(errno));
      p += w;
      n -= static_cast<size_t>(w);
      pos_ += static_cast<uint64_t>(w);
    }
    return Status::Ok();
  }
  Status Align() {
    static const char zeros[8] = {};
    size_t pad = (8 - pos_ % 8) % 8;
    return pad ? Put(zeros, pad) : Status::Ok();
  }
  uint64_t pos() const { return pos_; }

 private:
  int fd_;
  uint64_t pos_ = 0;
};

// What one hit stands for: its url (a record's parts share it), or, for the
// commits of one pull request, their thread — search returns the PR once,
// by its best commit.
uint64_t HitKey(const Corpus::IndexRow& r) {
  if (LandedThrough(r.source, r.kind, r.parent)) return XXH3_64bits(r.parent.data(), r.parent.size()) ^ 0x5bd1e9955bd1e995ull;
  if (r.url.empty()) return XXH3_64bits(&r.id, sizeof r.id) ^ 0x9e3779b97f4a7c15ull;
  return XXH3_64bits(r.url.data(), r.url.size());
}

// A chunk's indexed fields, fingerprinted: a chunk whose fingerprint and id
// match the previous index's has the postings it had there.
uint64_t DocHash(const Corpus::IndexRow& r) {
  uint64_t h = 0x2545f4914f6cdd1dull;
  for (std::string_view f : {r.source, r.kind, r.author, r.date, r.url, r.title, r.text, r.syms, r.parent}) {
    h = XXH3_64bits_withSeed(f.empty() ? "" : f.data(), f.size(), h);
  }
  return h;
}

// The previous index file, read for the postings of its unchanged chunks.
class Base {
 public:
  // Null when `path` holds no index of this version.
  static std::unique_ptr<Base> Open(const std::string& path) {
    auto file = MappedFile::Open(path, sizeof(ii::Header));
    if (!file.ok()) return nullptr;
    std::unique_ptr<Base> b(new Base());
    b->file_ = std::move(file).value();
    if (!ii::ReadLayout(*b->file_, path, &b->h_).ok()) return nullptr;
    return b;
  }
  const ii::Header& header() const { return h_; }
  uint32_t n_docs() const { return h_.n_docs; }
  uint32_t n_terms() const { return h_.n_terms; }
  template <typename T>
  const T* Sec(int id) const {
    return ii::SectionOf<T>(*file_, h_, id);
  }
  std::string_view Term(uint32_t i) const { return ii::TermAt(*file_, h_, i); }

 private:
  Base() = default;
  std::unique_ptr<MappedFile> file_;
  ii::Header h_{};
};

}  // namespace

namespace {

// Every chunk's tokens, lengths and filter values, and each term's postings.
struct Collected {
  std::vector<int64_t> chunk_ids;
  std::vector<uint32_t> len_body, len_title, len_syms, author_ids, url_ids;
  std::vector<uint8_t> source_ids, kind_ids;
  std::vector<int64_t> dates;
  Interner terms, sources, kinds, authors;
  std::unordered_map<uint64_t, uint32_t> url_hash_ids;
  std::vector<uint64_t> url_keys;  // url id -> its HitKey
  std::vector<uint64_t> doc_hashes;
  std::vector<TermPostings> postings;
  size_t reused = 0;  // chunks whose postings came from the base
};

constexpr uint32_t kNoDoc = std::numeric_limits<uint32_t>::max();

// Adds the postings `base` holds for the documents it lends (`lent`: its
// document -> ours, kNoDoc for one not lent) to `c`'s, which hold the
// tokenized documents', each list kept in document order. Corrupt when the
// base's postings are out of range or out of order: it is then not used.
Status Lend(const Base& base, const std::vector<uint32_t>& lent, Collected* c) {
  const auto* entries = base.Sec<ii::TermEntry>(ii::kTermPostings);
  const uint32_t* docs = base.Sec<uint32_t>(ii::kPostDocs);
  const uint16_t* tfs = base.Sec<uint16_t>(ii::kPostTf);
  const uint8_t* title_tfs = base.Sec<uint8_t>(ii::kPostTitleTf);
  std::vector<Posting> exact, syms, merged;
  auto take = [&](uint64_t off, uint32_t n, bool title, std::vector<Posting>* out) -> bool {
    out->clear();
    int64_t last = -1;
    for (uint64_t i = off; i < off + n; ++i) {
      uint32_t d = docs[i];
      if (d >= lent.size() || static_cast<int64_t>(d) <= last) return false;
      last = d;
      if (lent[d] != kNoDoc) out->push_back({lent[d], tfs[i], title ? title_tfs[i] : uint8_t{0}});
    }
    return true;
  };
  auto add = [&](const std::vector<Posting>& from, PostingList* into) {
    if (from.empty()) return;
    merged.clear();
    std::vector<Posting> had = into->Decode();
    std::merge(had.begin(), had.end(), from.begin(), from.end(), std::back_inserter(merged),
               [](const Posting& a, const Posting& b) { return a.doc < b.doc; });
    *into = PostingList();
    for (const Posting& p : merged) into->Add(p);
  };
  for (uint32_t t = 0; t < base.n_terms(); ++t) {
    const ii::TermEntry& e = entries[t];
    if (!ii::InBounds(base.header(), e) || !take(e.exact_off, e.exact_n, true, &exact) ||
        !take(e.syms_off, e.syms_n, false, &syms)) {
      return Status::Corrupt("keyword index: the previous file's postings are out of range or order");
    }
    if (exact.empty() && syms.empty()) continue;
    std::string_view term = base.Term(t);
    if (term.empty()) return Status::Corrupt("keyword index: the previous file's term table is damaged");
    uint32_t id = c->terms.Id(term);
    if (id >= c->postings.size()) c->postings.resize(id + 1);
    add(exact, &c->postings[id].exact);
    add(syms, &c->postings[id].syms);
  }
  return Status::Ok();
}

// The chunks a file indexes, visited in id order.
using Rows = std::function<Status(const std::function<void(const Corpus::IndexRow&)>&)>;

// The terms of a batch of chunks, each chunk's stems with their body and
// title counts and its identifier parts (as spelled) with theirs, found by
// threads of its own while the caller goes on (Collect reads the next batch
// and files the last); the caller's thread joins in when it needs the batch.
class Tokenizer {
 public:
  struct Doc {
    std::vector<std::pair<std::string, std::pair<uint32_t, uint32_t>>> exact;
    std::vector<std::pair<std::string, uint32_t>> syms;
    uint32_t len_body = 0, len_title = 0, len_syms = 0;
  };
  struct Batch {
    std::vector<uint32_t> docs;
    std::vector<std::string> titles, texts, syms;
    std::vector<Doc> out;
    void Clear() {
      docs.clear(), titles.clear(), texts.clear(), syms.clear(), out.clear();
    }
  };

  // Up to `threads` threads tokenize a batch: the ones Start makes, and the
  // caller's, which joins them in Finish.
  explicit Tokenizer(unsigned threads) : state_(std::max(1U, threads)) {}
  ~Tokenizer() { Finish(); }

  // Starts tokenizing `b`'s chunks into b->out on threads of its own.
  void Start(Batch* b) {
    batch_ = b;
    b->out.assign(b->docs.size(), Doc());
    next_ = 0;
    for (unsigned w = 1; w < state_.size(); ++w) {
      try {
        threads_.emplace_back([this, w] { Work(w); });
      } catch (const std::system_error&) {
        break;  // the others (this one at least, in Finish) take its share
      }
    }
  }
  // Tokenizes what is left of the batch here, then waits for the threads.
  void Finish() {
    if (!batch_) return;
    Work(0);
    for (auto& t : threads_) t.join();
    threads_.clear();
    batch_ = nullptr;
  }

 private:
  void Work(unsigned w) {
    Batch& b = *batch_;
    constexpr size_t kStep = 32;
    for (size_t begin; (begin = next_.fetch_add(kStep)) < b.docs.size();) {
      for (size_t i = begin; i < std::min(b.docs.size(), begin + kStep); ++i) {
        state_[w].Tokenize(b.titles[i], b.texts[i], b.syms[i], &b.out[i]);
      }
    }
  }

  // One worker's buffers and stems, kept from chunk to chunk. A chunk's
  // words are counted by sorting them (no table per chunk), each distinct
  // word is stemmed once, and the stems' counts are merged the same way.
  struct State {
    std::vector<std::pair<std::string, bool>> words;  // and whether in the title
    std::vector<std::pair<std::string_view, std::pair<uint32_t, uint32_t>>> stems;
    std::vector<std::string> symbols;
    std::unordered_map<std::string, std::string, StringHash, std::equal_to<>> stem_of;  // bounded

    uint32_t Add(std::string_view text, bool title) {
      std::vector<std::string> tokens = umwelt::Tokenize(text);
      for (auto& t : tokens) words.emplace_back(std::move(t), title);
      // A compound's joined form ("z-loss" -> zloss) beside its parts; the
      // length counts the words as written.
      for (auto& t : CompoundTerms(text)) words.emplace_back(std::move(t), title);
      for (auto& t : GlobbedNames(text)) words.emplace_back(std::move(t), title);  // "[GS]etFoo": getfoo, setfoo
      return static_cast<uint32_t>(tokens.size());
    }
    const std::string& Stem(const std::string& word) {
      auto it = stem_of.find(word);
      if (it != stem_of.end()) return it->second;
      return stem_of.emplace(word, StemWord(word)).first->second;
    }
    void Tokenize(std::string_view title, std::string_view text, std::string_view syms, Doc* d) {
      if (stem_of.size() >= (size_t{1} << 18)) stem_of.clear();  // not within a chunk: `stems` views it
      words.clear();
      stems.clear();
      d->len_body = Add(text, false);
      d->len_title = Add(title, true);
      std::sort(words.begin(), words.end());
      for (size_t i = 0, j; i < words.size(); i = j) {
        uint32_t n[2] = {0, 0};
        for (j = i; j < words.size() && words[j].first == words[i].first; ++j) ++n[words[j].second];
        stems.push_back({Stem(words[i].first), {n[0], n[1]}});
      }
      std::sort(stems.begin(), stems.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      for (size_t i = 0, j; i < stems.size(); i = j) {
        std::pair<uint32_t, uint32_t> tf{0, 0};
        for (j = i; j < stems.size() && stems[j].first == stems[i].first; ++j) {
          tf.first += stems[j].second.first;
          tf.second += stems[j].second.second;
        }
        d->exact.emplace_back(std::string(stems[i].first), tf);
      }
      symbols = umwelt::Tokenize(syms);
      d->len_syms = static_cast<uint32_t>(symbols.size());
      std::sort(symbols.begin(), symbols.end());
      for (size_t i = 0, j; i < symbols.size(); i = j) {
        for (j = i; j < symbols.size() && symbols[j] == symbols[i];) ++j;
        d->syms.emplace_back(std::move(symbols[i]), static_cast<uint32_t>(j - i));
      }
    }
  };
  std::vector<State> state_;
  Batch* batch_ = nullptr;
  std::atomic<size_t> next_{0};
  std::vector<std::thread> threads_;
};

// Reads the chunks of `rows` into `out`: their filter values, lengths and
// postings, tokenized, or lent by `base` when it holds the chunk unchanged.
Status Collect(const Rows& rows, const Base* base, Collected* out) {
  auto& chunk_ids = out->chunk_ids;
  auto& len_body = out->len_body;
  auto& len_title = out->len_title;
  auto& len_syms = out->len_syms;
  auto& terms = out->terms;
  auto& postings = out->postings;

  // Chunks are tokenized a batch at a time on the other cores while this
  // thread reads the next batch and files the last; then it lends a hand.
  constexpr size_t kBatch = 4096;
  Tokenizer::Batch filling, running;
  Tokenizer tokenizer(Workers());
  auto postings_of = [&](std::string_view term) -> TermPostings& {
    uint32_t t = terms.Id(term);
    if (t >= postings.size()) postings.resize(t + 1);
    return postings[t];
  };
  auto file = [&](Tokenizer::Batch& b) {  // the postings of a tokenized batch
    for (size_t i = 0; i < b.docs.size(); ++i) {
      const uint32_t doc = b.docs[i];
      const Tokenizer::Doc& d = b.out[i];
      len_body[doc] = d.len_body;
      len_title[doc] = d.len_title;
      len_syms[doc] = d.len_syms;
      for (auto& [stem, tf] : d.exact) postings_of(stem).exact.Add({doc, Saturate(tf.first), SaturateTitle(tf.second)});
      for (auto& [word, tf] : d.syms) postings_of(word).syms.Add({doc, Saturate(tf), 0});
    }
    b.Clear();
  };
  auto flush = [&] {  // finishes and files the batch in flight; starts `filling`
    tokenizer.Finish();
    std::swap(filling, running);
    if (!running.docs.empty()) tokenizer.Start(&running);
    file(filling);
  };

  // The base's document of each chunk it holds unchanged.
  std::vector<uint32_t> lent(base ? base->n_docs() : 0, kNoDoc);
  const int64_t* base_ids = base ? base->Sec<int64_t>(ii::kChunkIds) : nullptr;
  const uint64_t* base_hashes = base ? base->Sec<uint64_t>(ii::kDocHashes) : nullptr;
  uint32_t next_base = 0;
  // The chunk's base document when the base holds it unchanged, else kNoDoc.
  auto in_base = [&](const Corpus::IndexRow& r, uint64_t hash) {
    while (next_base < lent.size() && base_ids[next_base] < r.id) ++next_base;
    bool same = next_base < lent.size() && base_ids[next_base] == r.id && base_hashes[next_base] == hash;
    return same ? next_base : kNoDoc;
  };

  Status s = rows([&](const Corpus::IndexRow& r) {
    uint32_t doc = static_cast<uint32_t>(chunk_ids.size());
    chunk_ids.push_back(r.id);
    uint64_t hash = DocHash(r);
    out->doc_hashes.push_back(hash);
    if (uint32_t from = in_base(r, hash); from != kNoDoc) {
      lent[from] = doc;
      ++out->reused;
      len_body.push_back(base->Sec<uint32_t>(ii::kLenBody)[from]);
      len_title.push_back(base->Sec<uint32_t>(ii::kLenTitle)[from]);
      len_syms.push_back(base->Sec<uint32_t>(ii::kLenSyms)[from]);
    } else {  // filled in when its batch is filed
      len_body.push_back(0);
      len_title.push_back(0);
      len_syms.push_back(0);
      filling.docs.push_back(doc);
      filling.titles.emplace_back(r.title);
      filling.texts.emplace_back(r.text);
      filling.syms.emplace_back(r.syms);
      if (filling.docs.size() == kBatch) flush();
    }
    out->source_ids.push_back(static_cast<uint8_t>(std::min<uint32_t>(255, out->sources.Id(r.source))));
    out->kind_ids.push_back(static_cast<uint8_t>(std::min<uint32_t>(255, out->kinds.Id(r.kind))));
    auto t = ParseIsoTime(r.date);
    out->dates.push_back(t ? *t : std::numeric_limits<int64_t>::min());
    out->author_ids.push_back(out->authors.Id(r.author));
    auto [it, fresh] = out->url_hash_ids.emplace(HitKey(r), static_cast<uint32_t>(out->url_hash_ids.size()));
    if (fresh) out->url_keys.push_back(it->first);
    out->url_ids.push_back(it->second);
  });
  flush();  // the last batch started, the one before it filed
  flush();  // the last filed
  UMWELT_RETURN_IF_ERROR(s);
  if (base) UMWELT_RETURN_IF_ERROR(Lend(*base, lent, out));
  postings.resize(terms.names().size());
  return Status::Ok();
}

// The term dictionary in sorted order (lookups binary-search it) and each
// term's entry, its postings' places counted as if laid end to end (they
// stay in `postings` until written, a field at a time: WritePostings). A
// term without postings (a word's unstemmed form, a word of a chunk since
// removed) is left out.
struct TermTables {
  std::vector<uint32_t> term_off;
  std::string blob;
  std::vector<ii::TermEntry> entries;
  std::vector<uint32_t> ids;  // each entry's term
  uint64_t n_postings = 0;
};

// The highest weight-1 score of a list's postings under the default scoring.
float MaxScore(const PostingList& list, bool title, const ii::Fields& f) {
  float best = 0;
  list.ForEach([&](const Posting& p) {
    const uint16_t tf = p.tf;
    const uint8_t title_tf = p.title_tf;
    ii::Channel c{&p.doc, &tf, title ? &title_tf : nullptr, 1, 1.0};
    best = std::max(best, ii::TermScore(c, f, 0, p.doc));
  });
  return best;
}

TermTables Terms(const std::vector<std::string>& names, const std::vector<TermPostings>& postings,
                 const ii::Fields& text, const ii::Fields& syms) {
  std::vector<uint32_t> order(names.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return names[a] < names[b]; });
  TermTables t;
  for (uint32_t id : order) {
    const auto& [exact, symbols] = postings[id];
    if (exact.empty() && symbols.empty()) continue;
    t.term_off.push_back(static_cast<uint32_t>(t.blob.size()));
    t.blob += names[id];
    ii::TermEntry e{};
    e.exact_off = t.n_postings;
    e.exact_n = static_cast<uint32_t>(exact.size());
    e.exact_max = MaxScore(exact, true, text);
    e.syms_max = MaxScore(symbols, false, syms);
    e.syms_off = e.exact_off + e.exact_n;
    e.syms_n = static_cast<uint32_t>(symbols.size());
    t.n_postings = e.syms_off + e.syms_n;
    t.entries.push_back(e);
    t.ids.push_back(id);
  }
  t.term_off.push_back(static_cast<uint32_t>(t.blob.size()));
  return t;
}

// Writes one field of every posting (`field` of a posting and whether it is
// of the symbols), term by term in the entries' order, through a buffer: the
// postings are never copied whole.
template <typename T, typename Field>
Status WritePostings(Writer& w, const TermTables& t, const std::vector<TermPostings>& postings, Field field) {
  std::vector<T> buf;
  buf.reserve((size_t{1} << 20) / sizeof(T));
  Status status;
  auto put = [&](const PostingList& list, bool symbols) {
    list.ForEach([&](const Posting& p) {
      buf.push_back(field(p, symbols));
      if (buf.size() == buf.capacity()) {
        if (status.ok()) status = w.Put(buf.data(), buf.size() * sizeof(T));
        buf.clear();
      }
    });
    return status;
  };
  for (uint32_t id : t.ids) {
    UMWELT_RETURN_IF_ERROR(put(postings[id].exact, false));
    UMWELT_RETURN_IF_ERROR(put(postings[id].syms, true));
  }
  return w.Put(buf.data(), buf.size() * sizeof(T));
}

ii::Header HeaderFor(const Collected& c, const std::string& content_key,
                     const std::optional<Corpus::LogPoint>& log, uint64_t log_corpus) {
  ii::Header h{};
  std::memcpy(h.magic, ii::kMagic, sizeof h.magic);
  h.version = ii::kFormatVersion;
  h.n_docs = static_cast<uint32_t>(c.chunk_ids.size());
  h.content_hash = XXH3_64bits(content_key.data(), content_key.size());
  h.n_sources = static_cast<uint32_t>(c.sources.names().size());
  h.n_kinds = static_cast<uint32_t>(c.kinds.names().size());
  h.n_authors = static_cast<uint32_t>(c.authors.names().size());
  auto average = [&](const std::vector<uint32_t>& lens) {
    double sum = 0;
    for (auto v : lens) sum += v;
    return h.n_docs ? std::max(1.0, sum / h.n_docs) : 1.0;
  };
  h.avg_len_body = average(c.len_body);
  h.avg_len_title = average(c.len_title);
  h.avg_len_syms = average(c.len_syms);
  h.n_urls = static_cast<uint32_t>(c.url_keys.size());
  h.has_log = log.has_value();
  h.log_seq = log ? log->seq : 0;
  h.log_id = log ? log->id : 0;
  h.log_corpus = log_corpus;
  return h;
}

// Writes the index file's sections after `h`, filling in its section table.
Status WriteSections(Writer& w, ii::Header& h, Collected& c, const std::vector<uint32_t>& masked) {
  UMWELT_RETURN_IF_ERROR(w.Put(&h, sizeof h));
  auto section = [&](int id, const void* data, size_t bytes) -> Status {
    UMWELT_RETURN_IF_ERROR(w.Align());
    h.offset[id] = w.pos();
    h.size[id] = bytes;
    return bytes ? w.Put(data, bytes) : Status::Ok();
  };
  auto vec = [&](int id, const auto& v) { return section(id, v.data(), v.size() * sizeof(v[0])); };
  UMWELT_RETURN_IF_ERROR(vec(ii::kChunkIds, c.chunk_ids));
  UMWELT_RETURN_IF_ERROR(vec(ii::kLenBody, c.len_body));
  UMWELT_RETURN_IF_ERROR(vec(ii::kLenTitle, c.len_title));
  UMWELT_RETURN_IF_ERROR(vec(ii::kLenSyms, c.len_syms));
  UMWELT_RETURN_IF_ERROR(vec(ii::kSourceIds, c.source_ids));
  UMWELT_RETURN_IF_ERROR(vec(ii::kKindIds, c.kind_ids));
  UMWELT_RETURN_IF_ERROR(vec(ii::kDates, c.dates));
  UMWELT_RETURN_IF_ERROR(vec(ii::kAuthorIds, c.author_ids));
  UMWELT_RETURN_IF_ERROR(vec(ii::kUrlIds, c.url_ids));
  UMWELT_RETURN_IF_ERROR(vec(ii::kDocHashes, c.doc_hashes));
  UMWELT_RETURN_IF_ERROR(vec(ii::kUrlKeys, c.url_keys));
  UMWELT_RETURN_IF_ERROR(vec(ii::kMasked, masked));
  // Terms, their entries, and postings.
  const KeywordTuning defaults;
  const ii::Fields text{c.len_body.data(), c.len_title.data(), h.avg_len_body, h.avg_len_title, &defaults};
  const ii::Fields syms{c.len_syms.data(), nullptr, h.avg_len_syms, 1, &defaults};
  TermTables t = Terms(c.terms.names(), c.postings, text, syms);
  h.n_terms = static_cast<uint32_t>(t.entries.size());
  h.n_postings = t.n_postings;
  UMWELT_RETURN_IF_ERROR(vec(ii::kTermOffsets, t.term_off));
  UMWELT_RETURN_IF_ERROR(section(ii::kTermBlob, t.blob.data(), t.blob.size()));
  UMWELT_RETURN_IF_ERROR(vec(ii::kTermPostings, t.entries));
  auto postings = [&](int id, size_t width, const auto& write) -> Status {
    UMWELT_RETURN_IF_ERROR(w.Align());
    h.offset[id] = w.pos();
    h.size[id] = t.n_postings * width;
    return write();
  };
  UMWELT_RETURN_IF_ERROR(postings(ii::kPostDocs, 4, [&] {
    return WritePostings<uint32_t>(w, t, c.postings, [](const Posting& p, bool) { return p.doc; });
  }));
  UMWELT_RETURN_IF_ERROR(postings(ii::kPostTf, 2, [&] {
    return WritePostings<uint16_t>(w, t, c.postings, [](const Posting& p, bool) { return p.tf; });
  }));
  UMWELT_RETURN_IF_ERROR(postings(ii::kPostTitleTf, 1, [&] {
    return WritePostings<uint8_t>(w, t, c.postings,
                                  [](const Posting& p, bool symbols) { return symbols ? uint8_t{0} : p.title_tf; });
  }));
  std::vector<TermPostings>().swap(c.postings);
  std::vector<uint32_t> str_off;
  std::string str_blob;
  for (const auto* list : {&c.sources.names(), &c.kinds.names(), &c.authors.names()}) {
    for (const auto& n : *list) {
      str_off.push_back(static_cast<uint32_t>(str_blob.size()));
      str_blob += n;
    }
  }
  str_off.push_back(static_cast<uint32_t>(str_blob.size()));
  UMWELT_RETURN_IF_ERROR(vec(ii::kStrOffsets, str_off));
  return section(ii::kStrBlob, str_blob.data(), str_blob.size());
}

}  // namespace

namespace {

// Writes `c` (and, for a delta, the base documents it masks) to `path`,
// atomically.
Status WriteIndexFile(const std::string& path, ii::Header h, Collected& c, const std::vector<uint32_t>& masked) {
  std::string tmp = TempPathFor(path);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return Status::Io(tmp + ": " + std::strerror(errno));
  auto fail = [&](Status st) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return st;
  };
  Writer w(fd);
  if (Status st = WriteSections(w, h, c, masked); !st.ok()) return fail(st);
  // Rewrite the header with the section table filled in.
  if (::pwrite(fd, &h, sizeof h, 0) != static_cast<ssize_t>(sizeof h) || ::fsync(fd) != 0) {
    return fail(Status::Io(tmp + ": " + std::strerror(errno)));
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return Status::Io(path + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

}  // namespace

Status KeywordIndex::Build(Corpus& corpus, const std::string& path, BuildReport* report) {
  // The key and the log's point before the rows: a write committed in
  // between makes the file stale (rebuilt) or is indexed twice (harmless).
  UMWELT_ASSIGN_OR_RETURN(std::string key, corpus.ContentKey());
  UMWELT_ASSIGN_OR_RETURN(auto log, corpus.ChangeLogPoint());
  UMWELT_ASSIGN_OR_RETURN(uint64_t log_corpus, ii::LogCorpus(corpus));
  Rows all = [&corpus](const auto& visit) { return corpus.ForEachChunk(visit); };
  Collected c;
  std::unique_ptr<Base> base = Base::Open(path);
  Status collected = Collect(all, base.get(), &c);
  if (collected.code() == Code::kCorrupt && base) {  // a damaged base: from nothing
    c = Collected();
    collected = Collect(all, nullptr, &c);
  }
  UMWELT_RETURN_IF_ERROR(collected);
  if (report) *report = {c.chunk_ids.size(), c.reused};
  return WriteIndexFile(path, HeaderFor(c, key, log, log_corpus), c, {});
}

namespace index_internal {

Result<uint64_t> LogCorpus(Corpus& corpus) {
  UMWELT_ASSIGN_OR_RETURN(std::string id, corpus.GetMeta("corpus_id"));
  return XXH3_64bits(id.data(), id.size());
}

Status WriteDelta(Corpus& corpus, const MappedFile& base_file, const Header& base, const std::vector<int64_t>& changed,
                  const std::string& content_key, const Corpus::LogPoint& at, const std::string& path) {
  Rows rows = [&](const auto& visit) { return corpus.ForEachChunkIn(changed, visit); };
  // The delta this one replaces lends the chunks it holds unchanged: each
  // write tokenizes only what it changed.
  std::unique_ptr<Base> previous = Base::Open(path);
  if (previous && previous->header().base_hash != base.content_hash) previous.reset();
  Collected c;
  Status collected = Collect(rows, previous.get(), &c);
  if (collected.code() == Code::kCorrupt && previous) {
    c = Collected();
    collected = Collect(rows, nullptr, &c);
  }
  UMWELT_RETURN_IF_ERROR(collected);
  // Every changed chunk the base holds is masked there: deleted, or
  // replaced by its row here.
  const int64_t* ids = SectionOf<int64_t>(base_file, base, kChunkIds);
  std::vector<uint32_t> masked;
  for (int64_t id : changed) {
    const int64_t* it = LowerBoundDense(ids, base.n_docs, id);
    if (it != ids + base.n_docs && *it == id) masked.push_back(static_cast<uint32_t>(it - ids));
  }
  Header h = HeaderFor(c, content_key, at, base.log_corpus);
  h.base_hash = base.content_hash;
  // Scored with the base's lengths, so both files' scores (and this one's
  // stored maxima) are on one scale.
  h.avg_len_body = base.avg_len_body;
  h.avg_len_title = base.avg_len_title;
  h.avg_len_syms = base.avg_len_syms;
  return WriteIndexFile(path, h, c, masked);
}

}  // namespace index_internal

}  // namespace umwelt
