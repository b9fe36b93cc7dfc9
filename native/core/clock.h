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

// A wait of `us` microseconds as the timespec of epoll_pwait2, ppoll and
// kevent, and as the whole milliseconds (rounded up) of epoll_wait and
// poll; a negative wait (none: until an event) stays -1 there.
inline timespec TimespecOfUs(int64_t us) {
  return timespec{static_cast<time_t>(us / 1000000), static_cast<long>(us % 1000000) * 1000};
}
inline int MillisecondsUp(int64_t us) { return us < 0 ? -1 : static_cast<int>((us + 999) / 1000); }

inline void SleepUs(int64_t us) {
  timespec ts = TimespecOfUs(us);
  while (nanosleep(&ts, &ts) != 0) {
  }
}

}  // namespace selfscan
