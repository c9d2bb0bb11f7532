import type { Command } from "../command.js";
import { buildCommand } from "./build.js";
import { checkCommand } from "./check.js";
import { devCommand } from "./dev.js";
import { doctorCommand } from "./doctor.js";
import { hashPasswordCommand } from "./hash-password.js";
import { initCommand } from "./init.js";
import { outboxCommand } from "./outbox.js";
import { pairingCommand } from "./pairing.js";
import { schedulesCommand } from "./schedules.js";
import { startCommand } from "./start.js";
import { usageCommand } from "./usage.js";

/**
 * Every verb of `agentsvc`, in help order. To add one (start, dev, hash-password): write
 * src/commands/<verb>.ts exporting a Command, then add it here with one line.
 */
export const commands: Command[] = [
  initCommand,
  checkCommand,
  doctorCommand,
  buildCommand,
  startCommand,
  devCommand,
  hashPasswordCommand,
  outboxCommand,
  pairingCommand,
  schedulesCommand,
  usageCommand,
];
