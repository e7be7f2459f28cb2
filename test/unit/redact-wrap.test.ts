// Issue 15 item 6: a token's tail on the next line (hard-wrapped at the right edge, or continued after
// a trailing `\`) goes with it, while an ordinary next line stays; a base64 run goes when what it
// decodes to holds a secret by the same rules.
import { describe, expect, test } from "bun:test";
import { SECRET, redact } from "../../src/redact";

const tok = "ghp_" + "Ab3dE5gH7jK9mN1pQ3sT5vX7zB9dF1hJ3lN5"; // fake, 36 after the prefix
const npm = "npm_" + "Zx8Cv6Bn4Mq2Wr0Ty8Ui6Op4As2Df0Gh8Jk6"; // fake

describe("a token continued on the next line", () => {
  test("hard-wrapped at the right edge: the tail goes, the rest of the next line stays", () => {
    const out = redact([`  git remote set-url origin https://x:${tok.slice(0, 22)}`, `${tok.slice(22)}@github.com/acme/api.git`, "$ ls"].join("\n"));
    expect(out).not.toContain(tok.slice(22));
    expect(out.split("\n")[1]).toBe(`${SECRET}@github.com/acme/api.git`);
    expect(out.split("\n")[2]).toBe("$ ls");
    expect(redact(out)).toBe(out);
  });

  test("cut so early that neither half is a token alone: the joined word is", () => {
    const out = redact([`npm config set //registry.npmjs.org/:_auth ${npm.slice(0, 10)}`, npm.slice(10)].join("\n"));
    expect(out).not.toContain(npm.slice(0, 10));
    expect(out).not.toContain(npm.slice(10));
  });

  test("a value continued after a trailing backslash", () => {
    const out = redact(["export API_TOKEN=Qw3rTy7uIo\\", "Pa5sDf9gHj", "$ make"].join("\n"));
    expect(out).not.toContain("Pa5sDf9gHj");
    expect(out.split("\n")[2]).toBe("$ make");
  });

  test.each([
    ["a command", "git push origin main"],
    ["a word", "Done"],
    ["a product name", "1Password account kit"],
    ["a file name", "README.md"],
    ["an assignment", "HF_TOKEN=$HF_TOKEN python train.py"],
    ["indented code", "  return token;"],
  ])("an ordinary next line stays: %s", (_why, next) => {
    const out = redact([`export GH_TOKEN=${tok}`, next].join("\n"));
    expect(out.split("\n")).toEqual([`export GH_TOKEN=${SECRET}`, next]);
  });

  test("an argument list continued with ` \\` is not a token", () => {
    const text = ["docker run --rm \\", "  -e LOG_LEVEL=debug app"].join("\n");
    expect(redact(text)).toBe(text);
  });
});

describe("base64 that decodes to a secret", () => {
  const env = "APP_ENV=production\nDB_PASSWORD=Hunter2-but-longer-9\nLOG_LEVEL=info\n";
  const b64 = btoa(env);

  test("on one line (`base64 -w0 .env`)", () => {
    const out = redact(`$ base64 -w0 .env\n${b64}`);
    expect(out).toBe(`$ base64 -w0 .env\n${SECRET}`);
  });

  test("wrapped at 76 columns (`base64 .env`): every line of the run goes", () => {
    const lines = b64.match(/.{1,76}/g) ?? [];
    expect(lines.length).toBeGreaterThan(1);
    const out = redact(["$ base64 .env", ...lines, "$ ls"].join("\n")).split("\n");
    expect(out).toEqual(["$ base64 .env", ...lines.map(() => SECRET), "$ ls"]);
  });

  test("base64 of ordinary text, or of binary data, stays", () => {
    const text = btoa("nothing secret in this sentence at all");
    const binary = btoa(String.fromCharCode(...Array.from({ length: 90 }, (_, i) => (i * 53) % 256)));
    expect(redact(text)).toBe(text);
    expect(redact(binary)).toBe(binary);
  });
});
