// Stretches of canaries settled with no loss beyond the path's own, measured
// one after another: each, once long enough, proves a rate the target takes
// without dropping. That rate is the lowest of the paces its canaries were
// sent at and the rate probes actually went out at meanwhile (a pace the
// engine could not fill proves only what it sent). Stretches are measured
// afresh so that a pace grown since slow start is what the latest proves,
// not the slow pace it began at. Pure logic; engine thread only.
#pragma once

#include <cstdint>

namespace selfscan {

class CleanStretch {
 public:
  // A canary sent at `rate` (connects/s) settled within the path's loss;
  // `launched` counts every probe launched to the target so far. Returns
  // the rate the stretch proves when this canary made it long enough (the
  // next one starts), else 0.
  double Settled(double rate, uint64_t launched, int64_t now_us);
  // A canary was lost beyond the path's loss: the stretch starts afresh.
  void Broken() { canaries_ = 0; }

 private:
  uint32_t canaries_ = 0;
  int64_t since_us_ = 0;
  uint64_t launched_from_ = 0;
  double lowest_rate_ = 0;
};

}  // namespace selfscan
