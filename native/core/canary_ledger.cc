#include "canary_ledger.h"

#include <cstddef>

namespace selfscan {

namespace {
// Canaries remembered: far more than can be in flight at once.
constexpr size_t kRingSize = 4096;
// Canaries on each side of a silent probe that must have answered.
constexpr uint32_t kBracket = 2;
}  // namespace

CanaryLedger::CanaryLedger() : ring_(kRingSize) {}

uint32_t CanaryLedger::Begin(int64_t now_us, double rate) {
  uint32_t seq = next_++;
  ring_[seq % ring_.size()] = Entry{seq, Outcome::kPending, now_us, rate};
  return seq;
}

CanaryLedger::Entry* CanaryLedger::Find(uint32_t seq) {
  Entry& entry = ring_[seq % ring_.size()];
  return entry.seq == seq ? &entry : nullptr;
}

bool CanaryLedger::Settle(uint32_t seq, Outcome outcome) {
  Entry* entry = Find(seq);
  if (entry == nullptr || entry->outcome != Outcome::kPending) return false;
  entry->outcome = outcome;
  return true;
}

bool CanaryLedger::Answer(uint32_t seq) { return Settle(seq, Outcome::kAnswered); }

bool CanaryLedger::Lose(uint32_t seq) { return Settle(seq, Outcome::kLost); }

void CanaryLedger::Void(uint32_t seq) { Settle(seq, Outcome::kVoid); }

CanaryLedger::Verdict CanaryLedger::Brackets(uint32_t after) const {
  if (after < kBracket || next_ - (after - kBracket) > ring_.size()) return Verdict::kNotAnswered;
  bool undecided = false;
  for (uint32_t seq = after - kBracket; seq < after + kBracket; ++seq) {
    if (seq >= next_) {
      undecided = true;
      continue;
    }
    const Entry& entry = At(seq);
    if (entry.outcome == Outcome::kPending) {
      undecided = true;
    } else if (entry.outcome != Outcome::kAnswered) {
      return Verdict::kNotAnswered;
    }
  }
  return undecided ? Verdict::kUndecided : Verdict::kAnswered;
}

}  // namespace selfscan
