#include "filtered_rule.h"

#include <algorithm>

namespace selfscan {

namespace {
// At least two silences, whatever the path: one probe is no evidence.
constexpr int kMinSilences = 2;
constexpr double kPortChance = 1e-6;
constexpr double kScanChance = 1e-3;
}  // namespace

int SilencesForFiltered(double path_loss, double answering_ports) {
  double p = std::clamp(path_loss, 0.0, 1.0);
  double chance = p * p;  // that k = kMinSilences silences are all loss
  for (int k = kMinSilences; k < kMaxSilences; ++k, chance *= p) {
    if (chance < kPortChance && std::max(answering_ports, 1.0) * chance < kScanChance) return k;
  }
  return kMaxSilences;
}

}  // namespace selfscan
