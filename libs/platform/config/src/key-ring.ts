// Secrets kept in the database are sealed with AES-256-GCM under keys from
// configuration, never beside them (ADR 0010). A ring holds several keys: the
// first seals, every one opens what it sealed, so a key can be rotated without
// a moment when some stored secret cannot be read.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PlatformConfig } from './platform-config';

export const SIGNING_KEY_ENCRYPTION_KEYS = 'MM_SIGNING_KEY_ENCRYPTION_KEYS';
/** Sandbox without the variable: the generated ring, in MM_DATA_DIR. */
export const LOCAL_KEY_RING_FILE = 'signing-key-encryption-keys';
export const REQUIRED =
  'is required in production: "<id>:<base64 of 32 random bytes>", for example k1:$(openssl rand -base64 32); it encrypts the token signing key stored in the database';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const ID = /^[A-Za-z0-9._-]{1,64}$/;
const BASE64_32_BYTES = /^[A-Za-z0-9+/]{43}=$|^[A-Za-z0-9_-]{43}$/;

/** A ring that cannot be read, or a sealed secret it cannot open: the process must not start. */
export class KeyRingError extends Error {}

export class KeyRing {
  private constructor(
    private readonly keys: Map<string, Buffer>,
    readonly currentId: string,
    /** Where the keys came from, for messages: the variable's name or a file. */
    readonly source: string,
  ) {}

  /** "<id>:<base64 of 32 bytes>,…", the first current; the error names what is wrong, never a key. */
  static parse(value: string, source = SIGNING_KEY_ENCRYPTION_KEYS): KeyRing {
    const keys = new Map<string, Buffer>();
    const entries = value.split(',').map((e) => e.trim());
    for (const [index, entry] of entries.entries()) {
      const at = entry.indexOf(':');
      const id = entry.slice(0, at);
      const material = entry.slice(at + 1);
      const problem =
        at < 0 || !ID.test(id)
          ? 'must be <id>:<base64 of 32 bytes>, the id of letters, digits, ".", "_" or "-"'
          : !BASE64_32_BYTES.test(material)
            ? `key "${id}" must be the base64 of exactly 32 random bytes (openssl rand -base64 32)`
            : keys.has(id)
              ? `key id "${id}" appears twice`
              : undefined;
      if (problem) throw new KeyRingError(`${source}: entry ${index + 1} ${problem}`);
      keys.set(id, Buffer.from(material, material.endsWith('=') ? 'base64' : 'base64url'));
    }
    return new KeyRing(keys, entries[0].slice(0, entries[0].indexOf(':')), source);
  }

  /** iv ‖ tag ‖ ciphertext under the current key; `context` binds it to where it is stored. */
  seal(plaintext: Buffer, context: string): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.currentId)!, iv).setAAD(
      Buffer.from(context, 'utf8'),
    );
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]);
  }

  /** The plaintext of what `keyId` sealed for `context`; `what` names the secret in the refusal. */
  open(keyId: string, sealed: Buffer, context: string, what: string): Buffer {
    const key = this.keys.get(keyId);
    if (!key) {
      throw new KeyRingError(
        `${what} is encrypted under key "${keyId}", which ${this.source} does not hold (it holds ${[...this.keys.keys()].map((k) => `"${k}"`).join(', ')}). ` +
          'Keep a retired key in the ring, after the current one, until start-up has re-encrypted everything under the current key (docs/configuration.md).',
      );
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES)).setAAD(
        Buffer.from(context, 'utf8'),
      );
      decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
    } catch {
      throw new KeyRingError(
        `${what} does not decrypt under key "${keyId}" of ${this.source}: that id holds other key material than the key that encrypted it`,
      );
    }
  }
}

/**
 * Whether `url` is the embedded PostgreSQL that runs from `dataDir`, beside the generated ring: its cluster
 * is `<dataDir>/pg` (the database library's embedded server, as `npm start` and `npm run start:distributed`
 * run it), whose postmaster.pid names the port it listens on (its fourth line), on this machine's loopback.
 * A service that start:distributed runs gets that database as DATABASE_URL (issue 42: its gateway warned
 * where `npm start`, on the same files, did not).
 */
function isEmbeddedDatabaseIn(dataDir: string, url: string): boolean {
  let port: number;
  try {
    port = Number(readFileSync(join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[3]);
  } catch {
    return false;
  }
  if (!URL.canParse(url)) return false;
  const { hostname, port: urlPort } = new URL(url);
  return ['127.0.0.1', 'localhost', '[::1]'].includes(hostname) && Number(urlPort || 5432) === port;
}

/**
 * The ring that seals the token signing keys. Production must configure it
 * (loadConfig refuses to start without). A sandbox without it generates one
 * into MM_DATA_DIR, readable by this user only, and keeps it there; `warning`
 * says so when the database is not the embedded one beside that file.
 */
export function signingKeyEncryptionRing(config: PlatformConfig): {
  ring: KeyRing;
  generated?: string;
  warning?: string;
} {
  if (config.MM_SIGNING_KEY_ENCRYPTION_KEYS) return { ring: KeyRing.parse(config.MM_SIGNING_KEY_ENCRYPTION_KEYS) };
  if (!config.isSandbox) throw new KeyRingError(`${SIGNING_KEY_ENCRYPTION_KEYS} ${REQUIRED}`);
  mkdirSync(config.MM_DATA_DIR, { recursive: true });
  const file = join(config.MM_DATA_DIR, LOCAL_KEY_RING_FILE);
  // Written aside and linked into place: two processes starting together both read one complete key.
  const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(draft, `local-${randomBytes(4).toString('hex')}:${randomBytes(32).toString('base64')}\n`, {
    mode: 0o600,
  });
  let generated: string | undefined;
  try {
    linkSync(draft, file);
    generated = file;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(draft);
  }
  const ring = KeyRing.parse(readFileSync(file, 'utf8').trim(), file);
  const warning =
    config.DATABASE_URL && !isEmbeddedDatabaseIn(config.MM_DATA_DIR, config.DATABASE_URL)
      ? `${SIGNING_KEY_ENCRYPTION_KEYS} is not set: the token signing key in this database is encrypted under the key in ${file}. ` +
        `Keep that file with the database, or start will be refused; set ${SIGNING_KEY_ENCRYPTION_KEYS} (as production must) to manage the key yourself.`
      : undefined;
  return { ring, generated, warning };
}

/**
 * The ring, read (or, on a sandbox without the variable, generated) on first use and then kept;
 * `log` hears where a generated ring was written and any warning.
 */
export function lazyKeyRing(
  config: PlatformConfig,
  log: { log(message: string): void; warn(message: string): void },
): () => KeyRing {
  let ring: KeyRing | undefined;
  return () => {
    if (ring) return ring;
    const loaded = signingKeyEncryptionRing(config);
    if (loaded.generated) log.log(`generated the signing key encryption key in ${loaded.generated}`);
    if (loaded.warning) log.warn(loaded.warning);
    return (ring = loaded.ring);
  };
}
