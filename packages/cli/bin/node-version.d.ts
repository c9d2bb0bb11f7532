/** The message for a Node older than agentsvc supports, or undefined when `version` is fine. */
export function nodeVersionProblem(version?: string): string | undefined;
