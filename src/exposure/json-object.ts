// HTTP APIs recognised by their JSON (Elasticsearch, Docker) answer with
// bytes a hostile server chose: read them as a JSON object or not at all.

/** `bytes` as a JSON object, or null when they are not one. */
export function jsonObject(bytes: Buffer): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(bytes.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
