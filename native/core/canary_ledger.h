// Canaries are re-probes of ports already known to answer (closed ports
// first: only an RST can show a host that limits its RSTs), interleaved
// through a sweep. The ledger numbers them in send order and keeps how each
// ended, so a silent probe can be judged by the canaries sent around it: if
// one of them went unanswered, the host was dropping at that moment and the
// silence proves nothing. That holds for a canary the path seems to have
// lost at random too: one lost canary cannot tell a limiter's first drop
// from the path's loss, and a silence counted on a guess could make a
// closed port filtered. Engine thread only.
#pragma once

#include <cstdint>
#include <vector>

namespace selfscan {

class CanaryLedger {
 public:
  CanaryLedger();

  // The number the next canary will get: a probe records it at launch, and
  // is then bracketed by canaries next_seq() - 1 and next_seq().
  uint32_t next_seq() const { return next_; }
  uint32_t Begin(int64_t now_us, double rate);
  // Each returns false when the canary was settled already or forgotten.
  bool Answer(uint32_t seq);
  bool Lose(uint32_t seq);
  // The canary never reached the host (local error, scan ended): no
  // evidence either way, so it brackets nothing.
  void Void(uint32_t seq);
  int64_t sent_us(uint32_t seq) const { return At(seq).sent_us; }
  double rate(uint32_t seq) const { return At(seq).rate; }

  enum class Verdict : uint8_t { kAnswered, kNotAnswered, kUndecided };
  // Whether the two canaries sent before a probe and the two sent after it
  // (the probe recorded `after` at launch) were all answered; undecided
  // while one of them is still to be sent or in flight.
  Verdict Brackets(uint32_t after) const;

 private:
  enum class Outcome : uint8_t { kPending, kAnswered, kLost, kVoid };
  struct Entry {
    uint32_t seq = UINT32_MAX;
    Outcome outcome = Outcome::kPending;
    int64_t sent_us = 0;
    double rate = 0;
  };
  const Entry& At(uint32_t seq) const { return ring_[seq % ring_.size()]; }
  Entry* Find(uint32_t seq);
  bool Settle(uint32_t seq, Outcome outcome);

  std::vector<Entry> ring_;
  uint32_t next_ = 0;
};

}  // namespace selfscan
