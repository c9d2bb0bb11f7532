// The RunManager the server uses when metrics are on: every run it starts, resumes or continues is
// handed to the metrics once, with its start time. Off, the plain RunManager is used.
import { RunManager, type RunHandle } from "@agentsvc/agent-core";

export type RunObserver = (handle: RunHandle, startedAt: number) => void;

export class MeteredRunManager extends RunManager {
  #observe: RunObserver;

  constructor(options: ConstructorParameters<typeof RunManager>[0], observe: RunObserver) {
    super(options);
    this.#observe = observe;
  }

  override start(...args: Parameters<RunManager["start"]>): RunHandle {
    const startedAt = performance.now();
    const handle = super.start(...args);
    this.#observe(handle, startedAt);
    return handle;
  }

  override async resume(...args: Parameters<RunManager["resume"]>): Promise<RunHandle> {
    const startedAt = performance.now();
    const handle = await super.resume(...args);
    this.#observe(handle, startedAt);
    return handle;
  }

  override async continueInterrupted(
    ...args: Parameters<RunManager["continueInterrupted"]>
  ): Promise<RunHandle> {
    const startedAt = performance.now();
    const handle = await super.continueInterrupted(...args);
    this.#observe(handle, startedAt);
    return handle;
  }
}
