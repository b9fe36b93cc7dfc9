// Monotonic time in microseconds. Every deadline in the engine uses this one
// clock so that RTT samples, probe timeouts and scan budgets agree.
// Used on the engine thread (and by the addon thread for scan start times).
#pragma once

#include <time.h>

#include <cstdint>

namespace selfscan {

inline int64_t NowUs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

}  // namespace selfscan
