// Provider fakes: one module per wire format over a shared core (core.ts), scripted with script.ts.
export { ProviderFake, type ProviderFakeOptions } from "./core.js";
export { FakeOpenAI, type FakeOpenAIOptions, OPENAI_TEST_KEY, type OpenAIFlavor } from "./openai.js";
export { ANTHROPIC_TEST_KEY, FakeAnthropic } from "./anthropic.js";
export { FakeGemini, GEMINI_TEST_KEY } from "./gemini.js";
export {
  FakeTranscriptions,
  type FakeTranscriptionsOptions,
  TRANSCRIPTION_MAX_BYTES,
  type TranscriptionRequest,
  type TranscriptionStep,
} from "./transcriptions.js";
export { loadProviderFixtures, type ProviderFixture } from "./fixtures.js";
export type {
  RecordedEvent,
  RecordedRequest,
  RequestOutcome,
  ScriptedAnswer,
  ScriptedFault,
  ScriptedFinish,
  ScriptedStep,
  ScriptedToolCall,
} from "./script.js";
