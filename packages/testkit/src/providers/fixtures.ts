// The recorded-stream corpus: fixtures/providers/<provider>/*.json, each one documented sample
// stream (its `source` page), replayable by the provider's fake as a scripted step's `transcript`.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { RecordedEvent } from "./script.js";

export interface ProviderFixture {
  file: string;
  /** The page the stream was taken from. */
  source: string;
  /** What the stream shows, in a sentence. */
  case: string;
  /** The model named in the request the stream answers. */
  model: string;
  events: RecordedEvent[];
  /** What a client of the agent gets from it. */
  expect: {
    text: string;
    reasoning?: string;
    toolCalls?: { name: string; arguments: unknown }[];
    finishReason: string;
    usage?: { inputTokens?: number; outputTokens?: number };
    /** The typed error code a client gets when the stream fails part-way (`overloaded`, …). */
    error?: string;
  };
}

/** Every fixture of one provider (`openai`, `openai-compatible`, `anthropic`, `google`), by file name. */
export function loadProviderFixtures(provider: string): ProviderFixture[] {
  const dir = join(import.meta.dirname, "../../fixtures/providers", provider);
  return readdirSync(dir)
    .filter((file) => file.endsWith(".json"))
    .sort()
    .map((file) => ({
      file,
      ...(JSON.parse(readFileSync(join(dir, file), "utf8")) as Omit<ProviderFixture, "file">),
    }));
}
