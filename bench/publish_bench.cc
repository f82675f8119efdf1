// Publish benchmark (issue: Publish): a 30-section report with 300 links to
// chunks of a benchmark corpus (made by keyword_bench), rendered with cards
// and the citation check. Reports the median and worst of 10 runs.
//
//   publish_bench [--corpus /tmp/umwelt-bench/bench-221146.db]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <sqlite3.h>

#include "umwelt/corpus.h"
#include "umwelt/publish.h"

int main(int argc, char** argv) {
  std::string path = "/tmp/umwelt-bench/bench-221146.db";
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--corpus") path = argv[++i];
  }
  auto corpus = umwelt::Corpus::Open(path, umwelt::Corpus::Mode::kReadOnly);
  if (!corpus.ok()) {
    std::fprintf(stderr, "publish_bench: %s (build one with keyword_bench first)\n", corpus.status().message().c_str());
    return 1;
  }
  // 300 permalinks spread over the corpus.
  std::vector<std::string> urls;
  sqlite3_stmt* st;
  sqlite3_prepare_v2((*corpus)->raw_handle(), "SELECT url FROM chunks WHERE id % 701 = 0 LIMIT 300", -1, &st, nullptr);
  while (sqlite3_step(st) == SQLITE_ROW) urls.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
  sqlite3_finalize(st);
  if (urls.size() < 300) return std::fprintf(stderr, "publish_bench: corpus too small\n"), 1;
  std::string md = "---\nauthor: bench\nquestion: How fast is publishing?\n---\n# A 30-section report\n\n";
  size_t u = 0;
  for (int s = 0; s < 30; ++s) {
    md += "## Section " + std::to_string(s + 1) + "\n\n";
    for (int p = 0; p < 2; ++p) {
      md += "Throughput reached " + std::to_string(30 + s) + "% of peak";
      for (int l = 0; l < 5; ++l, ++u) md += " ([#" + std::to_string(u) + "](" + urls[u] + "))";
      md += ", measured on the second run, and held across restarts.\n\n";
    }
  }
  md += "<!--provenance-->\nQuery: \"bench\"\n";
  std::vector<double> ms;
  umwelt::PublishResult last;
  for (int i = 0; i < 10; ++i) {
    auto t = std::chrono::steady_clock::now();
    auto r = umwelt::Publish(md, {}, corpus->get());
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count());
    if (!r.ok()) return std::fprintf(stderr, "%s\n", r.status().message().c_str()), 1;
    last = std::move(r).value();
  }
  std::sort(ms.begin(), ms.end());
  std::printf("| publish: 30 sections, %d links (%d cards), %zu-byte page | median %.1f ms, worst %.1f ms |\n",
              last.links, last.cards, last.html.size(), ms[ms.size() / 2], ms.back());
  return last.has_errors() ? 1 : 0;
}
