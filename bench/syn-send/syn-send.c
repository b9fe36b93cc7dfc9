// syn-send: issue 28's sender question, one way per run. Sends 65,535 TCP
// SYNs (destination ports 1..65535, source ports from 61000 upward,
// cycling; IPv4 and TCP checksums valid, an MSS option as the engine's)
// as fast as one thread can, through one of:
//   raw            IPPROTO_RAW + sendmmsg (the engine today: our IPv4
//                  header, the kernel routes it and runs netfilter)
//   packet         AF_PACKET SOCK_RAW + sendmmsg (our Ethernet header too)
//   packet-bypass  the same with PACKET_QDISC_BYPASS
//   tx-ring        AF_PACKET PACKET_TX_RING (TPACKET_V2, 4 batches of
//                  frames) with PACKET_QDISC_BYPASS, one send() per batch
// in batches of 64, and prints one JSON line: packets the kernel took,
// wall and CPU seconds (getrusage, user + system) of the sending alone,
// and the send calls that failed (their packets are sent again).
//
// Usage: syn-send METHOD IFACE SRC_IP DST_IP SRC_MAC DST_MAC
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum {
  kPackets = 65535,
  kBatch = 64,
  kFirstSourcePort = 61000,
  kEthernetBytes = 14,
  kSynBytes = 44,  // IPv4 header (20) and TCP header with the MSS option (24)
  kFrameBytes = 256,
  kRingFrames = 4 * kBatch,
  kSendBuffer = 4 << 20,  // as the engine's
};
static const double kGiveUpSeconds = 1.0;

struct Link {
  int ifindex;
  uint8_t ethernet[kEthernetBytes];  // destination MAC, source MAC, IPv4
  struct in_addr source, target;
};

struct Tally {
  long packets, errors;
  double last_progress;  // when a packet was last sent
};

static _Noreturn void Die(const char *what) {
  perror(what);
  exit(1);
}

static uint32_t Sum(const uint8_t *p, size_t n, uint32_t sum) {
  for (size_t i = 0; i + 1 < n; i += 2) sum += (uint32_t)(p[i] << 8 | p[i + 1]);
  return sum;
}

static void PutChecksum(uint8_t *at, uint32_t sum) {
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  at[0] = (uint8_t)(~sum >> 8);
  at[1] = (uint8_t)~sum;
}

// The SYN to port `n` (1..65535) as IPv4 bytes at `out`.
static void BuildSyn(const struct Link *link, int n, uint8_t *out) {
  uint16_t source_port = (uint16_t)(kFirstSourcePort + (n - 1) % (65536 - kFirstSourcePort));
  uint32_t seq = (uint32_t)n * 2654435761u;
  uint8_t *ip = out, *tcp = out + 20;
  memset(out, 0, kSynBytes);
  ip[0] = 0x45;
  ip[3] = kSynBytes;
  ip[4] = (uint8_t)(n >> 8), ip[5] = (uint8_t)n;  // identification
  ip[8] = 64;
  ip[9] = IPPROTO_TCP;
  memcpy(ip + 12, &link->source, 4);
  memcpy(ip + 16, &link->target, 4);
  PutChecksum(ip + 10, Sum(ip, 20, 0));
  tcp[0] = (uint8_t)(source_port >> 8), tcp[1] = (uint8_t)source_port;
  tcp[2] = (uint8_t)(n >> 8), tcp[3] = (uint8_t)n;
  tcp[4] = (uint8_t)(seq >> 24), tcp[5] = (uint8_t)(seq >> 16);
  tcp[6] = (uint8_t)(seq >> 8), tcp[7] = (uint8_t)seq;
  tcp[12] = 6 << 4;                                          // 24 bytes
  tcp[13] = 0x02;                                            // SYN
  tcp[14] = 0xff, tcp[15] = 0xff;                            // window 65535
  tcp[20] = 2, tcp[21] = 4, tcp[22] = 0x05, tcp[23] = 0xb4;  // MSS 1460
  uint32_t pseudo = Sum(ip + 12, 8, IPPROTO_TCP + 24);
  PutChecksum(tcp + 16, Sum(tcp, 24, pseudo));
}

static double Now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

// Counts a failed send call (ENOBUFS: the device dropped the packet, as a
// veth does when its peer's NAPI ring is full); gives up after a second
// in which no packet was sent.
static void Failed(struct Tally *tally, const char *call) {
  if (errno == EINTR) return;
  tally->errors++;
  if (Now() - tally->last_progress > kGiveUpSeconds) Die(call);
}

static void Progressed(struct Tally *tally, long packets) {
  tally->packets += packets;
  tally->last_progress = Now();
}

static void SetSendBuffer(int fd) {
  int bytes = kSendBuffer;
  if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &bytes, sizeof bytes) != 0) Die("SO_SNDBUFFORCE");
}

// An AF_PACKET socket bound to the interface with protocol 0: it sends
// and never receives.
static int PacketSocket(const struct Link *link, int bypass) {
  int fd = socket(AF_PACKET, SOCK_RAW, 0);
  if (fd < 0) Die("packet socket");
  SetSendBuffer(fd);
  if (bypass && setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &bypass, sizeof bypass) != 0) {
    Die("PACKET_QDISC_BYPASS");
  }
  struct sockaddr_ll bound = {.sll_family = AF_PACKET, .sll_ifindex = link->ifindex};
  if (bind(fd, (struct sockaddr *)&bound, sizeof bound) != 0) Die("bind");
  return fd;
}

// raw, packet and packet-bypass: build a batch, hand it over with sendmmsg.
static void SendBatches(const struct Link *link, int fd, int ethernet, struct Tally *tally) {
  static uint8_t frames[kBatch][kEthernetBytes + kSynBytes];
  struct mmsghdr messages[kBatch];
  struct iovec iov[kBatch];
  struct sockaddr_in to = {.sin_family = AF_INET, .sin_addr = link->target};
  size_t offset = ethernet ? kEthernetBytes : 0;
  for (int i = 0; i < kBatch; ++i) {
    memcpy(frames[i], link->ethernet, kEthernetBytes);
    iov[i] = (struct iovec){frames[i] + kEthernetBytes - offset, kSynBytes + offset};
    messages[i] = (struct mmsghdr){.msg_hdr = {.msg_iov = &iov[i], .msg_iovlen = 1}};
    if (!ethernet) messages[i].msg_hdr.msg_name = &to;
    if (!ethernet) messages[i].msg_hdr.msg_namelen = sizeof to;
  }
  for (int first = 1; first <= kPackets; first += kBatch) {
    int count = kPackets - first + 1 < kBatch ? kPackets - first + 1 : kBatch;
    for (int i = 0; i < count; ++i) BuildSyn(link, first + i, frames[i] + kEthernetBytes);
    for (int done = 0; done < count;) {
      int n = sendmmsg(fd, messages + done, (unsigned)(count - done), 0);
      if (n > 0) {
        done += n;
        Progressed(tally, n);
      } else {
        Failed(tally, "sendmmsg");
      }
    }
  }
}

// tx-ring's ring: kRingFrames frames, mapped.
static uint8_t *MapRing(int fd) {
  int version = TPACKET_V2;
  if (setsockopt(fd, SOL_PACKET, PACKET_VERSION, &version, sizeof version) != 0) {
    Die("PACKET_VERSION");
  }
  struct tpacket_req request = {
      .tp_block_size = 4096,
      .tp_block_nr = kRingFrames * kFrameBytes / 4096,
      .tp_frame_size = kFrameBytes,
      .tp_frame_nr = kRingFrames,
  };
  if (setsockopt(fd, SOL_PACKET, PACKET_TX_RING, &request, sizeof request) != 0) {
    Die("PACKET_TX_RING");
  }
  uint8_t *ring = mmap(NULL, kRingFrames * kFrameBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (ring == MAP_FAILED) Die("mmap");
  return ring;
}

// Asks the kernel to send the frames requested so far.
static void Kick(int fd, struct Tally *tally) {
  if (send(fd, NULL, 0, MSG_DONTWAIT) < 0) Failed(tally, "send");
}

// Waits until the kernel is done with a frame it was asked to send: kicks
// again while the frame is still requested (a send failed on it), else
// yields the core until the kernel releases it. The kernel holds a frame
// until its packet is freed (over a veth, once the host has taken it), and
// poll() is no help: it reports POLLOUT while the send buffer has room.
static void Reclaim(int fd, struct tpacket2_hdr *frame, struct Tally *tally) {
  for (;;) {
    uint32_t status = __atomic_load_n(&frame->tp_status, __ATOMIC_ACQUIRE);
    if (status == TP_STATUS_AVAILABLE) break;
    if (status == TP_STATUS_SEND_REQUEST) {
      Kick(fd, tally);
    } else {
      sched_yield();
    }
  }
  Progressed(tally, 1);
}

// tx-ring: each batch is filled into the next kBatch frames and handed
// over with one send() that does not wait; a frame is refilled once the
// kernel is done with it, so up to kRingFrames SYNs are in flight.
static void SendRing(const struct Link *link, int fd, uint8_t *ring, struct Tally *tally) {
  const size_t data = TPACKET2_HDRLEN - sizeof(struct sockaddr_ll);
  for (int first = 1; first <= kPackets; first += kBatch) {
    for (int n = first; n < first + kBatch && n <= kPackets; ++n) {
      struct tpacket2_hdr *frame =
          (struct tpacket2_hdr *)(ring + (n - 1) % kRingFrames * kFrameBytes);
      if (n > kRingFrames) Reclaim(fd, frame, tally);
      uint8_t *bytes = (uint8_t *)frame + data;
      memcpy(bytes, link->ethernet, kEthernetBytes);
      BuildSyn(link, n, bytes + kEthernetBytes);
      frame->tp_len = kEthernetBytes + kSynBytes;
      __atomic_store_n(&frame->tp_status, TP_STATUS_SEND_REQUEST, __ATOMIC_RELEASE);
    }
    Kick(fd, tally);
  }
  for (int i = 0; i < kRingFrames; ++i) {
    Reclaim(fd, (struct tpacket2_hdr *)(ring + i * kFrameBytes), tally);
  }
}

static void ParseMac(const char *text, uint8_t *out) {
  if (sscanf(text, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &out[0], &out[1], &out[2], &out[3], &out[4],
             &out[5]) != 6) {
    fprintf(stderr, "syn-send: bad MAC %s\n", text);
    exit(2);
  }
}

static double Seconds(struct timeval t) { return (double)t.tv_sec + (double)t.tv_usec / 1e6; }

static double CpuSeconds(void) {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return Seconds(usage.ru_utime) + Seconds(usage.ru_stime);
}

int main(int argc, char **argv) {
  if (argc != 7) {
    fprintf(stderr,
            "usage: syn-send raw|packet|packet-bypass|tx-ring IFACE SRC DST SRC_MAC DST_MAC\n");
    return 2;
  }
  const char *method = argv[1];
  struct Link link = {.ifindex = (int)if_nametoindex(argv[2])};
  if (link.ifindex == 0) Die(argv[2]);
  if (inet_pton(AF_INET, argv[3], &link.source) != 1 ||
      inet_pton(AF_INET, argv[4], &link.target) != 1) {
    fprintf(stderr, "syn-send: bad IPv4 address\n");
    return 2;
  }
  ParseMac(argv[6], link.ethernet);
  ParseMac(argv[5], link.ethernet + 6);
  link.ethernet[12] = ETH_P_IP >> 8, link.ethernet[13] = ETH_P_IP & 0xff;

  int fd;
  uint8_t *ring = NULL;
  if (strcmp(method, "raw") == 0) {
    fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
    if (fd < 0) Die("raw socket");
    SetSendBuffer(fd);
  } else if (strcmp(method, "packet") == 0 || strcmp(method, "packet-bypass") == 0) {
    fd = PacketSocket(&link, strcmp(method, "packet-bypass") == 0);
  } else if (strcmp(method, "tx-ring") == 0) {
    fd = PacketSocket(&link, 1);
    ring = MapRing(fd);
  } else {
    fprintf(stderr, "syn-send: unknown method %s\n", method);
    return 2;
  }

  struct Tally tally = {0, 0, Now()};
  double cpu = CpuSeconds(), wall = tally.last_progress;
  if (ring != NULL) {
    SendRing(&link, fd, ring, &tally);
  } else {
    SendBatches(&link, fd, strcmp(method, "raw") != 0, &tally);
  }
  wall = Now() - wall;
  cpu = CpuSeconds() - cpu;
  printf(
      "{\"method\":\"%s\",\"packets\":%ld,\"seconds\":%.6f,\"cpuSeconds\":%.6f,\"errors\":%ld}\n",
      method, tally.packets, wall, cpu, tally.errors);
  close(fd);
  return 0;
}
