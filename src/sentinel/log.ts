/** Sentinel log lines: an RFC 3339 UTC timestamp, a space, the message (SEN-21). */
import type { Output } from "../deps";
import { redact } from "../redact";
import { type Clock, isoTime } from "../time";

export type Log = (message: string) => void;

/** Every line is redacted before it is written: messages can carry pane text (SEN-25). */
export function createLog(out: Output, clock: Clock): Log {
  return (message) => {
    out.write(`${isoTime(clock.now())} ${redact(message)}\n`);
  };
}
