// What stops a node at start, as a user meets it (`selfscan serve --redis`
// as a process): a --redis it cannot read, a primary that may evict keys,
// credentials the primary or the Sentinels refuse, a master name no
// Sentinel knows: exit 2 and one line `selfscan: …`, no stack trace.
// Sentinels that do not answer are waited for, as a primary that is down.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { killAll, startNode } from '../../support/cluster-nodes.js';
import { freePort, MASTER_NAME, type SentinelRedis, startSentinelRedis } from '../../support/redis-sentinels.js';
import { startRedisServer } from '../../support/redis-server.js';
import { runCli } from '../../support/server-process.js';
import { eventually } from '../helpers/eventually.js';

/** `selfscan serve --role api --redis REDIS` as a process. */
function serveApi(redis: string): ReturnType<typeof runCli> {
  const dataDir = mkdtempSync(join(tmpdir(), 'selfscan-start-'));
  return runCli(['serve', '--role', 'api', '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir, '--redis', redis]);
}

/** Runs it to its exit: the code and its stderr, which must be one line. */
async function refusal(redis: string): Promise<{ code: number | string; line: string }> {
  const run = serveApi(redis);
  const code = await run.exited;
  const stderr = run.stderr();
  expect(
    stderr.split('\n').filter((line) => line !== ''),
    stderr,
  ).toHaveLength(1);
  return { code, line: stderr.trim() };
}

/** The first `redis_waiting` line of a node that waits for Redis. */
async function waitingLine(run: ReturnType<typeof runCli>): Promise<{ msg: string }> {
  await eventually(() => /"event":"redis_waiting"/.test(run.stdout()), 10_000, 'a redis_waiting line');
  const lines = run.stdout().split('\n');
  return JSON.parse(lines.find((text) => text.includes('"redis_waiting"'))!) as { msg: string };
}

describe('--redis that cannot be read', () => {
  it('is a configuration error naming the setting, not a TypeError', async () => {
    const { code, line } = await refusal('redis+sentinel://127.0.0.1:26391,127.0.0.1:26392');
    expect(code).toBe(2);
    expect(line).toMatch(/^selfscan: redisUrl \(--redis\): not a Sentinel URL: redis\+sentinel:\/\/127\.0\.0\.1:26391,127\.0\.0\.1:26392; expected/);
    const plain = await refusal('redis//nowhere');
    expect(plain).toMatchObject({ code: 2, line: expect.stringMatching(/^selfscan: redisUrl \(--redis\): not a Redis URL/) });
  }, 30_000);
});

describe("the primary's maxmemory-policy", () => {
  for (const policy of ['allkeys-lru', 'volatile-ttl']) {
    it(`refuses ${policy}, saying why`, async () => {
      const redis = await startRedisServer({ args: ['--maxmemory-policy', policy] });
      try {
        const { code, line } = await refusal(`unix://${redis.path}`);
        expect(code).toBe(2);
        expect(line).toBe(
          `selfscan: the Redis primary's maxmemory-policy is ${policy}: when Redis is full it evicts keys, and with them queued jobs (BullMQ), scans in flight and results, silently; set maxmemory-policy noeviction (Redis then refuses writes when full, and we answer 503)`,
        );
      } finally {
        await redis.close();
      }
    }, 30_000);
  }

  it('reads it from INFO where CONFIG is renamed away, and starts on noeviction', async () => {
    const evicting = await startRedisServer({ args: ['--maxmemory-policy', 'allkeys-random', '--rename-command', 'CONFIG', ''] });
    const fine = await startRedisServer({ args: ['--maxmemory-policy', 'noeviction', '--rename-command', 'CONFIG', ''] });
    try {
      expect(await refusal(`unix://${evicting.path}`)).toMatchObject({ code: 2, line: expect.stringContaining('maxmemory-policy is allkeys-random') });
      const node = await startNode(fine.path, { role: 'api' });
      await killAll([node]);
    } finally {
      await evicting.close();
      await fine.close();
    }
  }, 30_000);
});

describe('credentials a primary refuses', () => {
  it('stops the start with exit 2, the password never repeated', async () => {
    const port = await freePort();
    const redis = await startRedisServer({ tcp: { host: '127.0.0.1', port }, requirepass: 'right-pass' });
    try {
      const wrong = await refusal(`redis://:wrong-pass@127.0.0.1:${port}`);
      expect(wrong.code).toBe(2);
      expect(wrong.line).toMatch(/^selfscan: the Redis primary of redis:\/\/:\*\*\*@127\.0\.0\.1:\d+ refused our credentials \(WRONGPASS/);
      expect(wrong.line).not.toContain('wrong-pass');
      const none = await refusal(`redis://127.0.0.1:${port}`);
      expect(none).toMatchObject({ code: 2, line: expect.stringMatching(/refused our credentials \(NOAUTH/) });
    } finally {
      await redis.close();
    }
  }, 30_000);
});

describe('a primary that does not answer', () => {
  it('is waited for, and the log says so', async () => {
    const port = await freePort();
    const run = serveApi(`redis://127.0.0.1:${port}`);
    try {
      const line = await waitingLine(run);
      expect(line.msg).toMatch(/^waiting for Redis \(connect ECONNREFUSED 127\.0\.0\.1:\d+\)$/);
      expect(run.child.exitCode).toBeNull();
    } finally {
      run.child.kill('SIGKILL');
      await run.exited;
    }
  }, 30_000);
});

describe('Sentinels', () => {
  let sentinels: SentinelRedis;
  const hosts = () => sentinels.sentinelPorts.map((port) => `127.0.0.1:${port}`).join(',');

  beforeAll(async () => {
    sentinels = await startSentinelRedis({ password: 'data-pass', sentinelPassword: 'sentinel-pass' });
  }, 60_000);

  afterAll(async () => {
    await sentinels?.close();
  });

  it('start a node when the URL is right', async () => {
    const node = await startNode(sentinels.url, { role: 'api' });
    try {
      expect(await (await fetch(`${node.url}/healthz`)).json()).toMatchObject({ ok: true, redis: 'up' });
    } finally {
      await killAll([node]);
    }
  }, 30_000);

  it('that know no master of that name stop the start', async () => {
    const { code, line } = await refusal(`redis+sentinel://:data-pass@${hosts()}/elsewhere?sentinel_password=sentinel-pass`);
    expect(code).toBe(2);
    expect(line).toMatch(/^selfscan: no Sentinel of redis\+sentinel:\/\/:\*\*\*@.* knows a master named "elsewhere"/);
  }, 30_000);

  it('that refuse our password stop the start; so does a primary that refuses its own', async () => {
    const sentinel = await refusal(`redis+sentinel://:data-pass@${hosts()}/${MASTER_NAME}?sentinel_password=nope`);
    expect(sentinel.code).toBe(2);
    expect(sentinel.line).toMatch(
      /^selfscan: the Sentinels of .*sentinel_password=\*\*\* refused our credentials \(WRONGPASS.*check sentinel_username and sentinel_password$/,
    );
    const missing = await refusal(`redis+sentinel://:data-pass@${hosts()}/${MASTER_NAME}`);
    expect(missing).toMatchObject({ code: 2, line: expect.stringContaining('refused our credentials (NOAUTH') });
    const data = await refusal(`redis+sentinel://:nope@${hosts()}/${MASTER_NAME}?sentinel_password=sentinel-pass`);
    expect(data).toMatchObject({ code: 2, line: expect.stringMatching(/^selfscan: the Redis primary of .* refused our credentials \(WRONGPASS/) });
    for (const { line } of [sentinel, missing, data]) expect(line).not.toMatch(/nope|data-pass|sentinel-pass/);
  }, 60_000);

  it('that do not answer are waited for, and the log says so', async () => {
    const ports = [await freePort(), await freePort()];
    const run = serveApi(`redis+sentinel://${ports.map((port) => `127.0.0.1:${port}`).join(',')}/${MASTER_NAME}`);
    try {
      const line = await waitingLine(run);
      expect(line.msg).toMatch(new RegExp(`^waiting for a Sentinel to answer \\(127\\.0\\.0\\.1:${ports[0]}: .*ECONNREFUSED`));
      expect(run.child.exitCode).toBeNull();
      expect(run.stderr()).toBe('');
    } finally {
      run.child.kill('SIGKILL');
      await run.exited;
    }
  }, 30_000);
});
