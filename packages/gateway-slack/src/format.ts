// Markdown -> Slack, rendered by the shared Markdown front end (@agentsvc/markdown). A reply is cut
// on its Markdown tree into pieces that fit 4 000 characters both as mrkdwn
// (https://docs.slack.dev/messaging/formatting-message-text: `*bold*`, `_italic_`, `~strike~`,
// `<url|text>`, `&` `<` `>` escaped) and as the Markdown the streaming methods take
// (https://docs.slack.dev/reference/methods/chat.startStream `markdown_text`); each piece is
// rendered when it is sent, as mrkdwn for chat.postMessage and chat.update, as Markdown for a stream.
export { slackPieces, toMrkdwn as markdownToMrkdwn, toSlackMarkdown } from "@agentsvc/markdown";

/** `&lt;` `&gt;` `&amp;` back to `<` `>` `&`, the only three Slack escapes. */
export const unescapeMrkdwn = (s: string) =>
  s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
