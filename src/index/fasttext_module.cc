// umwelt-fasttext.so: fastText training behind a C entry point, loaded by
// TrainBuiltin when a builtin space is trained (umwelt/dynlib.h), so that
// searching never loads it. Links nothing of umwelt's.
#include <fasttext/fasttext.h>

#include <algorithm>
#include <cstring>
#include <exception>

#include "fasttext_module.h"

extern "C" __attribute__((visibility("default"))) int umwelt_fasttext_train(const UmweltFastTextArgs* a, void* ctx,
                                                                            UmweltFastTextWord on_word, char* err,
                                                                            size_t err_size) {
  try {
    fasttext::FastText ft;
    fasttext::Args args;
    args.input = a->input;
    args.model = fasttext::model_name::sg;  // skip-gram: CBOW measured far worse on Cranfield and CISI
    args.loss = fasttext::loss_name::ns;
    args.dim = a->dim;
    args.epoch = a->epoch;
    args.minCount = a->min_count;
    args.thread = std::max(1, a->threads);
    args.bucket = 200000;
    // No character n-grams: query words are looked up in the trained
    // vocabulary only, and n-grams make training an order of magnitude slower.
    args.minn = 0;
    args.maxn = 0;
    args.lr = 0.05;
    args.verbose = 0;
    ft.train(args);
    auto dict = ft.getDictionary();
    const int dim = ft.getDimension();
    std::vector<int64_t> counts = dict->getCounts(fasttext::entry_type::word);
    fasttext::Vector wv(dim);
    for (int32_t i = 0; i < dict->nwords(); ++i) {
      const std::string& w = dict->getWord(i);
      ft.getWordVector(wv, w);
      on_word(ctx, w.data(), w.size(), counts[static_cast<size_t>(i)], wv.data(), dim);
    }
    return 0;
  } catch (const std::exception& e) {
    if (err_size > 0) {
      std::strncpy(err, e.what(), err_size - 1);
      err[err_size - 1] = '\0';
    }
    return -1;
  }
}
