// Progress on stderr while the scan runs: a bar redrawn in place on a
// terminal; a line per quarter when CI is set (CI logs keep every byte, so
// no redraws); nothing when piped or with --no-progress. The bar is drawn
// with a carriage return only, no escape codes. A multi-region scan shows
// each region's ports done and the region of the chunk just verified. A
// scan of fewer than 4 chunks (udp: 1) jumps quarters, and CI gets a line
// only for the quarter it reached.
import type { RegionProgress, ScanProgress } from './scan-client.js';

/** How progress is shown. */
export type ProgressMode = 'bar' | 'lines' | 'none';

/** The mode for a stderr that is (or is not) a terminal, in `env`. */
export function progressMode(isTty: boolean, env: NodeJS.ProcessEnv, enabled: boolean): ProgressMode {
  if (!enabled) return 'none';
  if (isTty) return 'bar';
  return env.CI !== undefined && env.CI !== '' && env.CI !== 'false' ? 'lines' : 'none';
}

const WIDTH = 24;

/** Shows progress of a scan of `totalPorts` ports on `stream`. */
export class ProgressView {
  private quarter = 0;
  private drawn = 0;
  private openSoFar = 0;
  private regions: RegionProgress[] = [];
  private lastRegion: string | undefined;
  private readonly started = Date.now();

  constructor(
    private readonly mode: ProgressMode,
    private readonly stream: { write(text: string): unknown },
    private readonly totalPorts: number,
    /** What CI lines start with: the command's name. */
    private readonly label: string,
  ) {}

  update(progress: ScanProgress): void {
    if (this.mode === 'none') return;
    if (progress.openSoFar !== undefined) this.openSoFar = progress.openSoFar;
    const fraction = progress.totalChunks > 0 ? Math.min(1, progress.chunksComplete / progress.totalChunks) : 0;
    if (progress.regions !== undefined) this.regions = progress.regions;
    if (progress.region !== undefined) this.lastRegion = progress.region;
    const counts = `${this.portsDone(fraction)}, ${this.openSoFar} open${this.lastRegion === undefined ? '' : `, last chunk from ${this.lastRegion}`}`;
    if (this.mode === 'lines') {
      // A quarter skipped between two updates still gets its line, if chunks can end in it.
      const quarter = Math.floor(fraction * 4);
      if (progress.totalChunks < 4 && this.quarter < quarter) this.quarter = quarter - 1;
      while (this.quarter < quarter) this.stream.write(`${this.label}: ${++this.quarter * 25}% (${counts})\n`);
      return;
    }
    const elapsed = (Date.now() - this.started) / 1000;
    // The server's eta from the path when it sends one, else extrapolated from the chunks done.
    const eta = progress.etaSeconds ?? (fraction > 0 ? (elapsed * (1 - fraction)) / fraction : undefined);
    const filled = Math.round(fraction * WIDTH);
    this.draw(`[${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${counts}${eta === undefined || fraction >= 1 ? '' : `, ETA ${Math.ceil(eta)} s`}`);
  }

  /** `12/32 ports`; per region for a multi-region scan: `NL 32/32, FR 8/32 ports`. */
  private portsDone(fraction: number): string {
    const of = (part: number): string => `${Math.round(part * this.totalPorts)}/${this.totalPorts}`;
    if (this.regions.length === 0) return `${of(fraction)} ports`;
    return `${this.regions.map(({ region, chunksComplete, totalChunks }) => `${region} ${of(totalChunks > 0 ? chunksComplete / totalChunks : 0)}`).join(', ')} ports`;
  }

  /** Writes `text` as a line of its own, clear of the bar. */
  note(text: string): void {
    this.clear();
    this.stream.write(`${text}\n`);
  }

  /** Clears the bar; the report follows. */
  finish(): void {
    this.clear();
  }

  private draw(line: string): void {
    this.stream.write(`\r${line.padEnd(this.drawn)}`);
    this.drawn = line.length;
  }

  private clear(): void {
    if (this.drawn === 0) return;
    this.stream.write(`\r${' '.repeat(this.drawn)}\r`);
    this.drawn = 0;
  }
}
