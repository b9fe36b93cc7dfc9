// The webhook signing key of a cluster: one Ed25519 key for every API node,
// kept in Redis, so receivers verify every node's webhooks with the one
// published public key. Whichever node comes first stores the key it made;
// every node signs with the stored one.
import type { Redis } from 'ioredis';

import { SigningKey } from '../webhook/signing-key.js';
import { WEBHOOK_SIGNING_KEY } from './redis-keys.js';

/** The cluster's signing key, stored in Redis by the first node that asks for it. */
export async function sharedSigningKey(redis: Redis): Promise<SigningKey> {
  const made = SigningKey.generatePem();
  // One atomic step (SET NX GET, Redis 7): store ours unless a key is there, and answer the key that was.
  const stored = await redis.set(WEBHOOK_SIGNING_KEY, made, 'NX', 'GET');
  return SigningKey.fromPem(stored ?? made);
}
