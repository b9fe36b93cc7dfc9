// What changed since the last scan of the same type over the same family:
// each pane keeps its last complete result's open ports in localStorage
// (the browser's own storage: nothing is sent anywhere) and compares.
import type { ScanType } from '../../api/scan-type.js';

interface Remembered {
  open: number[];
  completedAt: number;
}

export interface Changes {
  /** When the remembered scan ended, Unix seconds. */
  since: number;
  newlyOpen: number[];
  newlyClosed: number[];
}

const keyOf = (family: string, scanType: ScanType): string => `selfscan:last:${family}:${scanType}`;

function recall(key: string): Remembered | null {
  try {
    const value: unknown = JSON.parse(window.localStorage.getItem(key) ?? 'null');
    if (typeof value !== 'object' || value === null || !('open' in value) || !('completedAt' in value)) return null;
    const { open, completedAt } = value;
    if (!Array.isArray(open) || !open.every((port) => typeof port === 'number') || typeof completedAt !== 'number') return null;
    return { open, completedAt };
  } catch {
    return null; // storage off (private mode) or garbage: nothing to compare with
  }
}

/** Compares `open` with the remembered result, then remembers `open`; null when there is nothing to compare with. */
export function compareAndRemember(family: string, scanType: ScanType, open: readonly number[], completedAt: number): Changes | null {
  const key = keyOf(family, scanType);
  const before = recall(key);
  try {
    window.localStorage.setItem(key, JSON.stringify({ open: [...open], completedAt } satisfies Remembered));
  } catch {
    // storage full or off: the next visit has nothing to compare with
  }
  if (before === null) return null;
  const was = new Set(before.open);
  const now = new Set(open);
  return {
    since: before.completedAt,
    newlyOpen: open.filter((port) => !was.has(port)),
    newlyClosed: before.open.filter((port) => !now.has(port)),
  };
}
