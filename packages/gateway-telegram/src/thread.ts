// Thread ids: a chat is `<chatId>`; a forum topic inside a supergroup is `<chatId>:<topicId>`.

/** The part of a Bot API Message the thread id is made of. */
export interface ThreadSource {
  chat: { id: number };
  message_thread_id?: number;
  is_topic_message?: boolean;
}

export function threadOf(message: ThreadSource): string {
  // In a non-forum supergroup a reply also carries message_thread_id; only forum topics are threads.
  return message.is_topic_message && message.message_thread_id !== undefined
    ? `${message.chat.id}:${message.message_thread_id}`
    : String(message.chat.id);
}

export function parseThread(thread: string): { chatId: string; topicId?: number } {
  const [chatId, topic] = thread.split(":");
  return topic === undefined
    ? { chatId: chatId as string }
    : { chatId: chatId as string, topicId: Number(topic) };
}
