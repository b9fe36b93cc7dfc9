// The ASN table's hand-written address parsers (kept for speed) against
// net/ip-address, the rules everything else follows: on every input both
// read the same address or both refuse.
import { describe, expect, it } from 'vitest';

import { parseIpv4, parseIpv6 } from '../../src/limits/asn/asn-range-table.js';
import { tryParseIpAsWritten } from '../../src/net/ip-address.js';

type Reading = { family: 4 | 6; bytes: number[] } | null;

/** What an ASN lookup reads: IPv6 when the text has a colon (as asnOf decides), else IPv4. */
function fastReading(text: string): Reading {
  if (text.includes(':')) {
    const words = new Uint32Array(4);
    if (!parseIpv6(text, words)) return null;
    return { family: 6, bytes: Array.from(words).flatMap((w) => [w >>> 24, (w >>> 16) & 255, (w >>> 8) & 255, w & 255]) };
  }
  const value = parseIpv4(text);
  return value < 0 ? null : { family: 4, bytes: [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255] };
}

/** The same text by net/: as written, since asnOf gets canonical text and never unmaps. */
function netReading(text: string): Reading {
  const address = tryParseIpAsWritten(text);
  return address === null ? null : { family: address.kind() === 'ipv4' ? 4 : 6, bytes: address.toByteArray() };
}

/** A small seeded generator (mulberry32), so that a failure can be replayed. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const next = random(20261123);
const below = (n: number): number => Math.floor(next() * n);
const pick = <T>(items: readonly T[]): T => items[below(items.length)]!;

function randomIpv4(): string {
  const edge = [0, 1, 9, 10, 99, 100, 127, 199, 200, 249, 250, 254, 255];
  return Array.from({ length: 4 }, () => (next() < 0.5 ? pick(edge) : below(256))).join('.');
}

function randomGroups(): number[] {
  // Zero runs of every length, so that `::` lands everywhere.
  const start = below(9);
  const length = below(9 - start);
  return Array.from({ length: 8 }, (_, i) => (i >= start && i < start + length ? 0 : pick([0, 1, 0xffff, 0xdb8, below(0x10000)])));
}

/** The groups in one of the ways people write IPv6. */
function writeIpv6(groups: number[]): string {
  const hex = groups.map((g) => g.toString(16));
  switch (below(5)) {
    case 0: // every group, zero-padded
      return groups.map((g) => g.toString(16).padStart(4, '0')).join(':');
    case 1: // upper case
      return hex.join(':').toUpperCase();
    case 2: {
      // the longest zero run compressed
      let best = [-1, 0];
      for (let i = 0; i < 8; i++) {
        let j = i;
        while (j < 8 && groups[j] === 0) j++;
        if (j - i > best[1]!) best = [i, j - i];
      }
      if (best[1]! < 1) return hex.join(':');
      return `${hex.slice(0, best[0]).join(':')}::${hex.slice(best[0]! + best[1]!).join(':')}`;
    }
    case 3: // the last 32 bits as a dotted quad
      return `${hex.slice(0, 6).join(':')}:${groups[6]! >> 8}.${groups[6]! & 255}.${groups[7]! >> 8}.${groups[7]! & 255}`;
    default:
      return hex.join(':');
  }
}

/** `text` with one character deleted, inserted, replaced or doubled. */
function mutate(text: string): string {
  const at = below(text.length + 1);
  const char = pick([...'0123456789abcdefABCDEFgx:.%/[] -', '::', '.0', '00']);
  switch (below(4)) {
    case 0:
      return text.slice(0, at) + text.slice(at + 1);
    case 1:
      return text.slice(0, at) + char + text.slice(at);
    case 2:
      return text.slice(0, at) + char + text.slice(at + 1);
    default:
      return text.slice(0, at) + text.slice(at - 1, at) + text.slice(at);
  }
}

const FIXED = [
  // IPv4 edges and legacy forms
  '0.0.0.0',
  '255.255.255.255',
  '1.2.3.4',
  '256.0.0.1',
  '1.2.3.256',
  '01.2.3.4',
  '1.2.3.00',
  '0x1.2.3.4',
  '10.1',
  '10.0.1',
  '167772161',
  '1.2.3',
  '1.2.3.4.5',
  '1..2.3',
  '.1.2.3',
  '1.2.3.',
  '1.2.3.4 ',
  ' 1.2.3.4',
  '1.2.3.-4',
  '',
  // IPv6 forms
  '::',
  '::1',
  '1::',
  '1::2',
  'ffff::',
  'FFFF:FFFF:FFFF:FFFF:FFFF:FFFF:FFFF:FFFF',
  '0:0:0:0:0:0:0:0',
  '2001:db8::1',
  '2001:0db8:0000:0000:0000:0000:0000:0001',
  '1:2:3:4:5:6:7:8',
  '1:2:3:4:5:6:7::',
  '::2:3:4:5:6:7:8',
  '1:2:3::6:7:8',
  // IPv4-mapped, compatible and other dotted tails
  '::ffff:1.2.3.4',
  '::FFFF:1.2.3.4',
  '0:0:0:0:0:ffff:1.2.3.4',
  '::ffff:102:304',
  '::ffff:0.0.0.0',
  '::ffff:255.255.255.255',
  '::1.2.3.4',
  '::0.0.0.1',
  '64:ff9b::8.8.8.8',
  '1:2:3:4:5:6:1.2.3.4',
  '1:2:3:4:5:6:7:1.2.3.4',
  '1:2:3:4:5::1.2.3.4',
  '::ffff:01.2.3.4',
  '::ffff:0x1.2.3.4',
  '::ffff:10.1',
  '::ffff:1.2.3',
  '::ffff:256.1.1.1',
  '::ffff:1.2.3.4.5',
  '1.2.3.4::',
  // not IPv6
  ':::',
  '::::',
  ':1::',
  '1:::2',
  '1::2::3',
  '1:2:3:4:5:6:7:8:9',
  '1:2:3:4:5:6:7:8::',
  '::1:2:3:4:5:6:7:8',
  '12345::',
  '00000::1',
  'g::',
  '1:2:3:4:5:6:7',
  ':',
  '1:',
  ':1',
  'fe80::1%eth0',
  'fe80::1%1',
  '[::1]',
  '::1/128',
  '::1 ',
  ' ::1',
  '::ffff:1.2.3.4%eth0',
  'localhost',
  'not-an-ip',
];

function inputs(): string[] {
  const valid: string[] = [];
  for (let i = 0; i < 2000; i++) valid.push(randomIpv4());
  for (let i = 0; i < 4000; i++) valid.push(writeIpv6(randomGroups()));
  for (let i = 0; i < 1000; i++) {
    const v4 = randomIpv4();
    valid.push(
      pick([`::ffff:${v4}`, `0:0:0:0:0:ffff:${v4}`, `::${v4}`, `64:ff9b::${v4}`, `::ffff:${below(0x10000).toString(16)}:${below(0x10000).toString(16)}`]),
    );
  }
  const mutated = Array.from({ length: 10_000 }, () => {
    let text = pick([...valid, ...FIXED]);
    for (let k = 1 + below(2); k > 0; k--) text = mutate(text);
    return text;
  });
  return [...FIXED, ...valid, ...mutated];
}

describe('the ASN table address parsers', () => {
  it('read what net/ip-address reads, or refuse what it refuses, on many inputs', () => {
    const all = inputs();
    const mismatches = all.filter((text) => JSON.stringify(fastReading(text)) !== JSON.stringify(netReading(text)));
    expect(mismatches.map((text) => [text, fastReading(text), netReading(text)])).toEqual([]);
    // Not vacuous: plenty of both answers, of both families.
    const readings = all.map(netReading);
    expect(readings.filter((r) => r?.family === 4).length).toBeGreaterThan(2000);
    expect(readings.filter((r) => r?.family === 6).length).toBeGreaterThan(5000);
    expect(readings.filter((r) => r === null).length).toBeGreaterThan(3000);
  });

  it('agree on the edge cases by name', () => {
    expect(fastReading('::1.2.3.4')).toEqual({ family: 6, bytes: [...Array(12).fill(0), 1, 2, 3, 4] }); // IPv4-compatible, not mapped
    expect(fastReading('::ffff:1.2.3.4')).toEqual({ family: 6, bytes: [...Array(10).fill(0), 255, 255, 1, 2, 3, 4] });
    expect(fastReading('255.255.255.255')).toEqual({ family: 4, bytes: [255, 255, 255, 255] });
    for (const text of ['10.1', '01.2.3.4', '::ffff:01.2.3.4', 'fe80::1%eth0', '1::2::3']) expect(fastReading(text)).toBeNull();
  });
});
