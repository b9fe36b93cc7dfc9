#include "banner.h"

#include <algorithm>

namespace selfscan {

const char kHttpProbe[] = "GET / HTTP/1.0\r\n\r\n";
const size_t kHttpProbeLength = sizeof(kHttpProbe) - 1;

std::string PrintableBanner(const char* data, size_t length) {
  length = std::min(length, kBannerMaxBytes);
  std::string out;
  out.reserve(length);
  for (size_t i = 0; i < length; ++i) {
    unsigned char c = static_cast<unsigned char>(data[i]);
    if (c == '\r') continue;
    if (c == '\n') {
      out.push_back('\n');
    } else if (c == '\t') {
      out.push_back(' ');
    } else if (c >= 0x20 && c < 0x7f) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('.');
    }
  }
  const char* space = " \n";
  size_t first = out.find_first_not_of(space);
  if (first == std::string::npos) return std::string();
  size_t last = out.find_last_not_of(space);
  return out.substr(first, last - first + 1);
}

}  // namespace selfscan
