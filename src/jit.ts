/**
 * The compiled binary starts with JavaScriptCore's tier-up thresholds raised (scripts/build-options.ts' `jitPolicy`), which
 * spares a command's run-once start-up code the JIT. A process that stays to work calls this once it is in its loop, so its
 * passes and requests are compiled as usual. From source (policy 1 already) it changes nothing.
 */
export function normalJit(): void {
  Bun.unsafe.setJITPolicy(1);
}
