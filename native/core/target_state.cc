#include "target_state.h"

#include <algorithm>
#include <cmath>

namespace selfscan {

namespace {
// A canary after at least this many probes and this much time: about one
// probe in sixteen at modest rates, fewer at high rates. Canaries are SYNs
// too: behind a SYN limiter each one takes the place of a port.
constexpr uint32_t kCanaryEvery = 16;
constexpr int64_t kCanaryGapUs = 250;
// Silent probes waiting for canaries get them this often, work or not.
constexpr int64_t kAwaitedCanaryGapUs = 2000;
// Open ports are real services: probe them as canaries sparingly, and only
// when no closed port is known.
constexpr int64_t kOpenCanaryGapUs = 2000;
constexpr size_t kPortsKept = 8;
// A canary is late (lost) after twice the plausible RTT, at least this.
constexpr int64_t kCanaryLateFloorUs = 10000;
// Growth epochs: twice the RTT, at least this.
constexpr int64_t kEpochFloorUs = 5000;
// Re-probes of silent ports, once the sweep is over, go at this share of
// the rate below which silences count.
constexpr double kVerifyShare = 0.8;

void Remember(std::vector<uint16_t>& ports, uint16_t port) {
  if (std::find(ports.begin(), ports.end(), port) != ports.end()) return;
  if (ports.size() == kPortsKept) ports.erase(ports.begin());
  ports.push_back(port);
}
}  // namespace

TargetState::TargetState(double initial_rate, const LearnedTiming& learned) : pacer(initial_rate) {
  if (learned.rate > 0) pacer.Seed(learned.rate);
  rtt.Seed(learned);
}

LearnedTiming TargetState::Learned() const {
  return LearnedTiming{rate(), rtt.srtt_us(), rtt.rttvar_us(), rtt.samples()};
}

void TargetState::Prepare(int64_t now_us) {
  // No growth before the first answer: on a far path the pace would double
  // many times over before anything could say it is too fast.
  if (rtt.HasSamples()) pacer.Tick(now_us, EpochUs());
  double safe = losses.SafeRate();
  ceiling_ = !sweeping && safe > 0 ? kVerifyShare * safe : 0;
}

int64_t TargetState::EpochUs() const {
  return std::max(kEpochFloorUs, 2 * rtt.UnboundedTimeoutUs());
}

int64_t TargetState::SendingUs(double probes) const {
  double rate = std::max(this->rate(), 1.0);
  if (!pacer.slow_start() || ceiling_ > 0) return static_cast<int64_t>(probes / rate * 1e6);
  // r + 2r + 4r ... per epoch E: k epochs send r * E * (2^k - 1).
  double epoch = static_cast<double>(EpochUs());
  double per_epoch = rate * epoch / 1e6;
  return static_cast<int64_t>(epoch * std::log2(1 + probes / per_epoch));
}

double TargetState::PathShare() const { return path_loss.loss(losses.LowestRate()); }

void TargetState::PortAnswered(int clean_silences) {
  ++ports_answered_;
  silences_contradicted_ += static_cast<uint64_t>(clean_silences);
}

double TargetState::SilenceDoubt() const {
  double probes = static_cast<double>(ports_answered_ + silences_contradicted_);
  double lied = probes > 0 ? static_cast<double>(silences_contradicted_) / probes : 0;
  return std::max(PathShare(), lied);
}

bool TargetState::UnderSafeRate(double rate) const {
  double safe = losses.SafeRate();
  return safe == 0 || rate <= safe;
}

bool TargetState::CanaryDue(int64_t now_us) const {
  bool due = since_canary_ >= kCanaryEvery ||
             (awaiting_canaries > 0 && now_us - last_canary_us_ >= kAwaitedCanaryGapUs);
  if (!due || now_us - last_canary_us_ < kCanaryGapUs) return false;
  if (!closed_ports_.empty()) return true;
  return !open_ports_.empty() && now_us - last_open_canary_us_ >= kOpenCanaryGapUs;
}

uint16_t TargetState::NextCanaryPort() {
  const std::vector<uint16_t>& ports = closed_ports_.empty() ? open_ports_ : closed_ports_;
  return ports[next_canary_++ % ports.size()];
}

void TargetState::Launched(bool canary, int64_t now_us) {
  ++launched_;
  if (!canary) {
    ++since_canary_;
    return;
  }
  since_canary_ = 0;
  last_canary_us_ = now_us;
  if (closed_ports_.empty()) last_open_canary_us_ = now_us;
}

void TargetState::LearnClosed(uint16_t port) { Remember(closed_ports_, port); }

void TargetState::LearnOpen(uint16_t port) { Remember(open_ports_, port); }

int64_t TargetState::CanaryLateUs(const TimeoutBounds& bounds) const {
  int64_t late = rtt.HasSamples() ? std::max(kCanaryLateFloorUs, 2 * rtt.UnboundedTimeoutUs())
                                  : bounds.initial_us;
  return std::min(late, rtt.TimeoutUs(bounds));
}

void TargetState::CanaryAnswered(uint32_t seq, int64_t now_us) {
  if (!ledger.Answer(seq)) return;
  double sent_rate = ledger.rate(seq);
  path_loss.Answered(sent_rate);
  SettledClean(sent_rate, now_us);
}

void TargetState::SettledClean(double rate, int64_t now_us) {
  double proven = clean_.Settled(rate, launched_, now_us);
  if (proven > 0) losses.Refute(proven);
}

PathLoss::Kind TargetState::CanaryLost(uint32_t seq, int64_t now_us) {
  if (!ledger.Lose(seq)) return PathLoss::Kind::kPath;  // settled or forgotten already
  double sent_rate = ledger.rate(seq);
  if (pacer.SentBeforeCut(ledger.sent_us(seq))) {
    path_loss.LostBeforeCut(sent_rate);
    clean_.Broken();
    return PathLoss::Kind::kExcess;
  }
  PathLoss::Kind kind = path_loss.Lost(sent_rate);
  if (kind == PathLoss::Kind::kPath) {
    SettledClean(sent_rate, now_us);
    return kind;
  }
  clean_.Broken();
  // The pace is cut on any excess loss; the bar for silences moves only on
  // two within a window: a lone loss, the first of a lossy path's, must not
  // keep every later silence from counting.
  if (path_loss.window_losses() >= 2) losses.Record(sent_rate, now_us);
  if (pacer.OnLoss(ledger.sent_us(seq), sent_rate, now_us, path_loss.excess_share())) {
    path_loss.Restart();
  }
  return kind;
}

CanaryLedger::Verdict TargetState::JudgeSilence(uint32_t canary_after, double rate) const {
  if (!UnderSafeRate(rate)) return CanaryLedger::Verdict::kNotAnswered;
  return ledger.Brackets(canary_after);
}

}  // namespace selfscan
