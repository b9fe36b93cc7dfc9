// Launching probes: filling the budget round-robin at each target's pace,
// and the two transports a probe goes out through (a SYN, or a connect()
// on a worker thread or this one).
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>

#include "clock.h"
#include "engine.h"
#include "engine_internal.h"

namespace selfscan {

using namespace engine_internal;

namespace {

void SetPort(sockaddr_storage& a, uint16_t port) {
  if (a.ss_family == AF_INET) {
    reinterpret_cast<sockaddr_in*>(&a)->sin_port = htons(port);
  } else {
    reinterpret_cast<sockaddr_in6*>(&a)->sin6_port = htons(port);
  }
}

}  // namespace

bool Engine::FillSlots() {
  if (NowUs() < backoff_until_us_ || jobs_.empty()) return false;
  int launched = 0;
  bool progress = true;
  while (progress && in_flight_ < SlotLimit()) {
    progress = false;
    size_t n = jobs_.size();
    for (size_t k = 0; k < n && in_flight_ < SlotLimit(); ++k) {
      ScanJob& job = *jobs_[(round_robin_ + k) % n];
      TargetState& target = *job.target;
      // A job with nothing to probe still sends the canaries its silent
      // probes wait for; the last slot is always theirs.
      bool has_work = in_flight_ < KeepOneForCanaries(SlotLimit()) &&
                      target.connecting < KeepOneForCanaries(options_.per_target_in_flight) &&
                      job.CanLaunch(target.CanJudgeSilence());
      if (!has_work && (target.awaiting_canaries == 0 || job.ended())) continue;
      if (target.connecting >= options_.per_target_in_flight) continue;
      int64_t now = NowUs();
      if (!has_work && !target.CanaryDue(now)) continue;
      if (!target.pacer.TryTake(now, target.ceiling())) continue;
      if (target.CanaryDue(now)) {
        LaunchCanary(job, now);
      } else {
        Launch(job, now);
      }
      progress = true;
      if (++launched >= kMaxLaunchBurst) return true;
      if (NowUs() < backoff_until_us_) return false;
    }
    round_robin_ = (round_robin_ + 1) % std::max<size_t>(n, 1);
  }
  return false;
}

Engine::Probe& Engine::TakeSlot(ScanJob& job, int64_t now) {
  uint32_t slot = free_slots_.back();
  free_slots_.pop_back();
  Probe& probe = probes_[slot];
  probe.job = &job;
  probe.phase = Phase::kLaunching;
  probe.started_us = now;
  probe.rate = job.target->rate();
  job.in_flight++;
  job.target->connecting++;
  stat_in_flight_.store(++in_flight_, std::memory_order_relaxed);
  return probe;
}

void Engine::Launch(ScanJob& job, int64_t now) {
  TargetState& target = *job.target;
  ScanJob::Work work = job.Take(target.CanJudgeSilence());
  Probe& probe = TakeSlot(job, now);
  probe.canary = false;
  probe.index = work.index;
  probe.port = job.spec().ports[work.index];
  probe.canary_seq = target.ledger.next_seq();
  target.Launched(false, now);
  Send(probe);
}

void Engine::LaunchCanary(ScanJob& job, int64_t now) {
  TargetState& target = *job.target;
  Probe& probe = TakeSlot(job, now);
  probe.canary = true;
  probe.port = target.NextCanaryPort();
  probe.canary_seq = target.ledger.Begin(now, probe.rate);
  target.Launched(true, now);
  stat_canaries_.fetch_add(1, std::memory_order_relaxed);
  Send(probe);
}

void Engine::Send(Probe& probe) {
  if (syn_) {
    const ScanSpec& spec = probe.job->spec();
    probe.syn_handle = syn_->Queue(Token(SlotOf(probe), probe.gen), spec.target, probe.port);
    if (probe.syn_handle != 0) {
      // A SYN holds no descriptor: the ceiling EMFILE lowered grows back here too.
      if (fd_ceiling_ < budget_ && probe.started_us - last_emfile_us_ > kEmfileCalmUs)
        fd_ceiling_++;
      probe.half_open = true;
      probe.phase = Phase::kConnecting;
      ArmFirstLook(probe);
      return;
    }
  }
  Connect(probe);  // no SYN transport, or none for this target (its family, its route)
}

void Engine::ArmFirstLook(Probe& probe) {
  // A canary is late (lost) after a short, RTT-based wait. A port probe's
  // first look is at the shortest timeout there can be; the timeout that
  // applies is decided then, from the RTT measured by that time.
  const TimeoutBounds& timeouts = probe.job->spec().timeouts;
  int64_t wait = probe.canary ? probe.job->target->CanaryLateUs(timeouts) : timeouts.min_us;
  ArmTimer(probe, probe.started_us + wait);
}

void Engine::SendQueuedSyns() {
  syn_refusals_.clear();
  syn_->Flush(syn_refusals_);
  stat_syns_sent_to_device_.store(syn_->sent_to_device(), std::memory_order_relaxed);
  stat_syns_sent_through_ip_.store(syn_->sent_through_ip(), std::memory_order_relaxed);
  for (const SynRefusal& refusal : syn_refusals_) {
    Probe* probe = ProbeOf(refusal.token);
    if (probe != nullptr && probe->half_open) {
      OnConnectResult(*probe, refusal.error_number, false, "sendmmsg");
    }
  }
}

void Engine::ReadSynAnswers() {
  syn_answers_.clear();
  syn_->Drain(syn_answers_);
  stat_answers_ignored_.store(syn_->ignored(), std::memory_order_relaxed);
  for (const SynAnswer& answer : syn_answers_) {
    Probe* probe = ProbeOf(answer.token);
    if (probe == nullptr || !probe->half_open || probe->phase != Phase::kConnecting) continue;
    probe->window_closed = answer.window_closed;
    ConnectOutcome outcome = answer.kind == AnswerKind::kSynAck  ? ConnectOutcome::kOpen
                             : answer.kind == AnswerKind::kReset ? ConnectOutcome::kClosed
                                                                 : ConnectOutcome::kFiltered;
    OnOutcome(*probe, outcome, 0, "");
  }
}

Engine::Probe* Engine::ProbeOf(uint64_t token) {
  uint32_t slot = static_cast<uint32_t>(token & 0xffffffffu);
  uint32_t gen = static_cast<uint32_t>(token >> 32);
  if (slot >= probes_.size() || probes_[slot].gen != gen) return nullptr;
  return &probes_[slot];
}

void Engine::Connect(Probe& probe) {
  const ScanSpec& spec = probe.job->spec();
  ConnectOrder order{SlotOf(probe), probe.gen, spec.target, spec.target_len};
  SetPort(order.address, probe.port);
  if (workers_ && workers_->pending() + to_workers_.size() <
                      static_cast<size_t>(kOrdersPerWorker * workers_->count())) {
    to_workers_.push_back(order);
    if (to_workers_.size() >= kOrdersPerSubmit) workers_->Submit(to_workers_);
    return;
  }
  OnLaunched(RunConnectOrder(order));
}

void Engine::CollectLaunches() {
  if (!workers_) return;
  launched_.clear();
  workers_->Collect(launched_);
  for (const ConnectDone& done : launched_) OnLaunched(done);
}

void Engine::OnLaunched(const ConnectDone& done) {
  Probe& probe = probes_[done.slot];
  probe.fd = done.fd;
  probe.started_us = done.started_us;
  if (probe.job->ended()) {
    Abandon(probe);
    return;
  }
  if (done.fd < 0 && !done.answered) {
    OnConnectResult(probe, done.error_number, false, "socket");
    return;
  }
  probe.phase = Phase::kConnecting;
  if (fd_ceiling_ < budget_ && probe.started_us - last_emfile_us_ > kEmfileCalmUs) fd_ceiling_++;
  if (done.answered) {
    OnConnectResult(probe, done.error_number, true, "connect", done.icmp);
    return;
  }
  if (ClassifyConnectErrno(done.error_number, false) == ConnectOutcome::kPending) {
    if (!Watch(probe, Interest::kWritable)) {
      RetryLater(probe, errno);
      return;
    }
    ArmFirstLook(probe);
    return;
  }
  OnConnectResult(probe, done.error_number, false, "connect");
}

void Engine::Abandon(Probe& probe) {
  if (probe.canary) probe.job->target->ledger.Void(probe.canary_seq);
  LeaveConnecting(probe);
  CloseProbe(probe);
}

void Engine::RetryLater(Probe& probe, int error_number) {
  int64_t now = NowUs();
  if (error_number == EMFILE || error_number == ENFILE) {
    fd_ceiling_ = std::max(kMinCeiling, in_flight_ - 1);
    last_emfile_us_ = now;
  }
  backoff_until_us_ = now + (error_number == ENOBUFS ? kDeviceBusyBackoffUs : kBackoffUs);
  stat_local_retries_.fetch_add(1, std::memory_order_relaxed);
  LeaveConnecting(probe);
  if (probe.canary) {
    probe.job->target->ledger.Void(probe.canary_seq);
  } else {
    probe.job->PutBack(ScanJob::Work{probe.index});
  }
  CloseProbe(probe);
}

bool Engine::IsSelfConnect(const Probe& probe) const {
  sockaddr_storage local{};
  socklen_t length = sizeof local;
  if (getsockname(probe.fd, reinterpret_cast<sockaddr*>(&local), &length) != 0) return false;
  const ScanSpec& spec = probe.job->spec();
  uint16_t port = htons(probe.port);
  if (local.ss_family != spec.target.ss_family) return false;
  if (local.ss_family == AF_INET) {
    const auto* mine = reinterpret_cast<const sockaddr_in*>(&local);
    const auto* theirs = reinterpret_cast<const sockaddr_in*>(&spec.target);
    return mine->sin_port == port && mine->sin_addr.s_addr == theirs->sin_addr.s_addr;
  }
  const auto* mine = reinterpret_cast<const sockaddr_in6*>(&local);
  const auto* theirs = reinterpret_cast<const sockaddr_in6*>(&spec.target);
  return mine->sin6_port == port &&
         std::memcmp(&mine->sin6_addr, &theirs->sin6_addr, sizeof(in6_addr)) == 0;
}

}  // namespace selfscan
