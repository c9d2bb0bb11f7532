// Threads: a Discord thread id is its channel id (DMs, guild channels and threads are all
// channels), so the thread codec is the identity. What this file keeps is the durable memory the
// group rules need: the threads the bot already posted in (so a follow-up there needs no mention)
// and the bot's managed role per guild (a role mention of it counts as a mention).
import type { GatewayStateStore } from "@agentsvc/adapter-kit";

const THREADS_KEY = "answered-threads";
const ROLES_KEY = "bot-roles";
/** Most recently answered threads kept; older ones need a mention again. */
export const ANSWERED_THREADS_LIMIT = 2_000;

export class ThreadMemory {
  #threads: string[] | undefined;
  #roles: Record<string, string> | undefined;

  readonly #state: GatewayStateStore;

  constructor(state: GatewayStateStore) {
    this.#state = state;
  }

  async answered(channelId: string): Promise<boolean> {
    return (await this.#loadThreads()).includes(channelId);
  }

  /** Remembers that the bot posted in this thread (most recent last, bounded). */
  async markAnswered(channelId: string): Promise<void> {
    const threads = await this.#loadThreads();
    const at = threads.indexOf(channelId);
    if (at === threads.length - 1 && at >= 0) return;
    if (at >= 0) threads.splice(at, 1);
    threads.push(channelId);
    if (threads.length > ANSWERED_THREADS_LIMIT) threads.splice(0, threads.length - ANSWERED_THREADS_LIMIT);
    await this.#state.set(THREADS_KEY, threads);
  }

  async botRole(guildId: string): Promise<string | undefined> {
    return (await this.#loadRoles())[guildId];
  }

  async setBotRole(guildId: string, roleId: string): Promise<void> {
    const roles = await this.#loadRoles();
    if (roles[guildId] === roleId) return;
    roles[guildId] = roleId;
    await this.#state.set(ROLES_KEY, roles);
  }

  async #loadThreads(): Promise<string[]> {
    this.#threads ??= (await this.#state.get<string[]>(THREADS_KEY)) ?? [];
    return this.#threads;
  }

  async #loadRoles(): Promise<Record<string, string>> {
    this.#roles ??= (await this.#state.get<Record<string, string>>(ROLES_KEY)) ?? {};
    return this.#roles;
  }
}

interface Role {
  id: string;
  tags?: { bot_id?: string };
}

/**
 * The bot's managed role among `roles` (GUILD_CREATE, GUILD_ROLE_CREATE/UPDATE): the role whose
 * `tags.bot_id` is the bot (https://discord.com/developers/docs/topics/permissions#role-object-role-tags-structure).
 */
export function botRoleIn(
  roles: readonly Role[] | undefined,
  botUserId: string | undefined,
): string | undefined {
  if (!botUserId) return undefined;
  return roles?.find((r) => r.tags?.bot_id === botUserId)?.id;
}
