export { allowedHostsOf, createServer, type AgentServer, type ServerOptions } from "./compose.js";
export {
  resolvePort,
  shutdownOnSignals,
  startServer,
  type ListenOptions,
  type RunningServer,
} from "./listen.js";
export { readEnv } from "./env.js";
