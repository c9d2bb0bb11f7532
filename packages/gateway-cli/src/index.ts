export { CliGateway, type CliGatewayOptions, createCliGateway } from "./cli-gateway.js";
