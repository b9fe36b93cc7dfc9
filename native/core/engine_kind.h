// Which probe transport the engine sends with: half-open SYNs from raw
// sockets (needs CAP_NET_RAW, Linux) or kernel connect()s (anyone, anywhere);
// auto takes SYN when it can open its sockets. Pure, any thread.
#pragma once

#include <cstdint>
#include <string>

namespace selfscan {

enum class EngineKind : uint8_t { kAuto, kSyn, kConnect };

inline const char* EngineName(EngineKind kind) {
  switch (kind) {
    case EngineKind::kSyn:
      return "syn";
    case EngineKind::kConnect:
      return "connect";
    case EngineKind::kAuto:
      break;
  }
  return "auto";
}

// False for a name that is not one of auto, syn, connect.
inline bool ParseEngineKind(const std::string& name, EngineKind* kind) {
  for (EngineKind k : {EngineKind::kAuto, EngineKind::kSyn, EngineKind::kConnect}) {
    if (name == EngineName(k)) {
      *kind = k;
      return true;
    }
  }
  return false;
}

}  // namespace selfscan
