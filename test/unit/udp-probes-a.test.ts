// The udp scan's probes of DNS, NTP, SNMP, memcached, SSDP, mDNS, NetBIOS,
// the portmapper, chargen and QOTD, and their BER and DNS-message helpers:
// the bytes each sends, and what each reads from replies the real Debian
// servers sent (dnsmasq 2.90, chronyd 4.3, snmpd, memcached 1.6.18,
// avahi-daemon 0.8, rpcbind, openbsd-inetd's chargen) or, where none runs
// here, from replies written after the protocol's spec. Every reader is
// total: truncated, foreign and random bytes are null, never a throw.
import { randomBytes } from 'node:crypto';

import { describe, expect, it } from 'vitest';

import { BER_TAG, berInteger, berIntegerValue, berOctetString, berOid, berOidText, berSequence, readBer, readBerChildren } from '../../src/udp/probes/ber.js';
import { chargenProbe } from '../../src/udp/probes/chargen-probe.js';
import { DNS_CLASS, DNS_TYPE, dnsQuery, readDnsMessage, readDnsName } from '../../src/udp/probes/dns-message.js';
import { DNS_PROBE_NAME, dnsProbe } from '../../src/udp/probes/dns-probe.js';
import { mdnsProbe } from '../../src/udp/probes/mdns-probe.js';
import { memcachedProbe } from '../../src/udp/probes/memcached-probe.js';
import { netbiosProbe } from '../../src/udp/probes/netbios-probe.js';
import { ntpProbe } from '../../src/udp/probes/ntp-probe.js';
import { portmapProbe } from '../../src/udp/probes/portmap-probe.js';
import { qotdProbe } from '../../src/udp/probes/qotd-probe.js';
import { snmpProbe } from '../../src/udp/probes/snmp-probe.js';
import { ssdpProbe } from '../../src/udp/probes/ssdp-probe.js';
import type { UdpProbe } from '../../src/udp/probes/udp-probe.js';

const hex = (text: string): Uint8Array => new Uint8Array(Buffer.from(text.replace(/\s+/g, ''), 'hex'));
const toHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const ascii = (text: string): Uint8Array => new TextEncoder().encode(text);
const join = (...parts: Uint8Array[]): Uint8Array => new Uint8Array(Buffer.concat(parts));

/** Real replies, as the servers sent them to the probes' requests. */
const REAL = {
  // dnsmasq forwarding example.com to an upstream that has it.
  dnsRecursive: hex('5c0185800001000100000000076578616d706c6503636f6d0000010001c00c000100010000000000045db8d70e'),
  // dnsmasq with no upstream.
  dnsRefused: hex('5c0181850001000000000000076578616d706c6503636f6d0000010001'),
  dnsVersion: hex('5c02848000010001000000000776657273696f6e0462696e640000100003c00c0010000300000000000d0c646e736d6173712d322e3930'),
  ntpTime: hex('240800e600000000000000007f7f0101eeb51e75774349c1e95c123456789abceeb51e76c15bc2ffeeb51e76c1cc8bae'),
  snmpV2c: hex(
    '306102010104067075626c6963a25402035e1f010201000201003047304506082b0601020101010004394c696e757820766d20362e31382e34342d66632d7636353720233120534d5020' +
      '505245454d50545f44594e414d4943204030207838365f3634',
  ),
  snmpV1: hex(
    '306102010004067075626c6963a25402035e1f020201000201003047304506082b0601020101010004394c696e757820766d20362e31382e34342d66632d7636353720233120534d5020' +
      '505245454d50545f44594e414d4943204030207838365f3634',
  ),
  // The first of memcached's two datagrams (its first lines; the real one runs to 1,400 bytes).
  memcached: join(
    hex('4d43000000020000'),
    ascii('STAT pid 31585\r\nSTAT uptime 4\r\nSTAT time 1795858410\r\nSTAT version 1.6.18\r\nSTAT curr_connections 3\r\n'),
  ),
  mdns: hex(
    '000084000001000100000000095f7365727669636573075f646e732d7364045f756470056c6f63616c00000c8001' +
      'c00c000c00010000000a00140c5f776f726b73746174696f6e045f746370c023',
  ),
  portmap: hex(
    // xid, REPLY, MSG_ACCEPTED, AUTH_NULL verifier, SUCCESS, then six mappings (100000 v4/v3/v2 over TCP, then UDP, port 111) and the end.
    '7e11f00d 00000001 00000000 00000000 00000000 00000000' +
      '00000001 000186a0 00000004 00000006 0000006f  00000001 000186a0 00000003 00000006 0000006f  00000001 000186a0 00000002 00000006 0000006f' +
      '00000001 000186a0 00000004 00000011 0000006f  00000001 000186a0 00000003 00000011 0000006f  00000001 000186a0 00000002 00000011 0000006f' +
      '00000000',
  ),
  chargen: ascii(' !"#$%&\'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefg\r\n'),
};

/** Replies written after the spec: no such server runs on this machine (or chrony, which never answers modes 6 and 7). */
const WRITTEN = {
  ntpReadvar: (() => {
    // 100 bytes of variables: a multiple of 4, so no padding follows them.
    const text = ascii('version="ntpd 4.2.8p15@1.3728-o (1)", processor="x86_64", system="Linux/5.10.0", leap=00, stratum=02');
    return join(hex(`16820001 0000 0000 0000 ${text.length.toString(16).padStart(4, '0')}`), text);
  })(),
  // Two monlist entries of 72 bytes (mon_data of IMPL_XNTPD).
  ntpMonlist: join(hex('d700032a 0002 0048'), new Uint8Array(2 * 72)),
  // INFO_ERR_NODATA (5) with no items.
  ntpMode7Error: hex('9700032a50000000'),
  netbios: join(
    hex('4e42 8400 0000 0001 0000 0000'),
    join(hex('20'), ascii(`CK${'A'.repeat(30)}`), hex('00 0021 0001 00000000 0053')),
    hex('02'),
    join(ascii('SELFSCAN-TEST  '), hex('00 0400')),
    join(ascii('WORKGROUP      '), hex('00 8400')),
    hex('525400aabbcc'),
    new Uint8Array(40),
  ),
  ssdp: ascii(
    'HTTP/1.1 200 OK\r\nCACHE-CONTROL: max-age=1800\r\nST: upnp:rootdevice\r\nUSN: uuid:1::upnp:rootdevice\r\n' +
      'SERVER: Linux/3.14 UPnP/1.0 MiniUPnPd/2.1\r\nLocation: http://192.168.1.1:5000/rootDesc.xml\r\n\r\n',
  ),
  qotd: ascii('"The only way to go fast, is to go well." Robert C. Martin\r\n'),
};

/** Every reply each probe's readers see here, with the request it answers, for the shared checks. */
const VALIDATED: Array<[UdpProbe, number, Uint8Array]> = [
  [dnsProbe, 0, REAL.dnsRecursive],
  [dnsProbe, 0, REAL.dnsRefused],
  [dnsProbe, 1, REAL.dnsVersion],
  [ntpProbe, 0, REAL.ntpTime],
  [ntpProbe, 1, WRITTEN.ntpReadvar],
  [ntpProbe, 2, WRITTEN.ntpMonlist],
  [ntpProbe, 2, WRITTEN.ntpMode7Error],
  [snmpProbe, 0, REAL.snmpV2c],
  [snmpProbe, 1, REAL.snmpV1],
  [mdnsProbe, 0, REAL.mdns],
  [netbiosProbe, 0, WRITTEN.netbios],
  [portmapProbe, 0, REAL.portmap],
];

describe('ber', () => {
  it('writes integers in the fewest two’s-complement bytes and reads them back', () => {
    for (const [value, bytes] of [
      [0, '020100'],
      [127, '02017f'],
      [128, '02020080'],
      [256, '02020100'],
      [-1, '0201ff'],
      [-129, '0202ff7f'],
      [0x5e1f01, '02035e1f01'],
    ] as const) {
      expect(toHex(berInteger(value)), String(value)).toBe(bytes);
      expect(berIntegerValue(readBer(berInteger(value))!.content)).toBe(value);
    }
  });

  it('writes and reads object identifiers', () => {
    expect(toHex(berOid('1.3.6.1.2.1.1.1.0'))).toBe('06082b06010201010100');
    expect(berOidText(readBer(berOid('1.3.6.1.4.1.311.21.20'))!.content)).toBe('1.3.6.1.4.1.311.21.20');
    expect(berOidText(hex('2b86'))).toBeNull();
  });

  it('writes long lengths in long form and reads sequences back', () => {
    const long = berOctetString('x'.repeat(300));
    expect(toHex(long.subarray(0, 4))).toBe('0482012c');
    const sequence = readBer(berSequence(berInteger(1), long))!;
    expect(sequence.tag).toBe(BER_TAG.sequence);
    expect(readBerChildren(sequence.content)!.map((child) => child.tag)).toEqual([BER_TAG.integer, BER_TAG.octetString]);
  });

  it('reads truncated, indefinite-length and multi-byte-tag elements as null', () => {
    expect(readBer(hex('0482012c78'))).toBeNull();
    expect(readBer(hex('3080020101'))).toBeNull();
    expect(readBer(hex('1f0100'))).toBeNull();
    expect(readBerChildren(hex('020101ff'))).toBeNull();
  });
});

describe('dns-message', () => {
  it('follows compression pointers and stops at loops', () => {
    const message = REAL.dnsRecursive;
    expect(readDnsName(message, 29)).toEqual({ name: DNS_PROBE_NAME, end: 31 });
    expect(readDnsName(hex('0000000000000000000000000c0c'), 12)).toBeNull();
  });

  it('reads every section, and null when a count promises more than is there', () => {
    const message = readDnsMessage(REAL.dnsRecursive)!;
    expect(message.questions).toEqual([{ name: DNS_PROBE_NAME, type: DNS_TYPE.a, class: DNS_CLASS.in }]);
    expect(message.answers.map((record) => toHex(record.data))).toEqual(['5db8d70e']);
    const moreAnswers = REAL.dnsRecursive.slice();
    moreAnswers[7] = 2;
    expect(readDnsMessage(moreAnswers)).toBeNull();
  });
});

describe('requests', () => {
  it('asks DNS for an A record of example.com with RD, and CHAOS TXT version.bind', () => {
    expect(toHex(dnsProbe.requests[0]!.bytes)).toBe('5c0101000001000000000000076578616d706c6503636f6d0000010001');
    expect(toHex(dnsProbe.requests[1]!.bytes)).toBe('5c02000000010000000000000776657273696f6e0462696e640000100003');
  });

  it('asks NTP for the time (v4, mode 3), READVAR (mode 6) and monlist (mode 7)', () => {
    const time = ntpProbe.requests[0]!.bytes;
    expect(time.length).toBe(48);
    expect(time[0]).toBe(0x23);
    expect(toHex(ntpProbe.requests[1]!.bytes)).toBe('160200010000000000000000');
    expect(toHex(ntpProbe.requests[2]!.bytes)).toBe('1700032a00000000');
  });

  it('asks SNMP v2c and v1 for sysDescr.0 with community public', () => {
    expect(toHex(snmpProbe.requests[0]!.bytes)).toBe('302802010104067075626c6963a01b02035e1f01020100020100300e300c06082b060102010101000500');
    expect(toHex(snmpProbe.requests[1]!.bytes)).toBe('302802010004067075626c6963a01b02035e1f02020100020100300e300c06082b060102010101000500');
  });

  it('asks memcached for stats behind the UDP frame header', () => {
    expect(toHex(memcachedProbe.requests[0]!.bytes)).toBe(`4d43000000010000${toHex(ascii('stats\r\n'))}`);
  });

  it('searches SSDP for everything', () => {
    expect(new TextDecoder().decode(ssdpProbe.requests[0]!.bytes)).toBe(
      'M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nMAN: "ssdp:discover"\r\nMX: 1\r\nST: ssdp:all\r\n\r\n',
    );
  });

  it('asks mDNS for its service types with the unicast-response bit, NetBIOS for node status of *', () => {
    expect(toHex(mdnsProbe.requests[0]!.bytes)).toBe('000000000001000000000000095f7365727669636573075f646e732d7364045f756470056c6f63616c00000c8001');
    expect(toHex(netbiosProbe.requests[0]!.bytes)).toBe(`4e420000000100000000000020${toHex(ascii(`CK${'A'.repeat(30)}`))}0000210001`);
  });

  it('calls the portmapper’s DUMP, and sends chargen and QOTD one byte', () => {
    expect(toHex(portmapProbe.requests[0]!.bytes)).toBe('7e11f00d0000000000000002000186a0000000020000000400000000000000000000000000000000');
    expect(chargenProbe.requests[0]!.bytes.length).toBe(1);
    expect(qotdProbe.requests[0]!.bytes.length).toBe(1);
  });
});

describe('readers', () => {
  it('reads an open resolver, a refusal and a version from dnsmasq', () => {
    expect(dnsProbe.read(0, REAL.dnsRecursive)!.details).toEqual({ recursion_available: true, rcode: 'NOERROR', answers: 1, recursive: true });
    expect(dnsProbe.read(0, REAL.dnsRefused)!.details).toEqual({ recursion_available: true, rcode: 'REFUSED', answers: 0, recursive: false });
    expect(dnsProbe.read(1, REAL.dnsVersion)!.details).toEqual({ version: 'dnsmasq-2.90' });
  });

  it('reads DNS replies to another id, question or request as null', () => {
    const otherId = REAL.dnsRecursive.slice();
    otherId[1] = 0x99;
    expect(dnsProbe.read(0, otherId)).toBeNull();
    expect(dnsProbe.read(1, REAL.dnsRecursive)).toBeNull();
    expect(dnsProbe.read(0, dnsQuery(0x5c01, 0x8180, { name: 'example.org', type: DNS_TYPE.a, class: DNS_CLASS.in }))).toBeNull();
    expect(dnsProbe.read(0, dnsProbe.requests[0]!.bytes)).toBeNull(); // the query echoed: no QR bit
  });

  it('reads NTP time, mode 6 and mode 7 answers', () => {
    expect(ntpProbe.read(0, REAL.ntpTime)!.details).toEqual({ version: 4, stratum: 8, mode: 4 });
    expect(ntpProbe.read(1, WRITTEN.ntpReadvar)!.details).toEqual({ mode6: true, system: 'Linux/5.10.0' });
    expect(ntpProbe.read(2, WRITTEN.ntpMonlist)!.details).toEqual({ mode7: true, mode7_error: null, monlist_entries: 2 });
    expect(ntpProbe.read(2, WRITTEN.ntpMode7Error)!.details).toEqual({ mode7: true, mode7_error: 5, monlist_entries: null });
  });

  it('reads NTP replies that do not echo the request as null', () => {
    const otherOrigin = REAL.ntpTime.slice();
    otherOrigin[31] = otherOrigin[31]! ^ 1;
    expect(ntpProbe.read(0, otherOrigin)).toBeNull();
    for (let request = 0; request < 3; request++) expect(ntpProbe.read(request, ntpProbe.requests[request]!.bytes)).toBeNull();
  });

  it('reads sysDescr from snmpd in v2c and v1, and nothing from another request id', () => {
    const sysDescr = 'Linux vm 6.18.44-fc-v657 #1 SMP PREEMPT_DYNAMIC @0 x86_64';
    expect(snmpProbe.read(0, REAL.snmpV2c)!.details).toEqual({ version: 'v2c', community: 'public', sys_descr: sysDescr });
    expect(snmpProbe.read(1, REAL.snmpV1)!.details).toEqual({ version: 'v1', community: 'public', sys_descr: sysDescr });
    expect(snmpProbe.read(0, REAL.snmpV1)).toBeNull();
    expect(snmpProbe.read(0, snmpProbe.requests[0]!.bytes)).toBeNull(); // a GetRequest, not a GetResponse
  });

  it('reads memcached’s version and counts, and nothing without its request id or a STAT line', () => {
    expect(memcachedProbe.read(0, REAL.memcached)!.details).toEqual({ version: '1.6.18', uptime: 4, curr_connections: 3 });
    expect(memcachedProbe.read(0, join(hex('4d43000000010000'), ascii('ERROR\r\n')))).toBeNull();
    expect(memcachedProbe.read(0, join(hex('0001000000010000'), ascii('STAT version 1.6.18\r\n')))).toBeNull();
    expect(memcachedProbe.read(0, memcachedProbe.requests[0]!.bytes)).toBeNull();
  });

  it('reads an SSDP answer’s server, search target and location', () => {
    expect(ssdpProbe.read(0, WRITTEN.ssdp)!.details).toEqual({
      server: 'Linux/3.14 UPnP/1.0 MiniUPnPd/2.1',
      st: 'upnp:rootdevice',
      location: 'http://192.168.1.1:5000/rootDesc.xml',
    });
    expect(ssdpProbe.read(0, ssdpProbe.requests[0]!.bytes)).toBeNull();
  });

  it('reads avahi’s service types, NetBIOS names and MAC, and rpcbind’s mappings', () => {
    expect(mdnsProbe.read(0, REAL.mdns)!.details).toEqual({ answers: 1, names: '_workstation._tcp.local' });
    expect(mdnsProbe.read(0, mdnsProbe.requests[0]!.bytes)).toBeNull();
    expect(netbiosProbe.read(0, WRITTEN.netbios)!.details).toEqual({ names: 'SELFSCAN-TEST<00>, WORKGROUP<00>', mac: '52:54:00:aa:bb:cc' });
    expect(netbiosProbe.read(0, netbiosProbe.requests[0]!.bytes)).toBeNull();
    expect(portmapProbe.read(0, REAL.portmap)!.details).toEqual({ programs: 6, udp: true });
    expect(portmapProbe.read(0, portmapProbe.requests[0]!.bytes)).toBeNull();
  });

  it('counts any chargen answer and prints any QOTD answer', () => {
    expect(chargenProbe.read(0, REAL.chargen)!.details).toEqual({ bytes: 74 });
    expect(qotdProbe.read(0, WRITTEN.qotd)!.details).toEqual({ quote: '"The only way to go fast, is to go well." Robert C. Martin' });
    expect(qotdProbe.read(0, new Uint8Array(5000).fill(7))!.details.quote).toBe('.'.repeat(200));
  });
});

describe('totality', () => {
  it('reads every proper prefix of a reply it validates as null', () => {
    for (const [probe, request, reply] of VALIDATED) {
      expect(probe.read(request, reply), probe.service).not.toBeNull();
      for (let length = 0; length < reply.length; length++) expect(probe.read(request, reply.subarray(0, length)), `${probe.service} ${length}`).toBeNull();
    }
  });

  it('never throws on random bytes, on flipped bytes of real replies, or for a request it did not send', () => {
    const probes = [dnsProbe, ntpProbe, snmpProbe, memcachedProbe, ssdpProbe, mdnsProbe, netbiosProbe, portmapProbe, chargenProbe, qotdProbe];
    for (const probe of probes) {
      for (let round = 0; round < 300; round++) {
        const reply = new Uint8Array(randomBytes(round % 2 === 0 ? round % 97 : round * 7));
        for (let request = 0; request <= probe.requests.length; request++) expect(() => probe.read(request, reply), probe.service).not.toThrow();
      }
    }
    for (const [probe, request, reply] of VALIDATED) {
      for (let at = 0; at < reply.length; at++) {
        const flipped = reply.slice();
        flipped[at] = randomBytes(1)[0]!;
        expect(() => probe.read(request, flipped), `${probe.service} ${at}`).not.toThrow();
      }
    }
  });
});
