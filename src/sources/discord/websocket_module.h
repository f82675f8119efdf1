// The C interface of umwelt-websocket.so (websocket_module.cc): one WebSocket
// client connection over libwebsockets, driven by callbacks. libwebsockets
// brings OpenSSL, libcap and zlib; as a module they load only when a
// process follows a gateway (umwelt/dynlib.h).
#pragma once

#include <cstddef>

extern "C" {

typedef struct UmweltWsHandlers {
  void* ctx;
  // The connection is open (the upgrade was answered 101).
  void (*opened)(void* ctx);
  // One whole text message.
  void (*message)(void* ctx, const char* data, size_t size);
  // Every 50 ms while the connection is open.
  void (*tick)(void* ctx);
  // After each call above the module sends what these hand out: a frame
  // (1, valid until the next call; 0 when none), then whether to close
  // (the close code to send, or 0).
  int (*next)(void* ctx, const char** data, size_t* size);
  int (*closing)(void* ctx);
} UmweltWsHandlers;

// Connects to `address` (numeric, resolved and checked by the caller, so the
// name cannot resolve elsewhere in between) for ws[s]://host:port/path: `host`
// is the name TLS verifies and the Host header carries. Runs the connection
// until it ends.
// Returns the close code the server sent (0: none; the link broke, or this
// side closed), with what happened written to `why` (NUL-terminated). A
// message over `max_message` bytes closes the connection (1009).
int umwelt_ws_run(const char* host, const char* address, int port, const char* path, int tls, size_t max_message,
                  const UmweltWsHandlers* handlers, char* why, size_t why_size);
}
