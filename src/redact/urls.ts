/**
 * Credentials inside URLs: `<scheme>://<user>:<password>@` (RED-04), a token standing alone as the
 * user (Sentry DSNs, `https://<token>@github.com`), webhook URLs whose path is the secret, and
 * signature query parameters (Azure SAS `sig=`, S3 and GCS presigned URLs).
 */
import { SECRET } from "./placeholders";

// The user part excludes `:` `/` `@`, so the match cannot run past the authority; the password runs
// to the last `@` before the path, so an unencoded `@` in it is covered too. Once replaced no `:`
// remains between `//` and `@`, so a second pass leaves it alone.
const URL_CRED_RE = /(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^\s:/@]*:[^\s/?#]*@/g;
// A long user with letters and digits is a key, not a login name.
const URL_TOKEN_USER_RE = /(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]*:\/\/)([A-Za-z0-9_-]{20,})@/g;
const WEBHOOK_RE = /((?:hooks\.slack\.com\/(?:services|workflows|triggers)|discord(?:app)?\.com\/api\/webhooks\/\d+|webhook\.office\.com\/webhookb2)\/)[A-Za-z0-9@_-][A-Za-z0-9@/_-]*/g;
const SIGNATURE_RE = /([?&;](?:sig|signature|x-amz-signature|x-goog-signature)=)[^\s&"'#[][^\s&"'#]*/gi;

/** Replaces URL credentials in `line`. */
export function replaceUrlSecrets(line: string): string {
  let s = line;
  if (s.includes("://")) {
    s = s.replace(URL_CRED_RE, `$1${SECRET}@`);
    s = s.replace(URL_TOKEN_USER_RE, (m, scheme: string, user: string) => (/\d/.test(user) && /[A-Za-z]/.test(user) ? `${scheme}${SECRET}@` : m));
    s = s.replace(WEBHOOK_RE, `$1${SECRET}`);
  }
  if (s.includes("sig=") || s.includes("ignature=")) s = s.replace(SIGNATURE_RE, `$1${SECRET}`);
  return s;
}
