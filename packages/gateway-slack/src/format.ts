// Markdown -> Slack mrkdwn (https://api.slack.com/reference/surfaces/formatting): `&`, `<`, `>`
// escaped; bold `*x*`, italics `_x_`, strikethrough `~x~`, links `<url|text>`, headings bold; code kept.

const escapeMrkdwn = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

// Bold is marked with a private-use character while italics are rewritten, so `**x**` -> `*x*` is
// not read again as italics.
const BOLD = "\u{E000}";

function inline(text: string): string {
  return escapeMrkdwn(text)
    .replace(/^#{1,6} +(.+)$/gm, `${BOLD}$1${BOLD}`)
    .replace(/\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)/g, "<$2|$1>")
    .replace(/\*\*([^*\n]+)\*\*/g, `${BOLD}$1${BOLD}`)
    .replace(/__([^_\n]+)__/g, `${BOLD}$1${BOLD}`)
    .replace(/(^|[^\w*])\*(?!\s)([^*\n]+?)\*(?![\w*])/g, "$1_$2_")
    .replace(/~~([^~\n]+)~~/g, "~$1~")
    .replaceAll(BOLD, "*");
}

export function markdownToMrkdwn(markdown: string): string {
  return markdown
    .split(/(```[\s\S]*?```|`[^`\n]+`)/)
    .map((part, i) => (i % 2 === 1 ? escapeMrkdwn(part.replace(/^```[\w+-]*\n/, "```\n")) : inline(part)))
    .join("");
}
