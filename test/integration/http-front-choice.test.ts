// Setting `http.server` as a user meets it, on whichever Node runs the
// suite (Node 20 in the main run; 22 and 24 in the node legs): `auto` takes
// uWebSockets.js where its binary loads and Node's http elsewhere, and says
// which and why once; `uws` where it cannot load stops the start with exit
// 2 and the loader's reason, no stack trace; `node` runs anywhere.
import { describe, expect, it } from 'vitest';

import { logLines, runCli, type ServerProcess } from '../../support/server-process.js';
import { cleanupAfterEach } from '../helpers/test-cleanups.js';

const { cleanups, tempDir } = cleanupAfterEach('selfscan-front-');

/** The ABIs `@trufflesuite/uws-js-unofficial` ships linux-x64 binaries for: Node 16, 18 and 20. */
const UWS_ABIS = ['93', '108', '115'];
const uwsLoadsHere = process.platform === 'linux' && process.arch === 'x64' && UWS_ABIS.includes(process.versions.modules);

/** Runs `selfscan serve` with `SELFSCAN_HTTP_SERVER=choice`; the run, and its log lines. */
function serve(choice: string) {
  const run = runCli(['serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', tempDir(), '--allow-private-targets'], { SELFSCAN_HTTP_SERVER: choice });
  cleanups.push(async () => {
    if (run.child.exitCode !== null) return;
    run.child.kill('SIGKILL');
    await run.exited;
  });
  const logs = (): Record<string, unknown>[] => logLines(run.stdout());
  return { run, logs };
}

/** Waits for the `listening` line; the server's URL. */
async function listening(logs: () => Record<string, unknown>[], exited: ServerProcess['exited']): Promise<string> {
  let ended = false;
  void exited.then(() => (ended = true));
  for (const deadline = Date.now() + 20_000; Date.now() < deadline && !ended; ) {
    const line = logs().find((entry) => entry.event === 'listening');
    if (line !== undefined) return `http://127.0.0.1:${String(line.port)}`;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the server did not start');
}

describe(`http.server on Node ${process.versions.node} (ABI ${process.versions.modules})`, () => {
  it(`auto runs ${uwsLoadsHere ? 'uWebSockets.js' : "Node's http"} here, says why once, and names it at /healthz`, async () => {
    const { run, logs } = serve('auto');
    const url = await listening(logs, run.exited);
    const front = uwsLoadsHere ? 'uws' : 'node';
    const lines = logs().filter((line) => line.event === 'http_server');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ http_server: front });
    if (front === 'node') expect(lines[0]!.why).toMatch(/^uWebSockets\.js has no native binary that loads on linux-x64 with Node v\d+/);
    else expect(lines[0]!.why).toBe("uWebSockets.js's binary loads here");
    expect(await (await fetch(`${url}/healthz`)).json()).toMatchObject({ ok: true, http_server: front });
    expect((await fetch(`${url}/openapi.json`)).status).toBe(200);
  });

  it(`uws ${uwsLoadsHere ? 'runs uWebSockets.js here' : 'stops the start here with exit 2, the reason and the way out, no stack trace'}`, async () => {
    const { run, logs } = serve('uws');
    if (uwsLoadsHere) {
      const url = await listening(logs, run.exited);
      expect(await (await fetch(`${url}/healthz`)).json()).toMatchObject({ http_server: 'uws' });
      return;
    }
    expect(await run.exited).toBe(2);
    const stderr = run.stderr();
    expect(stderr).toMatch(/^selfscan: http\.server is uws, but uWebSockets\.js has no native binary that loads on linux-x64 with Node v\d+/);
    expect(stderr).toContain(`ABI ${process.versions.modules}`);
    expect(stderr).toContain('Set http.server to auto or node (SELFSCAN_HTTP_SERVER).');
    expect(stderr).not.toMatch(/^\s+at /m);
    expect(run.stdout()).not.toContain('"event":"listening"');
  });

  it("node runs Node's http", async () => {
    const { run, logs } = serve('node');
    const url = await listening(logs, run.exited);
    expect(await (await fetch(`${url}/healthz`)).json()).toMatchObject({ ok: true, http_server: 'node' });
  });
});
