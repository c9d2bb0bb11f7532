// Markdown -> Discord's markdown, rendered by the shared Markdown front end (@agentsvc/markdown)
// from the parsed tree (https://support.discord.com/hc/en-us/articles/210298617): what Discord
// renders stays (bold, italics, strike, code, quotes, lists, `#`-`###` headings, masked links),
// deeper headings become bold lines, images links, tables code blocks of aligned columns; text the
// model typed is escaped and never becomes a mention. A reply is cut on the tree at 2 000 characters.
export { discordPieces, toDiscord as markdownToDiscord } from "@agentsvc/markdown";
