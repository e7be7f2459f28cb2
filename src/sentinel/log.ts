/**
 * Sentinel log lines (SEN-21). vx's own text is logged as is, so a message naming a corrupt file stays
 * readable; text from a pane or another program is redacted (SEN-25).
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

/** An error's message for the log: vx's own as is; a terminal backend's (it may quote the pane) or another's, redacted. */
export function errorText(err: unknown): string {
  const message = errorMessage(err);
  return err instanceof VxError && !(err instanceof MuxError) ? message : redact(message);
}
