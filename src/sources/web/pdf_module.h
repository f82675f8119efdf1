// The C interface of umwelt-pdf.so (pdf_module.cc), shared with its caller
// ParsePdf in extract.cc.
#pragma once

#include <cstddef>

extern "C" {

// Returned by umwelt_pdf_text instead of a page count.
enum : int { kUmweltPdfDamaged = -1, kUmweltPdfLocked = -2, kUmweltPdfTooLarge = -3 };

typedef void (*UmweltPdfText)(void* ctx, const char* text, size_t size);
typedef void (*UmweltPdfPage)(void* ctx, int page, const char* text, size_t size);

// Reads the PDF in data: calls on_title once with the document's Title (UTF-8,
// may be empty), then on_page for each page that could be read, numbered from
// 1. Returns the number of pages, or one of the negative codes above.
int umwelt_pdf_text(const char* data, size_t size, void* ctx, UmweltPdfText on_title, UmweltPdfPage on_page);
}
