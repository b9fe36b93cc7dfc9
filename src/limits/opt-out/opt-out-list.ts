// The opt-out list: addresses whose owners asked never to be scanned. It lives
// in a plain text file (config `optOutFile`) that operators edit by hand or with
// `selfscan optout`, and the running service picks up changes without a restart.
import { type FSWatcher, watch } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';

import { type Cidr, formatCidr, parseCidr } from '../../net/cidr.js';
import { type IpAddress, parseIp, tryParseIp } from '../../net/ip-address.js';

/** One network of the opt-out list, in canonical form. */
export interface ParsedEntry {
  /** The network as `address/prefix`: the network address (host bits cleared), IPv4-mapped IPv6 turned into IPv4. */
  cidr: string;
  version: 4 | 6;
  /** The network address, canonical text. */
  address: string;
  prefix: number;
  /** 1-based line of the file it came from (1 for a single value). */
  line: number;
}

/**
 * Parses one IP address or CIDR (no comment), surrounding blanks allowed, by
 * net/cidr parseCidr: a bare address means /32 or /128; host bits under the
 * prefix are cleared; IPv4-mapped IPv6 networks of /96 or longer become IPv4.
 * Returns why not when `text` is neither.
 */
export function parseOptOutEntry(text: string, line = 1): ParsedEntry | string {
  let network: Cidr;
  try {
    network = parseCidr(text.trim());
  } catch (error) {
    return (error as Error).message;
  }
  return {
    cidr: formatCidr(network),
    version: network.address.kind() === 'ipv4' ? 4 : 6,
    address: network.address.toString(),
    prefix: network.prefix,
    line,
  };
}

/**
 * Parses the opt-out file: one IP address or CIDR a line, `#` starts a comment
 * (whole line or trailing), blank lines are ignored. Bad lines do not throw:
 * they are reported in `errors` as `line N: why` and skipped.
 */
export function parseOptOut(text: string): { entries: ParsedEntry[]; errors: string[] } {
  const entries: ParsedEntry[] = [];
  const errors: string[] = [];
  text.split('\n').forEach((raw, index) => {
    const hash = raw.indexOf('#');
    const value = (hash === -1 ? raw : raw.slice(0, hash)).trim();
    if (value === '') return;
    const entry = parseOptOutEntry(value, index + 1);
    if (typeof entry === 'string') errors.push(`line ${index + 1}: ${entry}`);
    else entries.push(entry);
  });
  return { entries, errors };
}

const V6_BITS = 128n;
const V6_ALL = (1n << V6_BITS) - 1n;

function v4Number(address: IpAddress): number {
  const [a = 0, b = 0, c = 0, d = 0] = address.toByteArray();
  return ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
}

function v6Number(address: IpAddress): bigint {
  return address.toByteArray().reduce((sum, byte) => (sum << 8n) | BigInt(byte), 0n);
}

function v4Mask(prefix: number): number {
  return prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
}

function v6Mask(prefix: number): bigint {
  return V6_ALL ^ ((1n << (V6_BITS - BigInt(prefix))) - 1n);
}

/**
 * Membership of an address in a set of networks: one hash set of network
 * numbers per prefix length, so a lookup costs at most one probe per distinct
 * prefix length (33 for IPv4, 129 for IPv6), however many entries there are.
 */
export class OptOutMatcher {
  /** Distinct networks held. */
  readonly size: number;

  private constructor(
    // Prefix lengths present, each with its mask and the masked network numbers.
    private readonly v4: { mask: number; networks: Set<number> }[],
    private readonly v6: { mask: bigint; networks: Set<bigint> }[],
  ) {
    this.size = v4.reduce((sum, level) => sum + level.networks.size, 0) + v6.reduce((sum, level) => sum + level.networks.size, 0);
  }

  /** A matcher of `entries` (as from parseOptOut); duplicates count once. */
  static from(entries: Iterable<ParsedEntry>): OptOutMatcher {
    const v4 = new Map<number, Set<number>>();
    const v6 = new Map<number, Set<bigint>>();
    for (const entry of entries) {
      const address = parseIp(entry.address);
      if (address.kind() === 'ipv4') {
        const networks = v4.get(entry.prefix) ?? new Set<number>();
        networks.add((v4Number(address) & v4Mask(entry.prefix)) >>> 0);
        v4.set(entry.prefix, networks);
      } else {
        const networks = v6.get(entry.prefix) ?? new Set<bigint>();
        networks.add(v6Number(address) & v6Mask(entry.prefix));
        v6.set(entry.prefix, networks);
      }
    }
    return new OptOutMatcher(
      [...v4].map(([prefix, networks]) => ({ mask: v4Mask(prefix), networks })),
      [...v6].map(([prefix, networks]) => ({ mask: v6Mask(prefix), networks })),
    );
  }

  /**
   * Whether `ip` (an address by net/ip-address tryParseIp: IPv4-mapped IPv6
   * counts as its IPv4 address) lies in one of the networks. False for text
   * that is not an address: no such caller can be scanned anyway.
   */
  has(ip: string): boolean {
    const address = tryParseIp(ip);
    if (address === null) return false;
    if (address.kind() === 'ipv4') {
      const value = v4Number(address);
      return this.v4.some(({ mask, networks }) => networks.has((value & mask) >>> 0));
    }
    const value = v6Number(address);
    return this.v6.some(({ mask, networks }) => networks.has(value & mask));
  }
}

/** What a (re)load found: the entries now in force and the lines skipped or the read failure. */
export interface OptOutReloadInfo {
  entries: number;
  errors: string[];
}

/** Timing knobs of OptOutList; the defaults suit production. */
export interface OptOutListOptions {
  /** Quiet time after a change event before reading the file (default 100 ms). */
  debounceMs?: number;
  /** Period of the stat poll that backs up fs.watch (default 2000 ms). */
  pollIntervalMs?: number;
}

const EMPTY = OptOutMatcher.from([]);

/**
 * The opt-out list of the running service, kept in step with its file. A
 * missing file is an empty list; the file is reloaded when it changes, is
 * created or is deleted (then the list is empty). A reload that cannot read
 * the file keeps the previous list.
 */
export class OptOutList {
  private matcher = EMPTY;
  /** The text in force (null: no file) so that spurious events change nothing. */
  private text: string | null = null;
  private watcher: FSWatcher | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private poll: NodeJS.Timeout | undefined;
  private lastStat = '';
  private reloading = false;
  private reloadAgain = false;
  private closed = false;

  private constructor(
    private readonly path: string | undefined,
    private readonly onReload: ((info: OptOutReloadInfo) => void) | undefined,
    private readonly options: Required<OptOutListOptions>,
  ) {}

  /**
   * Loads the list at `path` and keeps watching it; without a path the list is
   * empty for good. `onReload` hears of the first load and of every reload that
   * changed the text, or that failed to read it; it must not throw. Throws
   * only when the first read fails for another reason than a missing file.
   */
  static async open(path: string | undefined, onReload?: (info: OptOutReloadInfo) => void, options: OptOutListOptions = {}): Promise<OptOutList> {
    const list = new OptOutList(path, onReload, { debounceMs: 100, pollIntervalMs: 2000, ...options });
    if (path === undefined) return list;
    list.lastStat = await list.statSignature();
    list.apply(await readOptOutFile(path));
    list.startWatching(path);
    return list;
  }

  /** Whether `ip` is opted out (see OptOutMatcher.has). */
  has(ip: string): boolean {
    return this.matcher.has(ip);
  }

  /** Distinct networks in force. */
  get size(): number {
    return this.matcher.size;
  }

  /** Stops watching the file; the list keeps its last contents. */
  close(): void {
    this.closed = true;
    clearTimeout(this.debounce);
    clearInterval(this.poll);
    this.watcher?.close();
    this.watcher = undefined;
  }

  private startWatching(path: string): void {
    // Watch the directory, not the file: editors and atomic renames put a new
    // inode in place, and a watch on the old one would never fire again.
    const name = basename(path);
    try {
      this.watcher = watch(dirname(path), { persistent: false }, (_event, filename) => {
        if (filename === null || filename === name) this.scheduleReload();
      });
      // E.g. the directory was removed; the poll carries on alone.
      this.watcher.on('error', () => {
        this.watcher?.close();
        this.watcher = undefined;
      });
    } catch {
      // The directory does not exist (yet): the poll notices the file appear.
    }
    this.poll = setInterval(() => {
      this.statSignature().then(
        (signature) => {
          // Straight to a reload: a debounce reset by every tick could starve.
          if (signature !== this.lastStat && !this.closed) void this.reload();
        },
        () => undefined,
      );
    }, this.options.pollIntervalMs);
    this.poll.unref();
  }

  private scheduleReload(): void {
    if (this.closed) return;
    clearTimeout(this.debounce);
    this.debounce = setTimeout(() => void this.reload(), this.options.debounceMs);
    this.debounce.unref();
  }

  /** Reads the file again; one read at a time, and one more if asked meanwhile. */
  private async reload(): Promise<void> {
    if (this.reloading) {
      this.reloadAgain = true;
      return;
    }
    this.reloading = true;
    try {
      do {
        this.reloadAgain = false;
        await this.readAndApply(this.path as string);
      } while (this.reloadAgain && !this.closed);
    } finally {
      // Cleared in the same turn as the last check, so no request falls between.
      this.reloading = false;
    }
  }

  private async readAndApply(path: string): Promise<void> {
    this.lastStat = await this.statSignature();
    let text: string | null;
    try {
      text = await readOptOutFile(path);
    } catch (error) {
      this.onReload?.({
        entries: this.matcher.size,
        errors: [`cannot read ${path}, keeping the previous list: ${(error as Error).message}`],
      });
      return;
    }
    if (!this.closed && text !== this.text) this.apply(text);
  }

  private apply(text: string | null): void {
    const { entries, errors } = text === null ? { entries: [], errors: [] } : parseOptOut(text);
    this.text = text;
    this.matcher = OptOutMatcher.from(entries);
    this.onReload?.({ entries: this.matcher.size, errors });
  }

  /** What the poll compares: changes with any write, rename, creation or deletion. */
  private async statSignature(): Promise<string> {
    try {
      const s = await stat(this.path as string, { bigint: true });
      return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code ?? 'error';
    }
  }
}

/** The text of the opt-out file at `path`, or null when it does not exist. */
export async function readOptOutFile(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
