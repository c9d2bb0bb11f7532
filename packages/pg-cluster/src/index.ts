export { advisoryKey, KEY_PREFIX, leaderLockName, threadKey, threadLockName } from "./keys.js";
export {
  InstanceLink,
  type InstanceLinkOptions,
  LinkDownError,
  type LinkLost,
  type LinkNotification,
} from "./link.js";
export {
  type LeaderHandle,
  type LeadHandlers,
  Leadership,
  LeadershipEndedError,
  type LeadershipOptions,
  type LeadOptions,
} from "./leadership.js";
export type { SessionLock } from "./incarnation.js";
export { roleLock } from "./role-lock.js";
export { ThreadLockLostError, ThreadLocks } from "./thread-locks.js";
export {
  Bus,
  type BusDelivery,
  type BusHandler,
  type BusMessage,
  type BusOptions,
  BusPayloadTooLargeError,
  type BusSubscribeOptions,
  busPayload,
  NOTIFY_PAYLOAD_LIMIT,
} from "./bus.js";
