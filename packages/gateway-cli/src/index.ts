export {
  CliGateway,
  type CliGatewayOptions,
  createCliGateway,
  createCliGateway as createGateway,
} from "./cli-gateway.js";
