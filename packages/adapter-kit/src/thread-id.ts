// A thread id for platforms whose thread is a room or channel plus a root message (Matrix, Mattermost):
// `container` alone, or `container|root`. The bar is in neither platform's ids.

export function joinThread(container: string, root?: string): string {
  return root ? `${container}|${root}` : container;
}

export function splitThread(thread: string): { container: string; root?: string } {
  const bar = thread.indexOf("|");
  return bar < 0 ? { container: thread } : { container: thread.slice(0, bar), root: thread.slice(bar + 1) };
}
