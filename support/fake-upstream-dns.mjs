// The upstream DNS server that udp-services-host.ts's dnsmasq forwards
// `example.com` to, so the fixture's resolver is recursive for one name
// without reaching the internet. Runs inside the host's namespace via
// `ip netns exec`, on 127.0.0.1 only (a scan of the host never sees it);
// plain JS without dependencies so it starts without a TypeScript loader.
//
// Usage: node fake-upstream-dns.mjs PORT
// Answers `A example.com` with 93.184.215.14 and REFUSED to anything else.
// Prints "READY" once bound; exits when stdin closes, so it never outlives
// the process that spawned it.
import dgram from 'node:dgram';

const NAME = 'example.com';
const ADDRESS = [93, 184, 215, 14];
const TYPE_A = 1;
const CLASS_IN = 1;
const TTL_SECONDS = 300;
const RCODE_REFUSED = 5;
const HEADER_BYTES = 12;

/** The question's name, type and class, and where it ends; null when the query is malformed. */
function parseQuestion(query) {
  if (query.length < HEADER_BYTES || query.readUInt16BE(4) !== 1) return null;
  const labels = [];
  let offset = HEADER_BYTES;
  while (offset < query.length && query[offset] !== 0) {
    const length = query[offset];
    if (length > 63 || offset + 1 + length > query.length) return null;
    labels.push(query.toString('latin1', offset + 1, offset + 1 + length));
    offset += 1 + length;
  }
  const end = offset + 5;
  if (end > query.length) return null;
  return { name: labels.join('.').toLowerCase(), type: query.readUInt16BE(offset + 1), klass: query.readUInt16BE(offset + 3), end };
}

function answer(query) {
  const question = parseQuestion(query);
  if (question === null) return null;
  const known = question.name === NAME && question.type === TYPE_A && question.klass === CLASS_IN;
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt16BE(query.readUInt16BE(0), 0);
  // QR, the query's RD, RA; AA when answering, else REFUSED.
  header.writeUInt16BE(0x8080 | (query.readUInt16BE(2) & 0x0100) | (known ? 0x0400 : RCODE_REFUSED), 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(known ? 1 : 0, 6);
  const parts = [header, query.subarray(HEADER_BYTES, question.end)];
  if (known) {
    const record = Buffer.alloc(16);
    record.writeUInt16BE(0xc000 | HEADER_BYTES, 0);
    record.writeUInt16BE(TYPE_A, 2);
    record.writeUInt16BE(CLASS_IN, 4);
    record.writeUInt32BE(TTL_SECONDS, 6);
    record.writeUInt16BE(ADDRESS.length, 10);
    Buffer.from(ADDRESS).copy(record, 12);
    parts.push(record);
  }
  return Buffer.concat(parts);
}

const socket = dgram.createSocket('udp4');
socket.on('message', (query, peer) => {
  const response = answer(query);
  if (response !== null) socket.send(response, peer.port, peer.address);
});
socket.bind(Number(process.argv[2]), '127.0.0.1', () => process.stdout.write('READY\n'));

process.stdin.on('end', () => process.exit(0));
process.stdin.on('close', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
