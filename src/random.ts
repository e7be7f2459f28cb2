/**
 * Random names and digests through the runtime's own Web Crypto and hasher: importing `node:crypto`
 * costs every vx start more than a tenth of its time (bench/startup.ts), for a few calls.
 */

/** `bytes` random bytes from the system's CSPRNG, as lowercase hex. */
export function randomHex(bytes: number): string {
  const b = crypto.getRandomValues(new Uint8Array(bytes));
  let out = "";
  for (const x of b) out += x.toString(16).padStart(2, "0");
  return out;
}

/** sha256 of `text` (UTF-8), as lowercase hex. */
export function sha256Hex(text: string): string {
  return new Bun.CryptoHasher("sha256").update(text).digest("hex");
}

/** HMAC-SHA256 of `text` under `key`, as lowercase hex. */
export function hmacSha256Hex(key: string, text: string): string {
  return new Bun.CryptoHasher("sha256", key).update(text).digest("hex");
}

/** Compares two strings in time that depends only on their lengths (a secret's bytes leak nothing). */
export function sameSecret(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  if (x.length !== y.length) return false;
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= (x[i] as number) ^ (y[i] as number);
  return diff === 0;
}
