// A `posted` WebSocket event to what the session gets, or a reason to ignore it. The event's
// `data.post` is the Post object JSON-encoded (https://api.mattermost.com/#tag/posts), `data.channel_type`
// is D (direct), G (group message), O (public) or P (private), `data.mentions` a JSON-encoded list of
// the user ids the post mentions (https://developers.mattermost.com/integrate/reference/websocket/).
import { type Inbound, joinThread } from "@agentsvc/adapter-kit";

interface Post {
  id: string;
  channel_id: string;
  user_id: string;
  root_id?: string;
  message?: string;
  type?: string;
  props?: Record<string, unknown>;
}

export type Reading = { kind: "message"; inbound: Inbound } | { kind: "ignored"; reason: string };

export type Bot = { id: string; username: string };

function jsonOf<T>(raw: unknown): T | undefined {
  if (typeof raw !== "string") return undefined;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return undefined;
  }
}

export function readPosted(data: Record<string, unknown>, bot: Bot): Reading {
  const post = jsonOf<Post>(data.post);
  if (!post?.id || !post.channel_id)
    return { kind: "ignored", reason: "posted event without a readable post" };
  if (post.user_id === bot.id) return { kind: "ignored", reason: "own post" };
  // System messages (joins, header changes) have a type; a user's post has "".
  if (post.type) return { kind: "ignored", reason: `post type ${post.type}` };
  // Another integration's post (webhook or bot): answering it is how two bots loop.
  if (post.props?.from_webhook === "true" || post.props?.from_bot === "true")
    return { kind: "ignored", reason: "post from an integration" };
  let text = post.message ?? "";
  const direct = data.channel_type === "D";
  if (!direct) {
    const mentions = jsonOf<unknown>(data.mentions);
    const handle = `@${bot.username}`;
    const named = (Array.isArray(mentions) && mentions.includes(bot.id)) || text.includes(handle);
    if (!named) return { kind: "ignored", reason: "channel post without a mention of the bot" };
    text = text.split(handle).join("").trim();
  }
  const root = post.root_id || undefined;
  return {
    kind: "message",
    inbound: {
      dedupKey: post.id,
      thread: joinThread(post.channel_id, root),
      text,
      author: { id: post.user_id },
      chat: { type: direct ? "direct" : "group", id: post.channel_id },
      meta: { channelId: post.channel_id, postId: post.id, ...(root ? { rootId: root } : {}) },
    },
  };
}
