// The /30 networks of a /16 that netns fixtures hand out, one "slot" each:
// a slot is free when no interface of the root namespace has an address in
// it, no route of its main table leads to it (a host behind a path's
// router has its /30 in namespaces only, and a route to it through the
// router) and this process has not handed it out (a slot handed out may
// not show in `ip addr` or `ip route` yet).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** 16,384 /30 networks in a /16. */
const SLOT_COUNT = 1 << 14;

export class Ipv4Slots {
  private readonly base: number;
  private readonly reserved = new Set<number>();

  /** `prefix`: the /16's first two octets, e.g. [198, 18]. */
  constructor(
    prefix: readonly [number, number],
    private readonly label: string,
  ) {
    this.base = ((prefix[0] << 24) | (prefix[1] << 16)) >>> 0;
  }

  /** A free slot, starting the search at `preferred`. */
  async pick(ip: string, preferred: number): Promise<number> {
    const used = new Set<number>();
    const { stdout: addrs } = await execFileAsync(ip, ['-o', '-4', 'addr', 'show']);
    const { stdout: routes } = await execFileAsync(ip, ['-4', 'route', 'show']);
    const inUse = (match: RegExpMatchArray): void => {
      const value = match.slice(1, 5).reduce((acc, octet) => acc * 256 + Number(octet), 0);
      const offset = value - this.base;
      if (offset >= 0 && offset < SLOT_COUNT * 4) used.add(Math.floor(offset / 4));
    };
    for (const match of addrs.matchAll(/inet (\d+)\.(\d+)\.(\d+)\.(\d+)\//g)) inUse(match);
    // Routes to a /30 or narrower; a wider one is no slot's.
    for (const match of routes.matchAll(/^(\d+)\.(\d+)\.(\d+)\.(\d+)(?:\/(\d+))?\s/gm)) {
      if (match[5] === undefined || Number(match[5]) >= 30) inUse(match);
    }
    for (let i = 0; i < SLOT_COUNT; i++) {
      const slot = (preferred + i) % SLOT_COUNT;
      if (!used.has(slot) && !this.reserved.has(slot)) {
        this.reserved.add(slot);
        return slot;
      }
    }
    throw new Error(`${this.label}: no free /30 left`);
  }

  /** Gives `slot` back. */
  release(slot: number): void {
    this.reserved.delete(slot);
  }

  /** The address `hostPart` (1 or 2) of `slot`. */
  ipv4(slot: number, hostPart: 1 | 2): string {
    return this.address(slot, hostPart);
  }

  /** The four addresses of `slot`, each usable as a /32 of its own. */
  addresses(slot: number): string[] {
    return [0, 1, 2, 3].map((hostPart) => this.address(slot, hostPart));
  }

  /** `slot` as a network, `a.b.c.d/30` (a route's destination). */
  network(slot: number): string {
    return `${this.address(slot, 0)}/30`;
  }

  private address(slot: number, hostPart: number): string {
    const value = this.base + slot * 4 + hostPart;
    return [24, 16, 8, 0].map((shift) => (value >>> shift) & 0xff).join('.');
  }
}
