// HTML (gumbo) and PDF (poppler) to sections of text.
#include <gumbo.h>

#include <climits>
#include <cstdint>
#include <memory>

#include "pdf_module.h"
#include "umwelt/dynlib.h"
#include "umwelt/text.h"
#include "umwelt/web.h"

namespace umwelt::web {
namespace {

bool Skipped(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_SCRIPT:
    case GUMBO_TAG_STYLE:
    case GUMBO_TAG_NOSCRIPT:
    case GUMBO_TAG_NAV:
    case GUMBO_TAG_HEADER:
    case GUMBO_TAG_FOOTER:
    case GUMBO_TAG_ASIDE:
    case GUMBO_TAG_FORM:
    case GUMBO_TAG_SVG:
    case GUMBO_TAG_IFRAME:
    case GUMBO_TAG_TEMPLATE:
    case GUMBO_TAG_BUTTON:
    case GUMBO_TAG_SELECT:
    case GUMBO_TAG_HEAD:
      return true;
    default:
      return false;
  }
}

bool Block(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_P:
    case GUMBO_TAG_DIV:
    case GUMBO_TAG_LI:
    case GUMBO_TAG_BR:
    case GUMBO_TAG_TR:
    case GUMBO_TAG_PRE:
    case GUMBO_TAG_BLOCKQUOTE:
    case GUMBO_TAG_SECTION:
    case GUMBO_TAG_TABLE:
    case GUMBO_TAG_UL:
    case GUMBO_TAG_OL:
    case GUMBO_TAG_DT:
    case GUMBO_TAG_DD:
    case GUMBO_TAG_FIGCAPTION:
    case GUMBO_TAG_H4:
    case GUMBO_TAG_H5:
    case GUMBO_TAG_H6:
      return true;
    default:
      return false;
  }
}

bool Heading(GumboTag tag) { return tag == GUMBO_TAG_H1 || tag == GUMBO_TAG_H2 || tag == GUMBO_TAG_H3; }

// Boilerplate by its role, id or class: menus, cookie banners, sidebars.
bool Boilerplate(const GumboElement& e) {
  for (const char* attr : {"role", "id", "class"}) {
    const GumboAttribute* a = gumbo_get_attribute(&e.attributes, attr);
    if (!a) continue;
    std::string v = ToLower(a->value);
    if (std::string_view(attr) == "role" && (v == "navigation" || v == "banner" || v == "contentinfo")) return true;
    if (std::string_view(attr) == "role") continue;
    for (const char* word : {"cookie", "sidebar", "navbar", "menu", "breadcrumb", "footer", "skip-link"}) {
      if (v.find(word) != std::string::npos) return true;
    }
  }
  return false;
}

const GumboNode* Find(const GumboNode* n, GumboTag tag) {
  if (n->type != GUMBO_NODE_ELEMENT) return nullptr;
  if (n->v.element.tag == tag) return n;
  const GumboVector& kids = n->v.element.children;
  for (unsigned i = 0; i < kids.length; ++i) {
    if (const GumboNode* f = Find(static_cast<const GumboNode*>(kids.data[i]), tag)) return f;
  }
  return nullptr;
}

class Walker {
 public:
  void Walk(const GumboNode* n) {
    if (n->type == GUMBO_NODE_TEXT || n->type == GUMBO_NODE_CDATA || n->type == GUMBO_NODE_WHITESPACE) {
      Append(n->v.text.text, n->type == GUMBO_NODE_WHITESPACE);
      return;
    }
    if (n->type != GUMBO_NODE_ELEMENT && n->type != GUMBO_NODE_TEMPLATE) return;
    const GumboElement& e = n->v.element;
    if (Skipped(e.tag) || Boilerplate(e)) return;
    if (Heading(e.tag)) {
      Walker inner;
      for (unsigned i = 0; i < e.children.length; ++i) inner.Walk(static_cast<const GumboNode*>(e.children.data[i]));
      std::string heading = CollapseWhitespace(inner.Flat());
      if (!heading.empty()) {
        Close();
        current_.heading = heading;
      }
      return;
    }
    if (e.tag == GUMBO_TAG_A) {
      const GumboAttribute* href = gumbo_get_attribute(&e.attributes, "href");
      std::string_view h = href ? href->value : "";
      if (h.rfind("http://", 0) == 0 || h.rfind("https://", 0) == 0) current_.hrefs.emplace_back(h);
    }
    bool block = Block(e.tag);
    if (block) Newline();
    for (unsigned i = 0; i < e.children.length; ++i) Walk(static_cast<const GumboNode*>(e.children.data[i]));
    if (block) Newline();
  }
  std::vector<Section> Finish() {
    Close();
    return std::move(sections_);
  }
  std::string Flat() const { return current_.text; }

 private:
  void Append(std::string_view t, bool whitespace) {
    if (whitespace) {
      if (!current_.text.empty() && current_.text.back() != ' ' && current_.text.back() != '\n') current_.text += ' ';
      return;
    }
    for (char c : t) {
      bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r';
      if (space) {
        if (!current_.text.empty() && current_.text.back() != ' ' && current_.text.back() != '\n') current_.text += ' ';
      } else {
        current_.text += c;
      }
    }
  }
  void Newline() {
    while (!current_.text.empty() && current_.text.back() == ' ') current_.text.pop_back();
    if (!current_.text.empty() && current_.text.back() != '\n') current_.text += '\n';
  }
  void Close() {
    std::string text = current_.text;
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    size_t start = text.find_first_not_of(" \n");
    text = start == std::string::npos ? "" : text.substr(start);
    if (!text.empty()) sections_.push_back({current_.heading, text, 0, std::move(current_.hrefs)});
    current_ = Section{};
  }
  Section current_;
  std::vector<Section> sections_;
};

}  // namespace

Document ParseHtml(std::string_view html) {
  Document doc;
  std::string safe = SanitizeUtf8(html);
  GumboOutput* out = gumbo_parse_with_options(&kGumboDefaultOptions, safe.data(), safe.size());
  if (!out) return doc;
  if (const GumboNode* title = Find(out->root, GUMBO_TAG_TITLE)) {
    std::string t;
    const GumboVector& kids = title->v.element.children;
    for (unsigned i = 0; i < kids.length; ++i) {
      const auto* k = static_cast<const GumboNode*>(kids.data[i]);
      if (k->type == GUMBO_NODE_TEXT) t += k->v.text.text;
    }
    doc.title = CollapseWhitespace(t);
  }
  const GumboNode* body = Find(out->root, GUMBO_TAG_MAIN);
  if (!body) body = Find(out->root, GUMBO_TAG_ARTICLE);
  if (!body) body = Find(out->root, GUMBO_TAG_BODY);
  if (!body) body = out->root;
  Walker w;
  w.Walk(body);
  doc.sections = w.Finish();
  if (doc.title.empty()) {
    for (const auto& s : doc.sections) {
      if (!s.heading.empty()) {
        doc.title = s.heading;
        break;
      }
    }
  }
  gumbo_destroy_output(&kGumboDefaultOptions, out);
  return doc;
}

Result<Document> ParsePdf(std::string_view data) {
  if (data.size() < 5 || data.substr(0, 5) != "%PDF-") return Status::Corrupt("not a PDF (no %PDF- header)");
  if (data.size() > static_cast<size_t>(INT32_MAX)) return Status::Invalid("PDF larger than 2 GB");
  // poppler lives in a module loaded on the first PDF (pdf_module.cc).
  static const auto read = LoadModuleFunction<decltype(&umwelt_pdf_text)>("umwelt-pdf", "umwelt_pdf_text", "reading PDFs");
  if (!read.ok()) return read.status();
  Document out;
  int pages = (*read)(
      data.data(), data.size(), &out,
      [](void* ctx, const char* t, size_t n) {
        static_cast<Document*>(ctx)->title = CollapseWhitespace(SanitizeUtf8(std::string_view(t, n)));
      },
      [](void* ctx, int page, const char* t, size_t n) {
        std::string text = SanitizeUtf8(std::string_view(t, n));
        size_t start = text.find_first_not_of(" \n\r\t\f");
        if (start == std::string::npos) return;
        static_cast<Document*>(ctx)->sections.push_back({"page " + std::to_string(page), text.substr(start), page});
      });
  if (pages == kUmweltPdfLocked) return Status::Unsupported("the PDF is encrypted (password protected)");
  if (pages == kUmweltPdfTooLarge) return Status::Invalid("PDF larger than 2 GB");
  if (pages < 0) return Status::Corrupt("the PDF is damaged or encrypted and cannot be opened");
  if (out.sections.empty()) {
    return Status::Corrupt(pages == 0 ? "the PDF has no pages (truncated or damaged)"
                                      : "the PDF has no text layer (scanned images?)");
  }
  return out;
}

}  // namespace umwelt::web
