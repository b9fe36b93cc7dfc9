// A lone Redis primary with AOF on, for tests: on a fixed loopback port and
// a data dir that outlives the process, so a test can kill -9 it and start
// it again on the same AOF, as an operator's restart (or a crash and its
// supervisor's restart) does. appendfsync everysec, the setting the README
// recommends. Never a system service.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { killAndWait } from '../../support/child-kill.js';
import { readyOutput } from '../../support/redis-server.js';

export interface AofRedis {
  url: string;
  /** kill -9 of the server; its AOF stays. */
  kill(): Promise<void>;
  /** Starts it again on the same port and AOF; resolves once it has loaded the AOF and accepts connections. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function startAofRedis(port: number): Promise<AofRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'selfscan-aof-'));
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes', '--appendfsync', 'everysec'];
  let child: ChildProcess | undefined;
  const start = async (): Promise<void> => {
    const started = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'ignore'] });
    child = started;
    await readyOutput(started, /ready to accept connections/i, 'redis-server (AOF)');
  };
  const kill = async (): Promise<void> => {
    if (child !== undefined) await killAndWait(child);
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    kill,
    restart: start,
    close: async () => {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
