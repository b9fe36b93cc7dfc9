// A MongoDB-shaped responder for the facts probes' tests: it speaks OP_MSG
// and answers `hello`, `listDatabases` (or refuses it as Unauthorized, as
// mongod with authorization on does) and `buildInfo`, and records every
// command it was sent, so a test can show the probe only reads.
import { createServer, type Server, type Socket } from 'node:net';

import type { BsonDocument } from '../src/exposure/bson.js';
import { countMessages, encodeOpMsg, readOpMsgs } from '../src/exposure/mongo-op-msg.js';

export interface MongodbResponder {
  /** The names of the commands received, in order. */
  commands: string[];
  close(): Promise<void>;
}

/** The version the responder reports in `buildInfo`. */
export const RESPONDER_VERSION = '7.0.14';

/** Listens on `host:port`; `auth`: refuse `listDatabases` without credentials. */
export async function startMongodbResponder(host: string, port: number, auth: boolean): Promise<MongodbResponder> {
  const commands: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      try {
        respond();
      } catch {
        socket.destroy(); // not OP_MSG: hang up, as mongod does
      }
    });
    const respond = () => {
      while (countMessages(pending) > 0) {
        const length = pending.readInt32LE(0);
        const [message] = readOpMsgs(pending.subarray(0, length));
        pending = pending.subarray(length);
        const name = Object.keys(message!.body)[0] ?? '';
        commands.push(name);
        socket.write(encodeOpMsg({ requestId: 1000 + commands.length, responseTo: message!.requestId, body: answer(name, auth) }));
      }
    };
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, resolve);
  });
  return {
    commands,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function answer(command: string, auth: boolean): BsonDocument {
  switch (command) {
    case 'hello':
      return { isWritablePrimary: true, maxBsonObjectSize: 16_777_216, maxWireVersion: 21, minWireVersion: 0, ok: 1 };
    case 'listDatabases':
      return auth
        ? { ok: 0, errmsg: 'Command listDatabases requires authentication', code: 13, codeName: 'Unauthorized' }
        : { databases: [{ name: 'admin' }, { name: 'shop' }, { name: 'local' }], ok: 1 };
    case 'buildInfo':
      return { version: RESPONDER_VERSION, ok: 1 };
    default:
      return { ok: 0, errmsg: `no such command: '${command}'`, code: 59, codeName: 'CommandNotFound' };
  }
}
