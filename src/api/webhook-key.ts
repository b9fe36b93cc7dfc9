// GET /.well-known/selfscan-webhook-key: the public key that signs webhooks,
// so receivers verify them without a shared secret.
import * as z from 'zod';

/** The Ed25519 public key, as a JWK (RFC 8037) and as SPKI PEM. */
export const WebhookKey = z.strictObject({
  algorithm: z.literal('Ed25519'),
  jwk: z.strictObject({
    kty: z.literal('OKP'),
    crv: z.literal('Ed25519'),
    x: z.string(),
    use: z.literal('sig'),
    alg: z.literal('EdDSA'),
  }),
  pem: z.string().regex(/^-----BEGIN PUBLIC KEY-----/),
  signed: z.string().meta({ description: 'What the signature covers.' }),
});
export type WebhookKey = z.output<typeof WebhookKey>;
