// One scan's bookkeeping: which ports are still to probe (the sweep, ports
// put back after a local error, silent ports to probe again), how often each
// port went unanswered and whether those silences count as evidence, what
// each port turned out to be, which chunks are finished, and the events
// waiting to be delivered. It knows nothing of sockets; the engine decides,
// the job records. Engine thread only (built on the caller's).
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
    uint32_t index;  // into spec().ports
  };

  ScanJob(uint64_t id, ScanSpec spec, int64_t start_us);

  uint64_t id() const { return id_; }
  const ScanSpec& spec() const { return spec_; }
  int64_t start_us() const { return start_us_; }
  int64_t deadline_us() const {
    return spec_.budget_us > 0 ? start_us_ + spec_.budget_us : INT64_MAX;
  }

  // Probing queue: put-back ports first, then the sweep; silent ports are
  // probed again only when `reprobe_now`: the target is being probed slowly
  // enough for a silence to count.
  bool CanLaunch(bool reprobe_now) const;
  Work Take(bool reprobe_now);
  bool sweeping() const { return cursor_ < spec_.ports.size(); }
  void PutBack(Work work);  // a local error: probe it again, nothing learnt
  void Reprobe(uint32_t index);

  // A silence of port `index`; `clean` when the canaries around it
  // answered and it was sent below any rate of excess loss seen.
  void RecordSilence(uint32_t index, bool clean);
  uint8_t silences(uint32_t index) const { return silence_[index].count; }
  uint8_t clean_silences(uint32_t index) const { return silence_[index].clean; }

  // Records a port's final state. Emits its chunk when that was the last
  // port of the chunk. A port is decided once; a second call is ignored.
  void Resolve(uint32_t index, PortState state, const std::string* banner);
  bool AllResolved() const { return resolved_ == spec_.ports.size(); }
  // How many of the scan's ports are expected to answer (open or closed):
  // the share of those probed so far that did, over all the ports.
  double AnsweringEstimate() const;
  // Probes still owed when a port needs `silences` clean silences to be
  // filtered: one for each port not yet probed, more for the share that go
  // silent, and what each silent port still lacks.
  double ProbesOwed(int silences) const;

  // Ends the scan. kIncomplete also emits what unfinished chunks found.
  // `timing`: what the target's state had learned by now.
  void Finish(ScanStatus status, int64_t now_us, const LearnedTiming& timing, int error_number = 0,
              const char* syscall = "");
  bool ended() const { return ended_; }

  // Chunks emitted since the last StampEta wait for their eta (the engine
  // reads the target's path for it).
  bool NeedsEta() const { return needs_eta_; }
  void StampEta(int64_t eta_us);

  // Hands queued events to the sink in order; true once the end event has
  // been delivered (after the job's last socket closed) and the job can be
  // dropped.
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
  struct Silence {
    uint8_t count = 0;
    uint8_t clean = 0;
  };

  uint32_t cursor_ = 0;
  std::deque<Work> put_back_;
  std::deque<Work> reprobe_;
  std::vector<PortState> states_;
  std::vector<Silence> silence_;
  std::unordered_map<uint32_t, std::string> banners_;
  std::vector<uint32_t> chunk_pending_;
  std::vector<bool> chunk_emitted_;
  uint32_t chunks_complete_ = 0;
  size_t resolved_ = 0;
  size_t answered_ = 0;      // resolved open or closed
  size_t silent_ports_ = 0;  // ports that went unanswered at least once
  bool ended_ = false;
  bool end_sent_ = false;
  bool needs_eta_ = false;
  ScanEnd end_;
  std::deque<std::unique_ptr<ScanEvent>> outbox_;
};

}  // namespace selfscan
