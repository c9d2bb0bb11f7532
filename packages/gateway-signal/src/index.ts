export {
  createGateway,
  MESSAGE_LIMIT,
  SIGNAL_RECORD_RETRY,
  SignalGateway,
  type SignalGatewayOptions,
} from "./gateway.js";
export { reconnectDelay, SIGNAL_RECONNECT, SIGNAL_WATCHDOG } from "./connection.js";
export { SignalRpcError } from "./api.js";
export { adapter } from "./adapter.js";
export { doctor } from "./doctor.js";
export { entrySchema, SIGNAL_DEFAULT_HTTP_URL, type SignalEntry } from "./schema.js";
