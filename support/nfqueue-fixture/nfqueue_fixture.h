// What the NFQUEUE programs of the netns test fixtures share
// (decoy-responder, answer-forger, path-delay): a netlink queue handle that
// binds their queues, says READY and serves the queues until SIGTERM or
// SIGINT (or until the parent's end of stdin closes), handing each packet
// to the program's handler and printing counters on SIGUSR1; a monotonic
// clock and a seeded xorshift64*; and, for the programs that answer
// packets themselves, the TCP header of a queued packet and raw sockets
// that send a payload back in an IP header of its own, checksummed.
//
// Each program includes it once, after `#define _GNU_SOURCE` (ppoll); all
// of it is static. support/fixture-program.ts rebuilds a program when its
// source or this header is newer than its binary.
#ifndef SELFSCAN_NFQUEUE_FIXTURE_H_
#define SELFSCAN_NFQUEUE_FIXTURE_H_

#include <arpa/inet.h>
#include <errno.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <linux/netfilter.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

// What a queue hands each packet to: the packet's id and its first bytes,
// as many as the queue copies (none, `length` < 0, in NFQNL_COPY_META);
// `context` is the one given to NfqBind. Returns nfq_set_verdict's result,
// or 0 for a packet held for a verdict later.
typedef int NfqHandler(struct nfq_q_handle *queue, uint32_t id, const uint8_t *packet, int length,
                       void *context);

struct NfqBinding {
  NfqHandler *handler;
  void *context;
};

// A program's netlink queue handle and what it counts of it.
struct NfqFixture {
  const char *program;  // the prefix of its messages
  int watch_stdin;      // stop serving once stdin closes: the parent is gone
  struct nfq_handle *handle;
  int fd;
  uint64_t overruns;              // queue messages lost to a full socket buffer: packets lost
  struct NfqBinding bindings[2];  // one per queue bound
  int bound;
};

static volatile sig_atomic_t nfq_report_wanted, nfq_stop_wanted;

static inline int64_t NowUs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

// xorshift64*: fast, and reproducible from a seed. `*state` must not be 0.
static inline uint64_t NextRandom(uint64_t *state) {
  *state ^= *state >> 12;
  *state ^= *state << 25;
  *state ^= *state >> 27;
  return *state * 2685821657736338717ull;
}

// The generator's state for the decimal seed `text` (a --seed argument).
static inline uint64_t SeededState(const char *text) {
  return strtoull(text, NULL, 10) * 0x9E3779B97F4A7C15ull + 1;
}

// The Internet checksum of a pseudo-header (may be empty) and a segment.
static inline uint16_t Checksum(const void *pseudo, size_t pseudo_length, const void *segment,
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

// A raw socket of `family` whose packets carry their own IP header
// (IPPROTO_RAW, on both families); exits if there is none.
static inline int RawSocket(const char *program, int family) {
  int fd = socket(family, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
  if (fd < 0) {
    fprintf(stderr, "%s: raw socket: %s\n", program, strerror(errno));
    exit(1);
  }
  return fd;
}

// Sends all of `packet` to `to` through the raw socket `fd`: 0 when it
// went, else -1 (errno says why).
static inline int SendWhole(int fd, const void *packet, size_t length, const void *to,
                            socklen_t to_length) {
  ssize_t sent = sendto(fd, packet, length, 0, (const struct sockaddr *)to, to_length);
  return sent == (ssize_t)length ? 0 : -1;
}

// Sends `payload` (its checksum field at `checksum_at` still zero) from
// `source` to `destination` (4 or 16 bytes, by `family`: AF_INET or
// AF_INET6) in an IP header of its own, through `raw`, a RawSocket of the
// family. The checksum covers a pseudo-header, but for ICMP over IPv4.
// 0 when it went, else -1 (errno says why).
static inline int SendIp(int raw, int family, const void *source, const void *destination,
                         uint8_t protocol, uint8_t *payload, size_t length, size_t checksum_at) {
  uint8_t packet[sizeof(struct ip6_hdr) + 1024];
  size_t header;
  uint16_t check;
  if (length > 1024) return -1;
  if (family == AF_INET) {
    struct iphdr ip;
    memset(&ip, 0, sizeof ip);
    header = sizeof ip;
    ip.version = 4;
    ip.ihl = sizeof ip / 4;
    ip.tot_len = htons((uint16_t)(header + length));
    ip.frag_off = htons(IP_DF);
    ip.ttl = 64;
    ip.protocol = protocol;
    memcpy(&ip.saddr, source, 4);
    memcpy(&ip.daddr, destination, 4);
    if (protocol == IPPROTO_ICMP) {
      check = Checksum(NULL, 0, payload, length);
    } else {
      struct {
        uint32_t source, destination;
        uint8_t zero, protocol;
        uint16_t length;
      } pseudo = {ip.saddr, ip.daddr, 0, protocol, htons((uint16_t)length)};
      check = Checksum(&pseudo, sizeof pseudo, payload, length);
    }
    memcpy(payload + checksum_at, &check, sizeof check);
    memcpy(packet, &ip, header);
    memcpy(packet + header, payload, length);
    // The kernel fills in the IP header's checksum and identification.
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_addr.s_addr = ip.daddr};
    return SendWhole(raw, packet, header + length, &to, sizeof to);
  } else {
    struct ip6_hdr ip;
    memset(&ip, 0, sizeof ip);
    header = sizeof ip;
    ip.ip6_flow = htonl(6u << 28);
    ip.ip6_plen = htons((uint16_t)length);
    ip.ip6_nxt = protocol;
    ip.ip6_hlim = 64;
    memcpy(&ip.ip6_src, source, 16);
    memcpy(&ip.ip6_dst, destination, 16);
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
    return SendWhole(raw, packet, header + length, &to, sizeof to);
  }
}

// The TCP header of a queued IPv4 or IPv6 packet (no fragment, no IPv6
// extension header), `*ip_length` bytes in; NULL for any other packet.
static inline const struct tcphdr *TcpHeaderOf(const uint8_t *packet, int length,
                                               size_t *ip_length) {
  if (length < 1) return NULL;
  if (packet[0] >> 4 == 4) {
    const struct iphdr *ip = (const void *)packet;
    size_t header = (size_t)ip->ihl * 4;
    if (length < (int)sizeof *ip || header < sizeof *ip || ip->protocol != IPPROTO_TCP ||
        (ntohs(ip->frag_off) & (IP_MF | IP_OFFMASK)) != 0 ||
        (size_t)length < header + sizeof(struct tcphdr)) {
      return NULL;
    }
    *ip_length = header;
  } else if (packet[0] >> 4 == 6) {
    const struct ip6_hdr *ip = (const void *)packet;
    if ((size_t)length < sizeof *ip + sizeof(struct tcphdr) || ip->ip6_nxt != IPPROTO_TCP) {
      return NULL;
    }
    *ip_length = sizeof *ip;
  } else {
    return NULL;
  }
  return (const void *)(packet + *ip_length);
}

// A bare SYN: no ACK, RST or FIN.
static inline int IsBareSyn(const struct tcphdr *tcp) {
  return tcp->syn && !tcp->ack && !tcp->rst && !tcp->fin;
}

static inline void NfqOnSignal(int signal_number) {
  if (signal_number == SIGUSR1) {
    nfq_report_wanted = 1;
  } else {
    nfq_stop_wanted = 1;
  }
}

// Catches SIGUSR1 (counters), SIGTERM and SIGINT (stop), then opens the
// netlink queue handle; exits if it cannot.
static inline void NfqOpen(struct NfqFixture *f) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = NfqOnSignal;
  sigaction(SIGUSR1, &action, NULL);
  sigaction(SIGTERM, &action, NULL);
  sigaction(SIGINT, &action, NULL);
  f->handle = nfq_open();
  if (f->handle == NULL) {
    fprintf(stderr, "%s: nfq_open: %s\n", f->program, strerror(errno));
    exit(1);
  }
}

// nfq_callback: hands a queued packet to its queue's NfqHandler.
static inline int NfqDispatch(struct nfq_q_handle *queue, struct nfgenmsg *message,
                              struct nfq_data *data, void *binding) {
  (void)message;
  const struct NfqBinding *to = binding;
  unsigned char *packet = NULL;
  int length = nfq_get_payload(data, &packet);
  uint32_t id = ntohl(nfq_get_msg_packet_hdr(data)->packet_id);
  return to->handler(queue, id, packet, length, to->context);
}

// Binds queue `number` to `handler` (given `context`), copying `range`
// bytes of each packet in `mode` and holding up to `max_length` packets;
// exits if it cannot. Two queues at the most.
static inline struct nfq_q_handle *NfqBind(struct NfqFixture *f, int number, NfqHandler *handler,
                                           void *context, uint8_t mode, uint32_t range,
                                           uint32_t max_length) {
  if (f->bound == (int)(sizeof f->bindings / sizeof f->bindings[0])) abort();
  struct NfqBinding *binding = &f->bindings[f->bound++];
  *binding = (struct NfqBinding){handler, context};
  struct nfq_q_handle *queue = nfq_create_queue(f->handle, (uint16_t)number, NfqDispatch, binding);
  if (queue == NULL) {
    fprintf(stderr, "%s: cannot bind queue %d: %s\n", f->program, number, strerror(errno));
    exit(1);
  }
  if (nfq_set_mode(queue, mode, range) < 0 || nfq_set_queue_maxlen(queue, max_length) < 0) {
    fprintf(stderr, "%s: cannot configure queue %d: %s\n", f->program, number, strerror(errno));
    exit(1);
  }
  return queue;
}

// Sizes the handle's socket buffer to `buffer_bytes` and says READY: the
// queues are bound.
static inline void NfqReady(struct NfqFixture *f, unsigned int buffer_bytes) {
  nfnl_rcvbufsiz(nfq_nfnlh(f->handle), buffer_bytes);
  f->fd = nfq_fd(f->handle);
  printf("READY\n");
  fflush(stdout);
}

// Serves the queues until SIGTERM or SIGINT (with `watch_stdin`, or until
// stdin closes): hands each queued packet to its queue's callback and
// prints counters with `report` on SIGUSR1. `release`, if given, is called
// each turn to let through the packets held until `now` or earlier; it
// returns when the next held packet is due (a NowUs() time), or -1 when it
// holds none.
static inline void NfqServe(struct NfqFixture *f, int64_t (*release)(int64_t now),
                            void (*report)(void)) {
  static char buffer[1 << 16];
  while (!nfq_stop_wanted) {
    int64_t next = release == NULL ? -1 : release(NowUs());
    if (nfq_report_wanted) {
      nfq_report_wanted = 0;
      report();
    }
    struct timespec wait = {1, 0};
    if (next >= 0) {
      int64_t until = next - NowUs();
      if (until < 0) until = 0;
      wait.tv_sec = until / 1000000;
      wait.tv_nsec = (until % 1000000) * 1000;
    }
    struct pollfd watched[2] = {{f->fd, POLLIN, 0}, {STDIN_FILENO, POLLIN, 0}};
    if (ppoll(watched, f->watch_stdin ? 2 : 1, &wait, NULL) <= 0) continue;
    if (watched[1].revents != 0) {
      char discard[256];
      if (read(STDIN_FILENO, discard, sizeof discard) <= 0) return;  // the parent is gone
    }
    if (watched[0].revents == 0) continue;
    for (;;) {
      ssize_t n = recv(f->fd, buffer, sizeof buffer, MSG_DONTWAIT);
      if (n < 0) {
        if (errno == ENOBUFS) {  // the socket buffer was full: messages lost
          f->overruns++;
          continue;
        }
        break;
      }
      nfq_handle_packet(f->handle, buffer, (int)n);
    }
  }
}

#endif  // SELFSCAN_NFQUEUE_FIXTURE_H_
