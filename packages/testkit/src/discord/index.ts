export { DiscordFake, type DiscordFakeOptions } from "./fake.js";
export {
  DISCORD_UPLOAD_LIMIT,
  type DiscordBotMessage,
  type DiscordComponent,
  DiscordRest,
  type DiscordSentFile,
} from "./rest.js";
export {
  type ConnectionInfo as DiscordConnectionInfo,
  DiscordSessions,
  type RestFault as DiscordRestFault,
  type UserMessage as DiscordUserMessage,
} from "./sessions.js";
