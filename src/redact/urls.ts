/** Credentials inside URLs (RED-04): user:password, a token as the user, webhook paths, signature parameters. */
import { SECRET } from "./placeholders";

// The user cannot run past the authority; the password runs to the last `@` (an unencoded `@` is
// covered). Once replaced no `:` remains, so a second pass leaves it alone.
const URL_CRED_RE = /(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^\s:/@]*:[^\s/?#]*@/g;
// A long user with letters and digits is a key, not a login name.
const URL_TOKEN_USER_RE = /(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]*:\/\/)([A-Za-z0-9_-]{20,})@/g;
const WEBHOOK_RE = /((?:hooks\.slack\.com\/(?:services|workflows|triggers)|discord(?:app)?\.com\/api\/webhooks\/\d+|webhook\.office\.com\/webhookb2)\/)[A-Za-z0-9@_-][A-Za-z0-9@/_-]*/g;
const SIGNATURE_RE = /([?&;](?:sig|signature|x-amz-signature|x-goog-signature)=)[^\s&"'#[][^\s&"'#]*/gi;

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
