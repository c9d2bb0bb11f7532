// Each gateway logs under its own name, `gateway-<type>`.
import { type DestinationStream, type Logger, type LevelWithSilent, pino } from "pino";

export interface LoggerSource {
  /** Derive children of this logger (create it without a `name`, or the JSON line holds two). */
  root?: Logger;
  /** Otherwise create loggers writing here (tests capture output this way); default stdout. */
  destination?: DestinationStream;
  level?: LevelWithSilent;
}

export function gatewayLogger(type: string, source: LoggerSource = {}): Logger {
  const name = `gateway-${type}`;
  if (source.root) return source.root.child({ name });
  const options = { name, level: source.level ?? "info" };
  return source.destination ? pino(options, source.destination) : pino(options);
}

/** The session's own logger (`gateway-session`). */
export function sessionLogger(source: LoggerSource = {}): Logger {
  return gatewayLogger("session", source);
}
