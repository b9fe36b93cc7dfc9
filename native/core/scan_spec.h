// Everything one scan needs, validated by the addon before it reaches the
// engine: target address, port list, timing options and what earlier scans
// learned of the target's timing. The defaults here are the only ones: the
// addon fills a request's absent fields from a default ScanSpec and exports
// them to JavaScript as `scanDefaults`.
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

// A target's pace and RTT estimator as a scan left them (ScanEnd reports
// them), handed to a later scan of the same target, maybe in another
// process (a cluster splits a deep scan into chunk jobs), so it need not
// learn them again from slow start and the initial timeout. The defaults
// mean "nothing learned": rate 0 keeps slow start from the engine's initial
// rate, samples 0 keeps the initial timeout.
struct LearnedTiming {
  double rate = 0;  // connects/s
  int64_t srtt_us = 0;
  int64_t rttvar_us = 0;
  uint64_t samples = 0;  // RTT samples behind srtt and rttvar; 0 = none
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
  // Where the target's state starts when no other scan of it is running.
  LearnedTiming timing;
};

}  // namespace selfscan
