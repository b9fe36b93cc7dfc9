// How many silences make a port `filtered` when the path itself loses
// probes. A silence random loss explains is no evidence, so a port needs k
// silences where random loss at the path's measured rate p explains them
// all with probability p^k below one in a million, and where the ports of
// the scan that do answer would, all together, show k silences by chance
// less than once in a thousand scans. Never fewer than two. Pure function,
// any thread.
#pragma once

namespace selfscan {

// The most silences the rule asks for; a path that loses so much that even
// these do not suffice cannot be judged (the scan ends incomplete).
constexpr int kMaxSilences = 16;

// `path_loss`: the share of probes the path loses; `answering_ports`: how
// many of the scan's ports are expected to answer (open or closed).
int SilencesForFiltered(double path_loss, double answering_ports);

}  // namespace selfscan
