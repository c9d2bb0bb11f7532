export {
  createTeamsGateway,
  createTeamsGateway as createGateway,
  DEFAULT_LOGIN_BASE_URL,
  DEFAULT_OPENID_METADATA_URL,
  DEFAULT_SERVICE_URL,
  DEFAULT_TENANT_ID,
  TeamsGateway,
  type TeamsGatewayOptions,
  TEXT_LIMIT,
} from "./teams-gateway.js";
export { approvalCard, clickedDecision, decidedCard } from "./approval-card.js";
export { BotToken, EARLY_REFETCH_MS } from "./bot-token.js";
export { CLOCK_SKEW_SECONDS, CONNECTOR_ISSUER, ConnectorAuth } from "./connector-auth.js";
