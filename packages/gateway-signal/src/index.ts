export {
  createGateway,
  MESSAGE_LIMIT,
  SIGNAL_DEFAULT_HTTP_URL,
  SIGNAL_RECORD_RETRY,
  SignalGateway,
  type SignalGatewayOptions,
} from "./gateway.js";
export { reconnectDelay, SIGNAL_RECONNECT, SIGNAL_WATCHDOG } from "./connection.js";
export { SignalRpcError } from "./api.js";
