// Everything one scan needs, validated by the addon before it reaches the
// engine: target address, port list and timing options. The defaults here
// are the only ones: the addon fills a request's absent fields from a
// default ScanSpec and exports them to JavaScript as `scanDefaults`.
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <vector>

namespace selfscan {

struct TimeoutBounds {
  int64_t initial_us = 1000000;  // before any RTT sample exists
  int64_t min_us = 100000;
  int64_t max_us = 3000000;
};

struct ScanSpec {
  sockaddr_storage target{};  // port field is ignored
  socklen_t target_len = 0;
  std::vector<uint16_t> ports;
  uint32_t chunk_size = 1024;
  int64_t budget_us = 0;  // 0 = no time budget
  TimeoutBounds timeouts;
  bool banners = true;
  // Longest wait per banner phase (server-first, then HTTP); the engine waits
  // less on targets that answer fast.
  int64_t banner_timeout_us = 1000000;
};

}  // namespace selfscan
