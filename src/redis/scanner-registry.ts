// Which regions have live scanner nodes. Each scanner node renews its entry
// every HEARTBEAT_MS, scored with when it lapses on Redis's clock (so node
// clocks play no part); an API node sends a scan to the first region of its
// list with a live node, or answers 503 when there is none.
import { randomUUID } from 'node:crypto';

import type { Redis } from 'ioredis';

import { ApiError } from '../api/api-error.js';
import { type RegionsAsked, regionsNamed } from '../api/regions-asked.js';
import { defineLua } from './lua-scripts.js';
import { REGIONS_KEY, scannersKey } from './redis-keys.js';

const HEARTBEAT_MS = 2000;
/** A node that missed this long of heartbeats counts as gone. */
const LAPSE_MS = 6000;
/** How long an API node trusts what it read of the regions. */
const CACHE_MS = 1000;

interface RegistryCommands {
  selfscanHeartbeat(...keysAndArgs: (string | number)[]): Promise<number>;
  selfscanLive(numberOfKeys: number, ...keys: string[]): Promise<number[]>;
}

function commandsOf(redis: Redis): RegistryCommands {
  defineLua(redis, 'selfscanHeartbeat', 'scanner-heartbeat-2.lua');
  defineLua(redis, 'selfscanLive', 'scanner-live.lua');
  return redis as unknown as RegistryCommands;
}

/** A scanner node's entry in its region, renewed until stopped. */
export function announceScanner(redis: Redis, region: string, onError: (error: unknown) => void): { stop(): Promise<void> } {
  const commands = commandsOf(redis);
  const node = randomUUID();
  const beat = (): void => {
    commands.selfscanHeartbeat(scannersKey(region), REGIONS_KEY, node, region, LAPSE_MS).catch(onError);
  };
  beat();
  const timer = setInterval(beat, HEARTBEAT_MS);
  return {
    stop: async () => {
      clearInterval(timer);
      await redis.zrem(scannersKey(region), node).catch(onError);
    },
  };
}

/** The API side: picks the region a new scan goes to. */
export class ScannerRegions {
  private readonly commands: RegistryCommands;
  private cached: { region: string; at: number } | null = null;

  /** `preferred`: regions in order of preference; empty: any region, the one with most live nodes. */
  constructor(
    private readonly redis: Redis,
    private readonly preferred: readonly string[],
  ) {
    this.commands = commandsOf(redis);
  }

  /** The region for a new scan; throws `unavailable` (503) when no region has a live scanner node. */
  async pick(): Promise<string> {
    const now = Date.now();
    if (this.cached !== null && now - this.cached.at < CACHE_MS) return this.cached.region;
    const regions = this.preferred.length > 0 ? this.preferred : (await this.redis.smembers(REGIONS_KEY)).sort();
    const live = await this.liveNodes(regions);
    const ranked = regions.map((region, i) => ({ region, nodes: live[i] ?? 0 })).filter((r) => r.nodes > 0);
    if (this.preferred.length === 0) ranked.sort((a, b) => b.nodes - a.nodes);
    const chosen = ranked[0];
    if (chosen === undefined) {
      this.cached = null;
      const where = regions.length === 0 ? 'any region' : `region ${regions.join(', ')}`;
      throw new ApiError('unavailable', `no scanner node is live in ${where}; try again later`);
    }
    this.cached = { region: chosen.region, at: now };
    return chosen.region;
  }

  /**
   * The regions a multi-region scan asked for: every region with a live
   * scanner node (`all`), or the named ones, each known and live. Throws
   * `invalid_regions` (422) naming the known regions for an unknown one, and
   * `unavailable` (503) for a known region with no live scanner node.
   */
  async resolve(asked: RegionsAsked): Promise<string[]> {
    const known = await this.known(asked);
    const named = regionsNamed(asked);
    const regions = named ?? known;
    const live = await this.liveNodes(regions);
    const alive = regions.filter((_, i) => (live[i] ?? 0) > 0);
    if (named === null && alive.length === 0) throw new ApiError('unavailable', 'no scanner node is live in any region; try again later');
    const dead = regions.filter((region) => !alive.includes(region));
    if (named !== null && dead.length > 0) throw new ApiError('unavailable', `no scanner node is live in region ${dead.join(', ')}; try again later`);
    return alive;
  }

  /** The live scanner nodes of each of `regions`. */
  private async liveNodes(regions: readonly string[]): Promise<number[]> {
    return regions.length === 0 ? [] : this.commands.selfscanLive(regions.length, ...regions.map(scannersKey));
  }

  /** Every region a scanner node has announced, sorted; throws `invalid_regions` (422), naming them, when `asked` names another. */
  async known(asked: RegionsAsked): Promise<string[]> {
    const known = (await this.redis.smembers(REGIONS_KEY)).sort();
    const unknown = (regionsNamed(asked) ?? []).filter((region) => !known.includes(region));
    if (unknown.length > 0) {
      const knownText = known.length === 0 ? 'none yet' : known.join(', ');
      throw new ApiError('invalid_regions', `unknown region ${unknown.join(', ')}; this cluster's regions: ${knownText}`);
    }
    return known;
  }
}
