#include "scan_job.h"

#include <algorithm>
#include <utility>

namespace selfscan {

namespace {
// Finished chunks a job may hold undelivered before it stops launching
// probes: a slow JavaScript thread slows the sweep instead of growing memory.
constexpr size_t kMaxUndeliveredChunks = 2;
}  // namespace

ScanJob::ScanJob(uint64_t id, ScanSpec spec, int64_t start_us)
    : id_(id), spec_(std::move(spec)), start_us_(start_us) {
  size_t n = spec_.ports.size();
  total_chunks_ = static_cast<uint32_t>((n + spec_.chunk_size - 1) / spec_.chunk_size);
  states_.assign(n, PortState::kPending);
  silence_.resize(n);
  chunk_pending_.resize(total_chunks_);
  for (uint32_t c = 0; c < total_chunks_; ++c) chunk_pending_[c] = ChunkSize(c);
  chunk_emitted_.assign(total_chunks_, false);
}

uint32_t ScanJob::ChunkSize(uint32_t chunk) const {
  size_t begin = static_cast<size_t>(chunk) * spec_.chunk_size;
  return static_cast<uint32_t>(std::min<size_t>(spec_.chunk_size, spec_.ports.size() - begin));
}

bool ScanJob::CanLaunch(bool reprobe_now) const {
  return !ended_ && outbox_.size() < kMaxUndeliveredChunks &&
         (!put_back_.empty() || sweeping() || (reprobe_now && !reprobe_.empty()));
}

ScanJob::Work ScanJob::Take(bool reprobe_now) {
  std::deque<Work>* queue = nullptr;
  if (!put_back_.empty()) {
    queue = &put_back_;
  } else if (reprobe_now && !reprobe_.empty()) {
    queue = &reprobe_;
  }
  if (queue == nullptr) return Work{cursor_++};
  Work work = queue->front();
  queue->pop_front();
  return work;
}

void ScanJob::PutBack(Work work) { put_back_.push_front(work); }

void ScanJob::Reprobe(uint32_t index) { reprobe_.push_back(Work{index}); }

void ScanJob::RecordSilence(uint32_t index, bool clean) {
  Silence& silence = silence_[index];
  if (silence.count == 0) ++silent_ports_;
  if (silence.count < UINT8_MAX) ++silence.count;
  if (clean && silence.clean < UINT8_MAX) ++silence.clean;
}

void ScanJob::Resolve(uint32_t index, PortState state, const std::string* banner) {
  if (ended_ || states_[index] != PortState::kPending) return;
  states_[index] = state;
  if (banner != nullptr) banners_.emplace(index, *banner);
  ++resolved_;
  if (state == PortState::kOpen || state == PortState::kClosed) ++answered_;
  uint32_t chunk = ChunkOf(index);
  if (--chunk_pending_[chunk] == 0) EmitChunk(chunk, true);
}

double ScanJob::AnsweringEstimate() const {
  double share = (static_cast<double>(answered_) + 1) / (static_cast<double>(cursor_) + 1);
  return std::min(1.0, share) * static_cast<double>(spec_.ports.size());
}

double ScanJob::ProbesOwed(int silences) const {
  double silent_share = std::min(1.0, static_cast<double>(silent_ports_) / (cursor_ + 1.0));
  double per_new_port = 1 + silent_share * (silences - 1);
  double owed = 0;
  for (size_t i = 0; i < states_.size(); ++i) {
    if (states_[i] != PortState::kPending) continue;
    const Silence& silence = silence_[i];
    owed += silence.count == 0 ? per_new_port : std::max(1, silences - silence.clean);
  }
  return owed;
}

void ScanJob::EmitChunk(uint32_t chunk, bool complete) {
  auto event = std::make_unique<ScanEvent>();
  event->scan_id = id_;
  event->kind = ScanEvent::Kind::kChunk;
  Chunk& out = event->chunk;
  out.index = chunk;
  out.total = total_chunks_;
  out.complete = complete;
  size_t begin = static_cast<size_t>(chunk) * spec_.chunk_size;
  size_t end = begin + ChunkSize(chunk);
  for (size_t i = begin; i < end; ++i) {
    uint16_t port = spec_.ports[i];
    switch (states_[i]) {
      case PortState::kOpen: {
        auto banner = banners_.find(static_cast<uint32_t>(i));
        bool has = banner != banners_.end();
        out.open.push_back(OpenPort{port, has, has ? std::move(banner->second) : std::string()});
        if (has) banners_.erase(banner);
        break;
      }
      case PortState::kFiltered:
        out.filtered.push_back(port);
        break;
      case PortState::kClosed:
        ++out.closed;
        break;
      case PortState::kPending:
        break;
    }
  }
  chunk_emitted_[chunk] = true;
  if (complete) ++chunks_complete_;
  outbox_.push_back(std::move(event));
  needs_eta_ = true;
}

void ScanJob::StampEta(int64_t eta_us) {
  for (auto& event : outbox_) {
    if (event->kind == ScanEvent::Kind::kChunk && event->chunk.eta_us < 0)
      event->chunk.eta_us = eta_us;
  }
  needs_eta_ = false;
}

void ScanJob::Finish(ScanStatus status, int64_t now_us, const LearnedTiming& timing,
                     int error_number, const char* syscall) {
  if (ended_) return;
  if (status == ScanStatus::kIncomplete) {
    for (uint32_t c = 0; c < total_chunks_; ++c) {
      bool touched = chunk_pending_[c] < ChunkSize(c);
      if (!chunk_emitted_[c] && touched) EmitChunk(c, false);
    }
  }
  ended_ = true;
  end_.status = status;
  end_.duration_us = now_us - start_us_;
  end_.chunks_complete = chunks_complete_;
  end_.total_chunks = total_chunks_;
  end_.error_number = error_number;
  end_.syscall = syscall;
  end_.timing = timing;
}

bool ScanJob::Flush(EventSink& sink) {
  while (!outbox_.empty()) {
    if (!sink.TryDeliver(outbox_.front())) return false;
    outbox_.pop_front();
  }
  // The end waits for the last socket: whoever sees it finds nothing open.
  if (!ended_ || in_flight > 0) return false;
  if (!end_sent_) {
    auto event = std::make_unique<ScanEvent>();
    event->scan_id = id_;
    event->kind = ScanEvent::Kind::kEnd;
    event->end = end_;
    if (!sink.TryDeliver(event)) return false;
    end_sent_ = true;
  }
  return true;
}

}  // namespace selfscan
