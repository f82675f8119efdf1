#include <gtest/gtest.h>

#include "test_util.h"
#include "umwelt/web.h"

namespace umwelt::web {
namespace {

// A minimal PDF with one text line per page, xref offsets computed.
std::string MakePdf(const std::vector<std::string>& pages, const std::string& title, bool encrypted = false) {
  std::vector<std::string> objs;
  int n = static_cast<int>(pages.size());
  // 1 catalog, 2 pages, 3 font, 4 info, then page i at 5+2i and its content at 6+2i.
  objs.push_back("<< /Type /Catalog /Pages 2 0 R >>");
  std::string kids;
  for (int i = 0; i < n; ++i) kids += std::to_string(5 + 2 * i) + " 0 R ";
  objs.push_back("<< /Type /Pages /Kids [" + kids + "] /Count " + std::to_string(n) + " >>");
  objs.push_back("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
  objs.push_back("<< /Title (" + title + ") >>");
  for (int i = 0; i < n; ++i) {
    objs.push_back("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
                   "/Contents " + std::to_string(6 + 2 * i) + " 0 R >>");
    std::string stream = "BT /F1 12 Tf 72 720 Td (" + pages[i] + ") Tj ET";
    objs.push_back("<< /Length " + std::to_string(stream.size()) + " >>\nstream\n" + stream + "\nendstream");
  }
  if (encrypted) {
    objs.push_back("<< /Filter /Standard /V 1 /R 2 /O (" + std::string(32, 'o') + ") /U (" + std::string(32, 'u') +
                   ") /P -4 >>");
  }
  std::string pdf = "%PDF-1.4\n";
  std::vector<size_t> offsets;
  for (size_t i = 0; i < objs.size(); ++i) {
    offsets.push_back(pdf.size());
    pdf += std::to_string(i + 1) + " 0 obj\n" + objs[i] + "\nendobj\n";
  }
  size_t xref = pdf.size();
  pdf += "xref\n0 " + std::to_string(objs.size() + 1) + "\n0000000000 65535 f \n";
  for (size_t off : offsets) {
    char line[32];
    std::snprintf(line, sizeof line, "%010zu 00000 n \n", off);
    pdf += line;
  }
  pdf += "trailer\n<< /Size " + std::to_string(objs.size() + 1) + " /Root 1 0 R /Info 4 0 R";
  if (encrypted) pdf += " /Encrypt " + std::to_string(objs.size()) + " 0 R /ID [<01020304> <01020304>]";
  pdf += " >>\nstartxref\n" + std::to_string(xref) + "\n%%EOF\n";
  return pdf;
}

const char* kPage = R"(<!doctype html><html><head><title>Scaling notes</title>
<script>var secret = "do not index";</script><style>.x{color:red}</style></head>
<body><nav><a href="/">Home</a> <a href="/blog">Blog</a></nav>
<div class="cookie-banner">We use cookies</div>
<main><h1>Scaling notes</h1><p>We measured <b>MFU 41%</b> on 256 H100s.</p>
<h2>Checkpointing</h2><p>Async checkpoints cut stalls; see #12 and
<a href="https://github.com/acme/tinylm/issues/13">the issue</a>.<p>Unclosed paragraph
<table><tr><td>bf16</td><td>fp8</td></table>
</main><footer>Copyright someone</footer></body></html>)";

TEST(WebExtract, HtmlKeepsTheArticleAndDropsBoilerplate) {
  Document d = ParseHtml(kPage);
  EXPECT_EQ(d.title, "Scaling notes");
  ASSERT_EQ(d.sections.size(), 2u);
  EXPECT_EQ(d.sections[0].heading, "Scaling notes");
  EXPECT_EQ(d.sections[0].text, "We measured MFU 41% on 256 H100s.");
  EXPECT_EQ(d.sections[1].heading, "Checkpointing");
  EXPECT_NE(d.sections[1].text.find("Unclosed paragraph"), std::string::npos);
  EXPECT_NE(d.sections[1].text.find("bf16"), std::string::npos);
  for (const auto& s : d.sections) {
    for (const char* junk : {"do not index", "color:red", "Home", "cookies", "Copyright"}) {
      EXPECT_EQ(s.text.find(junk), std::string::npos) << junk;
    }
  }
  // Broken markup and binary junk neither crash nor hang.
  EXPECT_TRUE(ParseHtml("<p><b><i>unterminated <div <<<>>> \xff\xfe").sections.size() <= 1);
  EXPECT_TRUE(ParseHtml("").sections.empty());
}

TEST(WebExtract, PdfPagesEncryptedAndTruncated) {
  auto d = ParsePdf(MakePdf({"First page about float8", "Second page about MoE"}, "Report"));
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->title, "Report");
  ASSERT_EQ(d->sections.size(), 2u);
  EXPECT_EQ(d->sections[1].page, 2);
  EXPECT_NE(d->sections[1].text.find("Second page about MoE"), std::string::npos);
  auto enc = ParsePdf(MakePdf({"secret"}, "Locked", true));
  ASSERT_FALSE(enc.ok());
  EXPECT_NE(enc.status().message().find("encrypted"), std::string::npos) << enc.status().message();
  std::string whole = MakePdf({"cut here"}, "Cut");
  auto cut = ParsePdf(whole.substr(0, 60));
  EXPECT_FALSE(cut.ok());
  EXPECT_FALSE(ParsePdf("<html>not a pdf</html>").ok());
}

TEST(WebAddresses, PrivateAddressesAndUrls) {
  for (const char* a : {"127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0",
                        "::1", "fe80::1", "fd00::1", "::ffff:127.0.0.1", "224.0.0.1", "not-an-address"}) {
    EXPECT_TRUE(IsPrivateAddress(a)) << a;
  }
  for (const char* a : {"8.8.8.8", "140.82.112.3", "2606:4700::1111", "172.32.0.1"}) EXPECT_FALSE(IsPrivateAddress(a)) << a;
  auto t = ParseUrl("https://User@Example.com:8443/a/b?x=1#frag");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->host, "example.com");
  EXPECT_EQ(t->port, "8443");
  EXPECT_EQ(t->path, "/a/b?x=1");
  EXPECT_EQ(ParseUrl("http://[::1]:80/")->host, "::1");
  EXPECT_FALSE(ParseUrl("file:///etc/passwd").ok());
  EXPECT_FALSE(ParseUrl("http://host:99999999/").ok());
  EXPECT_FALSE(ParseUrl("no-scheme").ok());
}

TEST(WebFetch, FetchesPagesAndPdfsFollowsRedirectsAndRefusesWhatItShould) {
  testing::TempDir dir;
  auto corpus = std::move(Corpus::Open(dir.File("c.db"), Corpus::Mode::kReadWrite)).value();
  testing::TestServer server;
  auto& s = server.server();
  s.Get("/notes", [](const httplib::Request&, httplib::Response& r) { r.set_content(kPage, "text/html; charset=utf-8"); });
  std::string pdf = MakePdf({"Measured 362000 tokens per second", "Appendix"}, "Throughput paper");
  s.Get("/paper.pdf", [&](const httplib::Request&, httplib::Response& r) { r.set_content(pdf, "application/pdf"); });
  s.Get("/old", [](const httplib::Request&, httplib::Response& r) { r.set_redirect("/notes", 301); });
  s.Get(R"(/loop/(\d+))", [](const httplib::Request& req, httplib::Response& r) {
    r.set_redirect("/loop/" + std::to_string(std::stoi(req.matches[1]) + 1), 302);
  });
  s.Get("/big", [](const httplib::Request&, httplib::Response& r) { r.set_content(std::string(3 << 20, 'a'), "text/plain"); });
  s.Get("/locked.pdf", [](const httplib::Request&, httplib::Response& r) {
    r.set_content(MakePdf({"x"}, "Locked", true), "application/pdf");
  });
  auto http = NewCurlHttpClient();
  FetchOptions o;
  o.allow_private = true;
  o.max_bytes = 1 << 20;
  o.repo = "acme/tinylm";
  FetchReport r;
  std::string notes = server.base() + "/notes", paper = server.base() + "/paper.pdf";
  Status st = Fetch(*corpus, *http, {notes, paper, server.base() + "/old"}, o, &r);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(r.pages, 3);
  auto page = corpus->GetThread("web:" + notes);
  ASSERT_TRUE(page.ok() && *page);
  EXPECT_EQ((*page)->title, "Scaling notes");
  auto section = corpus->ChunkByRef("web:" + notes + "#s2");
  ASSERT_TRUE(section.ok() && *section);
  EXPECT_EQ((*section)->title, "Scaling notes — Checkpointing");
  EXPECT_EQ((*section)->url, notes);
  EXPECT_EQ(corpus->LinkedFrom("acme/tinylm#12")->size(), 2u);  // the page, and the same page via /old
  EXPECT_EQ(corpus->LinkedFrom("acme/tinylm#13")->size(), 2u);  // from the link's href
  auto p2 = corpus->ChunkByRef("web:" + paper + "#s1");
  ASSERT_TRUE(p2.ok() && *p2);
  EXPECT_EQ((*p2)->url, paper + "#page=1");
  EXPECT_NE((*p2)->text.find("362000 tokens per second"), std::string::npos);
  auto via = corpus->GetThread("web:" + server.base() + "/old");
  ASSERT_TRUE(via.ok() && *via);
  EXPECT_NE((*via)->description.find("via " + notes), std::string::npos);

  // Fetching again replaces, never duplicates.
  FetchReport again;
  ASSERT_TRUE(Fetch(*corpus, *http, {notes}, o, &again).ok());
  EXPECT_EQ(corpus->RecordRefs("web:" + notes, "page")->size(), 2u);

  // Refusals and failures: each named, the others still fetched, nothing lost.
  FetchReport bad;
  st = Fetch(*corpus, *http,
             {server.base() + "/loop/0", server.base() + "/big", server.base() + "/locked.pdf",
              server.base() + "/missing", notes},
             o, &bad);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(bad.pages, 1);
  ASSERT_EQ(bad.failed.size(), 4u);
  EXPECT_NE(bad.failed[0].find("more than 5 redirects"), std::string::npos) << bad.failed[0];
  EXPECT_NE(bad.failed[1].find("larger than"), std::string::npos) << bad.failed[1];
  EXPECT_NE(bad.failed[2].find("encrypted"), std::string::npos) << bad.failed[2];
  EXPECT_NE(bad.failed[3].find("HTTP 404"), std::string::npos) << bad.failed[3];
  o.allow_private = false;
  FetchReport refused;
  st = Fetch(*corpus, *http, {notes}, o, &refused);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("127.0.0.1, a private, loopback or link-local address; refused"), std::string::npos)
      << st.message();
  EXPECT_EQ(corpus->RecordRefs("web:" + notes, "page")->size(), 2u);
}

}  // namespace
}  // namespace umwelt::web

namespace umwelt::web {
namespace {

// Issue 13, item 11: IPv6 forms that carry a private IPv4 address, and a
// relative redirect whose query holds "://".
TEST(WebSafety, EmbeddedIpv4FormsAreJudgedByTheirAddress) {
  for (const char* a : {"64:ff9b::a9fe:a9fe", "64:ff9b::7f00:1", "64:ff9b::10.0.0.1", "::a9fe:a9fe", "::127.0.0.1",
                        "::ffff:0:a9fe:a9fe", "::ffff:0:10.1.2.3", "::ffff:a9fe:a9fe", "2002:a9fe:a9fe::1",
                        "2002:7f00:1::", "64:ff9b:1::1", "2001:db8::1", "100::1"}) {
    EXPECT_TRUE(IsPrivateAddress(a)) << a;
  }
  for (const char* a : {"64:ff9b::808:808", "::ffff:0:808:808", "2002:808:808::1", "::ffff:8.8.8.8"}) {
    EXPECT_FALSE(IsPrivateAddress(a)) << a;
  }
}

TEST(WebSafety, RelativeRedirectWithAUrlInItsQueryIsFollowed) {
  testing::TempDir dir;
  auto corpus = std::move(Corpus::Open(dir.File("c.db"), Corpus::Mode::kReadWrite)).value();
  testing::TestServer server;
  server.server().Get("/start", [](const httplib::Request&, httplib::Response& r) {
    r.status = 302;
    r.set_header("Location", "/p?next=https://x.y/");
  });
  server.server().Get("/p", [](const httplib::Request& req, httplib::Response& r) {
    r.set_content("<html><head><title>Landed</title></head><body><p>next was " + req.get_param_value("next") +
                      "</p></body></html>",
                  "text/html");
  });
  server.server().Get("/js", [](const httplib::Request&, httplib::Response& r) {
    r.status = 302;
    r.set_header("Location", "javascript:alert(1)");
  });
  auto http = NewCurlHttpClient();
  FetchOptions o;
  o.allow_private = true;
  FetchReport r;
  Status st = Fetch(*corpus, *http, {server.base() + "/start"}, o, &r);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(r.pages, 1);
  FetchReport bad;
  EXPECT_FALSE(Fetch(*corpus, *http, {server.base() + "/js"}, o, &bad).ok());
  ASSERT_EQ(bad.failed.size(), 1u);
  EXPECT_NE(bad.failed[0].find("only http and https"), std::string::npos) << bad.failed[0];
}

}  // namespace
}  // namespace umwelt::web
