export {
  createSignalGateway,
  MissingConfig,
  reconnectDelay,
  SIGNAL_DEFAULT_HTTP_URL,
  SIGNAL_RECONNECT,
  SIGNAL_WATCHDOG,
  SignalGateway,
  type SignalGatewayOptions,
} from "./signal-gateway.js";
export { SignalRpcError } from "./rpc.js";
