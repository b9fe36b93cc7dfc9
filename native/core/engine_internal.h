// What the engine's source files share (engine.h splits the core by job):
// its tuning constants and the token that names a probe to the poller and
// the transports. For the engine's own files only.
#pragma once

#include <cstddef>
#include <cstdint>

namespace selfscan {
namespace engine_internal {

// Launches between two looks at the poller, so answers are read while a large
// sweep is still being sent.
constexpr int kMaxLaunchBurst = 512;
// A limit on probes less the one slot kept for canaries: probes whose
// silence waits for a canary's verdict must never hold every slot (under
// a low descriptor budget they did, and the scan stalled with nothing left
// to launch).
constexpr int KeepOneForCanaries(int limit) { return limit > 1 ? limit - 1 : limit; }
// Pause after a local resource error (EAGAIN, EADDRNOTAVAIL, EMFILE...).
constexpr int64_t kBackoffUs = 2000;
// Pause after the device refused a SYN (ENOBUFS: its queue, or a veth's
// ring of 256, is full). It drains in well under a millisecond at line
// rate; waiting kBackoffUs left the device idle most of each pause.
constexpr int64_t kDeviceBusyBackoffUs = 200;
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
// A wait shorter than this (the pace's next token, a timer about to fire)
// is slept through in one nap: answers arriving meanwhile wait for it
// rather than wake the engine one by one, each wake costing more than the
// answer. The pace keeps half a millisecond of tokens, so nothing is lost.
constexpr int64_t kNapUs = 200;
// How often a silent probe waiting for its canaries looks again.
constexpr int64_t kVerdictRecheckUs = 1000;

// A probe's name in the poller and the SYN transport: its slot and the
// generation of that slot, so an event for a probe that ended is dropped.
inline uint64_t Token(uint32_t slot, uint32_t gen) {
  return (static_cast<uint64_t>(gen) << 32) | slot;
}
// The packet socket's: a slot no probe has.
constexpr uint64_t kSynAnswersToken = 0xffffffffu;

}  // namespace engine_internal
}  // namespace selfscan
