// Runs every registered test (or those whose name contains one of the
// arguments), prints one line per failed CHECK and closes with the line
// scripts/native-tests.mjs and scripts/test.mjs read:
// "native: N passed, N failed" (tests, not checks). `-v` also prints each
// test's name and time. Exits non-zero when a test failed. Main thread only.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "test.h"

namespace selfscan::test {

namespace {

std::vector<std::pair<const char*, TestFn>>& Registry() {
  static std::vector<std::pair<const char*, TestFn>> tests;
  return tests;
}

const char* current_test = "";
int current_failures = 0;

bool Selected(const char* name, const std::vector<const char*>& filters) {
  if (filters.empty()) return true;
  for (const char* filter : filters) {
    if (std::strstr(name, filter) != nullptr) return true;
  }
  return false;
}

}  // namespace

Registrar::Registrar(const char* name, TestFn fn) { Registry().emplace_back(name, fn); }

Failure::Failure(const char* file, int line, std::string what)
    : file_(file), line_(line), what_(std::move(what)) {}

Failure::~Failure() {
  ++current_failures;
  std::string extra = extra_.str();
  std::printf("%s:%d: %s: %s%s%s\n", file_, line_, current_test, what_.c_str(),
              extra.empty() ? "" : ": ", extra.c_str());
}

std::string Near(const char* a_text, const char* b_text, double a, double b, double tolerance) {
  std::ostringstream out;
  out.precision(10);
  out << "|" << a_text << " - " << b_text << "| <= " << tolerance << " (" << a << " vs " << b
      << ")";
  return out.str();
}

}  // namespace selfscan::test

int main(int argc, char** argv) {
  using selfscan::test::current_failures;
  using selfscan::test::current_test;
  bool verbose = false;
  std::vector<const char*> filters;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "-v") == 0) {
      verbose = true;
    } else {
      filters.push_back(argv[i]);
    }
  }
  int passed = 0;
  int failed = 0;
  for (const auto& [name, fn] : selfscan::test::Registry()) {
    if (!selfscan::test::Selected(name, filters)) continue;
    current_test = name;
    current_failures = 0;
    auto start = std::chrono::steady_clock::now();
    try {
      fn();
    } catch (const std::exception& error) {
      ++current_failures;
      std::printf("%s: threw %s\n", name, error.what());
    }
    if (verbose) {
      std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
      std::printf("%s %s (%.1f ms)\n", current_failures == 0 ? "ok  " : "FAIL", name, took.count());
    }
    ++(current_failures == 0 ? passed : failed);
  }
  std::printf("native: %d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
