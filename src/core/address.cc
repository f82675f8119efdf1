#include "umwelt/address.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdint>
#include <cstring>

namespace umwelt {

bool IsPrivateAddress(const std::string& address) {
  in_addr v4{};
  in6_addr v6{};
  if (::inet_pton(AF_INET, address.c_str(), &v4) == 1) {
    uint32_t a = ntohl(v4.s_addr);
    auto in = [&](uint32_t net, int bits) { return (a >> (32 - bits)) == (net >> (32 - bits)); };
    return in(0x00000000, 8) || in(0x0A000000, 8) || in(0x7F000000, 8) || in(0xA9FE0000, 16) ||
           in(0xAC100000, 12) || in(0xC0A80000, 16) || in(0x64400000, 10) || in(0xC0000000, 24) ||
           in(0xC6120000, 15) ||
           a >= 0xE0000000;  // this net, private, loopback, link-local, CGNAT, multicast+
  }
  if (::inet_pton(AF_INET6, address.c_str(), &v6) == 1) {
    const uint8_t* b = v6.s6_addr;
    static const uint8_t kZero[16] = {};
    if (std::memcmp(b, kZero, 15) == 0 && (b[15] == 0 || b[15] == 1)) return true;  // :: and ::1
    if ((b[0] & 0xFE) == 0xFC) return true;                                         // fc00::/7
    if (b[0] == 0xFE && (b[1] & 0xC0) == 0x80) return true;                         // fe80::/10
    if (b[0] == 0xFF) return true;                                                  // multicast
    // Forms that carry an IPv4 address inside are judged by that address:
    // ::a.b.c.d (compatible), ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d
    // (translated), 64:ff9b::a.b.c.d (NAT64), 2002:AABB:CCDD:: (6to4).
    static const uint8_t kCompat[12] = {};
    static const uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
    static const uint8_t kTranslated[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0, 0};
    static const uint8_t kNat64[12] = {0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0};
    auto embedded = [&](const uint8_t* v4bytes) {
      char buf[INET_ADDRSTRLEN];
      ::inet_ntop(AF_INET, v4bytes, buf, sizeof buf);
      return IsPrivateAddress(buf);
    };
    for (const uint8_t* prefix : {kCompat, kMapped, kTranslated, kNat64}) {
      if (std::memcmp(b, prefix, 12) == 0) return embedded(b + 12);
    }
    if (b[0] == 0x20 && b[1] == 0x02) return embedded(b + 2);  // 2002::/16
    if (b[0] == 0 && b[1] == 0x64 && b[2] == 0xFF && b[3] == 0x9B)
      return true;  // 64:ff9b:1::/48, local NAT64
    if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0D && b[3] == 0xB8) return true;    // 2001:db8::/32
    if (b[0] == 0x01 && b[1] == 0 && std::memcmp(b + 2, kZero, 6) == 0) return true;  // 100::/64, discard
    return false;
  }
  return true;  // not an address at all: refuse
}

Result<std::vector<std::string>> ResolveHost(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  int rc = ::getaddrinfo(host.c_str(), nullptr, &hints, &res);
  if (rc != 0) return Status::Unavailable("cannot resolve " + host + ": " + gai_strerror(rc));
  std::vector<std::string> out;
  for (addrinfo* a = res; a; a = a->ai_next) {
    char buf[INET6_ADDRSTRLEN] = {};
    const void* src = a->ai_family == AF_INET
                          ? static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(a->ai_addr)->sin_addr)
                          : static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(a->ai_addr)->sin6_addr);
    if (::inet_ntop(a->ai_family, src, buf, sizeof buf)) out.emplace_back(buf);
  }
  ::freeaddrinfo(res);
  if (out.empty()) return Status::Unavailable("cannot resolve " + host + ": no addresses");
  return out;
}

}  // namespace umwelt
