// The addon's duplicateDescriptor, which the Node front's accept lanes
// listen on (src/http/node-accept-lanes.ts): a second descriptor of the
// same socket, closed on exec, or an error that carries the errno.
import { closeSync, fstatSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';

import { expect, it } from 'vitest';

import { native } from '../../src/native/binding.js';

it('gives a new descriptor of the same open socket', async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const fd = (server as unknown as { _handle: { fd: number } })._handle.fd;
    const copy = native.duplicateDescriptor(fd);
    try {
      expect(copy).not.toBe(fd);
      expect(readlinkSync(`/proc/self/fd/${copy}`)).toBe(readlinkSync(`/proc/self/fd/${fd}`)); // socket:[inode]
      expect(fstatSync(copy).isSocket()).toBe(true);
      const flags = /^flags:\s+(\d+)$/m.exec(readFileSync(`/proc/self/fdinfo/${copy}`, 'utf8'))![1]!;
      expect(Number.parseInt(flags, 8) & 0o2000000).not.toBe(0); // O_CLOEXEC: a child process does not inherit the listener
    } finally {
      closeSync(copy);
    }
  } finally {
    server.close();
  }
});

it('throws with the errno for a descriptor that is not open', () => {
  expect(() => native.duplicateDescriptor(1_000_000)).toThrow(
    expect.objectContaining({ errno: 9, message: expect.stringContaining('could not duplicate descriptor 1000000') }),
  );
  expect(() => native.duplicateDescriptor('3' as unknown as number)).toThrow(TypeError);
});
