export {
  DEFAULT_PBKDF2_ITERATIONS,
  hashPassword,
  isPasswordHash,
  needsRehash,
  parsePasswordHash,
  verifyPassword,
  type ParsedPasswordHash,
} from "./password.js";
