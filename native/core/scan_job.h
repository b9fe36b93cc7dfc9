// One scan's bookkeeping: which ports are still to probe (first attempts and
// retries), what each port turned out to be, which chunks are finished, and
// the events waiting to be delivered. It knows nothing of sockets; the
// engine decides, the job records. Engine thread only (built on the caller's).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "scan_event.h"
#include "scan_spec.h"

namespace selfscan {

enum class PortState : uint8_t { kPending, kOpen, kClosed, kFiltered };

struct TargetState;

class ScanJob {
 public:
  struct Work {
    uint32_t index;   // into spec().ports
    uint8_t attempt;  // 0 = first connect, 1 = the one retry
  };

  ScanJob(uint64_t id, ScanSpec spec, int64_t start_us);

  uint64_t id() const { return id_; }
  const ScanSpec& spec() const { return spec_; }
  int64_t start_us() const { return start_us_; }
  int64_t deadline_us() const {
    return spec_.budget_us > 0 ? start_us_ + spec_.budget_us : INT64_MAX;
  }

  // Probing queue: retries and put-back ports go first.
  bool CanLaunch() const;
  Work Take();
  void PutBack(Work work);  // a local error: same attempt again
  void Retry(uint32_t index);

  // Records a port's final state. Emits its chunk when that was the last
  // port of the chunk. A port is decided once; a second call is ignored.
  void Resolve(uint32_t index, PortState state, const std::string* banner);
  bool AllResolved() const { return resolved_ == spec_.ports.size(); }

  // Ends the scan. kIncomplete also emits what unfinished chunks found.
  void Finish(ScanStatus status, int64_t now_us, int error_number = 0,
              const char* syscall = "");
  bool ended() const { return ended_; }

  // Hands queued events to the sink in order; true once the end event has
  // been delivered and the job can be dropped.
  bool Flush(EventSink& sink);
  bool HasUndelivered() const { return !outbox_.empty() || (ended_ && !end_sent_); }

  TargetState* target = nullptr;  // owned by the engine
  int in_flight = 0;              // sockets this job holds

 private:
  void EmitChunk(uint32_t chunk, bool complete);
  uint32_t ChunkOf(uint32_t index) const { return index / spec_.chunk_size; }
  uint32_t ChunkSize(uint32_t chunk) const;

  uint64_t id_;
  ScanSpec spec_;
  int64_t start_us_;
  uint32_t total_chunks_;
  uint32_t cursor_ = 0;
  std::deque<Work> urgent_;
  std::vector<PortState> states_;
  std::unordered_map<uint32_t, std::string> banners_;
  std::vector<uint32_t> chunk_pending_;
  std::vector<bool> chunk_emitted_;
  uint32_t chunks_complete_ = 0;
  size_t resolved_ = 0;
  bool ended_ = false;
  bool end_sent_ = false;
  ScanEnd end_;
  std::deque<std::unique_ptr<ScanEvent>> outbox_;
};

}  // namespace selfscan
