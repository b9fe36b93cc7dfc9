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
#include <arpa/inet.h>
#include <errno.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <linux/netfilter.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <netinet/ip_icmp.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

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
static uint64_t no_other_probe, passed, send_errors, overruns;
static volatile sig_atomic_t report_wanted, stop_wanted;

static int64_t NowUs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

// xorshift64*: fast, and reproducible from --seed.
static uint32_t Random32(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (uint32_t)((rng_state * 2685821657736338717ull) >> 32);
}

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

// The Internet checksum of a pseudo-header (may be empty) and a segment.
static uint16_t Checksum(const void *pseudo, size_t pseudo_length, const void *segment,
                         size_t segment_length) {
  uint32_t sum = 0;
  const uint8_t *parts[2] = {pseudo, segment};
  size_t lengths[2] = {pseudo_length, segment_length};
  for (int part = 0; part < 2; part++) {
    for (size_t i = 0; i + 1 < lengths[part]; i += 2) {
      sum += (uint32_t)(parts[part][i] << 8 | parts[part][i + 1]);
    }
    if (lengths[part] % 2) sum += (uint32_t)parts[part][lengths[part] - 1] << 8;
  }
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return htons((uint16_t)~sum);
}

// Sends `payload` (its checksum field at `checksum_at` still zero) from the
// SYN's destination to its source, in an IP header of the SYN's family.
static int SendBack(const struct Syn *syn, uint8_t protocol, uint8_t *payload, size_t length,
                    size_t checksum_at) {
  uint8_t packet[sizeof(struct ip6_hdr) + 1024];
  const struct Probe *p = &syn->probe;
  size_t header;
  uint16_t check;
  ssize_t sent;
  if (length > 1024) return -1;
  if (syn->family == kV4) {
    struct iphdr ip;
    memset(&ip, 0, sizeof ip);
    header = sizeof ip;
    ip.version = 4;
    ip.ihl = sizeof ip / 4;
    ip.tot_len = htons((uint16_t)(header + length));
    ip.frag_off = htons(IP_DF);
    ip.ttl = 64;
    ip.protocol = protocol;
    memcpy(&ip.saddr, p->destination, 4);
    memcpy(&ip.daddr, p->source, 4);
    if (protocol == IPPROTO_TCP) {
      struct {
        uint32_t source, destination;
        uint8_t zero, protocol;
        uint16_t length;
      } pseudo = {ip.saddr, ip.daddr, 0, protocol, htons((uint16_t)length)};
      check = Checksum(&pseudo, sizeof pseudo, payload, length);
    } else {
      check = Checksum(NULL, 0, payload, length);
    }
    memcpy(payload + checksum_at, &check, sizeof check);
    memcpy(packet, &ip, header);
    memcpy(packet + header, payload, length);
    // The kernel fills in the IP header's checksum and identification.
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_addr.s_addr = ip.daddr};
    sent = sendto(raw[kV4], packet, header + length, 0, (struct sockaddr *)&to, sizeof to);
  } else {
    struct ip6_hdr ip;
    memset(&ip, 0, sizeof ip);
    header = sizeof ip;
    ip.ip6_flow = htonl(6u << 28);
    ip.ip6_plen = htons((uint16_t)length);
    ip.ip6_nxt = protocol;
    ip.ip6_hlim = 64;
    memcpy(&ip.ip6_src, p->destination, 16);
    memcpy(&ip.ip6_dst, p->source, 16);
    struct {
      struct in6_addr source, destination;
      uint32_t length;
      uint8_t zero[3], next_header;
    } pseudo = {ip.ip6_src, ip.ip6_dst, htonl((uint32_t)length), {0}, protocol};
    check = Checksum(&pseudo, sizeof pseudo, payload, length);
    memcpy(payload + checksum_at, &check, sizeof check);
    memcpy(packet, &ip, header);
    memcpy(packet + header, payload, length);
    struct sockaddr_in6 to = {.sin6_family = AF_INET6, .sin6_addr = ip.ip6_dst};
    sent = sendto(raw[kV6], packet, header + length, 0, (struct sockaddr *)&to, sizeof to);
  }
  return sent == (ssize_t)(header + length) ? 0 : -1;
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
  if (length < 1) return -1;
  if (packet[0] >> 4 == 4) {
    const struct iphdr *ip = (const void *)packet;
    size_t header = (size_t)ip->ihl * 4;
    if (length < (int)sizeof *ip || header < sizeof *ip || ip->protocol != IPPROTO_TCP ||
        (ntohs(ip->frag_off) & (IP_MF | IP_OFFMASK)) != 0 ||
        (size_t)length < header + sizeof(struct tcphdr)) {
      return -1;
    }
    syn->family = kV4;
    syn->ip_length = header;
    memcpy(syn->probe.source, &ip->saddr, 4);
    memcpy(syn->probe.destination, &ip->daddr, 4);
  } else if (packet[0] >> 4 == 6) {
    const struct ip6_hdr *ip = (const void *)packet;
    if ((size_t)length < sizeof *ip + sizeof(struct tcphdr) || ip->ip6_nxt != IPPROTO_TCP) {
      return -1;
    }
    syn->family = kV6;
    syn->ip_length = sizeof *ip;
    memcpy(syn->probe.source, &ip->ip6_src, 16);
    memcpy(syn->probe.destination, &ip->ip6_dst, 16);
  } else {
    return -1;
  }
  syn->packet = packet;
  syn->captured = (size_t)length;
  syn->tcp = (const void *)(packet + syn->ip_length);
  syn->probe.source_port = syn->tcp->source;
  syn->probe.destination_port = syn->tcp->dest;
  syn->probe.seq = ntohl(syn->tcp->seq);
  syn->probe.valid = 1;
  return 0;
}

static int OnPacket(struct nfq_q_handle *q, struct nfgenmsg *message, struct nfq_data *data,
                    void *context) {
  (void)message;
  (void)context;
  uint32_t id = ntohl(nfq_get_msg_packet_hdr(data)->packet_id);
  unsigned char *packet;
  int length = nfq_get_payload(data, &packet);
  struct Syn syn;
  if (Parse(packet, length, &syn) == 0) {
    const struct tcphdr *tcp = syn.tcp;
    if (tcp->syn && !tcp->ack && !tcp->rst && !tcp->fin) {
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
      (unsigned long long)send_errors, (unsigned long long)overruns);
  fflush(stdout);
}

static void OnSignal(int signal_number) {
  if (signal_number == SIGUSR1) {
    report_wanted = 1;
  } else {
    stop_wanted = 1;
  }
}

static int RawSocket(int family) {
  // IPPROTO_RAW: the packet given carries its own IP header, on both families.
  int fd = socket(family, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
  if (fd < 0) {
    fprintf(stderr, "answer-forger: raw socket: %s\n", strerror(errno));
    exit(1);
  }
  return fd;
}

int main(int argc, char **argv) {
  int queue_number = -1;
  int seeded = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const char *name = argv[i], *value = argv[i + 1];
    if (strcmp(name, "--queue") == 0) {
      queue_number = atoi(value);
    } else if (strcmp(name, "--seed") == 0) {
      rng_state = strtoull(value, NULL, 10) * 0x9E3779B97F4A7C15ull + 1;
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
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = OnSignal;
  sigaction(SIGUSR1, &action, NULL);
  sigaction(SIGTERM, &action, NULL);
  sigaction(SIGINT, &action, NULL);

  raw[kV4] = RawSocket(AF_INET);
  raw[kV6] = RawSocket(AF_INET6);
  struct nfq_handle *handle = nfq_open();
  if (handle == NULL) {
    fprintf(stderr, "answer-forger: nfq_open: %s\n", strerror(errno));
    return 1;
  }
  struct nfq_q_handle *queue = nfq_create_queue(handle, (uint16_t)queue_number, OnPacket, NULL);
  if (queue == NULL) {
    fprintf(stderr, "answer-forger: cannot bind queue %d: %s\n", queue_number, strerror(errno));
    return 1;
  }
  // The headers are all it reads and quotes. A sweep's SYNs come faster
  // than the kernel's default of 1,024 queued packets allows for.
  if (nfq_set_mode(queue, NFQNL_COPY_PACKET, kCopyRange) < 0 ||
      nfq_set_queue_maxlen(queue, 1 << 16) < 0) {
    fprintf(stderr, "answer-forger: cannot configure queue %d: %s\n", queue_number,
            strerror(errno));
    return 1;
  }
  nfnl_rcvbufsiz(nfq_nfnlh(handle), 16 << 20);
  int fd = nfq_fd(handle);
  static char buffer[1 << 16];
  printf("READY\n");
  fflush(stdout);

  while (!stop_wanted) {
    if (report_wanted) {
      report_wanted = 0;
      Report();
    }
    struct timespec wait = {1, 0};
    struct pollfd watched[2] = {{fd, POLLIN, 0}, {STDIN_FILENO, POLLIN, 0}};
    if (ppoll(watched, 2, &wait, NULL) <= 0) continue;
    if (watched[1].revents != 0) {
      char discard[256];
      if (read(STDIN_FILENO, discard, sizeof discard) <= 0) break;  // the parent is gone
    }
    if (watched[0].revents == 0) continue;
    for (;;) {
      ssize_t n = recv(fd, buffer, sizeof buffer, MSG_DONTWAIT);
      if (n < 0) {
        if (errno == ENOBUFS) {  // the socket buffer was full: packets lost
          overruns++;
          continue;
        }
        break;
      }
      nfq_handle_packet(handle, buffer, (int)n);
    }
  }
  Report();
  nfq_destroy_queue(queue);
  nfq_close(handle);
  return 0;
}
