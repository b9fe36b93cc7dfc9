// The /30 networks of a /16 that netns fixtures hand out, one "slot" each:
// a slot is free when no interface on the machine has an address in it
// and this process has not handed it out (a slot handed out may not show
// in `ip addr` yet).
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
    for (const match of addrs.matchAll(/inet (\d+)\.(\d+)\.(\d+)\.(\d+)\//g)) {
      const value = match.slice(1, 5).reduce((acc, octet) => acc * 256 + Number(octet), 0);
      const offset = value - this.base;
      if (offset >= 0 && offset < SLOT_COUNT * 4) used.add(Math.floor(offset / 4));
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
    const value = this.base + slot * 4 + hostPart;
    return [24, 16, 8, 0].map((shift) => (value >>> shift) & 0xff).join('.');
  }
}
