// Terminal escapes in file or argument text are shown, never obeyed.
import { expect, test } from "bun:test";
import { printable } from "../../src/printable";

test.each([
  ["\u001b[2J\u001b]0;pwned\u0007clear", "\\x1b[2J\\x1b]0;pwned\\x07clear"],
  ["bell\u0007 del\u007f c1\u009b", "bell\\x07 del\\x7f c1\\x9b"],
  ["lines\nand\ttabs stay", "lines\nand\ttabs stay"],
  ["plain, ünïcödé and emoji 🚩", "plain, ünïcödé and emoji 🚩"],
])("%j", (input, want) => expect(printable(input)).toBe(want));
