// umwelt-websocket.so: one WebSocket client connection over libwebsockets
// (websocket_module.h). Its own lws context per connection: a gateway
// reconnects rarely, and nothing is shared between calls.
#include "websocket_module.h"

#include <libwebsockets.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Conn {
  const UmweltWsHandlers* h = nullptr;
  size_t max_message = 0;
  struct lws_context* ctx = nullptr;
  struct lws* wsi = nullptr;
  lws_sorted_usec_list_t sul;  // the tick
  bool open = false, done = false;
  int close_code = 0;          // what the server sent
  std::string why;
  std::string message;         // being reassembled
  bool oversized = false;
  int close_with = 0;          // this side closes with this code
};

void Why(Conn& c, std::string s) {
  if (c.why.empty()) c.why = std::move(s);
}

// After a handler ran: is there something to write?
void Poll(Conn& c) {
  if (!c.wsi) return;
  if (!c.close_with) c.close_with = c.h->closing(c.h->ctx);
  if (c.close_with && !c.open) {  // still connecting: give up on it
    Why(c, "closed while connecting");
    lws_set_timeout(c.wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
    return;
  }
  lws_callback_on_writable(c.wsi);
}

void Tick(lws_sorted_usec_list_t* sul) {
  Conn* c = lws_container_of(sul, Conn, sul);
  if (c->done) return;
  if (c->open) c->h->tick(c->h->ctx);
  Poll(*c);
  lws_sul_schedule(c->ctx, 0, &c->sul, Tick, 50 * LWS_US_PER_MS);
}

int Callback(struct lws* wsi, enum lws_callback_reasons reason, void* user, void* in, size_t len) {
  Conn* c = wsi ? static_cast<Conn*>(lws_get_opaque_user_data(wsi)) : nullptr;
  if (!c) return lws_callback_http_dummy(wsi, reason, user, in, len);
  switch (reason) {
    case LWS_CALLBACK_CLIENT_ESTABLISHED:
      c->open = true;
      c->h->opened(c->h->ctx);
      Poll(*c);
      break;
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
      Why(*c, in && len ? "cannot connect: " + std::string(static_cast<const char*>(in), std::min<size_t>(len, 200))
                        : "cannot connect");
      c->done = true;
      c->wsi = nullptr;
      break;
    case LWS_CALLBACK_CLIENT_RECEIVE: {
      if (!c->oversized && c->message.size() + len > c->max_message) {
        c->oversized = true;
        std::string().swap(c->message);
      }
      if (!c->oversized) c->message.append(static_cast<const char*>(in), len);
      if (!lws_is_final_fragment(wsi) || lws_remaining_packet_payload(wsi) > 0) break;
      if (c->oversized) {
        c->oversized = false;
        Why(*c, "a message over " + std::to_string(c->max_message) + " bytes");
        c->close_with = LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE;
        lws_callback_on_writable(wsi);
        break;
      }
      std::string m;
      m.swap(c->message);
      c->h->message(c->h->ctx, m.data(), m.size());
      Poll(*c);
      break;
    }
    case LWS_CALLBACK_CLIENT_WRITEABLE: {
      const char* data = nullptr;
      size_t size = 0;
      if (!c->close_with && c->h->next(c->h->ctx, &data, &size)) {
        std::vector<unsigned char> buf(LWS_PRE + size);
        if (size) std::memcpy(buf.data() + LWS_PRE, data, size);
        if (lws_write(wsi, buf.data() + LWS_PRE, size, LWS_WRITE_TEXT) < static_cast<int>(size)) {
          Why(*c, "a write failed");
          return -1;
        }
        lws_callback_on_writable(wsi);  // there may be more
        break;
      }
      if (c->close_with) {
        Why(*c, "closed by this side (" + std::to_string(c->close_with) + ")");
        static const char kBye[] = "umwelt closes";
        lws_close_reason(wsi, static_cast<lws_close_status>(c->close_with),
                         reinterpret_cast<unsigned char*>(const_cast<char*>(kBye)), sizeof kBye - 1);
        return -1;
      }
      break;
    }
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
      if (in && len >= 2) {
        const auto* p = static_cast<const unsigned char*>(in);
        c->close_code = (p[0] << 8) | p[1];
        Why(*c, "the server closed the connection (" + std::to_string(c->close_code) + ")");
      }
      break;
    case LWS_CALLBACK_CLIENT_CLOSED:
      Why(*c, "the connection dropped");
      c->done = true;
      c->wsi = nullptr;
      break;
    default: break;
  }
  return lws_callback_http_dummy(wsi, reason, user, in, len);
}

const struct lws_protocols kProtocols[] = {
    {"umwelt-websocket", Callback, 0, 64 * 1024, 0, nullptr, 0},
    {nullptr, nullptr, 0, 0, 0, nullptr, 0},
};

void NoLog(int, const char*) {}

}  // namespace

extern "C" __attribute__((visibility("default"))) int umwelt_ws_run(const char* host, const char* address, int port,
                                                                    const char* path, int tls, size_t max_message,
                                                                    const UmweltWsHandlers* h, char* why,
                                                                    size_t why_size) {
  // Its lines could carry a URL; the caller's log says what matters.
  lws_set_log_level(LLL_ERR, NoLog);
  Conn c;
  c.h = h;
  c.max_message = max_message;
  struct lws_context_creation_info info;
  std::memset(&info, 0, sizeof info);
  info.port = CONTEXT_PORT_NO_LISTEN;
  info.protocols = kProtocols;
  info.options = tls ? LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT : 0;
  info.timeout_secs = 20;
  info.connect_timeout_secs = 20;
  c.ctx = lws_create_context(&info);
  if (!c.ctx) {
    std::snprintf(why, why_size, "cannot start the WebSocket client");
    return 0;
  }
  struct lws_client_connect_info ci;
  std::memset(&ci, 0, sizeof ci);
  ci.context = c.ctx;
  ci.address = address;  // resolved and checked by the caller; `host` is the name TLS verifies
  ci.port = port;
  ci.path = path;
  ci.host = host;
  ci.origin = host;
  ci.ssl_connection = tls ? LCCSCF_USE_SSL : 0;
  ci.local_protocol_name = kProtocols[0].name;
  ci.opaque_user_data = &c;
  ci.pwsi = &c.wsi;
  std::memset(&c.sul, 0, sizeof c.sul);
  if (!lws_client_connect_via_info(&ci)) {
    Why(c, std::string("cannot connect to ") + host);
    c.done = true;
  } else {
    lws_sul_schedule(c.ctx, 0, &c.sul, Tick, 50 * LWS_US_PER_MS);
  }
  while (!c.done) {
    if (lws_service(c.ctx, 0) < 0) break;
  }
  lws_sul_cancel(&c.sul);
  lws_context_destroy(c.ctx);
  std::snprintf(why, why_size, "%s", c.why.c_str());
  return c.close_code;
}
