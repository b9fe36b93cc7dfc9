// CanaryLedger: a silence counts towards `filtered` only when the canaries
// around it say the host was answering, so the bracket rule is checked case
// by case and then, with canaries settling out of order, against a
// reference written from the rule's statement.
#include "../core/canary_ledger.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "test.h"

namespace selfscan {
namespace {

using Verdict = CanaryLedger::Verdict;

// Begins canaries until `count` have been sent.
void BeginUpTo(CanaryLedger& ledger, uint32_t count) {
  while (ledger.next_seq() < count) ledger.Begin(1000000 + ledger.next_seq() * 100, 5000);
}

TEST(CanaryLedger, NumbersAndRemembersCanaries) {
  CanaryLedger ledger;
  CHECK_EQ(ledger.next_seq(), 0u);
  CHECK_EQ(ledger.Begin(1000, 2000), 0u);
  CHECK_EQ(ledger.Begin(1500, 4000), 1u);
  CHECK_EQ(ledger.next_seq(), 2u);
  CHECK_EQ(ledger.sent_us(1), 1500);
  CHECK_EQ(ledger.rate(1), 4000);
}

TEST(CanaryLedger, BracketsAnsweredOnlyWhenAllFourAnswered) {
  CanaryLedger ledger;
  BeginUpTo(ledger, 2);
  uint32_t after = ledger.next_seq();  // a probe launched now: bracketed by 0, 1 | 2, 3
  CHECK_EQ(after, 2u);
  CHECK(ledger.Answer(0));
  CHECK(ledger.Answer(1));
  CHECK_EQ(ledger.Brackets(after), Verdict::kUndecided);  // 2 and 3 not sent yet
  BeginUpTo(ledger, 3);
  CHECK_EQ(ledger.Brackets(after), Verdict::kUndecided);  // 3 not sent yet
  BeginUpTo(ledger, 4);
  CHECK_EQ(ledger.Brackets(after), Verdict::kUndecided);  // 2 and 3 in flight
  CHECK(ledger.Answer(3));
  CHECK_EQ(ledger.Brackets(after), Verdict::kUndecided);  // 2 in flight
  CHECK(ledger.Answer(2));
  CHECK_EQ(ledger.Brackets(after), Verdict::kAnswered);
  // Only the four around it count: canary 4 lost does not matter to it...
  BeginUpTo(ledger, 5);
  CHECK(ledger.Lose(4));
  CHECK_EQ(ledger.Brackets(after), Verdict::kAnswered);
  // ...but does to a probe launched one canary later (1, 2 | 3, 4).
  CHECK_EQ(ledger.Brackets(after + 1), Verdict::kNotAnswered);
  // A probe before the second canary has fewer than two before it: never clean.
  CHECK_EQ(ledger.Brackets(0), Verdict::kNotAnswered);
  CHECK_EQ(ledger.Brackets(1), Verdict::kNotAnswered);
}

TEST(CanaryLedger, OneLostCanaryMeansNotAnswered) {
  for (uint32_t lost = 0; lost < 4; ++lost) {
    CanaryLedger ledger;
    BeginUpTo(ledger, 6);
    uint32_t after = 3;  // bracketed by 1, 2 | 3, 4
    for (uint32_t seq = 1; seq <= 4; ++seq) {
      if (seq != lost + 1) CHECK(ledger.Answer(seq));
    }
    CHECK_EQ(ledger.Brackets(after), Verdict::kUndecided) << "canary " << lost + 1 << " pending";
    CHECK(ledger.Lose(lost + 1));
    CHECK_EQ(ledger.Brackets(after), Verdict::kNotAnswered) << "canary " << lost + 1 << " lost";
  }
  // A loss settles the verdict at once, even with the others still in flight.
  CanaryLedger early;
  BeginUpTo(early, 6);
  CHECK(early.Lose(4));
  CHECK_EQ(early.Brackets(3), Verdict::kNotAnswered);
}

TEST(CanaryLedger, VoidCountsAsNotAnswered) {
  CanaryLedger ledger;
  BeginUpTo(ledger, 4);
  CHECK(ledger.Answer(0));
  CHECK(ledger.Answer(1));
  CHECK(ledger.Answer(3));
  ledger.Void(2);  // never reached the host: shows nothing either way
  CHECK_EQ(ledger.Brackets(2), Verdict::kNotAnswered);
  CHECK(!ledger.Answer(2));  // and it stays void
  CHECK_EQ(ledger.Brackets(2), Verdict::kNotAnswered);
}

TEST(CanaryLedger, SettlingTwiceIsANoOp) {
  CanaryLedger ledger;
  BeginUpTo(ledger, 4);
  CHECK(ledger.Answer(0));
  CHECK(!ledger.Answer(0));
  CHECK(!ledger.Lose(0));
  CHECK(ledger.Answer(1));
  CHECK(ledger.Answer(2));
  CHECK(ledger.Lose(3));
  CHECK(!ledger.Answer(3));  // a late answer does not undo the loss
  ledger.Void(3);
  CHECK_EQ(ledger.Brackets(2), Verdict::kNotAnswered);
  CHECK(!ledger.Answer(4));  // not sent yet
  CHECK(!ledger.Answer(1000));
}

TEST(CanaryLedger, ForgetsOldCanaries) {
  CanaryLedger ledger;
  BeginUpTo(ledger, 5000);    // more than the ring holds
  CHECK(!ledger.Answer(10));  // forgotten: its slot holds a later canary
  CHECK_EQ(ledger.Brackets(12), Verdict::kNotAnswered);
  for (uint32_t seq = 4990; seq < 5000; ++seq) CHECK(ledger.Answer(seq));
  CHECK_EQ(ledger.Brackets(4995), Verdict::kAnswered);
}

enum class Fate : uint8_t { kPending, kAnswered, kLost, kVoid };

// The rule as the header states it, from the fates of the canaries sent.
Verdict Reference(const std::vector<Fate>& fates, uint32_t sent, uint32_t after) {
  if (after < 2) return Verdict::kNotAnswered;
  bool undecided = false;
  for (uint32_t seq = after - 2; seq < after + 2; ++seq) {
    Fate fate = seq < sent ? fates[seq] : Fate::kPending;
    if (fate == Fate::kLost || fate == Fate::kVoid) return Verdict::kNotAnswered;
    if (fate == Fate::kPending) undecided = true;
  }
  return undecided ? Verdict::kUndecided : Verdict::kAnswered;
}

void SettleAs(CanaryLedger& ledger, uint32_t seq, Fate fate) {
  switch (fate) {
    case Fate::kAnswered:
      CHECK(ledger.Answer(seq));
      break;
    case Fate::kLost:
      CHECK(ledger.Lose(seq));
      break;
    case Fate::kVoid:
    case Fate::kPending:
      ledger.Void(seq);
      break;
  }
}

TEST(CanaryLedger, ReorderedSettlingGivesTheSameVerdicts) {
  constexpr uint32_t kCanaries = 3000;
  std::mt19937 random(4242);
  std::discrete_distribution<int> fate_of({93, 5, 2});  // answered, lost, void
  std::vector<Fate> fates(kCanaries);
  for (Fate& fate : fates) fate = static_cast<Fate>(1 + fate_of(random));

  // In order: each canary settles as soon as it is sent.
  CanaryLedger in_order;
  for (uint32_t seq = 0; seq < kCanaries; ++seq) {
    in_order.Begin(seq, 5000);
    SettleAs(in_order, seq, fates[seq]);
  }

  // Out of order: each settles up to 31 canaries after it was sent, in a
  // random order; the verdicts follow what is settled at every step.
  std::vector<std::vector<uint32_t>> settles_at(kCanaries + 32);
  std::uniform_int_distribution<uint32_t> delay(0, 31);
  for (uint32_t seq = 0; seq < kCanaries; ++seq) settles_at[seq + delay(random)].push_back(seq);
  CanaryLedger shuffled;
  std::vector<Fate> settled(kCanaries, Fate::kPending);
  int mismatches = 0;
  for (uint32_t step = 0; step < settles_at.size(); ++step) {
    if (step < kCanaries) shuffled.Begin(step, 5000);
    std::shuffle(settles_at[step].begin(), settles_at[step].end(), random);
    for (uint32_t seq : settles_at[step]) {
      SettleAs(shuffled, seq, fates[seq]);
      settled[seq] = fates[seq];
    }
    uint32_t sent = std::min(step + 1, kCanaries);
    for (uint32_t after = sent > 40 ? sent - 40 : 0; after <= sent + 2; ++after) {
      Verdict want = Reference(settled, sent, after);
      if (shuffled.Brackets(after) != want && ++mismatches <= 5) {
        CHECK_EQ(shuffled.Brackets(after), want) << "step " << step << ", probe after " << after;
      }
    }
  }
  CHECK_EQ(mismatches, 0);

  int answered = 0;
  // A probe records next_seq() at launch: `after` never passes it.
  for (uint32_t after = 0; after <= kCanaries; ++after) {
    CHECK_EQ(shuffled.Brackets(after), in_order.Brackets(after)) << "probe after " << after;
    CHECK_EQ(in_order.Brackets(after), Reference(fates, kCanaries, after))
        << "probe after " << after;
    answered += in_order.Brackets(after) == Verdict::kAnswered ? 1 : 0;
  }
  // The draw makes every verdict occur: about 0.93^4 of probes are clean.
  CHECK_GT(answered, 2000);
  CHECK_LT(answered, 2700);
}

}  // namespace
}  // namespace selfscan
