/**
 * Sentinel log lines: an RFC 3339 UTC timestamp, a space, the message (SEN-21). What vx itself
 * writes is logged as it is (a validation message naming a corrupt file must stay readable); text
 * that came from elsewhere (a pane, another program's output) is redacted where it is put into a
 * message (SEN-25): `foreign` for such text, `errorText` for an error.
 */
import type { Output } from "../deps";
import { MuxError, VxError, errorMessage } from "../errors";
import { redact } from "../redact";
import { type Clock, isoTime } from "../time";

export type Log = (message: string) => void;

export function createLog(out: Output, clock: Clock): Log {
  return (message) => {
    out.write(`${isoTime(clock.now())} ${message}\n`);
  };
}

/** Text from a pane or another program, made safe to log. */
export function foreign(text: string): string {
  return redact(text);
}

/**
 * An error's message for the log: vx's own errors as they are; a terminal backend's (it may quote
 * the pane) or any other program's, redacted.
 */
export function errorText(err: unknown): string {
  const message = errorMessage(err);
  return err instanceof VxError && !(err instanceof MuxError) ? message : redact(message);
}
