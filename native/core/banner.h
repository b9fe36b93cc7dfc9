// Service banners: what an open port says first, or how it answers a minimal
// HTTP request, reduced to a short printable string. Engine thread only.
#pragma once

#include <cstddef>
#include <string>

namespace selfscan {

// Bytes read from a port at most; the banner never keeps more.
constexpr size_t kBannerMaxBytes = 512;

// Sent when a port stays silent: enough for HTTP servers to answer.
extern const char kHttpProbe[];
extern const size_t kHttpProbeLength;

// CR dropped, LF kept, tab as space, any other control or non-ASCII byte as
// '.', surrounding white space trimmed.
std::string PrintableBanner(const char* data, size_t length);

}  // namespace selfscan
