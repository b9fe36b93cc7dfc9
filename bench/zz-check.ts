import { readFileSync } from 'node:fs';
import ipaddr from 'ipaddr.js';
import { openAsnLookup } from '../src/limits/open-asn-lookup.js';
const dir = '/work/main/node_modules/@ip-location-db/asn/';
const lookup = await openAsnLookup({ dataDir: '/tmp/asn-try-data' });
function load(file: string) {
  return readFileSync(dir + file, 'utf8').trim().split('\n').map((l) => {
    const [s, e, a] = l.split(',');
    const big = (x: string) => { const b = ipaddr.parse(x).toByteArray(); return b.reduce((acc, v) => acc * 256n + BigInt(v), 0n); };
    return [big(s!), big(e!), Number(a)] as const;
  });
}
function ref(rows: ReturnType<typeof load>, x: bigint): number | null {
  let lo = 0, hi = rows.length - 1, f = -1;
  while (lo <= hi) { const m = (lo + hi) >> 1; if (rows[m]![0] <= x) { f = m; lo = m + 1; } else hi = m - 1; }
  return f >= 0 && x <= rows[f]![1] ? rows[f]![2] : null;
}
const v4 = load('asn-ipv4.csv'); const v6 = load('asn-ipv6.csv');
let bad = 0;
const rnd = (bits: number) => { let x = 0n; for (let i = 0; i < bits; i += 16) x = (x << 16n) | BigInt(Math.floor(Math.random() * 65536)); return x; };
for (let i = 0; i < 200000; i++) {
  // v4: random, or near a boundary
  const row = v4[Math.floor(Math.random() * v4.length)]!;
  const cands = [rnd(32) & 0xffffffffn, row[0], row[1], row[1] + 1n, row[0] - 1n].filter((x) => x >= 0n && x <= 0xffffffffn);
  for (const x of cands) {
    const ip = ipaddr.fromByteArray([24, 16, 8, 0].map((s) => Number((x >> BigInt(s)) & 255n))).toString();
    const r = ref(v4, x); const got = lookup.asnOf(ip);
    if (r !== got && !(r === null && got === null)) { if (bad++ < 5) console.log('v4', ip, r, got); }
  }
  const row6 = v6[Math.floor(Math.random() * v6.length)]!;
  const max = (1n << 128n) - 1n;
  const c6 = [rnd(128) & max, row6[0], row6[1], row6[1] + 1n, row6[0] - 1n, row6[0] + (rnd(128) % (row6[1] - row6[0] + 1n))].filter((x) => x >= 0n && x <= max);
  for (const x of c6) {
    const bytes = Array.from({ length: 16 }, (_, k) => Number((x >> BigInt(120 - 8 * k)) & 255n));
    const ip = ipaddr.fromByteArray(bytes).toString();
    const r = ref(v6, x); const got = lookup.asnOf(ip);
    if (r !== got) { if (bad++ < 5) console.log('v6', ip, r, got); }
  }
}
console.log('mismatches', bad);
