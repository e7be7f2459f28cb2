/**
 * What of `dist/vx`'s build changes how the program starts and runs: scripts/build.ts compiles vx
 * with it, and the benches build their "like vx" baselines with it. No `--smol` in `execArgv`: it
 * slowed every start (the Stop hook's drain runs on every commander turn) and the sentinel, the
 * long-lived process, held no less memory with it (bench/drain.ts, bench/sentinel-pass.ts).
 */
export const LIKE_VX = { bytecode: true, format: "esm" } as const;

/** The runtime never autoloads `.env` or bunfig from whatever directory it runs in. */
export const LIKE_VX_COMPILE = { autoloadDotenv: false, autoloadBunfig: false } as const;
