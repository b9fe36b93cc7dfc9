// Is this MongoDB, and does it serve anyone? Three read-only commands in
// one round trip: `hello` (it is MongoDB), `listDatabases` with names only
// (answered without credentials, or refused with code 13, Unauthorized) and
// `buildInfo` (the version; a command MongoDB serves without credentials).
import type { AccessFacts } from '../api/port-facts.js';
import type { BsonDocument } from './bson.js';
import { countMessages, encodeOpMsg, type OpMsg, readOpMsgs } from './mongo-op-msg.js';
import { printableText } from './printable-text.js';
import { ProbeConnection, type ProbeTarget } from './probe-connection.js';

const UNAUTHORIZED = 13;

const COMMANDS: readonly BsonDocument[] = [
  { hello: 1, $db: 'admin' },
  { listDatabases: 1, nameOnly: true, $db: 'admin' },
  { buildInfo: 1, $db: 'admin' },
];

/** Sends hello, listDatabases and buildInfo; the access facts, or null when the answers are not MongoDB's. */
export async function probeMongodb(target: ProbeTarget): Promise<AccessFacts | null> {
  const connection = await ProbeConnection.open(target);
  if (connection === null) return null;
  try {
    const request = Buffer.concat(COMMANDS.map((body, index) => encodeOpMsg({ requestId: index + 1, responseTo: 0, body })));
    const bytes = await connection.ask(request, (received) => countMessages(received) >= COMMANDS.length);
    return mongodbAccess(readOpMsgs(bytes));
  } catch {
    return null; // not OP_MSG, not BSON: not MongoDB
  } finally {
    connection.close();
  }
}

function mongodbAccess(replies: OpMsg[]): AccessFacts | null {
  const answer = (requestId: number) => replies.find((reply) => reply.responseTo === requestId)?.body;
  const hello = answer(1);
  if (hello === undefined || Number(hello.ok) !== 1 || !('maxWireVersion' in hello)) return null;
  const version = answer(3)?.version;
  const facts = { service: 'mongodb' as const, version: Number(answer(3)?.ok) === 1 && typeof version === 'string' ? printableText(version) : null };
  const list = answer(2);
  if (list === undefined) return null;
  if (Number(list.ok) === 1) {
    const count = Array.isArray(list.databases) ? list.databases.length : 0;
    return { ...facts, auth_required: false, evidence: `listDatabases answered ${count} database name(s)` };
  }
  if (Number(list.code) === UNAUTHORIZED) return { ...facts, auth_required: true, evidence: 'listDatabases refused: Unauthorized' };
  return null;
}
