// Discord's ids are snowflakes (https://discord.com/developers/docs/reference#snowflakes): the
// milliseconds since the Discord epoch (2015-01-01) shifted left 22 bits, then worker, process and
// a 12-bit increment. They grow with time and never repeat, across restarts too; a fake that counts
// from a constant would hand out the ids of before a restart again.
const DISCORD_EPOCH_MS = 1_420_070_400_000n;

/** The last snowflake made in this process: every fake shares it, so two fakes never collide either. */
let last = 0n;

export function nextSnowflake(now: number = Date.now()): string {
  const fromTime = (BigInt(now) - DISCORD_EPOCH_MS) << 22n;
  last = fromTime > last ? fromTime : last + 1n;
  return String(last);
}

/** When a snowflake was made (ms epoch). */
export function snowflakeTime(id: string): number {
  return Number((BigInt(id) >> 22n) + DISCORD_EPOCH_MS);
}
