/**
 * Webhook signing secrets (contract §12): `whsec_` and the base64 of 32 random bytes, shown to the
 * caller once (at creation and rotation) and stored only sealed.
 *
 * - On AWS the stack names a KMS key (WEBHOOK_KMS_KEY_ID): a secret is sealed by KMS Encrypt, with the
 *   account and endpoint as encryption context (a sealed secret copied to another endpoint does not
 *   open), and opened by the delivery function only.
 * - On the local stage (a DynamoDB endpoint of its own) AES-256-GCM with a local key (WEBHOOK_LOCAL_KEY,
 *   base64 of 32 bytes, else a fixed development key): the data of a local stage is demo data.
 *
 * Nothing here logs a secret, sealed or not.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type * as Kms from '@aws-sdk/client-kms';
import { config, webhookConfig } from '../config';

export const SECRET_PREFIX = 'whsec_';

export function newSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** What binds a sealed secret to its endpoint. */
export interface SecretContext {
  accountId: string;
  webhookId: string;
}

export interface SecretBox {
  seal(secret: string, context: SecretContext): Promise<string>;
  open(sealed: string, context: SecretContext): Promise<string>;
}

/** The stage's box: KMS when the stack names a key, the local key on a local stage, else a failure. */
export function secretBox(): SecretBox {
  const keyId = webhookConfig.kmsKeyId();
  if (keyId) return kmsBox(keyId);
  if (config.dynamodbEndpoint()) return localBox(localKey());
  throw new Error('WEBHOOK_KMS_KEY_ID environment variable is not set');
}

let kms: Promise<{ sdk: typeof Kms; client: Kms.KMSClient }> | undefined;

/**
 * The SDK's KMS client, loaded and built on first use (a function that never seals or opens a secret,
 * such as the webhook GETs, does not load it) and kept across invocations: the region, the credentials
 * (on Lambda, the role's, from the environment) and AWS_ENDPOINT_URL_KMS (the tests' stand-in) as the
 * SDK reads them; its standard retries (3 attempts, backoff after a throttle, a 5xx or a lost
 * connection); at most 10 s an attempt.
 */
function kmsClient() {
  return (kms ??= import('@aws-sdk/client-kms').then((sdk) => ({
    sdk,
    client: new sdk.KMSClient({
      maxAttempts: 3,
      requestHandler: { connectionTimeout: 3000, requestTimeout: 10_000, throwOnRequestTimeout: true },
    }),
  })));
}

/** `kms:` and the ciphertext (base64): KMS keeps the key, the table only what it cannot open. */
function kmsBox(keyId: string): SecretBox {
  const context = (c: SecretContext) => ({ accountId: c.accountId, webhookId: c.webhookId });
  return {
    async seal(secret, c) {
      const { sdk, client } = await kmsClient();
      const { CiphertextBlob } = await client.send(
        new sdk.EncryptCommand({
          KeyId: keyId,
          Plaintext: Buffer.from(secret),
          EncryptionContext: context(c),
        }),
      );
      if (!CiphertextBlob) throw new Error('KMS Encrypt answered no ciphertext');
      return `kms:${Buffer.from(CiphertextBlob).toString('base64')}`;
    },
    async open(sealed, c) {
      const { sdk, client } = await kmsClient();
      const { Plaintext } = await client.send(
        new sdk.DecryptCommand({
          KeyId: keyId,
          CiphertextBlob: Buffer.from(sealed.slice('kms:'.length), 'base64'),
          EncryptionContext: context(c),
        }),
      );
      if (!Plaintext) throw new Error('KMS Decrypt answered no plaintext');
      return Buffer.from(Plaintext).toString();
    },
  };
}

/** `aes:` iv.tag.ciphertext (base64 each), the context as additional authenticated data. */
export function localBox(key: Buffer): SecretBox {
  const aad = (c: SecretContext) => Buffer.from(`${c.accountId}#${c.webhookId}`);
  return {
    async seal(secret, c) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(aad(c));
      const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return `aes:${[iv, cipher.getAuthTag(), sealed].map((b) => b.toString('base64')).join('.')}`;
    },
    async open(sealed, c) {
      const [iv, tag, data] = sealed
        .slice('aes:'.length)
        .split('.')
        .map((part) => Buffer.from(part, 'base64'));
      const decipher = createDecipheriv('aes-256-gcm', key, iv!).setAAD(aad(c));
      decipher.setAuthTag(tag!);
      return Buffer.concat([decipher.update(data!), decipher.final()]).toString('utf8');
    },
  };
}

function localKey(): Buffer {
  const given = webhookConfig.localKey();
  if (given) {
    const key = Buffer.from(given, 'base64');
    if (key.length !== 32) throw new Error('WEBHOOK_LOCAL_KEY must be the base64 of 32 bytes');
    return key;
  }
  return createHash('sha256').update('company-data-api local stage webhook secrets').digest();
}
