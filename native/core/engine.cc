#include "engine.h"

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <system_error>

#include "banner.h"
#include "clock.h"
#include "connect_outcome.h"
#include "fd_budget.h"
#include "filtered_rule.h"

namespace selfscan {

namespace {

// Launches between two looks at the poller, so answers are read while a large
// sweep is still being sent.
constexpr int kMaxLaunchBurst = 512;
// Pause after a local resource error (EAGAIN, EADDRNOTAVAIL, EMFILE...).
constexpr int64_t kBackoffUs = 2000;
// After EMFILE the socket ceiling stays low this long before it grows again.
constexpr int64_t kEmfileCalmUs = 50000;
constexpr int kMinCeiling = 8;
// Least time to wait for a server that speaks first, and for an answer to
// the HTTP probe (servers take a moment to build a page). Above these, the
// waits follow the target's RTT, up to the scan's banner timeout.
constexpr int64_t kServerFirstFloorUs = 50000;
constexpr int64_t kHttpAnswerFloorUs = 200000;
// Answers later than this may come from the kernel's own SYN retransmission,
// so they say nothing about the RTT.
constexpr int64_t kMaxRttSampleUs = 900000;
// On a host where no port has ever answered there is no canary: a port is
// filtered after this many silences, one sweep after another.
constexpr uint8_t kSilentHostTries = 3;
// Connect orders waiting per worker, and handed over in batches this big;
// what does not fit, the engine thread connects itself.
constexpr int kOrdersPerWorker = 128;
constexpr size_t kOrdersPerSubmit = 8;
// How often a silent probe waiting for its canaries looks again.
constexpr int64_t kVerdictRecheckUs = 1000;

std::string TargetKey(const ScanSpec& spec) {
  const sockaddr_storage& a = spec.target;
  if (a.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&a);
    return std::string("4") + std::string(reinterpret_cast<const char*>(&in->sin_addr), 4);
  }
  const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&a);
  return std::string("6") + std::string(reinterpret_cast<const char*>(&in6->sin6_addr), 16);
}

void SetPort(sockaddr_storage& a, uint16_t port) {
  if (a.ss_family == AF_INET) {
    reinterpret_cast<sockaddr_in*>(&a)->sin_port = htons(port);
  } else {
    reinterpret_cast<sockaddr_in6*>(&a)->sin6_port = htons(port);
  }
}

uint64_t Token(uint32_t slot, uint32_t gen) { return (static_cast<uint64_t>(gen) << 32) | slot; }

}  // namespace

Engine::Engine(EngineOptions options, std::unique_ptr<EventSink> sink)
    : options_(options), sink_(std::move(sink)) {
  FdBudget fds = ComputeFdBudget(options_.max_in_flight);
  fd_limit_ = fds.limit;
  budget_ = fds.budget;
  fd_ceiling_ = budget_;
  probes_.resize(budget_);
  free_slots_.reserve(budget_);
  for (int i = budget_ - 1; i >= 0; --i) free_slots_.push_back(static_cast<uint32_t>(i));

  poller_ = MakePoller(options_.poller);
  int threads = options_.connect_threads;
  if (threads < 0) threads = std::max(0, static_cast<int>(std::thread::hardware_concurrency()) - 1);
  if (threads > 0) workers_ = std::make_unique<ConnectWorkers>(threads, *poller_);
  thread_ = std::thread([this] { Run(); });
}

Engine::~Engine() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    commands_.push_back(Command{Command::Kind::kStop, 0, nullptr});
  }
  Wake();
  if (thread_.joinable()) thread_.join();
  workers_.reset();  // joins them; closes sockets they opened that nobody took
  for (Probe& probe : probes_) {
    if (probe.fd >= 0) close(probe.fd);
  }
}

uint64_t Engine::Submit(ScanSpec spec) {
  uint64_t id = next_id_.fetch_add(1);
  auto job = std::make_unique<ScanJob>(id, std::move(spec), NowUs());
  {
    std::lock_guard<std::mutex> lock(mutex_);
    commands_.push_back(Command{Command::Kind::kSubmit, id, std::move(job)});
  }
  Wake();
  return id;
}

void Engine::Cancel(uint64_t id) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    commands_.push_back(Command{Command::Kind::kCancel, id, nullptr});
  }
  Wake();
}

EngineStats Engine::Stats() const {
  return EngineStats{poller_->kind(),
                     fd_limit_,
                     budget_,
                     stat_in_flight_.load(),
                     stat_scans_.load(),
                     stat_local_retries_.load(),
                     stat_canaries_.load(),
                     stat_canaries_lost_.load(),
                     stat_canaries_lost_to_path_.load()};
}

void Engine::Wake() { poller_->Wake(); }

void Engine::Run() {
  while (DrainCommands()) {
    int64_t now = NowUs();
    EnforceBudgets(now);
    PrepareTargets(now);
    bool more = FillSlots();
    if (workers_) workers_->Submit(to_workers_);
    FlushJobs();
    poller_->Wait(ready_, WaitTimeoutUs(NowUs(), more));
    for (const Readiness& ready : ready_) HandleEvent(ready);
    CollectLaunches();
    ExpireTimers(NowUs());
  }
}

bool Engine::DrainCommands() {
  std::vector<Command> commands;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    commands.swap(commands_);
  }
  for (Command& command : commands) {
    switch (command.kind) {
      case Command::Kind::kStop:
        return false;
      case Command::Kind::kSubmit:
        Attach(std::move(command.job));
        break;
      case Command::Kind::kCancel:
        for (auto& job : jobs_) {
          if (job->id() == command.id) EndJob(*job, ScanStatus::kCancelled);
        }
        break;
    }
  }
  return true;
}

void Engine::Attach(std::unique_ptr<ScanJob> job) {
  std::string key = TargetKey(job->spec());
  auto found = targets_.find(key);
  if (found == targets_.end()) {
    // The scan's learned timing seeds only a new state: while another scan
    // of this target runs here, what the engine is learning live wins.
    auto state = std::make_unique<TargetState>(options_.initial_rate, job->spec().timing);
    found = targets_.emplace(key, std::move(state)).first;
  }
  found->second->scans++;
  job->target = found->second.get();
  stat_scans_.fetch_add(1, std::memory_order_relaxed);
  jobs_.push_back(std::move(job));
  if (jobs_.back()->spec().ports.empty()) EndJob(*jobs_.back(), ScanStatus::kComplete);
}

void Engine::Detach(size_t position) {
  ScanJob& job = *jobs_[position];
  std::string key = TargetKey(job.spec());
  if (--job.target->scans == 0) targets_.erase(key);
  jobs_.erase(jobs_.begin() + static_cast<std::ptrdiff_t>(position));
}

void Engine::PrepareTargets(int64_t now) {
  for (auto& entry : targets_) entry.second->sweeping = false;
  for (auto& job : jobs_) {
    if (!job->ended() && job->sweeping()) job->target->sweeping = true;
  }
  for (auto& entry : targets_) entry.second->Prepare(now);
}

bool Engine::FillSlots() {
  if (NowUs() < backoff_until_us_ || jobs_.empty()) return false;
  int launched = 0;
  bool progress = true;
  while (progress && in_flight_ < std::min(budget_, fd_ceiling_)) {
    progress = false;
    size_t n = jobs_.size();
    for (size_t k = 0; k < n && in_flight_ < std::min(budget_, fd_ceiling_); ++k) {
      ScanJob& job = *jobs_[(round_robin_ + k) % n];
      TargetState& target = *job.target;
      // A job with nothing to probe still sends the canaries its silent
      // probes wait for.
      bool has_work = job.CanLaunch(target.CanJudgeSilence());
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
  Connect(probe);
}

void Engine::LaunchCanary(ScanJob& job, int64_t now) {
  TargetState& target = *job.target;
  Probe& probe = TakeSlot(job, now);
  probe.canary = true;
  probe.port = target.NextCanaryPort();
  probe.canary_seq = target.ledger.Begin(now, probe.rate);
  target.Launched(true, now);
  stat_canaries_.fetch_add(1, std::memory_order_relaxed);
  Connect(probe);
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
    // A canary is late (lost) after a short, RTT-based wait. A port probe's
    // first look is at the shortest timeout there can be; the timeout that
    // applies is decided then, from the RTT measured by that time.
    const TimeoutBounds& timeouts = probe.job->spec().timeouts;
    int64_t wait = probe.canary ? probe.job->target->CanaryLateUs(timeouts) : timeouts.min_us;
    ArmTimer(probe, probe.started_us + wait);
    return;
  }
  OnConnectResult(probe, done.error_number, false, "connect");
}

void Engine::Abandon(Probe& probe) {
  if (probe.canary) probe.job->target->ledger.Void(probe.canary_seq);
  LeaveConnecting(probe);
  CloseProbe(probe);
}

void Engine::HandleEvent(const Readiness& ready) {
  uint32_t slot = static_cast<uint32_t>(ready.token & 0xffffffffu);
  uint32_t gen = static_cast<uint32_t>(ready.token >> 32);
  if (slot >= probes_.size()) return;
  Probe& probe = probes_[slot];
  if (probe.gen != gen || probe.fd < 0) return;  // a probe that already ended
  switch (probe.phase) {
    case Phase::kConnecting: {
      int error = ready.error != 0 ? ready.error : ConnectErrorOf(probe.fd, ready.writable);
      OnConnectResult(probe, error, true, "connect");
      break;
    }
    case Phase::kAwaitBanner:
    case Phase::kAwaitHttp:
      OnReadable(probe);
      break;
    case Phase::kFree:
    case Phase::kLaunching:
    case Phase::kAnswered:
      break;
  }
}

void Engine::OnConnectResult(Probe& probe, int error_number, bool from_network, const char* syscall,
                             bool icmp) {
  ScanJob& job = *probe.job;
  TargetState& target = *job.target;
  ConnectOutcome outcome = ClassifyConnectErrno(error_number, from_network);
  if (outcome == ConnectOutcome::kClosed && (icmp || (probe.fd >= 0 && RefusedByIcmp(probe.fd)))) {
    outcome = ConnectOutcome::kFiltered;  // an ICMP port unreachable: a REJECT
  }
  if (outcome == ConnectOutcome::kOpen && IsSelfConnect(probe)) {
    // Our own ephemeral port met itself (loopback): nothing learnt.
    RetryLater(probe, EADDRINUSE);
    return;
  }
  bool answered = outcome == ConnectOutcome::kOpen || outcome == ConnectOutcome::kClosed ||
                  outcome == ConnectOutcome::kFiltered;
  int64_t now = NowUs();
  if (answered) {
    if (now - probe.started_us < kMaxRttSampleUs) target.rtt.AddSample(now - probe.started_us);
    LeaveConnecting(probe);
  }
  if (probe.canary) {
    OnCanaryResult(probe, outcome);
    return;
  }
  switch (outcome) {
    case ConnectOutcome::kOpen:
      target.LearnOpen(probe.port);
      BeginBanner(probe);
      return;
    case ConnectOutcome::kClosed:
      target.LearnClosed(probe.port);
      Resolve(probe, PortState::kClosed);
      return;
    case ConnectOutcome::kFiltered:
      Resolve(probe, PortState::kFiltered);
      return;
    case ConnectOutcome::kTimedOut:
      OnConnectTimeout(probe, false);  // the kernel gave up: long past any canary
      return;
    case ConnectOutcome::kRetryLater:
    case ConnectOutcome::kPending:
      RetryLater(probe, error_number);
      return;
    case ConnectOutcome::kFatal:
      EndJob(job, ScanStatus::kFailed, error_number, syscall);
      return;
  }
}

void Engine::OnCanaryResult(Probe& probe, ConnectOutcome outcome) {
  TargetState& target = *probe.job->target;
  switch (outcome) {
    case ConnectOutcome::kOpen: {
      linger reset{1, 0};  // no TIME_WAIT, and the service sees a reset at once
      setsockopt(probe.fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
      target.CanaryAnswered(probe.canary_seq, NowUs());
      break;
    }
    case ConnectOutcome::kClosed:
    case ConnectOutcome::kFiltered:
      target.CanaryAnswered(probe.canary_seq, NowUs());
      break;
    case ConnectOutcome::kTimedOut:
      OnCanaryLate(probe);
      return;
    case ConnectOutcome::kRetryLater:
    case ConnectOutcome::kPending:
    case ConnectOutcome::kFatal:
      RetryLater(probe, EAGAIN);
      return;
  }
  CloseProbe(probe);
}

void Engine::OnCanaryLate(Probe& probe) {
  stat_canaries_lost_.fetch_add(1, std::memory_order_relaxed);
  if (probe.job->target->CanaryLost(probe.canary_seq, NowUs()) == PathLoss::Kind::kPath) {
    stat_canaries_lost_to_path_.fetch_add(1, std::memory_order_relaxed);
  }
  LeaveConnecting(probe);
  CloseProbe(probe);
}

void Engine::OnSilence(Probe& probe, int64_t now) {
  TargetState& target = *probe.job->target;
  CanaryLedger::Verdict verdict = target.JudgeSilence(probe.canary_seq, probe.rate);
  if (verdict != CanaryLedger::Verdict::kUndecided) {
    OnConnectTimeout(probe, verdict == CanaryLedger::Verdict::kAnswered);
    return;
  }
  // Keep listening: an answer may still come, and the canaries around this
  // probe will say whether its silence counts.
  if (!probe.awaiting_canaries) {
    probe.awaiting_canaries = true;
    target.awaiting_canaries++;
  }
  ArmTimer(probe, now + kVerdictRecheckUs);
}

void Engine::OnConnectTimeout(Probe& probe, bool clean) {
  LeaveConnecting(probe);
  ScanJob& job = *probe.job;
  const TargetState& target = *job.target;
  job.RecordSilence(probe.index, clean);
  int needed = SilencesForFiltered(target.PathShare(), job.AnsweringEstimate());
  bool filtered = job.clean_silences(probe.index) >= needed ||
                  (!target.has_canary() && job.silences(probe.index) >= kSilentHostTries);
  if (filtered) {
    Resolve(probe, PortState::kFiltered);
  } else {
    job.Reprobe(probe.index);
    CloseProbe(probe);
  }
}

void Engine::BeginBanner(Probe& probe) {
  const ScanSpec& spec = probe.job->spec();
  probe.gen++;  // the connect timer still queued must not end the banner read
  if (!spec.banners || !Watch(probe, Interest::kReadable)) {
    FinishOpen(probe, nullptr);
    return;
  }
  probe.phase = Phase::kAwaitBanner;
  ArmTimer(probe, NowUs() + BannerWaitUs(probe, kServerFirstFloorUs));
}

void Engine::OnReadable(Probe& probe) {
  char buffer[kBannerMaxBytes];
  ssize_t n = recv(probe.fd, buffer, sizeof buffer, 0);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (n > 0) {
    std::string banner = PrintableBanner(buffer, static_cast<size_t>(n));
    FinishOpen(probe, banner.empty() ? nullptr : &banner);
  } else {
    FinishOpen(probe, nullptr);
  }
}

void Engine::OnBannerTimeout(Probe& probe) {
  if (probe.phase == Phase::kAwaitBanner &&
      send(probe.fd, kHttpProbe, kHttpProbeLength, kSendNoSignal) ==
          static_cast<ssize_t>(kHttpProbeLength)) {
    // A late server-first greeting still arrives before any HTTP answer.
    probe.phase = Phase::kAwaitHttp;
    ArmTimer(probe, NowUs() + BannerWaitUs(probe, kHttpAnswerFloorUs));
    return;
  }
  FinishOpen(probe, nullptr);
}

int64_t Engine::BannerWaitUs(const Probe& probe, int64_t floor_us) const {
  const RttEstimator& rtt = probe.job->target->rtt;
  int64_t cap = probe.job->spec().banner_timeout_us;
  int64_t wait = rtt.HasSamples() ? 2 * rtt.UnboundedTimeoutUs() : cap;
  return std::min(std::max(wait, floor_us), cap);
}

void Engine::FinishOpen(Probe& probe, const std::string* banner) {
  // Reset instead of FIN: no TIME_WAIT left behind for each open port.
  linger reset{1, 0};
  setsockopt(probe.fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
  Resolve(probe, PortState::kOpen, banner);
}

void Engine::Resolve(Probe& probe, PortState state, const std::string* banner) {
  ScanJob& job = *probe.job;
  job.Resolve(probe.index, state, banner);
  CloseProbe(probe);
  if (job.AllResolved()) EndJob(job, ScanStatus::kComplete);
}

void Engine::RetryLater(Probe& probe, int error_number) {
  int64_t now = NowUs();
  if (error_number == EMFILE || error_number == ENFILE) {
    fd_ceiling_ = std::max(kMinCeiling, in_flight_ - 1);
    last_emfile_us_ = now;
  }
  backoff_until_us_ = now + kBackoffUs;
  stat_local_retries_.fetch_add(1, std::memory_order_relaxed);
  LeaveConnecting(probe);
  if (probe.canary) {
    probe.job->target->ledger.Void(probe.canary_seq);
  } else {
    probe.job->PutBack(ScanJob::Work{probe.index});
  }
  CloseProbe(probe);
}

void Engine::EndJob(ScanJob& job, ScanStatus status, int error_number, const char* syscall) {
  if (job.ended()) return;
  for (Probe& probe : probes_) {
    // A launching probe is closed when its worker hands it back.
    if (probe.phase == Phase::kFree || probe.phase == Phase::kLaunching || probe.job != &job) {
      continue;
    }
    if (probe.phase >= Phase::kAwaitBanner && status == ScanStatus::kIncomplete) {
      // Found open, banner not read yet: still a finding.
      job.Resolve(probe.index, PortState::kOpen, nullptr);
    }
    Abandon(probe);
  }
  job.Finish(status, NowUs(), job.target->Learned(), error_number, syscall);
  // Counted down before the end event leaves, so a caller that saw the end
  // never sees the scan as still running.
  stat_scans_.fetch_sub(1, std::memory_order_relaxed);
}

void Engine::ExpireTimers(int64_t now) {
  while (!timers_.empty() && timers_.top().deadline_us <= now) {
    Timer timer = timers_.top();
    timers_.pop();
    Probe& probe = probes_[timer.slot];
    if (probe.gen != timer.gen || probe.phase == Phase::kFree) continue;
    if (probe.phase == Phase::kConnecting) {
      // A busy loop must not turn a late-read answer into "filtered".
      pollfd check{probe.fd, POLLOUT, 0};
      if (poll(&check, 1, 0) == 1 && check.revents != 0) {
        HandleEvent(
            Readiness{Token(timer.slot, timer.gen), (check.revents & POLLOUT) != 0, false, 0});
        continue;
      }
      if (probe.canary) {
        OnCanaryLate(probe);
        continue;
      }
      const ScanSpec& spec = probe.job->spec();
      int64_t deadline = probe.started_us + probe.job->target->rtt.TimeoutUs(spec.timeouts);
      if (deadline > now) {
        ArmTimer(probe, deadline);
      } else {
        OnSilence(probe, now);
      }
    } else {
      pollfd check{probe.fd, POLLIN, 0};
      if (poll(&check, 1, 0) == 1 && check.revents != 0) {
        OnReadable(probe);
        continue;
      }
      OnBannerTimeout(probe);
    }
  }
}

void Engine::EnforceBudgets(int64_t now) {
  for (auto& job : jobs_) {
    if (!job->ended() && now >= job->deadline_us()) EndJob(*job, ScanStatus::kIncomplete);
  }
}

int64_t Engine::EtaUs(const ScanJob& job) const {
  const TargetState& target = *job.target;
  if (!target.rtt.HasSamples()) return -1;
  int silences = SilencesForFiltered(target.PathShare(), job.AnsweringEstimate());
  int64_t timeout = target.rtt.TimeoutUs(job.spec().timeouts);
  return target.SendingUs(job.ProbesOwed(silences)) + silences * timeout;
}

void Engine::FlushJobs() {
  for (size_t i = 0; i < jobs_.size();) {
    if (jobs_[i]->NeedsEta()) jobs_[i]->StampEta(jobs_[i]->ended() ? 0 : EtaUs(*jobs_[i]));
    if (jobs_[i]->Flush(*sink_)) {
      Detach(i);
    } else {
      ++i;
    }
  }
}

int64_t Engine::WaitTimeoutUs(int64_t now, bool more_to_launch) const {
  if (more_to_launch) return 0;
  int64_t wake = INT64_MAX;
  if (!timers_.empty()) wake = timers_.top().deadline_us;
  bool waiting_work = false;
  for (const auto& job : jobs_) {
    if (job->HasUndelivered()) wake = std::min(wake, now + 1000);  // sink was full
    if (!job->ended()) wake = std::min(wake, job->deadline_us());
    const TargetState& target = *job->target;
    if (!job->CanLaunch(target.CanJudgeSilence())) continue;
    waiting_work = true;
    if (target.connecting < options_.per_target_in_flight) {
      wake = std::min(wake, target.pacer.NextTokenUs(now, target.ceiling()));
    }
  }
  if (waiting_work && backoff_until_us_ > now) wake = std::min(wake, backoff_until_us_);
  if (wake == INT64_MAX) return -1;
  return std::clamp<int64_t>(wake - now, 0, 60000000);
}

void Engine::ArmTimer(Probe& probe, int64_t deadline_us) {
  timers_.push(Timer{deadline_us, SlotOf(probe), probe.gen});
}

bool Engine::Watch(Probe& probe, Interest interest) {
  uint64_t token = Token(SlotOf(probe), probe.gen);
  bool ok = probe.watched ? poller_->Change(probe.fd, token, interest)
                          : poller_->Add(probe.fd, token, interest);
  probe.watched = probe.watched || ok;
  return ok;
}

void Engine::LeaveConnecting(Probe& probe) {
  if (probe.phase != Phase::kConnecting && probe.phase != Phase::kLaunching) return;
  probe.job->target->connecting--;
  probe.phase = Phase::kAnswered;
}

void Engine::CloseProbe(Probe& probe) {
  if (probe.awaiting_canaries) {
    probe.job->target->awaiting_canaries--;
    probe.awaiting_canaries = false;
  }
  if (probe.fd >= 0) {
    if (probe.watched) poller_->Remove(probe.fd);
    close(probe.fd);
  }
  probe.fd = -1;
  probe.watched = false;
  probe.job->in_flight--;
  probe.job = nullptr;
  probe.phase = Phase::kFree;
  probe.gen++;
  stat_in_flight_.store(--in_flight_, std::memory_order_relaxed);
  free_slots_.push_back(SlotOf(probe));
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
