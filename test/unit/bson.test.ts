// The MongoDB probe's BSON and OP_MSG framing: round trips of what it sends
// and reads, and untrusted bytes refused with BsonError, never a crash.
import { describe, expect, it } from 'vitest';

import { BsonError, decodeBson, encodeBson } from '../../src/exposure/bson.js';
import { countMessages, encodeOpMsg, OP_MSG, readOpMsgs } from '../../src/exposure/mongo-op-msg.js';

describe('BSON', () => {
  it('encodes the bytes the spec gives for {"hello": "world"}', () => {
    expect(encodeBson({ hello: 'world' }).toString('hex')).toBe('160000000268656c6c6f0006000000776f726c640000');
  });

  it('round-trips every type the probe meets', () => {
    const document = {
      ok: 1,
      ratio: 0.5,
      big: 2n ** 40n,
      name: 'mongod ✓',
      flag: true,
      none: null,
      when: new Date(1_700_000_000_000),
      data: Buffer.from([1, 2, 3]),
      databases: [{ name: 'admin' }, { name: 'local' }],
      nested: { deeper: { code: 13 } },
    };
    expect(decodeBson(encodeBson(document))).toEqual(document);
  });

  it('keeps key order (the command name first) and a key named __proto__ as data', () => {
    expect(Object.keys(decodeBson(encodeBson({ listDatabases: 1, nameOnly: true, $db: 'admin' })))).toEqual(['listDatabases', 'nameOnly', '$db']);
    const decoded = decodeBson(encodeBson(JSON.parse('{"__proto__": {"polluted": 1}}')));
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
    expect(Object.keys(decoded)).toEqual(['__proto__']);
  });

  it('reads an ObjectId as hex', () => {
    const bytes = Buffer.from('1500000007696400' + '0123456789abcdef01234567' + '00', 'hex');
    expect(decodeBson(bytes)).toEqual({ id: '0123456789abcdef01234567' });
  });

  it('refuses cut, overlong, unknown and endlessly nested documents', () => {
    const good = encodeBson({ a: 'b' });
    expect(() => decodeBson(good.subarray(0, good.length - 1))).toThrow(BsonError);
    expect(() => decodeBson(Buffer.concat([good, Buffer.from([0])]))).toThrow(BsonError);
    const unknown = Buffer.from(good);
    unknown[4] = 0x7e;
    expect(() => decodeBson(unknown)).toThrow(BsonError);
    const lying = Buffer.from(good);
    lying.writeInt32LE(1000, 7); // the string says it is longer than its document
    expect(() => decodeBson(lying)).toThrow(BsonError);
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 100; i++) deep = { d: deep };
    expect(() => decodeBson(encodeBson(deep as never))).toThrow(/too deep/);
  });

  it('refuses random bytes with BsonError only', () => {
    for (let seed = 1; seed < 500; seed++) {
      const random = Buffer.from(Array.from({ length: 40 }, (_, i) => (seed * 7919 + i * 104729) % 251));
      random.writeInt32LE(40, 0);
      random[39] = 0;
      try {
        decodeBson(random);
      } catch (error) {
        expect(error).toBeInstanceOf(BsonError);
      }
    }
  });
});

describe('OP_MSG', () => {
  it('frames a body section under a 16-byte header and reads it back', () => {
    const message = encodeOpMsg({ requestId: 7, responseTo: 3, body: { hello: 1, $db: 'admin' } });
    expect(message.readInt32LE(0)).toBe(message.length);
    expect(message.readInt32LE(12)).toBe(OP_MSG);
    expect(readOpMsgs(message)).toEqual([{ requestId: 7, responseTo: 3, body: { hello: 1, $db: 'admin' } }]);
  });

  it('counts and reads only whole messages', () => {
    const one = encodeOpMsg({ requestId: 1, responseTo: 0, body: { ok: 1 } });
    const two = Buffer.concat([one, one, one.subarray(0, 10)]);
    expect(countMessages(two)).toBe(2);
    expect(readOpMsgs(two)).toHaveLength(2);
  });

  it('skips a document sequence and a checksum', () => {
    const body = encodeBson({ ok: 1 });
    const sequence = Buffer.concat([Buffer.from([1]), Buffer.from([13, 0, 0, 0]), Buffer.from('docs\0'), Buffer.from([5, 0, 0, 0])]);
    const message = Buffer.concat([Buffer.alloc(20), sequence, Buffer.from([0]), body, Buffer.alloc(4)]);
    message.writeInt32LE(message.length, 0);
    message.writeInt32LE(OP_MSG, 12);
    message.writeUInt32LE(1, 16);
    expect(readOpMsgs(message)[0]?.body).toEqual({ ok: 1 });
  });

  it('refuses another opcode', () => {
    const message = encodeOpMsg({ requestId: 1, responseTo: 0, body: { ok: 1 } });
    message.writeInt32LE(1, 12); // OP_REPLY
    expect(() => readOpMsgs(message)).toThrow(BsonError);
  });
});
