// Following one scan through a Redis outage until it ends: every 200 of
// GET /v1/<type> is read (503s of the window are waited through), and each
// status seen is kept, so a test can say the scan was never reported lost.
import { eventually } from './eventually.js';

export interface ScanEnd {
  /** The last answer: the scan's terminal result. */
  result: Record<string, unknown>;
  /** Every status a 200 said on the way. */
  seen: Set<string>;
}

/** Polls `url` (with `headers`) until it answers a status other than queued or running, within `ms`. */
export async function scanEnd(url: string, headers: Record<string, string>, what: string, ms = 60_000): Promise<ScanEnd> {
  const seen = new Set<string>();
  let result: Record<string, unknown> = {};
  await eventually(
    async () => {
      const response = await fetch(url, { headers });
      if (response.status !== 200) return false;
      result = (await response.json()) as Record<string, unknown>;
      seen.add(String(result.status));
      return result.status !== 'queued' && result.status !== 'running';
    },
    ms,
    what,
  );
  return { result, seen };
}
