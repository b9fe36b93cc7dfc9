// The scanning engine: one background thread that waits on its sockets
// through one Poller (poller.h: epoll, kqueue or poll), which also wakes or
// stops it. Probes go out through one of two transports under one core:
// half-open SYNs (syn_transport.h; each open port then confirmed, and its
// banner read, by one connect()) or connect() alone (connect_workers.h).
// The core is split by job: the loop and the scans' lifecycle (engine.cc),
// launching probes through a transport (engine_launch.cc), what an answer
// or a silence means for a port (engine_verdicts.cc) and the banner read of
// an open port (engine_banner.cc). Every scan of the process shares it: a global socket
// budget (from RLIMIT_NOFILE), and per target a socket budget and a paced
// rate with canary probes (target_state.h), filled round-robin so parallel
// scans slow down fairly. The canaries' losses are split into the path's own
// random loss, which the pace ignores, and loss beyond it, which cuts the
// pace (path_loss.h). A silent port is filtered only after silences that
// canaries show the host was answering around, sent below any rate at which
// it dropped probes, and too many for the path's own loss to explain
// (filtered_rule.h). Public methods may be called from any thread;
// everything else runs on the engine thread.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <queue>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "connect_outcome.h"
#include "connect_workers.h"
#include "engine_kind.h"
#include "poller.h"
#include "scan_event.h"
#include "scan_job.h"
#include "scan_spec.h"
#include "syn_transport.h"
#include "target_state.h"

namespace selfscan {

struct EngineOptions {
  int max_in_flight = 0;  // sockets at once; 0 = from RLIMIT_NOFILE
  // Connects outstanding to one address: covers pace x timeout (20,000/s
  // with silent probes held 400 ms on a far path).
  int per_target_in_flight = 8192;
  int initial_rate = 2000;   // connects/s to a new target, before slow start
  int connect_threads = -1;  // threads beside the engine's that run connects; -1 = cores - 1
  PollerKind poller = PollerKind::kAuto;  // the readiness backend; auto: the platform's best
  EngineKind engine = EngineKind::kAuto;  // the probe transport; auto: SYN when allowed
};

struct EngineStats {
  PollerKind poller;  // the backend in use
  EngineKind engine;  // the transport in use: kSyn or kConnect
  // Why auto runs connect (the SYN transport could not open); empty otherwise.
  std::string engine_fallback;
  int fd_limit;
  int budget;
  int in_flight;
  int scans;                       // started and not yet ended
  uint64_t local_retries;          // probes put back after a local error (EMFILE...)
  uint64_t canaries;               // canary probes sent
  uint64_t canaries_lost;          // canaries that went unanswered (drops seen)
  uint64_t canaries_lost_to_path;  // of those, judged the path's random loss
  uint64_t silences_contradicted;  // silences counted towards filtered of ports that answered
  uint64_t answers_ignored;        // SYN transport: answers that matched no probe
  uint64_t syns_sent_to_device;    // SYN transport: SYNs handed straight to the device
  uint64_t syns_sent_through_ip;   // SYN transport: SYNs sent through the IP layer
};

class Engine {
 public:
  // Throws std::runtime_error when `engine` is kSyn and the SYN transport
  // cannot open (no CAP_NET_RAW).
  Engine(EngineOptions options, std::unique_ptr<EventSink> sink);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Queues a scan and returns its id; its events go to the sink.
  uint64_t Submit(ScanSpec spec);
  // Ends a scan as kCancelled (no-op for an unknown or ended scan).
  void Cancel(uint64_t id);
  EngineStats Stats() const;

 private:
  // kAnswered: the handshake is over, the probe is about to be closed or to
  // read a banner; it no longer counts against the target's window.
  // kLaunching: a connect worker has the order; the probe is not ours to
  // touch until it comes back.
  enum class Phase : uint8_t {
    kFree,
    kLaunching,
    kConnecting,
    kAnswered,
    kAwaitBanner,
    kAwaitHttp
  };
  struct Probe {
    int fd = -1;
    uint32_t gen = 0;
    Phase phase = Phase::kFree;
    bool canary = false;
    bool awaiting_canaries = false;  // silent; its verdict waits for canaries
    bool watched = false;            // in the poller
    bool half_open = false;          // a SYN of the SYN transport, waiting (no socket)
    bool confirming = false;         // the connect() that confirms a SYN-ACK
    bool window_closed = false;      // connected with the peer's window at 0
    uint16_t port = 0;
    ScanJob* job = nullptr;   // a canary belongs to the scan that sent it
    uint32_t index = 0;       // into the job's ports (not for a canary)
    uint32_t canary_seq = 0;  // a canary's number; a port probe's next canary
    uint64_t syn_handle = 0;  // the SYN transport's, while half_open
    double rate = 0;          // the target's pace at launch, connects/s
    int64_t started_us = 0;
  };
  struct Timer {
    int64_t deadline_us;
    uint32_t slot;
    uint32_t gen;
    bool operator>(const Timer& other) const { return deadline_us > other.deadline_us; }
  };
  struct Command {
    enum class Kind : uint8_t { kSubmit, kCancel, kStop } kind;
    uint64_t id;
    std::unique_ptr<ScanJob> job;
  };

  void Run();
  void Wake();
  bool DrainCommands();
  void Attach(std::unique_ptr<ScanJob> job);
  void Detach(size_t position);

  void PrepareTargets(int64_t now);
  bool FillSlots();
  // Sockets the engine may hold now: the budget, or less for a while after EMFILE.
  int SlotLimit() const { return std::min(budget_, fd_ceiling_); }
  Probe& TakeSlot(ScanJob& job, int64_t now);
  void Launch(ScanJob& job, int64_t now);
  void LaunchCanary(ScanJob& job, int64_t now);
  // Sends a probe: a SYN when the SYN transport takes it, else a connect().
  void Send(Probe& probe);
  void Connect(Probe& probe);
  void ArmFirstLook(Probe& probe);
  void SendQueuedSyns();
  void ReadSynAnswers();
  void CollectLaunches();
  void OnLaunched(const ConnectDone& done);
  void Abandon(Probe& probe);
  void HandleEvent(const Readiness& ready);
  void ExpireTimers(int64_t now);
  void EnforceBudgets(int64_t now);
  void FlushJobs();
  // The time `job` still needs as its target's path shows it; -1 until the
  // target has answered once.
  int64_t EtaUs(const ScanJob& job) const;
  // The clean silences that make a port of `job` filtered, as its target's
  // path and answers show now: what the verdict and the eta both read.
  int SilencesNeeded(const ScanJob& job) const;
  int64_t WaitTimeoutUs(int64_t now, bool more_to_launch) const;

  // `icmp`: a refusal already known to come from ICMP (the socket is gone).
  void OnConnectResult(Probe& probe, int error_number, bool from_network, const char* syscall,
                       bool icmp = false);
  // What a probe learnt, from either transport.
  void OnOutcome(Probe& probe, ConnectOutcome outcome, int error_number, const char* syscall);
  // A SYN-ACK: one connect() confirms it (and reads the banner).
  void Confirm(Probe& probe);
  void OnCanaryResult(Probe& probe, ConnectOutcome outcome);
  void OnCanaryLate(Probe& probe);
  void OnSilence(Probe& probe, int64_t now);
  void OnConnectTimeout(Probe& probe, bool clean);
  void OnReadable(Probe& probe);
  // An open port's read ended (`reset`: by a reset) before any byte came.
  void FinishWithoutBytes(Probe& probe, bool reset);
  void OnBannerTimeout(Probe& probe);
  void BeginBanner(Probe& probe);
  void FinishOpen(Probe& probe, const std::string* banner);
  int64_t BannerWaitUs(const Probe& probe, int64_t floor_us) const;
  void Resolve(Probe& probe, PortState state, const std::string* banner = nullptr);
  void RetryLater(Probe& probe, int error_number);
  void EndJob(ScanJob& job, ScanStatus status, int error_number = 0, const char* syscall = "");

  // The probe `token` names, or null when it has ended since.
  Probe* ProbeOf(uint64_t token);
  uint32_t SlotOf(const Probe& probe) const {
    return static_cast<uint32_t>(&probe - probes_.data());
  }
  void ArmTimer(Probe& probe, int64_t deadline_us);
  bool Watch(Probe& probe, Interest interest);
  void LeaveConnecting(Probe& probe);
  void CloseProbe(Probe& probe);
  bool IsSelfConnect(const Probe& probe) const;

  const EngineOptions options_;
  std::unique_ptr<EventSink> sink_;
  std::unique_ptr<Poller> poller_;
  std::unique_ptr<SynTransport> syn_;  // null: connect() only
  std::string syn_fallback_;           // why auto did not get the SYN transport
  std::vector<SynAnswer> syn_answers_;
  std::vector<SynRefusal> syn_refusals_;
  std::vector<Readiness> ready_;
  int fd_limit_ = 0;
  int budget_ = 0;
  int fd_ceiling_ = 0;  // budget, lowered for a while after EMFILE
  int64_t last_emfile_us_ = 0;
  int64_t backoff_until_us_ = 0;
  int in_flight_ = 0;

  std::unique_ptr<ConnectWorkers> workers_;
  std::vector<ConnectOrder> to_workers_;
  std::vector<ConnectDone> launched_;
  std::vector<Probe> probes_;
  std::vector<uint32_t> free_slots_;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<Timer>> timers_;
  std::vector<std::unique_ptr<ScanJob>> jobs_;
  std::unordered_map<std::string, std::unique_ptr<TargetState>> targets_;
  size_t round_robin_ = 0;

  mutable std::mutex mutex_;
  std::vector<Command> commands_;
  std::atomic<uint64_t> next_id_{1};
  std::atomic<int> stat_in_flight_{0};
  std::atomic<int> stat_scans_{0};
  std::atomic<uint64_t> stat_local_retries_{0};
  std::atomic<uint64_t> stat_canaries_{0};
  std::atomic<uint64_t> stat_canaries_lost_{0};
  std::atomic<uint64_t> stat_canaries_lost_to_path_{0};
  std::atomic<uint64_t> stat_silences_contradicted_{0};
  std::atomic<uint64_t> stat_answers_ignored_{0};
  std::atomic<uint64_t> stat_syns_sent_to_device_{0};
  std::atomic<uint64_t> stat_syns_sent_through_ip_{0};
  std::thread thread_;
};

}  // namespace selfscan
