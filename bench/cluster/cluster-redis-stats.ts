// What Redis did between two readings: commands (by name), bytes in and
// out, and its own CPU time, from INFO. A benchmark reads before and after
// a phase and subtracts, so the figures are per phase, per scan.
import type { Redis } from 'ioredis';

export interface RedisReading {
  commands: Map<string, number>;
  bytesIn: number;
  bytesOut: number;
  cpuSeconds: number;
}

function fields(info: string): Map<string, string> {
  return new Map(
    info.split('\r\n').flatMap((line) => (line.includes(':') ? [[line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1)] as const] : [])),
  );
}

export async function readRedis(redis: Redis): Promise<RedisReading> {
  const info = fields(await redis.info('all'));
  const commands = new Map<string, number>();
  for (const [key, value] of info) {
    if (key.startsWith('cmdstat_')) commands.set(key.slice('cmdstat_'.length), Number(/calls=(\d+)/.exec(value)?.[1] ?? 0));
  }
  const cpu = ['used_cpu_sys', 'used_cpu_user'].reduce((sum, key) => sum + Number(info.get(key) ?? 0), 0);
  return { commands, bytesIn: Number(info.get('total_net_input_bytes')), bytesOut: Number(info.get('total_net_output_bytes')), cpuSeconds: cpu };
}

/** `after` minus `before`; commands with no calls between are left out. */
export function difference(before: RedisReading, after: RedisReading): RedisReading {
  const commands = new Map<string, number>();
  for (const [name, calls] of after.commands) {
    const delta = calls - (before.commands.get(name) ?? 0);
    if (delta > 0) commands.set(name, delta);
  }
  return { commands, bytesIn: after.bytesIn - before.bytesIn, bytesOut: after.bytesOut - before.bytesOut, cpuSeconds: after.cpuSeconds - before.cpuSeconds };
}

/** `reading` scaled by `factor` (per scan: 1 / scans). */
export function scaled(reading: RedisReading, factor: number): RedisReading {
  return {
    commands: new Map([...reading.commands].map(([name, calls]) => [name, calls * factor])),
    bytesIn: reading.bytesIn * factor,
    bytesOut: reading.bytesOut * factor,
    cpuSeconds: reading.cpuSeconds * factor,
  };
}

/** `a` minus `b`, for taking the idle cluster's own traffic out of a phase. */
export function minus(a: RedisReading, b: RedisReading): RedisReading {
  const commands = new Map<string, number>();
  for (const [name, calls] of a.commands) commands.set(name, Math.max(0, calls - (b.commands.get(name) ?? 0)));
  return {
    commands,
    bytesIn: Math.max(0, a.bytesIn - b.bytesIn),
    bytesOut: Math.max(0, a.bytesOut - b.bytesOut),
    cpuSeconds: Math.max(0, a.cpuSeconds - b.cpuSeconds),
  };
}

/** Total commands of a reading. */
export function totalCommands(reading: RedisReading): number {
  return [...reading.commands.values()].reduce((sum, calls) => sum + calls, 0);
}

/** The busiest commands, `name ×calls`. */
export function topCommands(reading: RedisReading, count = 8): string {
  return [...reading.commands]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, calls]) => `${name} ×${calls.toFixed(1)}`)
    .join(', ');
}
