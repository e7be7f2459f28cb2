// Issue 25 item 4: what the rules read is a copy without invisible characters and JSON escapes, and
// what they replace there is replaced in the original text (RED-06); cookie values (RED-07); the
// shapes the held-out corpus leaked (a 1Password Secret Key, a value holding a comma, a Heroku key
// after the word password). Values here are fake; prefixes are split so no scanner reads a leak.
import { describe, expect, test } from "bun:test";
import { SECRET, SENSITIVE_LINE, redact } from "../../src/redact";
import { INVISIBLE_RE, normaliseLine } from "../../src/redact/normalise";

const S = SECRET;
const GH = ["gh", "p_", "k3Vq9XwT2mLpR7sD1fHj4NbZ8cYu6EoAa0Ig"].join("");
const UUID = "3f6c1a2e-9b7d-4e21-a8c4-5d0e7f9b2c61";
const OPKEY = ["A3", "ASWWYB", "798JRY", "LJVD4", "23DC2", "86TVM", "H43EB"].join("-");
const at = (s: string, i: number, mark: string) => s.slice(0, i) + mark + s.slice(i);

type Row = [name: string, input: string, want: string];

/** Each line comes out unchanged. */
function survives(lines: string[]): void {
  test.each(lines)("survives: %s", (line) => {
    expect(redact(line)).toBe(line);
  });
}

/** Each row's input redacts to its `want`, which is a fixed point. */
function redactsTo(rows: Row[]): void {
  test.each(rows)("%s", (_name, input, want) => {
    expect(redact(input)).toBe(want);
    expect(redact(want)).toBe(want);
  });
}

describe("the spec's test vectors (RED-06, RED-07, RED-08)", () => {
  const rows: Row[] = [
    ["RED-06 a zero-width space in a token", `pushed with ${at(GH, 24, "\u200B")} ok`, `pushed with ${S} ok`],
    ["RED-06 escaped slashes", '{"url":"https:\\/\\/admin:hunter2@db:5432\\/app"}', `{"url":"https:\\/\\/${S}@db:5432\\/app"}`],
    ["RED-07 Set-Cookie", "< set-cookie: sid=abc123; Path=/; HttpOnly", `< set-cookie: sid=${S}; Path=/; HttpOnly`],
    ["RED-07 curl -H", "curl -H 'Cookie: a=1; sid=abc' u", `curl -H 'Cookie: a=${S}; sid=${S}' u`],
    ["RED-08 a comma", "DB_PASSWORD=QgTKT,f0Sp4hNlE6", `DB_PASSWORD=${S}`],
    ["RED-08 a Heroku key after password", `password ${UUID}`, `password ${S}`],
    ["RED-08 code", "conn = connect(host=host, password=password, port=5432)", "conn = connect(host=host, password=password, port=5432)"],
  ];
  test.each(rows)("%s", (_name, input, want) => {
    expect(redact(input)).toBe(want);
  });
});

describe("the normalised copy (RED-06)", () => {
  test("its invisible set is Unicode's format characters and Default_Ignorable_Code_Point, every code point", () => {
    const di = /^[\p{Cf}\p{Default_Ignorable_Code_Point}]$/u;
    const wrong: string[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp < 0xe000) continue;
      const c = String.fromCodePoint(cp);
      if (di.test(c) !== INVISIBLE_RE.test(c)) wrong.push(cp.toString(16));
    }
    expect(wrong).toEqual([]);
  });

  test("keeps where each character came from; control escapes and lone surrogates stay as written", () => {
    const n = normaliseLine('a\u200Bb "https:\\/\\/x\\u0040y" \\u000a \\ud83d \\\\n');
    expect(n?.text).toBe('ab "https://x@y" \\u000a \\ud83d \\\\n');
    expect(n?.at.slice(0, 4)).toEqual(Int32Array.from([0, 2, 3, 4]));
    expect(normaliseLine("plain text, no escapes")).toBeUndefined();
    expect(normaliseLine("only \\u000a kept")).toBeUndefined();
  });

  const rows: Row[] = [
    ["U+200B inside a token", `pushed with ${at(GH, 20, "\u200B")} ok`, `pushed with ${S} ok`],
    ["U+00AD and U+2060 inside one token", `ci ${at(at(GH, 30, "\u2060"), 10, "\u00AD")}`, `ci ${S}`],
    ["U+FEFF (JavaScript whitespace) inside a value", `DB_PASSWORD=hunter\uFEFF2horse9`, `DB_PASSWORD=${S}`],
    ["U+200C inside the name", "DB_PASS\u200CWORD=hunter2horse9", `DB_PASS\u200CWORD=${S}`],
    ["a tag character (astral) inside a token", `tagged ${at(GH, 12, "\u{E0041}")}`, `tagged ${S}`],
    ["U+FFF9, a format character outside Default_Ignorable", `anchored ${at(GH, 16, "\uFFF9")}`, `anchored ${S}`],
    ["invisible characters elsewhere on the line stay", `a\u200Bb ${at(GH, 9, "\u200D")} c\u200Bd`, `a\u200Bb ${S} c\u200Bd`],
    ["escaped slashes: the escapes around the placeholder stay", '{"url":"https:\\/\\/admin:hunter2@db:5432\\/app"}', `{"url":"https:\\/\\/${S}@db:5432\\/app"}`],
    ["\\u escapes in either case", '"dsn":"mysql:\\u002F\\u002froot:hunter2\\u0040db"', `"dsn":"mysql:\\u002F\\u002f${S}\\u0040db"`],
    ["Go's \\u0026 before a signature", '"u": "https://a.blob.core.windows.net/c?sv=1\\u0026sig=AbC0dEf1gH2"', `"u": "https://a.blob.core.windows.net/c?sv=1\\u0026sig=${S}"`],
    ["JSON encoded twice", '"c": "{\\"url\\":\\"redis:\\\\\\/\\\\\\/u:hunter2@cache\\"}"', `"c": "{\\"url\\":\\"redis:\\\\\\/\\\\\\/${S}@cache\\"}"`],
    ["an escaped quote no longer hides a bare word", '"body": "{\\"password\\":\\"hunter2\\"}"', SENSITIVE_LINE],
    ["an invisible character no longer hides a bare word", "pass\u200Bword: hunter2", SENSITIVE_LINE],
  ];
  redactsTo(rows);

  test("line structure, CRLF and neighbouring lines are kept", () => {
    const text = [`first ${at(GH, 5, "\u200B")}\r`, "👩\u200D💻 plain\r", '"u":"https:\\/\\/a:b@c"\r', `${S}\r`].join("\n");
    expect(redact(text)).toBe([`first ${S}\r`, "👩\u200D💻 plain\r", `"u":"https:\\/\\/${S}@c"\r`, `${S}\r`].join("\n"));
  });

  test("an escaped line break is not a line: a value before it goes with what follows", () => {
    expect(redact('"env": "DB_PASSWORD=hunter2\\u000aLOG=info"')).not.toContain("hunter2");
  });
});

describe("cookie values (RED-07)", () => {
  const rows: Row[] = [
    ["Cookie header, every pair", "> Cookie: theme=dark; sessionid=Zx81kqPd02mN", `> Cookie: theme=${S}; sessionid=${S}`],
    ["Set-Cookie keeps its attributes", "< set-cookie: __Host-sid=Zx81kqPd; Path=/; Secure; HttpOnly; SameSite=Lax", `< set-cookie: __Host-sid=${S}; Path=/; Secure; HttpOnly; SameSite=Lax`],
    ["a quoted value, Expires with its comma", 'Set-Cookie: id="Zx81kqPd"; Expires=Wed, 21 Oct 2026 07:28:00 GMT', `Set-Cookie: id="${S}"; Expires=Wed, 21 Oct 2026 07:28:00 GMT`],
    ["cookies joined by a comma", "set-cookie: a=1; Path=/, b=Zx81kqPd; HttpOnly", `set-cookie: a=${S}; Path=/, b=${S}; HttpOnly`],
    ["inside curl -H, mid-line", "curl -H 'Cookie: session=Zx81kqPd' https://x.example", `curl -H 'Cookie: session=${S}' https://x.example`],
    ["a JSON headers map", '{"Cookie": "sid=Zx81kqPd; theme=dark", "Accept": "*/*"}', `{"Cookie": "sid=${S}; theme=${S}", "Accept": "*/*"}`],
    ["a header set by a call", 'req.Header.Set("Cookie", "sid=Zx81kqPd")', `req.Header.Set("Cookie", "sid=${S}")`],
    ["curl -b name=value", "curl -s -b 'laravel_session=Zx81kqPd' https://x.example", `curl -s -b 'laravel_session=${S}' https://x.example`],
    ["curl -v Added cookie", '* Added cookie _gh_sess="Zx81kqPd" for domain github.com, path /', `* Added cookie _gh_sess="${S}" for domain github.com, path /`],
    ["a cookie jar line as a terminal shows it", ".example.com    TRUE    /    FALSE    0    session    Zx81kqPd", `.example.com    TRUE    /    FALSE    0    session    ${S}`],
    ["document.cookie", 'document.cookie = "auth_id=Zx81kqPd; path=/";', `document.cookie = "auth_id=${S}; path=/";`],
    ["a cookies map", "requests.get(u, cookies={'sessionid': 'Zx81kqPd'})", `requests.get(u, cookies={'sessionid': '${S}'})`],
    ["a log field", "GET /me 200 cookie=sid=Zx81kqPd user=bob", `GET /me 200 cookie=sid=${S} user=bob`],
  ];
  redactsTo(rows);

  survives([
    "const cookie = req.headers.cookie ?? '';",
    "cookie: { secure: true, httpOnly: true },",
    "curl -b cookies.txt -c cookies.txt https://example.com",
    "Set-Cookie: sid=${token}; HttpOnly",
    "git checkout -b feature=login",
    "we keep one cookie, theme=dark, and nothing else",
    'res.setHeader("Set-Cookie", serialize(COOKIE_NAME, id, opts));',
    "the Set-Cookie header carries the session id",
  ]);
});

describe("the held-out corpus's three shapes", () => {
  const rows: Row[] = [
    ["Secret Key, standard", `Secret Key ${OPKEY}`, `Secret Key ${S}`],
    ["Secret Key in lower case", `kit ${OPKEY.toLowerCase()} end`, `kit ${S} end`],
    ["Secret Key with Unicode hyphens", `kit ${OPKEY.replaceAll("-", "\u2011")}`, `kit ${S}`],
    ["Secret Key without separators", `kit ${OPKEY.replaceAll("-", "")}`, `kit ${S}`],
    ["Secret Key glued after _", `kit_${OPKEY}.pdf`, `kit_${S}.pdf`],
    ["a comma in an environment value", "DB_PASSWORD=QgTKT,f0Sp4hNlE6", `DB_PASSWORD=${S}`],
    ["a dot, an unclosed bracket in environment values", "A_SECRET=QgTKT.f0Sp4h B_PASSWORD=Qg(TKT4f0Sp", `A_SECRET=${S} B_PASSWORD=${S}`],
    ["a comma in a YAML value", "  DB_PASSWORD: QgTKTxy,f0Sp4hNlE6", `  DB_PASSWORD: ${S}`],
    ["random text with a dot is no member access", "db.password: QgTKT.f0Sp4hNlE6", SENSITIVE_LINE],
    ["random text with parentheses is no call", "DB_PASSWORD=QgTKT(f0Sp4hNlE6)", `DB_PASSWORD=${S}`],
    ["a Heroku key after password and spaces", `  password ${UUID}`, `  password ${S}`],
    ["a Heroku key after a prompt", `Password for 'https://bob@git.example.com': ${UUID}`, `Password for 'https://bob@git.example.com': ${S}`],
    ["a passphrase prompt", "Enter passphrase for key '/home/bob/.ssh/id_ed25519': hunter2", `Enter passphrase for key '/home/bob/.ssh/id_ed25519': ${S}`],
  ];
  redactsTo(rows);

  test("a Secret Key hard-wrapped at the right edge goes on both lines", () => {
    const edge = `${"x".repeat(60)} kit: ${OPKEY.slice(0, 20)}`;
    const out = redact([edge, `${OPKEY.slice(20)} saved`, "$ ls"].join("\n"));
    expect(out).toBe([`${"x".repeat(60)} kit: ${S}`, `${S} saved`, "$ ls"].join("\n"));
  });

  survives([
    "A3-ABCDEF is how a Secret Key starts",
    "A3-sized paper, 297 x 420 mm",
    "conn = connect(host=host, password=password, port=5432)",
    'DB_PASSWORD=os.getenv("DB_PASSWORD")',
    "password = cfg.v1beta1.password",
    "DB_PASSWORD=hashlib.sha256(b64decode(x1)).hexdigest()",
    `password reset requested for user ${UUID}`,
    "Password for 'https://bob@git.example.com':",
    "  promptLabel: (host: string) => `Password for ${host}: `,",
    "[sudo] password for bob: incorrect",
    "Password: (typing will be hidden)",
    "PASSWORD_RULES=min:12,max:64",
  ]);
});
