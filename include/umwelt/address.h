// umwelt/address.h — whether a numeric network address is on the public
// internet: every fetch of an outside URL (web pages, the Discord gateway)
// refuses the others unless asked.
#pragma once

#include <string>
#include <vector>

#include "umwelt/status.h"

namespace umwelt {

// Whether a numeric address is loopback, private, link-local, CGNAT,
// unspecified, multicast or otherwise not on the public internet. Anything
// that is not a numeric address at all counts as private (refused).
bool IsPrivateAddress(const std::string& address);
// The numeric addresses `host` (a name or a literal) resolves to, through the
// system's resolver. Unavailable when it resolves to none.
Result<std::vector<std::string>> ResolveHost(const std::string& host);

}  // namespace umwelt
