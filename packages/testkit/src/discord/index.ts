export { DiscordFake, type DiscordFakeOptions } from "./fake.js";
export { type DiscordBotMessage, type DiscordComponent, DiscordRest } from "./rest.js";
export {
  type ConnectionInfo as DiscordConnectionInfo,
  DiscordSessions,
  type RestFault as DiscordRestFault,
  type UserMessage as DiscordUserMessage,
} from "./sessions.js";
