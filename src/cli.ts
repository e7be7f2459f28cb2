#!/usr/bin/env bun
/** Entry point: the only place the process's exit code is set. */
import { main } from "./main";

// exit explicitly: a finished command must not linger on an open stdin reader or timer.
process.exit(await main(process.argv.slice(2)));
