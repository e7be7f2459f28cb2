#!/usr/bin/env bun
/** Entry point: the only place the process exits. */
import { main } from "./main";

// Exit explicitly: a finished command must not linger on an open stdin reader or timer.
// (No top-level await: the binary is compiled to bytecode, which needs a CommonJS entry.)
void main(process.argv.slice(2)).then((code) => process.exit(code));
