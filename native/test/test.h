// A test framework small enough to read in one sitting, so the scanner
// core's pure logic can be tested with nothing but the compiler (no gtest to
// fetch or install). TEST(Suite, Name) registers a test; the CHECK macros
// record a failure with its file:line and the values compared, and the test
// goes on, so one run shows every broken expectation. A failed CHECK takes
// more context with `<<`. Main thread only (tests run one after another).
#pragma once

#include <cmath>
#include <sstream>
#include <string>
#include <type_traits>

namespace selfscan::test {

using TestFn = void (*)();

// Adds a test to the run; TEST does it before main starts.
struct Registrar {
  Registrar(const char* name, TestFn fn);
};

// One failed CHECK: collects the message streamed into it and reports it,
// as one line, when it goes out of scope.
class Failure {
 public:
  Failure(const char* file, int line, std::string what);
  ~Failure();
  Failure(const Failure&) = delete;
  Failure& operator=(const Failure&) = delete;

  template <typename T>
  Failure& operator<<(const T& value) {
    extra_ << value;
    return *this;
  }

 private:
  const char* file_;
  int line_;
  std::string what_;
  std::ostringstream extra_;
};

// What a failure prints for a value: enums and chars as numbers.
template <typename T>
auto Printable(const T& value) {
  if constexpr (std::is_enum_v<T>) {
    return static_cast<long long>(value);
  } else if constexpr (std::is_integral_v<T> && sizeof(T) == 1) {
    return static_cast<int>(value);
  } else {
    return value;
  }
}

// Turns a streamed Failure into void, the type of the ?: branch that passed.
struct Voidify {
  void operator&(const Failure&) {}
};

template <typename A, typename B>
std::string Compared(const char* op, const char* a_text, const char* b_text, const A& a,
                     const B& b) {
  std::ostringstream out;
  out.precision(10);
  out << a_text << ' ' << op << ' ' << b_text << " (" << Printable(a) << " vs " << Printable(b)
      << ")";
  return out.str();
}

std::string Near(const char* a_text, const char* b_text, double a, double b, double tolerance);

}  // namespace selfscan::test

#define SELFSCAN_TEST_CONCAT2(a, b) a##b
#define SELFSCAN_TEST_CONCAT(a, b) SELFSCAN_TEST_CONCAT2(a, b)

#define TEST(suite, name)                                                              \
  static void suite##_##name##_Test();                                                 \
  static const ::selfscan::test::Registrar SELFSCAN_TEST_CONCAT(registrar_, __LINE__)( \
      #suite "." #name, &suite##_##name##_Test);                                       \
  static void suite##_##name##_Test()

// `ok ? (void)0 : Voidify() & Failure(...) << ...`, as glog's LOG_IF: an
// expression, so a CHECK in an unbraced `if` leaves no `else` dangling,
// and `&` binds looser than `<<`, so everything streamed goes to the
// Failure, which is only built (and reported) when the check fails.
#define SELFSCAN_CHECK_WITH(ok, what) \
  (ok) ? (void)0 : ::selfscan::test::Voidify() & ::selfscan::test::Failure(__FILE__, __LINE__, what)

// A failed comparison evaluates its operands again to print them: keep side
// effects out of them.
#define CHECK(condition) SELFSCAN_CHECK_WITH((condition), "CHECK(" #condition ")")
#define SELFSCAN_CHECK_OP(op, a, b) \
  SELFSCAN_CHECK_WITH((a)op(b), ::selfscan::test::Compared(#op, #a, #b, (a), (b)))
#define CHECK_EQ(a, b) SELFSCAN_CHECK_OP(==, a, b)
#define CHECK_NE(a, b) SELFSCAN_CHECK_OP(!=, a, b)
#define CHECK_LT(a, b) SELFSCAN_CHECK_OP(<, a, b)
#define CHECK_LE(a, b) SELFSCAN_CHECK_OP(<=, a, b)
#define CHECK_GT(a, b) SELFSCAN_CHECK_OP(>, a, b)
#define CHECK_GE(a, b) SELFSCAN_CHECK_OP(>=, a, b)
// |a - b| <= tolerance (NaN fails).
#define CHECK_NEAR(a, b, tolerance)                                                 \
  SELFSCAN_CHECK_WITH(std::fabs(static_cast<double>(a) - static_cast<double>(b)) <= \
                          static_cast<double>(tolerance),                           \
                      ::selfscan::test::Near(#a, #b, (a), (b), (tolerance)))
