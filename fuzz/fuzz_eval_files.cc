// libFuzzer target: evaluation inputs: a question file in the reference
// format (piece 0), and the three files of a SMART-format test collection
// (pieces 0-2: documents, queries, relevance judgements) read as Cranfield
// and as CISI.
#include <cstdint>
#include <string>

#include "harness.h"
#include "umwelt/eval.h"

UMWELT_FUZZ_JSON_MUTATOR()

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto pieces = umwelt::fuzz::Pieces(data, size);
  (void)umwelt::ParseQuestion(pieces[0], "questions/q.json");
  pieces.resize(3);
  (void)umwelt::ParseCranfield(pieces[0], pieces[1], pieces[2], "cranfield");
  (void)umwelt::ParseCisi(pieces[0], pieces[1], pieces[2], "cisi");
  return 0;
}
