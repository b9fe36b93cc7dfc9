// Log lines encoded into a buffer as they come and handed to sonic-boom in
// batches. Given strings, sonic-boom appends each line to a string and
// measures that string's byte length on every write, which flattens it each
// time; joining many small strings later walks memory long since cold. On a
// busy server either cost more than the requests being logged.
import type { pino } from 'pino';

type SonicBoom = ReturnType<typeof pino.destination>;

/** Bytes collected before a batch is handed on without waiting for the timer. */
const BATCH_BYTES = 64 * 1024;

export class LogLines {
  private batch = Buffer.allocUnsafeSlow(BATCH_BYTES);
  private used = 0;

  /** `sink` must be in contentMode 'buffer': it is given each batch's bytes. */
  constructor(private readonly sink: SonicBoom) {
    // Whatever is still held goes out, synchronously, when the process exits.
    process.on('exit', () => this.flushSync());
  }

  /** pino's destination interface: one JSON line. */
  write(line: string): boolean {
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    if (this.used + line.length * 3 > BATCH_BYTES) {
      this.flush();
      if (line.length * 3 > BATCH_BYTES) {
        this.sink.write(Buffer.from(line) as unknown as string);
        return true;
      }
    }
    this.used += this.batch.write(line, this.used);
    return true;
  }

  /** Hands the collected lines to sonic-boom, which owns them from then on. */
  flush(): void {
    if (this.used === 0) return;
    const full = this.batch.subarray(0, this.used);
    this.batch = Buffer.allocUnsafeSlow(BATCH_BYTES);
    this.used = 0;
    this.sink.write(full as unknown as string); // contentMode 'buffer'; the types know only strings
  }

  flushSync(): void {
    this.flush();
    try {
      this.sink.flushSync();
    } catch {
      // Not open yet or already closed: nothing more can be written.
    }
  }
}
