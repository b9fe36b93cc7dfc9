// How many sockets the engine may hold at once. Raises RLIMIT_NOFILE to its
// hard limit, then leaves headroom for the rest of the process (the HTTP
// server, the store, logs). Called once on the thread that creates the
// engine.
#pragma once

namespace selfscan {

struct FdBudget {
  int limit;   // RLIMIT_NOFILE soft limit after raising it
  int budget;  // sockets the engine may have open at once
};

// `cap` bounds the budget (0 = the built-in default).
FdBudget ComputeFdBudget(int cap);

}  // namespace selfscan
