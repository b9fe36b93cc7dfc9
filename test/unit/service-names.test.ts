// Port numbers to IANA service names, as every Port of a result carries them.
import { describe, expect, it } from 'vitest';

import { serviceName } from '../../src/api/service-names.js';

describe('serviceName', () => {
  it('names ports by the IANA registry', () => {
    expect(serviceName(22)).toBe('ssh');
    expect(serviceName(25)).toBe('smtp');
    expect(serviceName(443)).toBe('https');
    expect(serviceName(11211)).toBe('memcache');
    expect(serviceName(40022)).toBeNull();
  });
});
