// umwelt-pdf.so: poppler behind a C entry point, loaded by ParsePdf on the
// first PDF (umwelt/dynlib.h). poppler brings fonts, images, colour
// management and NSS with it, some twenty libraries no other verb needs.
// Links nothing of umwelt's: the text it hands back is checked by the caller.
#include <poppler/cpp/poppler-document.h>
#include <poppler/cpp/poppler-global.h>
#include <poppler/cpp/poppler-page.h>

#include <climits>
#include <cstddef>
#include <memory>
#include <mutex>

#include "pdf_module.h"

extern "C" __attribute__((visibility("default"))) int umwelt_pdf_text(const char* data, size_t size, void* ctx, UmweltPdfText on_title,
                               UmweltPdfPage on_page) {
  static std::once_flag quiet;
  std::call_once(quiet, [] { poppler::set_debug_error_function([](const std::string&, void*) {}, nullptr); });
  if (size > static_cast<size_t>(INT_MAX)) return kUmweltPdfTooLarge;
  try {
    std::unique_ptr<poppler::document> doc(poppler::document::load_from_raw_data(data, static_cast<int>(size)));
    if (!doc) return kUmweltPdfDamaged;
    if (doc->is_locked()) return kUmweltPdfLocked;
    auto title = doc->info_key("Title").to_utf8();
    on_title(ctx, title.data(), title.size());
    int pages = doc->pages();
    for (int i = 0; i < pages; ++i) {
      std::unique_ptr<poppler::page> p(doc->create_page(i));
      if (!p) continue;
      auto t = p->text().to_utf8();
      on_page(ctx, i + 1, t.data(), t.size());
    }
    return pages;
  } catch (...) {
    return kUmweltPdfDamaged;
  }
}
