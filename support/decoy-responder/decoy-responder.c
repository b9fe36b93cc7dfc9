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
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

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
static uint64_t answered4, answered6, delayed, passed, send_errors, overruns, max_held;
static volatile sig_atomic_t report_wanted, stop_wanted;

static int64_t NowUs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

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

// The Internet checksum of a pseudo-header and a segment.
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

static int Answer4(const struct iphdr *ip, const struct tcphdr *syn) {
  struct {
    struct iphdr ip;
    struct tcphdr tcp;
  } packet;
  memset(&packet, 0, sizeof packet);
  packet.ip.version = 4;
  packet.ip.ihl = sizeof packet.ip / 4;
  packet.ip.tot_len = htons(sizeof packet);
  packet.ip.frag_off = htons(IP_DF);
  packet.ip.ttl = 64;
  packet.ip.protocol = IPPROTO_TCP;
  packet.ip.saddr = ip->daddr;
  packet.ip.daddr = ip->saddr;
  uint32_t flow[2] = {ip->saddr, ip->daddr};
  FillSynAck(&packet.tcp, syn, flow, sizeof flow);
  struct {
    uint32_t source, destination;
    uint8_t zero, protocol;
    uint16_t length;
  } pseudo = {packet.ip.saddr, packet.ip.daddr, 0, IPPROTO_TCP, htons(sizeof packet.tcp)};
  packet.tcp.check = Checksum(&pseudo, sizeof pseudo, &packet.tcp, sizeof packet.tcp);
  // The kernel fills in the IP header's checksum and identification.
  struct sockaddr_in to = {.sin_family = AF_INET, .sin_addr.s_addr = ip->saddr};
  return sendto(raw4, &packet, sizeof packet, 0, (struct sockaddr *)&to, sizeof to) ==
                 (ssize_t)sizeof packet
             ? 0
             : -1;
}

static int Answer6(const struct ip6_hdr *ip, const struct tcphdr *syn) {
  struct {
    struct ip6_hdr ip;
    struct tcphdr tcp;
  } packet;
  memset(&packet, 0, sizeof packet);
  packet.ip.ip6_flow = htonl(6u << 28);
  packet.ip.ip6_plen = htons(sizeof packet.tcp);
  packet.ip.ip6_nxt = IPPROTO_TCP;
  packet.ip.ip6_hlim = 64;
  packet.ip.ip6_src = ip->ip6_dst;
  packet.ip.ip6_dst = ip->ip6_src;
  struct in6_addr flow[2] = {ip->ip6_src, ip->ip6_dst};
  FillSynAck(&packet.tcp, syn, flow, sizeof flow);
  struct {
    struct in6_addr source, destination;
    uint32_t length;
    uint8_t zero[3], next_header;
  } pseudo = {packet.ip.ip6_src, packet.ip.ip6_dst, htonl(sizeof packet.tcp), {0}, IPPROTO_TCP};
  packet.tcp.check = Checksum(&pseudo, sizeof pseudo, &packet.tcp, sizeof packet.tcp);
  struct sockaddr_in6 to = {.sin6_family = AF_INET6, .sin6_addr = ip->ip6_src};
  return sendto(raw6, &packet, sizeof packet, 0, (struct sockaddr *)&to, sizeof to) ==
                 (ssize_t)sizeof packet
             ? 0
             : -1;
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

// A bare SYN (no ACK, RST or FIN) to answer; its TCP header, else NULL.
static const struct tcphdr *SynOf(const uint8_t *packet, int length, int *family) {
  if (length < 1) return NULL;
  const struct tcphdr *tcp;
  if (packet[0] >> 4 == 4) {
    const struct iphdr *ip = (const void *)packet;
    size_t header = (size_t)ip->ihl * 4;
    if (length < (int)sizeof *ip || header < sizeof *ip || ip->protocol != IPPROTO_TCP ||
        (ntohs(ip->frag_off) & (IP_MF | IP_OFFMASK)) != 0 ||
        (size_t)length < header + sizeof *tcp) {
      return NULL;
    }
    tcp = (const void *)(packet + header);
    *family = 4;
  } else if (packet[0] >> 4 == 6) {
    const struct ip6_hdr *ip = (const void *)packet;
    if ((size_t)length < sizeof *ip + sizeof *tcp || ip->ip6_nxt != IPPROTO_TCP) return NULL;
    tcp = (const void *)(packet + sizeof *ip);
    *family = 6;
  } else {
    return NULL;
  }
  return tcp->syn && !tcp->ack && !tcp->rst && !tcp->fin ? tcp : NULL;
}

static int OnPacket(struct nfq_q_handle *q, struct nfgenmsg *message, struct nfq_data *data,
                    void *context) {
  (void)message;
  (void)context;
  uint32_t id = ntohl(nfq_get_msg_packet_hdr(data)->packet_id);
  unsigned char *packet;
  int length = nfq_get_payload(data, &packet);
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
  int sent = family == 4 ? Answer4((const void *)packet, syn) : Answer6((const void *)packet, syn);
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
      (unsigned long long)passed, (unsigned long long)send_errors, (unsigned long long)overruns,
      tail - head, (unsigned long long)max_held);
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
    fprintf(stderr, "decoy-responder: raw socket: %s\n", strerror(errno));
    exit(1);
  }
  return fd;
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
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = OnSignal;
  sigaction(SIGUSR1, &action, NULL);
  sigaction(SIGTERM, &action, NULL);
  sigaction(SIGINT, &action, NULL);

  raw4 = RawSocket(AF_INET);
  raw6 = RawSocket(AF_INET6);
  struct nfq_handle *handle = nfq_open();
  if (handle == NULL) {
    fprintf(stderr, "decoy-responder: nfq_open: %s\n", strerror(errno));
    return 1;
  }
  queue = nfq_create_queue(handle, (uint16_t)queue_number, OnPacket, NULL);
  if (queue == NULL) {
    fprintf(stderr, "decoy-responder: cannot bind queue %d: %s\n", queue_number, strerror(errno));
    return 1;
  }
  // The headers are all it reads: an IPv6 header and a TCP header with
  // options fit in 128 bytes. A sweep's SYNs come faster than the kernel's
  // default of 1,024 queued packets allows for.
  if (nfq_set_mode(queue, NFQNL_COPY_PACKET, 128) < 0 || nfq_set_queue_maxlen(queue, 1 << 16) < 0) {
    fprintf(stderr, "decoy-responder: cannot configure queue %d: %s\n", queue_number,
            strerror(errno));
    return 1;
  }
  nfnl_rcvbufsiz(nfq_nfnlh(handle), 16 << 20);
  int fd = nfq_fd(handle);
  static char buffer[1 << 16];
  printf("READY\n");
  fflush(stdout);

  while (!stop_wanted) {
    int64_t now = NowUs();
    while (head < tail && held[head].release_us <= now) {
      nfq_set_verdict(queue, held[head++].id, NF_ACCEPT, 0, NULL);
    }
    if (report_wanted) {
      report_wanted = 0;
      Report();
    }
    struct timespec wait = {1, 0};
    if (head < tail) {
      int64_t until = held[head].release_us - NowUs();
      if (until < 0) until = 0;
      wait.tv_sec = until / 1000000;
      wait.tv_nsec = (until % 1000000) * 1000;
    }
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
  while (head < tail) nfq_set_verdict(queue, held[head++].id, NF_ACCEPT, 0, NULL);
  Report();
  nfq_destroy_queue(queue);
  nfq_close(handle);
  return 0;
}
