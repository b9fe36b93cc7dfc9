// The SYN answerer of the decoy test host (support/decoy-host.ts): a SYN
// proxy or tarpit middlebox in front of a host, answering a SYN to every
// port itself. Runs inside the host's namespace, bound to the NFQUEUE queue
// that the namespace's INPUT chain feeds with the TCP packets to every port
// without a listener. For each SYN it sends a SYN-ACK back through a raw
// socket (window 0, no options, a sequence number hashed from the
// connection and a per-run key, so a retransmitted SYN gets the same one;
// ack = the SYN's sequence + 1) and drops the SYN: the namespace's kernel
// never sees it. Every other packet (the peer's ACK completing the
// handshake, data, FIN) is held for --reset-delay-us, then accepted: the
// kernel, which has no socket for it, answers with a reset. The hold stands
// for the round trip between the middlebox and the server behind it;
// without it, on a veth, the reset can reach the peer before its
// connect() has returned, and the peer sees ECONNRESET instead of a
// handshake followed by a reset.
//
//   decoy-responder --queue Q [--reset-delay-us D]
//
// IPv4 and IPv6 alike. Prints READY once bound; on SIGUSR1 prints one JSON
// line of counters; exits, printing them, on SIGTERM or SIGINT and when its
// stdin closes (so it never outlives the process that started it).
#define _GNU_SOURCE
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "../nfqueue-fixture/nfqueue_fixture.h"

struct Held {
  int64_t release_us;
  uint32_t id;
};

static struct nfq_q_handle *queue;
static int raw4 = -1, raw6 = -1;
static int64_t reset_delay_us;
static uint64_t key;
// A FIFO: the delay is the same for every packet, so release times only grow.
static struct Held *held;
static size_t head, tail, capacity;
static uint64_t answered4, answered6, delayed, passed, send_errors, max_held;
static struct NfqFixture queues = {.program = "decoy-responder", .watch_stdin = 1};

// splitmix64's finaliser.
static uint64_t Mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

static uint64_t HashBytes(uint64_t h, const void *bytes, size_t length) {
  const uint8_t *p = bytes;
  for (size_t i = 0; i < length; i += 8) {
    uint64_t word = 0;
    memcpy(&word, p + i, length - i < 8 ? length - i : 8);
    h = Mix(h ^ word);
  }
  return h;
}

// The SYN-ACK answering `syn`, from the addresses hashed in `flow`.
static void FillSynAck(struct tcphdr *answer, const struct tcphdr *syn, const void *flow,
                       size_t flow_length) {
  uint64_t h = HashBytes(key, flow, flow_length);
  h = Mix(h ^ ((uint64_t)syn->source << 48 | (uint64_t)syn->dest << 32 | ntohl(syn->seq)));
  memset(answer, 0, sizeof *answer);
  answer->source = syn->dest;
  answer->dest = syn->source;
  answer->seq = htonl((uint32_t)h);
  answer->ack_seq = htonl(ntohl(syn->seq) + 1);
  answer->doff = sizeof *answer / 4;  // no options
  answer->syn = 1;
  answer->ack = 1;
  answer->window = 0;
}

// Answers the SYN at `syn` of `packet` (IPv4 or IPv6, by `family`) from
// its destination.
static int Answer(const uint8_t *packet, int family, const struct tcphdr *syn) {
  struct tcphdr answer;
  const size_t check = offsetof(struct tcphdr, check);
  if (family == 4) {
    const struct iphdr *ip = (const void *)packet;
    uint32_t flow[2] = {ip->saddr, ip->daddr};
    FillSynAck(&answer, syn, flow, sizeof flow);
    return SendIp(raw4, AF_INET, &ip->daddr, &ip->saddr, IPPROTO_TCP, (uint8_t *)&answer,
                  sizeof answer, check);
  }
  const struct ip6_hdr *ip = (const void *)packet;
  struct in6_addr flow[2] = {ip->ip6_src, ip->ip6_dst};
  FillSynAck(&answer, syn, flow, sizeof flow);
  return SendIp(raw6, AF_INET6, &ip->ip6_dst, &ip->ip6_src, IPPROTO_TCP, (uint8_t *)&answer,
                sizeof answer, check);
}

static void Hold(uint32_t id) {
  if (tail == capacity) {
    if (head > 0) {  // reuse the released front
      memmove(held, held + head, (tail - head) * sizeof *held);
      tail -= head;
      head = 0;
    } else {
      capacity = capacity ? capacity * 2 : 4096;
      held = realloc(held, capacity * sizeof *held);
      if (held == NULL) abort();
    }
  }
  held[tail++] = (struct Held){NowUs() + reset_delay_us, id};
  if (tail - head > max_held) max_held = tail - head;
}

// A bare SYN to answer: its TCP header, else NULL.
static const struct tcphdr *SynOf(const uint8_t *packet, int length, int *family) {
  size_t ip_length;
  const struct tcphdr *tcp = TcpHeaderOf(packet, length, &ip_length);
  if (tcp == NULL || !IsBareSyn(tcp)) return NULL;
  *family = packet[0] >> 4;
  return tcp;
}

static int OnPacket(struct nfq_q_handle *q, uint32_t id, const uint8_t *packet, int length,
                    void *context) {
  (void)context;
  int family = 0;
  const struct tcphdr *syn = SynOf(packet, length, &family);
  if (syn == NULL) {
    if (reset_delay_us == 0) {
      passed++;
      return nfq_set_verdict(q, id, NF_ACCEPT, 0, NULL);
    }
    delayed++;
    Hold(id);
    return 0;
  }
  int sent = Answer(packet, family, syn);
  if (sent != 0) {
    send_errors++;
    fprintf(stderr, "decoy-responder: sending a SYN-ACK: %s\n", strerror(errno));
  } else if (family == 4) {
    answered4++;
  } else {
    answered6++;
  }
  return nfq_set_verdict(q, id, NF_DROP, 0, NULL);
}

static void Report(void) {
  printf(
      "{\"answered\":{\"ipv4\":%llu,\"ipv6\":%llu},\"delayed\":%llu,\"passed\":%llu,"
      "\"sendErrors\":%llu,\"overruns\":%llu,\"held\":%zu,\"maxHeld\":%llu}\n",
      (unsigned long long)answered4, (unsigned long long)answered6, (unsigned long long)delayed,
      (unsigned long long)passed, (unsigned long long)send_errors,
      (unsigned long long)queues.overruns, tail - head, (unsigned long long)max_held);
  fflush(stdout);
}

// Lets through the packets held until `now`; when the next is due, or -1.
static int64_t Release(int64_t now) {
  while (head < tail && held[head].release_us <= now) {
    nfq_set_verdict(queue, held[head++].id, NF_ACCEPT, 0, NULL);
  }
  return head < tail ? held[head].release_us : -1;
}

int main(int argc, char **argv) {
  int queue_number = -1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const char *name = argv[i], *value = argv[i + 1];
    if (strcmp(name, "--queue") == 0) {
      queue_number = atoi(value);
    } else if (strcmp(name, "--reset-delay-us") == 0) {
      reset_delay_us = atoll(value);
    } else {
      fprintf(stderr, "decoy-responder: unknown option %s\n", name);
      return 2;
    }
  }
  if (queue_number < 0 || queue_number > 65535 || reset_delay_us < 0) {
    fprintf(stderr, "decoy-responder: need --queue 0..65535; --reset-delay-us >= 0\n");
    return 2;
  }
  if (getrandom(&key, sizeof key, 0) != (ssize_t)sizeof key) key = (uint64_t)NowUs();
  raw4 = RawSocket(queues.program, AF_INET);
  raw6 = RawSocket(queues.program, AF_INET6);
  NfqOpen(&queues);
  // The headers are all it reads: an IPv6 header and a TCP header with
  // options fit in 128 bytes. A sweep's SYNs come faster than the kernel's
  // default of 1,024 queued packets allows for.
  queue = NfqBind(&queues, queue_number, OnPacket, NULL, NFQNL_COPY_PACKET, 128, 1 << 16);
  NfqReady(&queues, 16 << 20);
  NfqServe(&queues, Release, Report);
  Release(INT64_MAX);
  Report();
  nfq_destroy_queue(queue);
  nfq_close(queues.handle);
  return 0;
}
