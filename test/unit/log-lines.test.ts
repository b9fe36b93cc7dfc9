// The service's logger batches lines for speed; batching must not lose,
// reorder or garble any of them, even when the process exits right away.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { pino } from 'pino';
import { afterAll, expect, it } from 'vitest';

import { createRequestLog } from '../../src/http/request-log.js';

const CHILD = fileURLToPath(new URL('./children/log-child.ts', import.meta.url));
const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'selfscan-log-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('writes every line, whole and in order, when the process exits before the batch is due', async () => {
  const file = join(dir, 'child.log');
  const count = 20_000; // many 64 KiB batches and a partial one
  await new Promise<void>((resolve, reject) =>
    execFile(process.execPath, ['--import', 'tsx', CHILD, file, String(count)], { cwd: PROJECT_ROOT }, (error) => (error ? reject(error) : resolve())),
  );
  const lines = readFileSync(file, 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as { i?: number; text?: string; msg: string });
  expect(lines).toHaveLength(count + 2);
  expect(lines.slice(0, count).map((line) => line.i)).toEqual([...Array(count).keys()]);
  expect(lines[100]!.text).toBe('grüße ✓ 日本');
  expect(lines[count]!.text).toBe('é'.repeat(40_000));
  expect(lines[count + 1]!.msg).toBe('last');
});

it('writes request lines as valid JSON in pino format, whatever the method and path', () => {
  const written: string[] = [];
  const logger = pino({ name: 'selfscan' }, { write: (line: string) => written.push(line) });
  const log = createRequestLog(logger);
  log('GET', '/v1/fast', '192.0.2.1', '200', 7.4);
  log('BREW', '/a"b\\c/ü\n', '2001:db8::1', 'not_found', 0.2);
  const [plain, odd] = written.map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(plain).toMatchObject({
    level: 30,
    name: 'selfscan',
    event: 'request',
    method: 'GET',
    path: '/v1/fast',
    ip: '192.0.2.1',
    status: '200',
    msg: 'request',
  });
  expect(plain!.ms).toBe(7); // whole milliseconds
  expect(odd!.ms).toBe(0);
  expect(typeof plain!.time).toBe('number');
  expect(odd).toMatchObject({ method: 'BREW', path: '/a"b\\c/ü\n', ip: '2001:db8::1', status: 'not_found' });
  expect(written.every((line) => line.endsWith('}\n'))).toBe(true);
});
