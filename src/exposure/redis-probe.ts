// Is this Redis, and does it serve anyone? `PING` is answered `+PONG`
// without credentials and `-NOAUTH` (or `-DENIED` in protected mode) with;
// `INFO server`, sent with it, is a read that names the version when no
// credentials are needed. Nothing else is sent.
import type { AccessFacts } from '../api/port-facts.js';
import { printableText } from './printable-text.js';
import { ProbeConnection, type ProbeTarget } from './probe-connection.js';

const REQUEST = 'PING\r\nINFO server\r\n';
/** Errors that mean "credentials first". */
const AUTH_ERROR = /^-(?:NOAUTH|DENIED|WRONGPASS)\b|^-ERR\b.*(?:auth|password|not permitted)/i;

/** One RESP reply: its type byte and its text (a bulk string's data), and where the next starts. */
interface Reply {
  type: string;
  text: string;
  next: number;
}

/** Sends PING and INFO server; the access facts, or null when the answer is not Redis's. */
export async function probeRedis(target: ProbeTarget): Promise<AccessFacts | null> {
  const connection = await ProbeConnection.open(target);
  if (connection === null) return null;
  try {
    const bytes = await connection.ask(REQUEST, (received) => readReplies(received).length >= 2);
    return redisAccess(readReplies(bytes));
  } finally {
    connection.close();
  }
}

function redisAccess(replies: Reply[]): AccessFacts | null {
  const [ping, info] = replies;
  if (ping === undefined) return null;
  if (ping.type === '+' && ping.text === 'PONG') {
    const version = info?.type === '$' ? /^redis_version:(\S+)/m.exec(info.text)?.[1] : undefined;
    return { service: 'redis', auth_required: false, version: version === undefined ? null : printableText(version), evidence: 'PING answered PONG' };
  }
  const error = `-${ping.text}`;
  if (ping.type === '-' && AUTH_ERROR.test(error)) {
    return { service: 'redis', auth_required: true, version: null, evidence: printableText(`PING answered ${error}`) };
  }
  return null;
}

/** The whole replies at the start of `bytes` (simple strings, errors, integers, bulk strings). */
function readReplies(bytes: Buffer): Reply[] {
  const replies: Reply[] = [];
  for (let at = 0; at < bytes.length; ) {
    const reply = readReply(bytes, at);
    if (reply === null) break;
    replies.push(reply);
    at = reply.next;
  }
  return replies;
}

function readReply(bytes: Buffer, at: number): Reply | null {
  const lineEnd = bytes.indexOf('\r\n', at);
  if (lineEnd < 0) return null;
  const type = String.fromCharCode(bytes[at]!);
  const line = bytes.toString('latin1', at + 1, lineEnd);
  if (type === '+' || type === '-' || type === ':') return { type, text: line, next: lineEnd + 2 };
  if (type !== '$' || !/^[0-9]{1,9}$/.test(line)) return null;
  const end = lineEnd + 2 + Number(line);
  if (end + 2 > bytes.length) return null;
  return { type, text: bytes.toString('latin1', lineEnd + 2, end), next: end + 2 };
}
