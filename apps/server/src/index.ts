export {
  allowedHostsOf,
  createServer,
  type AgentServer,
  type GatewayRoute,
  type ServerOptions,
} from "./compose.js";
export {
  listenError,
  resolvePort,
  shutdownOnSignals,
  startServer,
  type ListenOptions,
  type RunningServer,
} from "./listen.js";
export { readEnv } from "./env.js";
export { createLogger, LOG_FORMATS, type LogFormat, type LoggerOptions, logLevel } from "./logger.js";
export { installCommand, type MissingAdapters, missingAdapters } from "./install-command.js";
export { StoreSet } from "./stores.js";
export { createSpendMeter, type SpendMeter, type SpendMeterOptions } from "./spend-meter.js";
export { meterRuns } from "./spend-runs.js";
