// Voice notes as text for the entries that ask for it (`media.transcribe: true`, issue #46; the
// webui exposure's block for runs without a gateway origin: the chat page's and the agent route's): one
// transcription model per distinct `media.transcriptionModel`, built at start (a missing key or
// package stops start-up naming the entry file), and the run manager's step that gives a turn's
// audio its transcript: read back from blob_transcripts when the same audio was transcribed before,
// else read from the blob store, transcribed, and kept beside the blob.
import { createTranscriber, type TranscribeAttachment, type Transcriber } from "@agentsvc/agent-core";
import type { BlobStore } from "@agentsvc/chat-store";
import { DEFAULT_TRANSCRIPTION_MODEL, type MediaConfig, type Project } from "@agentsvc/config-schema";
import { installCommand } from "./install-command.js";
import { registryKeyOf } from "./gateways.js";

/** The transcriber of the project's entries, or undefined when none transcribes. */
export function transcriberOf(
  project: Project,
  blobs: BlobStore,
  env: NodeJS.ProcessEnv,
): TranscribeAttachment | undefined {
  const byGateway = new Map<string, Transcriber>();
  const built = new Map<string, Transcriber>();
  const build = (media: MediaConfig, file: string): Transcriber => {
    const model = media.transcriptionModel ?? DEFAULT_TRANSCRIPTION_MODEL;
    const key = JSON.stringify(model);
    let transcriber = built.get(key);
    if (transcriber) return transcriber;
    try {
      transcriber = createTranscriber(model, {
        env,
        root: project.root,
        installCommand: (pkg: string) => installCommand(project.root, pkg),
      });
    } catch (error) {
      throw Object.assign(new Error(`${file}: ${(error as Error).message}`), {
        code: (error as { code?: string }).code,
      });
    }
    built.set(key, transcriber);
    return transcriber;
  };
  for (const entry of [...project.channels, ...project.pushGateways]) {
    const media = (entry as { media?: MediaConfig }).media;
    if (media?.transcribe) byGateway.set(registryKeyOf(entry), build(media, entry.file));
  }
  // Runs without a gateway origin (the chat page's, the agent route's) follow the webui exposure's block.
  const page = project.exposures.find((e) => e.exposes === "webui" && e.media?.transcribe);
  const pageTranscriber = page?.exposes === "webui" && page.media ? build(page.media, page.file) : undefined;
  if (byGateway.size === 0 && !pageTranscriber) return undefined;
  return async (file, origin, signal) => {
    const transcriber = origin ? byGateway.get(origin.gateway) : pageTranscriber;
    if (!transcriber) return undefined;
    const known = await blobs.transcript(file.blob);
    if (known) return known.text;
    const bytes = await blobs.read(file.blob);
    if (!bytes) return undefined;
    const text = await transcriber.transcribe(bytes, file.contentType, signal);
    await blobs.setTranscript(file.blob, transcriber.model, text);
    return text;
  };
}
