// Team mentions in the bot's comments. GitHub notifies every member of a team for `@org/team`, and
// only an organization member may mention a team ("Visible teams can be viewed and @mentioned by
// every organization member",
// https://docs.github.com/en/organizations/organizing-members-into-teams/changing-team-visibility);
// the bot's account (a member, or an App installed on the organization) may, a visitor who is not a
// member may not. So a visitor who gets the agent to repeat `@org/team` would notify the whole
// team through the bot: the bot's comments carry it with a zero-width joiner after the `@` (shown
// the same, no longer a mention). `@user` is left as written: anyone who can comment can mention
// any user themselves, so repeating one gives a visitor nothing, and the bot names people on
// purpose ("@alice, done"). Mentions are read in the rendered comment's text, outside code and
// links (https://docs.github.com/en/get-started/writing-on-github/getting-started-with-writing-and-formatting-on-github/basic-writing-and-formatting-syntax#mentioning-people-and-teams):
// those are left as written, so a command like `npm i @angular/core` in code still copies as is.
import { type MarkdownNode, quietMentions, rangeOf } from "@agentsvc/markdown";

/** An `@` starting `org/team`: a login (letters, digits, `-`), a slash, a team slug's first character. */
const TEAM = /@(?=[a-z\d][a-z\d-]*\/[\w-])/giu;

/** `markdown` with every team mention GitHub would read broken; anything else as written. */
export function quietTeamMentions(markdown: string): string {
  return quietMentions(markdown, { mention: TEAM, ranges: (tree) => readRanges(tree, []) });
}

/**
 * The source ranges GitHub reads mentions in: text outside links, and raw HTML (its text renders).
 * Code, a link (its text and destination), an image (its alt is an attribute) are left alone.
 */
function readRanges(node: MarkdownNode, out: [number, number][]): [number, number][] {
  switch (node.type) {
    case "code":
    case "inlineCode":
    case "link":
    case "linkReference":
    case "image":
    case "imageReference":
    case "definition":
    case "footnoteReference":
      return out;
    case "text":
    case "html": {
      const range = rangeOf(node);
      if (range) out.push(range);
      return out;
    }
  }
  if ("children" in node) for (const child of node.children) readRanges(child, out);
  return out;
}
