// The C interface of umwelt-fasttext.so (fasttext_module.cc), shared with its
// caller TrainBuiltin in builtin_embedder.cc.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

struct UmweltFastTextArgs {
  const char* input;  // a text file, one document a line
  int dim;
  int epoch;
  int min_count;
  int threads;
};

typedef void (*UmweltFastTextWord)(void* ctx, const char* word, size_t size, int64_t count, const float* vector, int dim);

// Trains skip-gram vectors on args->input and calls on_word once per word of
// the vocabulary with its count and vector. Returns 0, or -1 with the reason
// in err (NUL-terminated, cut to err_size).
int umwelt_fasttext_train(const UmweltFastTextArgs* args, void* ctx, UmweltFastTextWord on_word, char* err,
                          size_t err_size);
}
