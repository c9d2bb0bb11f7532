// Thread ids: a DM is one conversation (`<channel>`); in a channel each thread is one
// (`<channel>:<thread ts>`), so a mention starts a thread and the replies go into it.

export function threadId(channel: string, threadTs: string | undefined): string {
  return threadTs ? `${channel}:${threadTs}` : channel;
}

export function parseThread(thread: string): { channel: string; threadTs?: string } {
  const i = thread.indexOf(":");
  return i < 0 ? { channel: thread } : { channel: thread.slice(0, i), threadTs: thread.slice(i + 1) };
}
