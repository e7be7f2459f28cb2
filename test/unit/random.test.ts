import { describe, expect, test } from "bun:test";
import { createHash, createHmac } from "node:crypto";
import { hmacSha256Hex, randomHex, sameSecret, sha256Hex } from "../../src/random";

describe("random names and digests without node:crypto", () => {
  test("randomHex gives 2 hex digits per byte, different each time", () => {
    const a = randomHex(16);
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(randomHex(16)).not.toBe(a);
    expect(randomHex(0)).toBe("");
  });

  test("the digests are node's own, for ASCII and multi-byte text", () => {
    for (const text of ["", "page:4242", "é😀\u0000x"]) {
      expect(sha256Hex(text)).toBe(createHash("sha256").update(text).digest("hex"));
      expect(hmacSha256Hex("tok€n", text)).toBe(createHmac("sha256", "tok€n").update(text).digest("hex"));
    }
  });

  test("sameSecret: equal strings only, whatever their lengths", () => {
    expect(sameSecret("abc", "abc")).toBe(true);
    expect(sameSecret("abc", "abd")).toBe(false);
    expect(sameSecret("abc", "abcd")).toBe(false);
    expect(sameSecret("", "")).toBe(true);
    expect(sameSecret("é", "e\u0301")).toBe(false);
  });
});
