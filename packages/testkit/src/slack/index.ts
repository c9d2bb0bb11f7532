export { SlackFiles, type SlackSharedFile } from "./files.js";
export { SLACK_METHOD_LIMITS, SlackFake, type SlackFakeOptions } from "./fake.js";
export type {
  SlackBlock,
  SlackBotMessage,
  SlackButton,
  SlackConnectionInfo,
  SlackEnvelope,
  SlackFault,
} from "./types.js";
export { SlackWorkspace, type UserSays as SlackUserSays } from "./workspace.js";
