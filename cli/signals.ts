/** A clean stop on SIGINT/SIGTERM for every long-running entry point. */

/**
 * Runs `stop` once on the first SIGINT/SIGTERM, then exits; a second signal exits at once.
 * The entry point owns these signals: handlers that libraries registered before are
 * dropped (miniflare's exits at once on SIGINT, so `stop` never ran; its exit hook,
 * which kills workerd, stays).
 */
export function stopOnSignal(stop: () => Promise<void>, onSignal: (signal: string) => void = () => undefined): void {
  let stopping = false;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.removeAllListeners(signal);
    process.on(signal, () => {
      if (stopping) process.exit(130);
      stopping = true;
      onSignal(signal);
      stop().then(
        () => process.exit(0),
        (error: unknown) => {
          console.error(error);
          process.exit(1);
        },
      );
    });
  }
}
