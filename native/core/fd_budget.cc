#include "fd_budget.h"

#include <dirent.h>
#include <sys/resource.h>

#include <algorithm>

namespace selfscan {

namespace {

constexpr int kDefaultCap = 8192;
constexpr int kFloor = 8;

int CountOpenFds() {
  DIR* dir = opendir("/proc/self/fd");           // Linux
  if (dir == nullptr) dir = opendir("/dev/fd");  // macOS, the BSDs
  if (dir == nullptr) return 64;                 // a conservative guess
  int count = 0;
  while (readdir(dir) != nullptr) ++count;
  closedir(dir);
  return count;
}

}  // namespace

FdBudget ComputeFdBudget(int cap) {
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rlimit raised = rl;
    raised.rlim_cur = rl.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) rl = raised;
  }
  long long limit = rl.rlim_cur == RLIM_INFINITY ? 1 << 20 : rl.rlim_cur;
  long long free_fds = limit - CountOpenFds();
  // Keep an eighth (at least 32) for everything else the process opens.
  long long headroom = std::max<long long>(32, limit / 8);
  long long budget = free_fds - headroom;
  int ceiling = cap > 0 ? cap : kDefaultCap;
  return FdBudget{static_cast<int>(std::min<long long>(limit, 1 << 30)),
                  static_cast<int>(std::clamp<long long>(budget, kFloor, ceiling))};
}

}  // namespace selfscan
