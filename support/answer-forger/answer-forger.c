// The answer forger of the forged-answers test host
// (support/forged-answers-host.ts): an on-path attacker next to a host,
// answering every SYN a scanner sends with answers a correct scanner must
// ignore, before the host's own answer. Runs inside the host's namespace,
// bound to the NFQUEUE queue that the namespace's raw PREROUTING chain feeds
// with every bare SYN (and every RST without ACK, below) from outside. For
// each SYN it sends at once, from the SYN's destination to its source,
// through raw sockets:
//
//   ackSeq               SYN-ACK, ack = seq (one short)
//   ackSeqPlus2          SYN-ACK, ack = seq + 2 (one long)
//   ackRandom            SYN-ACK, a random ack
//   rstAckWrong          RST+ACK, ack = seq (a closed port's answer, one short)
//   previousProbe        SYN-ACK with the ack right for the previous SYN seen
//                        (another probe: of this scan, or the last of an
//                        earlier one), on this SYN's ports, three times over
//   earlierProbeSamePort SYN-ACK with the ack right for the last earlier SYN
//                        to the same port (an earlier scan's, or an earlier
//                        attempt's), on this SYN's ports
//   icmpWrongSeq         ICMP / ICMPv6 port unreachable quoting the SYN with
//                        its sequence number one short
//
// and only then lets the SYN through to the kernel: the forgeries always
// leave before the host's real answer (sniffing a copy, with AF_PACKET,
// would let the kernel answer first nearly every time). A forgery built
// from another SYN is skipped when that SYN was the same probe (the same
// addresses, ports and sequence number: a retransmission), since its ack
// would then be right.
//
// The scanner's kernel answers each forged SYN-ACK with an RST whose
// sequence number is the forged ack (RFC 793: <SEQ=SEG.ACK><CTL=RST>). One
// with seq + 2 falls in the host's receive window and would reset the
// host's half-open connection, so a listener's handshake could fail for
// the forger's sake, not the scanner's. Those echoes (RST without ACK, on a
// SYN's ports, with a forged ack as its sequence number) are dropped here;
// every other RST is let through.
//
//   answer-forger --queue Q [--seed S]
//
// IPv4 and IPv6. Prints READY once bound; on SIGUSR1 prints one JSON line
// of counters; exits, printing them, on SIGTERM or SIGINT and when its
// stdin closes (so it never outlives the process that started it).
#define _GNU_SOURCE
#include <netinet/icmp6.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <netinet/ip_icmp.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "../nfqueue-fixture/nfqueue_fixture.h"

enum { kV4 = 0, kV6 = 1 };
enum Kind {
  kAckSeq,
  kAckSeqPlus2,
  kAckRandom,
  kRstAckWrong,
  kPreviousProbe,
  kEarlierProbeSamePort,
  kIcmpWrongSeq,
  kKinds
};
static const char *const kKindNames[kKinds] = {
    "ackSeq",        "ackSeqPlus2",          "ackRandom",   "rstAckWrong",
    "previousProbe", "earlierProbeSamePort", "icmpWrongSeq"};
// Copies of the previous probe's answer: the first and two duplicates.
enum { kPreviousCopies = 3 };
// The captured bytes of a queued packet: IPv6 and TCP headers with options fit.
enum { kCopyRange = 256 };
// Forged acks remembered per connection, to know their echoes.
enum { kAcksKept = 16 };
enum { kFlowSlots = 1 << 16 };

// A probe: who sent it, to whom, and its sequence number.
struct Probe {
  uint8_t source[16], destination[16];     // IPv4 in the first 4 bytes
  uint16_t source_port, destination_port;  // network order
  uint32_t seq;
  uint8_t valid;
};

// The acks forged for one connection (a SYN's addresses and ports).
struct Flow {
  struct Probe key;  // seq unused
  uint32_t acks[kAcksKept];
  uint32_t next;
};

// A bare SYN as queued: its probe, its IP and TCP headers.
struct Syn {
  int family;
  struct Probe probe;
  const uint8_t *packet;
  size_t ip_length, captured;
  const struct tcphdr *tcp;
};

static int raw[2] = {-1, -1};
static struct Probe previous[2];
static struct Probe *last_by_port[2];  // per family, indexed by destination port
static struct Flow *flows;
static uint64_t rng_state;
static uint64_t syns_seen[2], forgeries_sent[2], by_kind[kKinds], echoes_dropped[2];
static uint64_t no_other_probe, passed, send_errors;
static struct NfqFixture queues = {.program = "answer-forger", .watch_stdin = 1};

// Reproducible from --seed.
static uint32_t Random32(void) { return (uint32_t)(NextRandom(&rng_state) >> 32); }

// Same connection: addresses and ports (not the sequence number).
static int SameFlow(const struct Probe *a, const struct Probe *b) {
  return a->source_port == b->source_port && a->destination_port == b->destination_port &&
         memcmp(a->source, b->source, sizeof a->source) == 0 &&
         memcmp(a->destination, b->destination, sizeof a->destination) == 0;
}

// Whether `other` is another probe than `syn`: an answer to it is no answer to `syn`.
static int OtherProbe(const struct Probe *other, const struct Probe *syn) {
  return other->valid && other->seq != syn->seq && !SameFlow(other, syn);
}

static struct Flow *FlowOf(int family, const struct Probe *probe) {
  uint64_t h = 0x9e3779b97f4a7c15ull * (uint64_t)(family + 1);
  const uint8_t *parts[2] = {probe->source, probe->destination};
  for (int part = 0; part < 2; part++) {
    for (size_t i = 0; i < 16; i++) h = (h ^ parts[part][i]) * 0x100000001b3ull;
  }
  h = (h ^ probe->source_port) * 0x100000001b3ull;
  h = (h ^ probe->destination_port) * 0x100000001b3ull;
  return &flows[(h ^ (h >> 29)) % kFlowSlots];
}

static void RememberAck(int family, const struct Probe *probe, uint32_t ack) {
  struct Flow *flow = FlowOf(family, probe);
  if (!flow->key.valid || !SameFlow(&flow->key, probe)) {
    memset(flow, 0, sizeof *flow);  // a new connection, or a hash collision
    flow->key = *probe;
    flow->key.valid = 1;
  }
  flow->acks[flow->next++ % kAcksKept] = ack;
}

static int IsEcho(int family, const struct Probe *rst) {
  struct Flow *flow = FlowOf(family, rst);
  if (!flow->key.valid || !SameFlow(&flow->key, rst)) return 0;
  uint32_t kept = flow->next < kAcksKept ? flow->next : kAcksKept;
  for (uint32_t i = 0; i < kept; i++) {
    if (flow->acks[i] == rst->seq) return 1;
  }
  return 0;
}

// Sends `payload` (its checksum field at `checksum_at` still zero) from the
// SYN's destination to its source, in an IP header of the SYN's family.
static int SendBack(const struct Syn *syn, uint8_t protocol, uint8_t *payload, size_t length,
                    size_t checksum_at) {
  const struct Probe *p = &syn->probe;
  return SendIp(raw[syn->family], syn->family == kV4 ? AF_INET : AF_INET6, p->destination,
                p->source, protocol, payload, length, checksum_at);
}

static void Count(const struct Syn *syn, enum Kind kind, int result) {
  if (result != 0) {
    send_errors++;
    fprintf(stderr, "answer-forger: sending %s: %s\n", kKindNames[kind], strerror(errno));
    return;
  }
  forgeries_sent[syn->family]++;
  by_kind[kind]++;
}

// A TCP answer to `syn` with `flags` (TH_SYN | TH_ACK, TH_RST | TH_ACK) and `ack`.
static void ForgeTcp(const struct Syn *syn, enum Kind kind, uint8_t flags, uint32_t ack) {
  struct {
    struct tcphdr tcp;
    uint8_t options[4];
  } answer;
  memset(&answer, 0, sizeof answer);
  answer.tcp.source = syn->probe.destination_port;
  answer.tcp.dest = syn->probe.source_port;
  answer.tcp.ack_seq = htonl(ack);
  answer.tcp.th_flags = flags;
  if (flags & TH_SYN) {
    // A server's sequence number and window, and an MSS option: a SYN-ACK like any other.
    answer.tcp.seq = htonl(Random32());
    answer.tcp.window = htons(64240);
    answer.tcp.doff = sizeof answer / 4;
    const uint8_t mss[4] = {TCPOPT_MAXSEG, TCPOLEN_MAXSEG, 1460 >> 8, 1460 & 0xff};
    memcpy(answer.options, mss, sizeof mss);
  } else {
    answer.tcp.doff = sizeof answer.tcp / 4;
  }
  size_t length = (size_t)answer.tcp.doff * 4;
  Count(syn, kind,
        SendBack(syn, IPPROTO_TCP, (uint8_t *)&answer, length, offsetof(struct tcphdr, check)));
  if (flags & TH_SYN) RememberAck(syn->family, &syn->probe, ack);
}

// A port unreachable quoting the SYN, its sequence number one short.
static void ForgeUnreachable(const struct Syn *syn) {
  uint8_t message[8 + kCopyRange];
  size_t quoted = syn->captured;
  // Linux quotes as much as fits; RFC 792 asks for the IP header and 8 bytes.
  if (quoted > kCopyRange) quoted = kCopyRange;
  memset(message, 0, 8);
  if (syn->family == kV4) {
    message[0] = ICMP_DEST_UNREACH;
    message[1] = ICMP_PORT_UNREACH;
  } else {
    message[0] = ICMP6_DST_UNREACH;
    message[1] = ICMP6_DST_UNREACH_NOPORT;
  }
  memcpy(message + 8, syn->packet, quoted);
  uint32_t wrong = htonl(syn->probe.seq - 1);
  memcpy(message + 8 + syn->ip_length + offsetof(struct tcphdr, seq), &wrong, sizeof wrong);
  uint8_t protocol = syn->family == kV4 ? IPPROTO_ICMP : IPPROTO_ICMPV6;
  Count(syn, kIcmpWrongSeq, SendBack(syn, protocol, message, 8 + quoted, 2));
}

static void Forge(const struct Syn *syn) {
  const struct Probe *probe = &syn->probe;
  uint32_t seq = probe->seq;
  ForgeUnreachable(syn);
  ForgeTcp(syn, kRstAckWrong, TH_RST | TH_ACK, seq);
  ForgeTcp(syn, kAckSeq, TH_SYN | TH_ACK, seq);
  ForgeTcp(syn, kAckSeqPlus2, TH_SYN | TH_ACK, seq + 2);
  uint32_t random_ack;
  do {
    random_ack = Random32();
  } while (random_ack == seq + 1);
  ForgeTcp(syn, kAckRandom, TH_SYN | TH_ACK, random_ack);

  struct Probe *before = &previous[syn->family];
  if (OtherProbe(before, probe)) {
    for (int copy = 0; copy < kPreviousCopies; copy++) {
      ForgeTcp(syn, kPreviousProbe, TH_SYN | TH_ACK, before->seq + 1);
    }
  } else {
    no_other_probe++;
  }
  struct Probe *same_port = &last_by_port[syn->family][ntohs(probe->destination_port)];
  if (OtherProbe(same_port, probe)) {
    ForgeTcp(syn, kEarlierProbeSamePort, TH_SYN | TH_ACK, same_port->seq + 1);
  } else {
    no_other_probe++;
  }
  // A retransmission leaves the probes it would replace in place.
  if (!(before->valid && SameFlow(before, probe) && before->seq == seq)) *before = *probe;
  if (!(same_port->valid && SameFlow(same_port, probe) && same_port->seq == seq)) {
    *same_port = *probe;
  }
}

// Reads the IP and TCP headers of a queued packet into `syn` (a SYN or an
// RST); 0 on success.
static int Parse(const uint8_t *packet, int length, struct Syn *syn) {
  memset(syn, 0, sizeof *syn);
  syn->tcp = TcpHeaderOf(packet, length, &syn->ip_length);
  if (syn->tcp == NULL) return -1;
  if (packet[0] >> 4 == 4) {
    const struct iphdr *ip = (const void *)packet;
    syn->family = kV4;
    memcpy(syn->probe.source, &ip->saddr, 4);
    memcpy(syn->probe.destination, &ip->daddr, 4);
  } else {
    const struct ip6_hdr *ip = (const void *)packet;
    syn->family = kV6;
    memcpy(syn->probe.source, &ip->ip6_src, 16);
    memcpy(syn->probe.destination, &ip->ip6_dst, 16);
  }
  syn->packet = packet;
  syn->captured = (size_t)length;
  syn->probe.source_port = syn->tcp->source;
  syn->probe.destination_port = syn->tcp->dest;
  syn->probe.seq = ntohl(syn->tcp->seq);
  syn->probe.valid = 1;
  return 0;
}

static int OnPacket(struct nfq_q_handle *q, uint32_t id, const uint8_t *packet, int length,
                    void *context) {
  (void)context;
  struct Syn syn;
  if (Parse(packet, length, &syn) == 0) {
    const struct tcphdr *tcp = syn.tcp;
    if (IsBareSyn(tcp)) {
      syns_seen[syn.family]++;
      Forge(&syn);  // before the kernel has the SYN
    } else if (tcp->rst && !tcp->ack && IsEcho(syn.family, &syn.probe)) {
      echoes_dropped[syn.family]++;
      return nfq_set_verdict(q, id, NF_DROP, 0, NULL);
    }
  }
  passed++;
  return nfq_set_verdict(q, id, NF_ACCEPT, 0, NULL);
}

static void Report(void) {
  printf(
      "{\"synsSeen\":{\"ipv4\":%llu,\"ipv6\":%llu},\"forgeriesSent\":{\"ipv4\":%llu,\"ipv6\":%llu},"
      "\"byKind\":{",
      (unsigned long long)syns_seen[kV4], (unsigned long long)syns_seen[kV6],
      (unsigned long long)forgeries_sent[kV4], (unsigned long long)forgeries_sent[kV6]);
  for (int kind = 0; kind < kKinds; kind++) {
    printf("%s\"%s\":%llu", kind ? "," : "", kKindNames[kind], (unsigned long long)by_kind[kind]);
  }
  printf(
      "},\"echoesDropped\":{\"ipv4\":%llu,\"ipv6\":%llu},\"noOtherProbe\":%llu,\"passed\":%llu,"
      "\"sendErrors\":%llu,\"overruns\":%llu}\n",
      (unsigned long long)echoes_dropped[kV4], (unsigned long long)echoes_dropped[kV6],
      (unsigned long long)no_other_probe, (unsigned long long)passed,
      (unsigned long long)send_errors, (unsigned long long)queues.overruns);
  fflush(stdout);
}

int main(int argc, char **argv) {
  int queue_number = -1;
  int seeded = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const char *name = argv[i], *value = argv[i + 1];
    if (strcmp(name, "--queue") == 0) {
      queue_number = atoi(value);
    } else if (strcmp(name, "--seed") == 0) {
      rng_state = SeededState(value);
      seeded = 1;
    } else {
      fprintf(stderr, "answer-forger: unknown option %s\n", name);
      return 2;
    }
  }
  if (queue_number < 0 || queue_number > 65535) {
    fprintf(stderr, "answer-forger: need --queue 0..65535\n");
    return 2;
  }
  if (!seeded && getrandom(&rng_state, sizeof rng_state, 0) != (ssize_t)sizeof rng_state) {
    rng_state = (uint64_t)NowUs();
  }
  if (rng_state == 0) rng_state = 88172645463325252ull;
  last_by_port[kV4] = calloc(65536, sizeof(struct Probe));
  last_by_port[kV6] = calloc(65536, sizeof(struct Probe));
  flows = calloc(kFlowSlots, sizeof *flows);
  if (last_by_port[kV4] == NULL || last_by_port[kV6] == NULL || flows == NULL) abort();
  raw[kV4] = RawSocket(queues.program, AF_INET);
  raw[kV6] = RawSocket(queues.program, AF_INET6);
  NfqOpen(&queues);
  // The headers are all it reads and quotes. A sweep's SYNs come faster
  // than the kernel's default of 1,024 queued packets allows for.
  struct nfq_q_handle *queue =
      NfqBind(&queues, queue_number, OnPacket, NULL, NFQNL_COPY_PACKET, kCopyRange, 1 << 16);
  NfqReady(&queues, 16 << 20);
  NfqServe(&queues, NULL, Report);
  Report();
  nfq_destroy_queue(queue);
  nfq_close(queues.handle);
  return 0;
}
