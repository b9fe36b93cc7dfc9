// The service's Ed25519 key for signing webhooks: made once, kept in the
// data dir (or, in a cluster, in Redis for every API node), its public half
// published so receivers verify without a shared secret.
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import type { WebhookKey } from '../api/webhook-key.js';

const FILE = 'webhook-signing-key.pem';

export class SigningKey {
  /** What GET /.well-known/selfscan-webhook-key answers. */
  readonly publicDocument: WebhookKey;

  private constructor(private readonly privateKey: KeyObject) {
    const publicKey = createPublicKey(privateKey);
    const jwk = publicKey.export({ format: 'jwk' }) as { x: string };
    this.publicDocument = {
      algorithm: 'Ed25519',
      jwk: { kty: 'OKP', crv: 'Ed25519', x: jwk.x, use: 'sig', alg: 'EdDSA' },
      pem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
      signed: '<X-Selfscan-Timestamp>.<raw request body>',
    };
  }

  /** Loads the key of `dataDir`, creating it (mode 0600) on first use. */
  static async open(dataDir: string): Promise<SigningKey> {
    const path = join(dataDir, FILE);
    try {
      return SigningKey.fromPem(await readFile(path, 'utf8'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const pem = SigningKey.generatePem();
    const temporary = `${path}.tmp-${process.pid}`;
    await writeFile(temporary, pem, { mode: 0o600, flush: true });
    await rename(temporary, path);
    return SigningKey.fromPem(pem);
  }

  /** The key whose private half is `pem` (PKCS#8, as generatePem makes it). */
  static fromPem(pem: string): SigningKey {
    return new SigningKey(createPrivateKey(pem));
  }

  /** A new private key, as PKCS#8 PEM: what a key store keeps. */
  static generatePem(): string {
    return generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  }

  /** Base64 Ed25519 signature of `<timestamp>.<body>`. */
  sign(timestamp: number, body: string): string {
    return sign(null, Buffer.from(`${timestamp}.${body}`), this.privateKey).toString('base64');
  }
}
