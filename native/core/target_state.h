// What the engine knows of one target address, shared by every scan of it:
// its RTT, its congestion window and how many connects are outstanding.
// Engine thread only.
#pragma once

#include "congestion_window.h"
#include "rtt_estimator.h"

namespace selfscan {

struct TargetState {
  TargetState(double initial_window, double window_ceiling)
      : window(initial_window, window_ceiling) {}
  RttEstimator rtt;
  CongestionWindow window;
  int connecting = 0;  // probes waiting for the handshake to answer
  int scans = 0;       // jobs that point here
};

}  // namespace selfscan
