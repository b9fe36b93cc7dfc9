// The path emulator of the netns test hosts (support/netns-path.ts):
// this kernel has no netem, so a path's round trip, jitter, reordering and
// loss are made here. Bound to two NFQUEUE queues, one per direction, it
// holds each queued packet's verdict for the direction's delay plus a
// uniform jitter (so packets overtake each other, as on a real path), then
// accepts it, or drops it: at random, or in bursts by a Gilbert-Elliott
// model (a good and a bad state, switching per packet).
//
//   path-delay --queue-to Q --queue-from Q [--delay-us D] [--jitter-us J]
//              [--loss P] [--burst P_GOOD_TO_BAD,P_BAD_TO_GOOD,LOSS_IN_BAD]
//              [--seed S]
//
// The settings apply to each direction alike. Prints READY once bound; on
// SIGUSR1 prints one JSON line of counters, on SIGTERM or SIGINT accepts
// what it still holds, prints them and exits.
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../nfqueue-fixture/nfqueue_fixture.h"

enum { kTo = 0, kFrom = 1 };

struct Held {
  int64_t release_us;
  uint32_t id;
  uint8_t direction;
};

struct Direction {
  struct nfq_q_handle *queue;
  int bad;  // Gilbert-Elliott state
  uint64_t seen, lost_random, lost_burst;
};

static struct Held *heap;
static size_t held, capacity;
static struct Direction directions[2];
static int64_t delay_us, jitter_us;
static double loss, good_to_bad, bad_to_good, loss_in_bad;
static uint64_t max_held;
static uint64_t rng_state = 88172645463325252ull;
static struct NfqFixture queues = {.program = "path-delay"};

// Uniform in [0, 1), reproducible from --seed.
static double Uniform(void) { return (double)(NextRandom(&rng_state) >> 11) / 9007199254740992.0; }

static void Push(struct Held item) {
  if (held == capacity) {
    capacity = capacity ? capacity * 2 : 65536;
    heap = realloc(heap, capacity * sizeof *heap);
    if (heap == NULL) abort();
  }
  size_t i = held++;
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (heap[parent].release_us <= item.release_us) break;
    heap[i] = heap[parent];
    i = parent;
  }
  heap[i] = item;
  if (held > max_held) max_held = held;
}

static struct Held Pop(void) {
  struct Held top = heap[0];
  struct Held last = heap[--held];
  size_t i = 0;
  for (;;) {
    size_t child = 2 * i + 1;
    if (child >= held) break;
    if (child + 1 < held && heap[child + 1].release_us < heap[child].release_us) child++;
    if (last.release_us <= heap[child].release_us) break;
    heap[i] = heap[child];
    i = child;
  }
  heap[i] = last;
  return top;
}

// Whether the path loses this packet: at random, or in the bad state.
static int Lose(struct Direction *d) {
  if (good_to_bad > 0) {
    if (d->bad) {
      if (Uniform() < bad_to_good) d->bad = 0;
    } else if (Uniform() < good_to_bad) {
      d->bad = 1;
    }
    if (d->bad && Uniform() < loss_in_bad) {
      d->lost_burst++;
      return 1;
    }
  }
  if (loss > 0 && Uniform() < loss) {
    d->lost_random++;
    return 1;
  }
  return 0;
}

static int OnPacket(struct nfq_q_handle *queue, uint32_t id, const uint8_t *packet, int length,
                    void *context) {
  (void)packet;  // NFQNL_COPY_META: the id is all it needs
  (void)length;
  uint8_t direction = (uint8_t)(uintptr_t)context;
  struct Direction *d = &directions[direction];
  d->seen++;
  if (Lose(d)) return nfq_set_verdict(queue, id, NF_DROP, 0, NULL);
  int64_t jitter = jitter_us > 0 ? (int64_t)(Uniform() * (2 * jitter_us + 1)) - jitter_us : 0;
  struct Held item = {NowUs() + delay_us + jitter, id, direction};
  Push(item);
  return 0;
}

static void Report(void) {
  printf(
      "{\"to\":{\"seen\":%llu,\"lostRandom\":%llu,\"lostBurst\":%llu},"
      "\"from\":{\"seen\":%llu,\"lostRandom\":%llu,\"lostBurst\":%llu},"
      "\"overruns\":%llu,\"held\":%zu,\"maxHeld\":%llu}\n",
      (unsigned long long)directions[kTo].seen, (unsigned long long)directions[kTo].lost_random,
      (unsigned long long)directions[kTo].lost_burst, (unsigned long long)directions[kFrom].seen,
      (unsigned long long)directions[kFrom].lost_random,
      (unsigned long long)directions[kFrom].lost_burst, (unsigned long long)queues.overruns, held,
      (unsigned long long)max_held);
  fflush(stdout);
}

// Lets through the packets due by `now`; when the next is due, or -1.
static int64_t Release(int64_t now) {
  while (held > 0 && heap[0].release_us <= now) {
    struct Held item = Pop();
    nfq_set_verdict(directions[item.direction].queue, item.id, NF_ACCEPT, 0, NULL);
  }
  return held > 0 ? heap[0].release_us : -1;
}

// Only the packet's id is needed; the kernel's default of 1,024 queued
// packets would drop under a sweep held for a far path's delay.
static struct nfq_q_handle *Bind(int number, uint8_t direction) {
  return NfqBind(&queues, number, OnPacket, (void *)(uintptr_t)direction, NFQNL_COPY_META, 0,
                 1 << 20);
}

int main(int argc, char **argv) {
  int queue_to = -1, queue_from = -1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const char *name = argv[i], *value = argv[i + 1];
    if (strcmp(name, "--queue-to") == 0) {
      queue_to = atoi(value);
    } else if (strcmp(name, "--queue-from") == 0) {
      queue_from = atoi(value);
    } else if (strcmp(name, "--delay-us") == 0) {
      delay_us = atoll(value);
    } else if (strcmp(name, "--jitter-us") == 0) {
      jitter_us = atoll(value);
    } else if (strcmp(name, "--loss") == 0) {
      loss = atof(value);
    } else if (strcmp(name, "--burst") == 0) {
      if (sscanf(value, "%lf,%lf,%lf", &good_to_bad, &bad_to_good, &loss_in_bad) != 3) {
        fprintf(stderr, "path-delay: --burst wants P_GOOD_TO_BAD,P_BAD_TO_GOOD,LOSS_IN_BAD\n");
        return 2;
      }
    } else if (strcmp(name, "--seed") == 0) {
      rng_state = SeededState(value);
    } else {
      fprintf(stderr, "path-delay: unknown option %s\n", name);
      return 2;
    }
  }
  if (queue_to < 0 || queue_from < 0 || delay_us < 0 || jitter_us < 0 || jitter_us > delay_us) {
    fprintf(stderr, "path-delay: need --queue-to, --queue-from; 0 <= jitter <= delay\n");
    return 2;
  }
  NfqOpen(&queues);
  directions[kTo].queue = Bind(queue_to, kTo);
  directions[kFrom].queue = Bind(queue_from, kFrom);
  NfqReady(&queues, 64 << 20);
  NfqServe(&queues, Release, Report);
  Release(INT64_MAX);
  Report();
  nfq_destroy_queue(directions[kTo].queue);
  nfq_destroy_queue(directions[kFrom].queue);
  nfq_close(queues.handle);
  return 0;
}
