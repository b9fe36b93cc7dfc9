// What a scan reports: one Chunk per slice of its port list, then one ScanEnd.
// Built on the engine thread and handed, as a ScanEvent, to an EventSink
// (the addon's thread-safe function) that carries it to JavaScript.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "scan_spec.h"

namespace selfscan {

struct OpenPort {
  uint16_t port;
  bool has_banner;
  std::string banner;
};

struct Chunk {
  uint32_t index = 0;
  uint32_t total = 0;
  // False when the scan ended (budget) before every port of the chunk was
  // decided: the lists then hold only what was found.
  bool complete = true;
  std::vector<OpenPort> open;
  std::vector<uint16_t> filtered;
  uint32_t closed = 0;
  // Time the scan still needs as its target's path shows it (probes owed at
  // the pace, plus the timeouts of the rounds still to come); -1 until the
  // target has answered once.
  int64_t eta_us = -1;
};

enum class ScanStatus : uint8_t { kComplete, kIncomplete, kCancelled, kFailed };

struct ScanEnd {
  ScanStatus status = ScanStatus::kComplete;
  int64_t duration_us = 0;
  uint32_t chunks_complete = 0;
  uint32_t total_chunks = 0;
  int error_number = 0;      // errno of a failed scan
  const char* syscall = "";  // the call that failed
  // The target's pace and RTT estimate when the scan ended, for a later
  // scan of it to start from (ScanSpec::timing).
  LearnedTiming timing;
};

struct ScanEvent {
  enum class Kind : uint8_t { kChunk, kEnd };
  uint64_t scan_id = 0;
  Kind kind = Kind::kChunk;
  Chunk chunk;
  ScanEnd end;
};

// Receives events on the engine thread. TryDeliver takes ownership only when
// it returns true; false means "queue full, try again later" (backpressure).
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual bool TryDeliver(std::unique_ptr<ScanEvent>& event) = 0;
};

}  // namespace selfscan
