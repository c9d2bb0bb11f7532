// Platform fakes, one folder each (src/<platform>/), exported here.
export { type FakeServer, freePort, listenLocal } from "./server.js";
export { type RateLimit, type Refusal, RateWindow } from "./rate-window.js";
export {
  type HostedWebhookRoute,
  hostWebhooks,
  type WebhookHost,
  type WebhookHostOptions,
} from "./webhook-host.js";
export { callWebhook, type WebhookAnswer } from "./http-util.js";
export {
  FakeWhatsApp,
  type FakeWhatsAppOptions,
  STATUS_ERRORS as WHATSAPP_STATUS_ERRORS,
  type WhatsAppInbound,
  type WhatsAppMediaInbound,
  type WhatsAppSent,
  type WhatsAppStatusError,
} from "./whatsapp/fake-whatsapp.js";
export {
  FakeTwilio,
  type FakeTwilioOptions,
  type TwilioInbound,
  type TwilioMedia,
  type TwilioSent,
  twilioSignature,
} from "./twilio/fake-twilio.js";
export {
  FakeGitHub,
  type FakeGitHubOptions,
  type GitHubPosted,
  type GitHubUser,
} from "./github/fake-github.js";
export {
  type ConnectorKey,
  connectorKey,
  FakeTeams,
  type FakeTeamsOptions,
  newConversationId,
  type TeamsSent,
  type TeamsStream,
  type TeamsUpload,
  type TeamsUser,
} from "./teams/fake-teams.js";
export {
  FakeSignalDaemon,
  type SignalDaemonOptions,
  type SignalDirectMessage,
  type SignalReceiveMode,
  type SignalReceipt,
  type SignalRpcCall,
  type SignalRpcFailure,
  type SignalSent,
  type SignalSentFile,
  startSignalDaemon,
} from "./signal/daemon.js";
export { eventually, within } from "./wait.js";
export { type CapturedLogs, captureLogs, type LogLine } from "./logs.js";
export * from "./telegram/index.js";
export * from "./slack/index.js";
export * from "./discord/index.js";
export * from "./email/index.js";
export * from "./providers/index.js";
export { ManualScheduler } from "./manual-scheduler.js";
export * from "./matrix/fake.js";
export * from "./mattermost/fake.js";
